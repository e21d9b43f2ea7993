package sql

// rewriteDerivedColumns carries the column aliases of a FROM item, which
// TiDB accepts only after a LATERAL subquery, through that form with a
// marker first name that says it is not LATERAL:
//
//	(SELECT ...) [AS] s(p, q)  ->  LATERAL (SELECT ...) AS s(__sdb_derived, p, q)
//	t [AS] x(a, b)             ->  LATERAL (SELECT * FROM t) AS x(__sdb_derived, a, b)
//
// The binder drops the marker and renames the item's columns. It runs
// after rewriteTableFuncs, which has already taken the aliases of table
// functions.
func (s *stmtParser) rewriteDerivedColumns(toks []Token) ([]Token, error) {
	e := newEdits()
	stack := []fromFrame{initialFromFrame(toks)}
	for i := 0; i < len(toks); i++ {
		t, top := toks[i], &stack[len(stack)-1]
		fromItem := top.inFrom && i > 0 && startsFromItem(toks[i-1])
		switch {
		case t.isPunct("("):
			if fromItem && !toks[i-1].isWord("lateral") && startsQuery(toks, i+1) {
				if closing := matchForward(toks, i); closing > 0 {
					s.derivedAliases(e, toks, i, closing+1, false)
				}
			}
			stack = append(stack, fromFrame{})
		case t.isPunct(")"):
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
		case t.isWord("select"):
			top.sawSelect = true
		case t.isWord("from"):
			top.inFrom = top.sawSelect
		case len(stack) == 1 && i > 0 && toks[0].isWord("with") && startsDML(toks, i):
			*top = initialFromFrame(toks[i:])
		case wordIn(t, fromEndWords) || len(stack) == 1 && t.isWord("set") && toks[dmlStart(toks)].isWord("update"):
			top.inFrom = false
		case fromItem && t.Kind == TokIdent && !wordIn(t, aliasStop) && !t.isWord("lateral"):
			end := i + 1
			if end+1 < len(toks) && toks[end].isPunct(".") && toks[end+1].Kind == TokIdent {
				end += 2
			}
			s.derivedAliases(e, toks, i, end, true)
		}
	}
	return e.apply(toks), nil
}

// startsQuery reports whether a query starts at toks[i].
func startsQuery(toks []Token, i int) bool {
	return i < len(toks) && (toks[i].isWord("select") || toks[i].isWord("values") || toks[i].isWord("with"))
}

// derivedAliases records the edits for the FROM item toks[start:end] when
// [AS] alias (names) follows it; table is true for a table name.
func (s *stmtParser) derivedAliases(e *edits, toks []Token, start, end int, table bool) {
	j := end
	if j < len(toks) && toks[j].isWord("as") {
		j++
	}
	if j+1 >= len(toks) || toks[j].Kind != TokIdent || !toks[j+1].isPunct("(") {
		return
	}
	if j == end && !toks[j].Quoted && aliasStop[toks[j].Text] {
		return
	}
	at := toks[start]
	if table {
		e.insert(start, raw("lateral", at), punct("(", at), raw("select", at), raw("*", at), raw("from", at))
		e.insert(end, punct(")", at))
	} else {
		e.insert(start, raw("lateral", at))
	}
	if j == end {
		e.insert(j, raw("as", at))
	}
	e.insert(j+2, raw(markerDerived, at), punct(",", at))
}
