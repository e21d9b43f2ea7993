package sql

// PrepareStmt is PREPARE name [(type, ...)] AS statement: a SQL-level
// prepared statement of the session, as in PostgreSQL.
type PrepareStmt struct {
	Name string // folded as an identifier
	// Types are the declared parameter types as the type names a cast
	// takes ("int", "numeric(10,2)"); TypeOffsets their byte offsets in
	// the query string, for errors.
	Types       []string
	TypeOffsets []int
	// Stmt is the prepared statement (a query, INSERT, UPDATE or
	// DELETE), parsed in full, its Text and Offset its own slice of the
	// query string.
	Stmt *Statement
}

// ExecuteStmt is EXECUTE name [(arg, ...)].
type ExecuteStmt struct {
	Name string
	// Args is SELECT arg, ... (nil without arguments): the arguments as
	// the select list of a query without FROM, parsed in full.
	Args *Statement
	// NumArgs is how many arguments were written.
	NumArgs int
	// At is the byte offset of the first argument in the query string
	// (of the name when there is none).
	At int
}

// DeallocateStmt is DEALLOCATE [PREPARE] name | ALL.
type DeallocateStmt struct {
	Name string
	All  bool
}

func (*PrepareStmt) node()    {}
func (*ExecuteStmt) node()    {}
func (*DeallocateStmt) node() {}

// parsePrepare parses PREPARE.
func (s *stmtParser) parsePrepare(c *cursor) (Node, error) {
	c.advance() // PREPARE
	name, err := c.ident()
	if err != nil {
		return nil, err
	}
	p := &PrepareStmt{Name: name}
	if c.acceptPunct("(") {
		for {
			p.TypeOffsets = append(p.TypeOffsets, c.peek().Pos)
			t, err := parseTypeName(c)
			if err != nil {
				return nil, err
			}
			p.Types = append(p.Types, t)
			if !c.acceptPunct(",") {
				break
			}
		}
		if err := c.expectPunct(")"); err != nil {
			return nil, err
		}
	}
	if err := c.expectWord("as"); err != nil {
		return nil, err
	}
	rest := c.rest()
	if len(rest) == 0 {
		return nil, c.errHere()
	}
	if !preparable(rest[0]) {
		return nil, syntaxErrorAt(s.query, rest[0])
	}
	if p.Stmt, err = s.parseInner(rest); err != nil {
		return nil, err
	}
	return p, nil
}

// preparable reports whether a statement starting with t may be
// prepared: as in PostgreSQL, a query, INSERT, UPDATE or DELETE.
func preparable(t Token) bool {
	for _, w := range []string{"select", "with", "values", "table", "insert", "update", "delete"} {
		if t.isWord(w) {
			return true
		}
	}
	return t.isPunct("(")
}

// parseExecute parses EXECUTE name [(arg, ...)].
func (s *stmtParser) parseExecute(c *cursor) (Node, error) {
	c.advance() // EXECUTE
	at := c.peek().Pos
	name, err := c.ident()
	if err != nil {
		return nil, err
	}
	e := &ExecuteStmt{Name: name, At: at}
	if c.peek().isPunct("(") {
		open := c.i
		closing := matchForward(c.toks, open)
		if closing < 0 {
			return nil, syntaxErrorAtEnd(s.query, c.endOffset())
		}
		args := c.toks[open+1 : closing]
		if len(args) == 0 {
			return nil, syntaxErrorAt(s.query, c.toks[closing])
		}
		e.NumArgs, e.At = len(splitArgs(args)), args[0].Pos
		sel := append([]Token{raw("select", args[0])}, args...)
		if e.Args, err = s.parseInner(sel); err != nil {
			return nil, err
		}
		c.i = closing + 1
	}
	return e, c.expectEnd()
}

// parseDeallocate parses DEALLOCATE [PREPARE] name | ALL.
func parseDeallocate(c *cursor) (Node, error) {
	c.advance() // DEALLOCATE
	c.acceptWord("prepare")
	if c.acceptWord("all") {
		return &DeallocateStmt{All: true}, c.expectEnd()
	}
	name, err := c.ident()
	if err != nil {
		return nil, err
	}
	return &DeallocateStmt{Name: name}, c.expectEnd()
}
