package sql

// DistinctOnFunc marks DISTINCT ON's expressions, which the TiDB parser
// does not know: SELECT DISTINCT ON (a, b) x, y reaches it as
// SELECT __sdb_distinct_on(a, b), x, y, and the binder takes the marker
// out of the select list again.
const DistinctOnFunc = "__sdb_distinct_on"

// rewriteDistinctOn rewrites SELECT DISTINCT ON (...) to the marker call.
func rewriteDistinctOn(query string, toks []Token) ([]Token, error) {
	e := newEdits()
	for i := 0; i+3 < len(toks); i++ {
		if !toks[i].isWord("select") || !toks[i+1].isWord("distinct") || !toks[i+2].isWord("on") || toks[i+3].Text != "(" {
			continue
		}
		end := matchForward(toks, i+3)
		if end < 0 || end == i+4 {
			return nil, errAtIndex(query, toks, i+3)
		}
		at := toks[i+1]
		e.remove(i+1, i+3) // DISTINCT ON
		e.insert(i+3, raw(DistinctOnFunc, at))
		e.insert(end+1, punct(",", at))
		i = end
	}
	return e.apply(toks), nil
}
