package sql

import (
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// The catalog statements of RisingWave and PostgreSQL that describe or
// annotate a relation, or empty a table: SHOW CREATE, DESCRIBE, SHOW
// COLUMNS, SHOW INDEXES, COMMENT ON and TRUNCATE. The front end parses
// them itself; the engine runs them (internal/engine/catalog_stmts.go).

// ShowCreateStmt is SHOW CREATE {TABLE | MATERIALIZED VIEW | VIEW |
// SOURCE | SINK | INDEX} name: the statement that creates the object.
type ShowCreateStmt struct {
	Kind ObjectKind
	Name string
}

// DescribeStmt is DESCRIBE name, DESC name (a relation's columns, then
// its primary key, distribution key and comment) or SHOW COLUMNS FROM
// name (ColumnsOnly: the columns alone).
type DescribeStmt struct {
	Name        string
	ColumnsOnly bool
}

// ShowIndexesStmt is SHOW INDEXES FROM name: the indexes of a relation.
type ShowIndexesStmt struct{ Name string }

// CommentStmt is COMMENT ON {TABLE | MATERIALIZED VIEW | VIEW | SOURCE |
// SINK | INDEX} name IS 'text' | NULL, or COMMENT ON COLUMN
// relation.column IS 'text' | NULL.
type CommentStmt struct {
	Kind ObjectKind
	// Column: COMMENT ON COLUMN; Name is then the relation and Column
	// the column.
	IsColumn bool
	Name     string
	Column   string
	// Text is the comment; Null is IS NULL (or IS ''), which removes it.
	Text string
	Null bool
}

// TruncateStmt is TRUNCATE [TABLE] [ONLY] name [*], ... [CONTINUE
// IDENTITY | RESTART IDENTITY] [CASCADE | RESTRICT].
type TruncateStmt struct {
	Names []string
	// RestartIdentity: RESTART IDENTITY, the sequences the tables'
	// columns own start over.
	RestartIdentity bool
}

func (*ShowCreateStmt) node()  {}
func (*DescribeStmt) node()    {}
func (*ShowIndexesStmt) node() {}
func (*CommentStmt) node()     {}
func (*TruncateStmt) node()    {}

// objectKind consumes the kind words of SHOW CREATE and COMMENT ON.
func objectKind(c *cursor) (ObjectKind, bool) {
	switch {
	case c.acceptWord("table"):
		return ObjTable, true
	case c.acceptWords("materialized", "view"):
		return ObjMaterializedView, true
	case c.acceptWord("view"):
		return ObjView, true
	case c.acceptWord("source"):
		return ObjSource, true
	case c.acceptWord("sink"):
		return ObjSink, true
	case c.acceptWord("index"):
		return ObjIndex, true
	}
	return 0, false
}

// parseShowCatalog parses the SHOW statements of this file, the cursor
// after SHOW; ok is false when the statement is another SHOW.
func parseShowCatalog(c *cursor) (n Node, ok bool, err error) {
	switch {
	case c.peek().isWord("create") && c.i+1 < len(c.toks):
		c.advance()
		kind, ok := objectKind(c)
		if !ok {
			return nil, true, c.errHere()
		}
		name, err := c.qualifiedName()
		if err != nil {
			return nil, true, err
		}
		return &ShowCreateStmt{Kind: kind, Name: name}, true, c.expectEnd()
	case c.peek().isWord("columns") && c.peekAt(1).isWord("from"):
		c.i += 2
		name, err := c.qualifiedName()
		if err != nil {
			return nil, true, err
		}
		return &DescribeStmt{Name: name, ColumnsOnly: true}, true, c.expectEnd()
	case (c.peek().isWord("indexes") || c.peek().isWord("index")) && c.peekAt(1).isWord("from"):
		c.i += 2
		name, err := c.qualifiedName()
		if err != nil {
			return nil, true, err
		}
		return &ShowIndexesStmt{Name: name}, true, c.expectEnd()
	}
	return nil, false, nil
}

// parseDescribe parses DESCRIBE name and DESC name.
func parseDescribe(c *cursor) (Node, error) {
	c.advance() // DESCRIBE | DESC
	name, err := c.qualifiedName()
	if err != nil {
		return nil, err
	}
	return &DescribeStmt{Name: name}, c.expectEnd()
}

// parseComment parses COMMENT ON kind name IS 'text' | NULL.
func parseComment(c *cursor) (Node, error) {
	c.advance() // COMMENT
	if err := c.expectWord("on"); err != nil {
		return nil, err
	}
	st := &CommentStmt{}
	if c.acceptWord("column") {
		var parts []string
		for {
			part, err := c.ident()
			if err != nil {
				return nil, err
			}
			parts = append(parts, part)
			if !c.acceptPunct(".") {
				break
			}
		}
		if len(parts) < 2 {
			return nil, pgerr.New(pgerr.SyntaxError, "column name must be qualified").WithPosition(position(c.query, c.toks[c.i-1].Pos))
		}
		st.IsColumn, st.Name, st.Column = true, strings.Join(parts[:len(parts)-1], "."), parts[len(parts)-1]
	} else {
		kind, ok := objectKind(c)
		if !ok {
			if c.eof() {
				return nil, c.errHere()
			}
			return nil, notSupportedAt(c.query, c.peek(), "COMMENT ON %s is not supported", c.query[c.peek().Pos:c.peek().End])
		}
		name, err := c.qualifiedName()
		if err != nil {
			return nil, err
		}
		st.Kind, st.Name = kind, name
	}
	if err := c.expectWord("is"); err != nil {
		return nil, err
	}
	switch t := c.peek(); {
	case t.isWord("null"):
		st.Null = true
	case t.Kind == TokString:
		st.Text, st.Null = t.Text, t.Text == ""
	default:
		return nil, c.errHere()
	}
	c.advance()
	return st, c.expectEnd()
}

// parseTruncate parses TRUNCATE [TABLE] [ONLY] name [*], ... [CONTINUE
// IDENTITY | RESTART IDENTITY] [CASCADE | RESTRICT]. Identities and
// inheritance do not exist in streamdb, so those words change nothing.
func parseTruncate(c *cursor) (Node, error) {
	c.advance() // TRUNCATE
	c.acceptWord("table")
	st := &TruncateStmt{}
	for {
		c.acceptWord("only")
		name, err := c.qualifiedName()
		if err != nil {
			return nil, err
		}
		c.acceptPunct("*")
		st.Names = append(st.Names, name)
		if !c.acceptPunct(",") {
			break
		}
	}
	if !c.acceptWords("continue", "identity") {
		st.RestartIdentity = c.acceptWords("restart", "identity")
	}
	if !c.acceptWord("cascade") {
		c.acceptWord("restrict")
	}
	return st, c.expectEnd()
}
