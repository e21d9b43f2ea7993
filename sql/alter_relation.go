package sql

import "github.com/pingcap/tidb/pkg/parser/ast"

// AlterRelationStmt is an ALTER that changes a relation's definition:
// ALTER TABLE name {ADD | DROP | RENAME | ALTER} COLUMN ... and ALTER
// {TABLE | MATERIALIZED VIEW | VIEW | SOURCE | SINK | INDEX} name RENAME
// TO new (ALTER ... PAUSE | RESUME | SET ... is AlterStmt).
type AlterRelationStmt struct {
	Kind ObjectKind
	Name string
	// IfExists is ALTER ... IF EXISTS name: a missing relation is a
	// notice, not an error.
	IfExists bool
	Action   AlterRelationAction
	// Column is the column acted on (all but AlterRename and
	// AlterAddColumn, whose column is Def).
	Column string
	// NewName is the new name of AlterRename and AlterRenameColumn.
	NewName string
	// Def is the column AlterAddColumn adds; IfNotExists is ADD COLUMN
	// IF NOT EXISTS.
	Def         ColumnDef
	IfNotExists bool
	// ColumnIfExists is DROP COLUMN IF EXISTS; Cascade is CASCADE.
	ColumnIfExists bool
	Cascade        bool
	// Default and DefaultText are AlterSetDefault's expression.
	Default     ast.ExprNode
	DefaultText string
	// TypeName is AlterSetType's new type (as ColumnDef.TypeName); Using
	// and UsingText its USING expression (nil when absent).
	TypeName  string
	Using     ast.ExprNode
	UsingText string
	// Check and Unique are the constraint AlterAddConstraint adds;
	// Constraint names the one AlterDropConstraint drops (its IF EXISTS
	// is ColumnIfExists).
	Check      *CheckDef
	Unique     *UniqueDef
	Constraint string
	// More are the actions after this one of an ALTER TABLE listing
	// several (ADD, DROP and ALTER COLUMN, separated by commas), run in
	// order as one change.
	More []*AlterRelationStmt
}

// AlterRelationAction is what an AlterRelationStmt does.
type AlterRelationAction uint8

// ALTER actions that change a relation's definition.
const (
	AlterAddColumn AlterRelationAction = iota
	AlterDropColumn
	AlterRenameColumn
	AlterRename
	AlterSetDefault
	AlterDropDefault
	AlterSetNotNull
	AlterDropNotNull
	AlterAddConstraint
	AlterDropConstraint
	// AlterSetType is ALTER [COLUMN] c [SET DATA] TYPE type [USING expr].
	AlterSetType
	// AlterDropExpression is ALTER [COLUMN] c DROP EXPRESSION [IF
	// EXISTS] (its IF EXISTS is ColumnIfExists).
	AlterDropExpression
)

// isRelationAlter reports whether the ALTER at the cursor, past its
// object kind, name and IF EXISTS, changes the relation's definition.
func isRelationAlter(c *cursor) bool {
	t := c.peek()
	return t.isWord("add") || t.isWord("drop") || t.isWord("rename") || t.isWord("alter")
}

// parseAlterRelation parses the action of an AlterRelationStmt, after
// ALTER kind [IF EXISTS] name.
func (s *stmtParser) parseAlterRelation(c *cursor, a *AlterRelationStmt) (Node, error) {
	if a.Kind != ObjTable && !c.peek().isWord("rename") || !isRelationAlter(c) {
		return nil, alterNotSupported(c)
	}
	var err error
	switch {
	case c.acceptWord("rename"):
		err = parseRename(c, a)
	case c.acceptWord("add"):
		err = s.parseAddColumn(c, a)
	case c.acceptWord("drop"):
		err = parseDropColumn(c, a)
	case c.acceptWord("alter"):
		err = s.parseAlterColumn(c, a)
	}
	if err != nil {
		return nil, err
	}
	for c.peek().isPunct(",") {
		if a.Action == AlterRename || a.Action == AlterRenameColumn {
			return nil, syntaxErrorAt(c.query, c.peek()) // RENAME stands alone
		}
		c.advance()
		next := &AlterRelationStmt{Kind: a.Kind, Name: a.Name}
		switch {
		case c.acceptWord("add"):
			err = s.parseAddColumn(c, next)
		case c.acceptWord("drop"):
			err = parseDropColumn(c, next)
		case c.acceptWord("alter"):
			err = s.parseAlterColumn(c, next)
		default:
			err = c.errHere()
		}
		if err != nil {
			return nil, err
		}
		a.More = append(a.More, next)
	}
	return a, c.expectEnd()
}

// parseRename parses, after RENAME, TO new | [COLUMN] col TO new.
func parseRename(c *cursor, a *AlterRelationStmt) error {
	var err error
	if c.peek().isWord("to") && !c.peekAt(1).isWord("to") {
		c.advance()
		a.Action = AlterRename
		a.NewName, err = c.ident()
		return err
	}
	if a.Kind == ObjIndex || a.Kind == ObjSource || a.Kind == ObjSink {
		return alterNotSupported(c)
	}
	c.acceptWord("column")
	a.Action = AlterRenameColumn
	if a.Column, err = c.ident(); err != nil {
		return err
	}
	if err := c.expectWord("to"); err != nil {
		return err
	}
	a.NewName, err = c.ident()
	return err
}

