package sql

// INSERT ... ON CONFLICT and INSERT INTO t AS alias. The TiDB parser knows
// neither; the front end takes them off the statement's tokens:
//
//   - INSERT INTO t AS x ... keeps the alias in InsertStmt.Alias;
//   - ON CONFLICT [(col, ...) | ON CONSTRAINT name] DO NOTHING is dropped,
//     its target kept in InsertStmt.OnConflict;
//   - ... DO UPDATE SET a = e, ... [WHERE cond] becomes MySQL's
//     ON DUPLICATE KEY UPDATE a = e, ... [, __sdb_conflict_where = (cond)],
//     which the binder reads back (ConflictWhereMarker).

// ConflictWhereMarker is the assignment target that carries a DO UPDATE's
// WHERE condition as the last of AST.OnDuplicate.
const ConflictWhereMarker = "__sdb_conflict_where"

// OnConflict is INSERT's ON CONFLICT clause.
type OnConflict struct {
	// Columns are the conflict target's columns, (a, b); nil when the
	// clause names none or a constraint. ColumnPos are their error
	// positions (1-based, in characters).
	Columns   []string
	ColumnPos []int
	// Constraint is ON CONSTRAINT name; "" when absent.
	Constraint    string
	ConstraintPos int
	// DoNothing is DO NOTHING; otherwise DO UPDATE.
	DoNothing bool
	// Pos is the error position of ON CONFLICT.
	Pos int
}

// splitInsertForms takes INSERT's target alias and ON CONFLICT clause off
// toks (an INSERT without RETURNING): the tokens left for the TiDB parser.
func (s *stmtParser) splitInsertForms(toks []Token) ([]Token, string, *OnConflict, error) {
	toks, alias, err := s.splitInsertAlias(toks)
	if err != nil {
		return nil, "", nil, err
	}
	at := findTopLevel(toks, 1, func(i int) bool {
		return toks[i].isWord("on") && i+1 < len(toks) && toks[i+1].isWord("conflict")
	})
	if at < 0 {
		return toks, alias, nil, nil
	}
	rest, oc, err := s.parseOnConflict(toks[at:])
	if err != nil {
		return nil, "", nil, err
	}
	return append(append([]Token(nil), toks[:at]...), rest...), alias, oc, nil
}

// splitInsertAlias removes AS alias after INSERT INTO name.
func (s *stmtParser) splitInsertAlias(toks []Token) ([]Token, string, error) {
	i := 1
	if i >= len(toks) || !toks[i].isWord("into") {
		return toks, "", nil
	}
	i++
	for i < len(toks) && toks[i].Kind == TokIdent {
		i++
		if i < len(toks) && toks[i].isPunct(".") {
			i++
			continue
		}
		break
	}
	if i+1 >= len(toks) || !toks[i].isWord("as") {
		return toks, "", nil
	}
	a := toks[i+1]
	if a.Kind != TokIdent {
		return nil, "", syntaxErrorAt(s.query, a)
	}
	if err := checkReservedIdent(s.query, a); err != nil {
		return nil, "", err
	}
	out := append(append([]Token(nil), toks[:i]...), toks[i+2:]...)
	return out, a.Text, nil
}

// parseOnConflict parses ON CONFLICT ... to the end of toks and returns
// the tokens that stand for it in the rewritten statement.
func (s *stmtParser) parseOnConflict(toks []Token) ([]Token, *OnConflict, error) {
	c := newCursor(s.query, toks)
	oc := &OnConflict{Pos: position(s.query, toks[0].Pos)}
	c.i = 2 // ON CONFLICT
	switch {
	case c.peek().isPunct("("):
		open := c.advance()
		for {
			name, err := c.ident()
			if err != nil {
				return nil, nil, err
			}
			// PostgreSQL points at the list for an unknown column.
			oc.Columns = append(oc.Columns, name)
			oc.ColumnPos = append(oc.ColumnPos, position(s.query, open.Pos))
			if !c.acceptPunct(",") {
				break
			}
		}
		if err := c.expectPunct(")"); err != nil {
			return nil, nil, err
		}
		if c.acceptWord("where") {
			// An index predicate selects partial unique indexes; the
			// primary key, not partial, is inferred whatever it says.
			do := findTopLevel(c.toks, c.i, func(i int) bool { return c.toks[i].isWord("do") })
			if do <= c.i {
				return nil, nil, c.errHere()
			}
			c.i = do
		}
	case c.peek().isWord("on"):
		c.advance()
		if err := c.expectWord("constraint"); err != nil {
			return nil, nil, err
		}
		t := c.peek()
		name, err := c.ident()
		if err != nil {
			return nil, nil, err
		}
		oc.Constraint, oc.ConstraintPos = name, position(s.query, t.Pos)
	}
	do := c.peek()
	if err := c.expectWord("do"); err != nil {
		return nil, nil, err
	}
	if c.acceptWord("nothing") {
		oc.DoNothing = true
		return nil, oc, c.expectEnd()
	}
	if err := c.expectWord("update"); err != nil {
		return nil, nil, err
	}
	if err := c.expectWord("set"); err != nil {
		return nil, nil, err
	}
	if c.eof() {
		return nil, nil, c.errHere()
	}
	set := c.rest()
	out := []Token{raw("on duplicate key update", do)}
	where := findTopLevel(set, 0, func(i int) bool { return set[i].isWord("where") })
	if where < 0 {
		where = len(set)
	}
	list, err := s.expandMultiAssign(set[:where])
	if err != nil {
		return nil, nil, err
	}
	set = append(list, set[where:]...)
	where = len(list)
	if where == len(set) {
		return append(out, set...), oc, nil
	}
	if where == len(set)-1 {
		return nil, nil, syntaxErrorAtEnd(s.query, set[where].End)
	}
	w := set[where]
	out = append(out, set[:where]...)
	out = append(out, punct(",", w), raw(ConflictWhereMarker+" =", w), punct("(", w))
	out = append(out, set[where+1:]...)
	return append(out, punct(")", set[len(set)-1])), oc, nil
}

// findTopLevel returns the index of the first token at or after from,
// outside brackets, for which match holds; -1 when none.
func findTopLevel(toks []Token, from int, match func(i int) bool) int {
	depth := 0
	for i := 0; i < len(toks); i++ {
		switch {
		case isOpen(toks[i]):
			depth++
		case isClose(toks[i]):
			depth--
		case depth == 0 && i >= from && match(i):
			return i
		}
	}
	return -1
}
