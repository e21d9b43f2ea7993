package sql

import (
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// CreateIndexStmt is CREATE INDEX [CONCURRENTLY] [[IF NOT EXISTS] name]
// ON [ONLY] relation [USING btree] (column [ASC | DESC] [NULLS {FIRST |
// LAST}], ...) [INCLUDE (column, ...)] [WITH (...)]. CONCURRENTLY and
// ONLY change nothing (an index is always built while writes go on).
type CreateIndexStmt struct {
	Name        string // "" when omitted
	IfNotExists bool
	Table       string
	Keys        []IndexElem
	Include     []string
	With        map[string]string
	// Unique: CREATE UNIQUE INDEX.
	Unique bool
}

// IndexElem is one key column of CREATE INDEX.
type IndexElem struct {
	Column string
	Desc   bool
	// Nulls is "first" or "last" as written; "" for the default (last
	// for ASC, first for DESC).
	Nulls string
}

func (*CreateIndexStmt) node() {}

// indexMethods are Postgres's access methods other than btree, which
// streamdb does not have.
var indexMethods = wordSet(`hash gist gin spgist brin`)

// parseCreateIndex parses the rest of CREATE [UNIQUE] INDEX; at is the
// CREATE token's successor (UNIQUE or INDEX), unique whether UNIQUE was
// written.
func (s *stmtParser) parseCreateIndex(c *cursor, at Token, unique bool) (Node, error) {
	c.acceptWord("concurrently")
	st := &CreateIndexStmt{IfNotExists: acceptIfNotExists(c), Unique: unique}
	var err error
	if st.IfNotExists || !c.peek().isWord("on") {
		if st.Name, err = c.ident(); err != nil {
			return nil, err
		}
	}
	if err := c.expectWord("on"); err != nil {
		return nil, err
	}
	c.acceptWord("only")
	if st.Table, err = c.qualifiedName(); err != nil {
		return nil, err
	}
	if err := parseIndexMethod(c); err != nil {
		return nil, err
	}
	if err := c.expectPunct("("); err != nil {
		return nil, err
	}
	for {
		e, err := parseIndexElem(c)
		if err != nil {
			return nil, err
		}
		st.Keys = append(st.Keys, e)
		if !c.acceptPunct(",") {
			break
		}
	}
	if err := c.expectPunct(")"); err != nil {
		return nil, err
	}
	return st, parseIndexTail(c, st)
}

// parseIndexMethod parses USING method: btree, the one streamdb has.
func parseIndexMethod(c *cursor) error {
	if !c.acceptWord("using") {
		return nil
	}
	t := c.peek()
	name, err := c.ident()
	switch {
	case err != nil || strings.EqualFold(name, "btree"):
		return err
	case wordIn(t, indexMethods):
		return notSupportedAt(c.query, t, "access method %q is not supported: streamdb indexes are btree indexes", name)
	}
	return pgerr.New(pgerr.UndefinedObject, "access method %q does not exist", name).WithPosition(position(c.query, t.Pos))
}

// parseIndexElem parses column [ASC | DESC] [NULLS {FIRST | LAST}].
func parseIndexElem(c *cursor) (IndexElem, error) {
	var e IndexElem
	t := c.peek()
	if t.isPunct("(") || c.peekAt(1).isPunct("(") || c.peekAt(1).isPunct(".") {
		return e, notSupportedAt(c.query, t, "index expressions are not supported: index columns only")
	}
	var err error
	if e.Column, err = c.ident(); err != nil {
		return e, err
	}
	if t := c.peek(); t.isWord("collate") || t.Kind == TokIdent && !wordIn(t, indexElemEnd) {
		return e, notSupportedAt(c.query, t, "COLLATE and operator classes in an index are not supported")
	}
	if c.acceptWord("desc") {
		e.Desc = true
	} else {
		c.acceptWord("asc")
	}
	if c.acceptWord("nulls") {
		switch {
		case c.acceptWord("first"):
			e.Nulls = "first"
		case c.acceptWord("last"):
			e.Nulls = "last"
		default:
			return e, c.errHere()
		}
	}
	return e, nil
}

// indexElemEnd are the words that may follow an index column's name.
var indexElemEnd = wordSet(`asc desc nulls`)

// parseIndexTail parses [INCLUDE (...)] [WITH (...)] after the key
// columns; partial indexes, tablespaces and NULLS [NOT] DISTINCT are
// refused.
func parseIndexTail(c *cursor, st *CreateIndexStmt) error {
	var err error
	if c.acceptWord("include") {
		if st.Include, err = c.parenIdentList(); err != nil {
			return err
		}
	}
	if t := c.peek(); t.isWord("nulls") {
		if !st.Unique || !c.acceptWords("nulls", "distinct") {
			return notSupportedAt(c.query, t, "NULLS NOT DISTINCT is not supported")
		}
	}
	if st.With, err = parseWithOptions(c); err != nil {
		return err
	}
	switch t := c.peek(); {
	case t.isWord("where"):
		return notSupportedAt(c.query, t, "partial indexes (CREATE INDEX ... WHERE) are not supported")
	case t.isWord("tablespace"):
		return notSupportedAt(c.query, t, "TABLESPACE is not supported")
	}
	return c.expectEnd()
}
