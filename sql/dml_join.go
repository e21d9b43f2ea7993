package sql

// UPDATE ... FROM and DELETE ... USING. The TiDB parser reads MySQL's
// multi-table forms instead, so the front end moves the tokens:
//
//   - UPDATE t [AS x] SET ... FROM items [WHERE ...] becomes
//     UPDATE t [AS x], items SET ... [WHERE ...];
//   - DELETE FROM t [AS x] USING items [WHERE ...] becomes
//     DELETE __sdb_target FROM t [AS x], items [WHERE ...].
//
// Either way the target is the leftmost item of the statement's
// TableRefs, and UpdateStmt.From / DeleteStmt.Using say that the form was
// written (a user's own MySQL multi-table statement is refused).

// moveUpdateFrom rewrites an UPDATE with a FROM clause; ok is false when
// toks has none.
func moveUpdateFrom(toks []Token) (out []Token, ok bool) {
	set := findTopLevel(toks, 1, func(i int) bool { return toks[i].isWord("set") })
	if set < 0 {
		return toks, false
	}
	from := findTopLevel(toks, set+1, func(i int) bool {
		// a IS [NOT] DISTINCT FROM b is an expression.
		return toks[i].isWord("from") && !toks[i-1].isWord("distinct")
	})
	if from < 0 || from == len(toks)-1 {
		return toks, false
	}
	where := findTopLevel(toks, from+1, func(i int) bool { return toks[i].isWord("where") })
	if where < 0 {
		where = len(toks)
	}
	out = make([]Token, 0, len(toks)+1)
	out = append(out, toks[:set]...)
	out = append(out, punct(",", toks[from]))
	out = append(out, toks[from+1:where]...)
	out = append(out, toks[set:from]...)
	return append(out, toks[where:]...), true
}

// moveDeleteUsing rewrites a DELETE with a USING clause; ok is false
// when toks has none.
func moveDeleteUsing(toks []Token) (out []Token, ok bool) {
	if len(toks) < 3 || !toks[1].isWord("from") {
		return toks, false
	}
	using := findTopLevel(toks, 2, func(i int) bool { return toks[i].isWord("using") })
	if using < 0 || using == len(toks)-1 {
		return toks, false
	}
	out = make([]Token, 0, len(toks)+2)
	out = append(out, toks[0], raw("__sdb_target", toks[1]))
	out = append(out, toks[1:using]...)
	out = append(out, punct(",", toks[using]))
	return append(out, toks[using+1:]...), true
}