// parseAddColumn parses, after ADD, [COLUMN] [IF NOT EXISTS] name type
// [constraint ...].
func (s *stmtParser) parseAddColumn(c *cursor, a *AlterRelationStmt) error {
	if t := c.peek(); wordIn(t, addTableConstraint) {
		return s.parseAddConstraint(c, a)
	}
	c.acceptWord("column") // reserved in PostgreSQL: never a column's name
	a.Action = AlterAddColumn
	a.IfNotExists = c.acceptWords("if", "not", "exists")
	var err error
	a.Def, err = s.parseColumnDef(c, &CreateTableStmt{Name: a.Name})
	return err
}

var addTableConstraint = wordSet(`constraint primary unique check foreign exclude`)

// parseAddConstraint parses, after ADD, [CONSTRAINT name] {CHECK (expr)
// | UNIQUE (columns)}; other table constraints are not supported.
func (s *stmtParser) parseAddConstraint(c *cursor, a *AlterRelationStmt) error {
	var name string
	if c.acceptWord("constraint") {
		var err error
		if name, err = c.ident(); err != nil {
			return err
		}
	}
	a.Action = AlterAddConstraint
	switch t := c.peek(); {
	case c.acceptWord("check"):
		chk, err := s.parseCheck(c, name)
		a.Check = &chk
		return err
	case c.acceptWord("unique"):
		if c.peek().isWord("nulls") && !c.acceptWords("nulls", "distinct") {
			return notSupportedAt(c.query, c.peek(), "UNIQUE NULLS NOT DISTINCT is not supported")
		}
		cols, err := c.parenIdentList()
		a.Unique = &UniqueDef{Name: name, Columns: cols}
		return err
	case c.eof():
		return c.errHere()
	default:
		return notSupportedAt(c.query, t, "ALTER TABLE ... ADD %s is not supported", c.query[t.Pos:t.End])
	}
}

// parseDropColumn parses, after DROP, [COLUMN] [IF EXISTS] name
// [CASCADE | RESTRICT].
func parseDropColumn(c *cursor, a *AlterRelationStmt) error {
	if c.acceptWord("constraint") {
		a.Action = AlterDropConstraint
		a.ColumnIfExists = c.acceptWords("if", "exists")
		var err error
		if a.Constraint, err = c.ident(); err != nil {
			return err
		}
		if !c.acceptWord("restrict") {
			a.Cascade = c.acceptWord("cascade")
		}
		return nil
	}
	if t := c.peek(); wordIn(t, addTableConstraint) {
		return notSupportedAt(c.query, t, "ALTER TABLE ... DROP %s is not supported", c.query[t.Pos:t.End])
	}
	c.acceptWord("column") // reserved in PostgreSQL: never a column's name
	a.Action = AlterDropColumn
	a.ColumnIfExists = c.acceptWords("if", "exists")
	var err error
	if a.Column, err = c.ident(); err != nil {
		return err
	}
	if c.acceptWord("cascade") {
		a.Cascade = true
	} else {
		c.acceptWord("restrict")
	}
	return nil
}

// parseAlterColumn parses, after ALTER, [COLUMN] name {SET DEFAULT expr |
// DROP DEFAULT | SET NOT NULL | DROP NOT NULL | [SET DATA] TYPE type
// [USING expr] | DROP EXPRESSION [IF EXISTS]}.
func (s *stmtParser) parseAlterColumn(c *cursor, a *AlterRelationStmt) error {
	c.acceptWord("column") // reserved in PostgreSQL: never a column's name
	var err error
	if a.Column, err = c.ident(); err != nil {
		return err
	}
	switch {
	case c.acceptWords("set", "default"):
		a.Action = AlterSetDefault
		var col ColumnDef
		err = s.parseDefault(c, &col)
		a.Default, a.DefaultText = col.Default, col.DefaultText
		return err
	case c.acceptWords("drop", "default"):
		a.Action = AlterDropDefault
	case c.acceptWords("set", "not", "null"):
		a.Action = AlterSetNotNull
	case c.acceptWords("drop", "not", "null"):
		a.Action = AlterDropNotNull
	case c.acceptWords("set", "data", "type"), c.acceptWord("type"):
		return s.parseSetType(c, a)
	case c.acceptWords("drop", "expression"):
		a.Action = AlterDropExpression
		a.ColumnIfExists = c.acceptWords("if", "exists")
	default:
		if c.eof() {
			return c.errHere()
		}
		t := c.peek()
		return notSupportedAt(c.query, t, "ALTER TABLE ... ALTER COLUMN ... %s is not supported", c.query[t.Pos:c.endOffset()])
	}
	return nil
}

// parseSetType parses, after [SET DATA] TYPE, type [COLLATE "C" |
// "default"] [USING expr].
func (s *stmtParser) parseSetType(c *cursor, a *AlterRelationStmt) error {
	a.Action = AlterSetType
	var err error
	if a.TypeName, err = parseTypeName(c); err != nil {
		return err
	}
	if t := c.peek(); c.acceptWord("collate") {
		name, err := c.ident()
		if err != nil {
			return err
		}
		if name != "C" && name != "default" && name != "POSIX" {
			return notSupportedAt(c.query, t, "COLLATE %q is not supported: only \"C\", \"POSIX\" and \"default\"", name)
		}
	}
	if !c.acceptWord("using") {
		return nil
	}
	a.Using, a.UsingText, err = s.parseExprUntil(c, func(k int) bool { return c.toks[k].isPunct(",") })
	return err
}

func (*AlterRelationStmt) node() {}
