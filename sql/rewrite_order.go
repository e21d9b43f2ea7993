package sql

// rewriteNullsOrder moves NULLS FIRST / NULLS LAST of an ORDER BY item
// (in a query or a window) into a marker call around the item's
// expression, which TiDB accepts:
//
//	ORDER BY a DESC NULLS FIRST   ->   ORDER BY __sdb_nulls_first(a) DESC
//	ORDER BY 2 NULLS LAST         ->   ORDER BY __sdb_nulls_last(2)
//
// The binder unwraps the call into the item's null ordering; an integer
// literal inside it is still an output-column position.
func rewriteNullsOrder(query string, toks []Token) ([]Token, error) {
	e := newEdits()
	for i := 0; i+1 < len(toks); i++ {
		if !toks[i].isWord("nulls") || !(toks[i+1].isWord("first") || toks[i+1].isWord("last")) {
			continue
		}
		start := orderItemStart(toks, i)
		end := i
		if end > start && (toks[end-1].isWord("asc") || toks[end-1].isWord("desc")) {
			end--
		}
		if end <= start {
			return nil, syntaxErrorAt(query, toks[i])
		}
		marker := markerNullsFst
		if toks[i+1].isWord("last") {
			marker = markerNullsLast
		}
		at := toks[i]
		e.insert(start, raw(marker, at), punct("(", at))
		e.insert(end, punct(")", at))
		e.remove(i, i+2)
	}
	return e.apply(toks), nil
}

// orderItemStart returns the index of the first token of the ORDER BY item
// that ends before i: just after the ',' or BY at the same level.
func orderItemStart(toks []Token, i int) int {
	k := scanLevel(toks, i-1, -1, func(k int) bool {
		return toks[k].isPunct(",") || toks[k].isWord("by")
	})
	return k + 1
}
