package sql

// rewriteFullJoin turns a FULL [OUTER] JOIN into a LEFT JOIN whose ON
// condition carries a marker, which the binder turns back into a full
// outer join:
//
//	a FULL [OUTER] JOIN b ON cond   ->   a LEFT JOIN b ON __sdb_full_join() AND (cond)
//
// FULL JOIN ... USING and NATURAL FULL JOIN are not supported (0A000):
// there is no ON clause to carry the marker.
func rewriteFullJoin(query string, toks []Token) ([]Token, error) {
	e := newEdits()
	for i := 0; i < len(toks); i++ {
		n := matchFullJoin(toks, i)
		if n == 0 {
			continue
		}
		if i > 0 && toks[i-1].isWord("natural") {
			return nil, notSupportedAt(query, toks[i-1], "NATURAL FULL JOIN is not supported")
		}
		on, err := fullJoinOn(query, toks, i+n)
		if err != nil {
			return nil, err
		}
		end := scanLevel(toks, on+1, 1, func(k int) bool {
			return toks[k].isPunct(",") || wordIn(toks[k], joinConditionStop)
		})
		if end == on+1 {
			return nil, errAtIndex(query, toks, end)
		}
		full := toks[i]
		e.remove(i, i+n)
		e.insert(i+n, raw("left", full), raw("join", toks[i+n-1]))
		e.insert(on+1, raw(markerFullJoin, full), punct("(", full), punct(")", full), raw("and", full), punct("(", full))
		e.insert(end, punct(")", full))
		i += n - 1
	}
	return e.apply(toks), nil
}

// fullJoinOn returns the index of the ON of the join whose right side
// starts at i.
func fullJoinOn(query string, toks []Token, i int) (int, error) {
	on := scanLevel(toks, i, 1, func(k int) bool {
		t := toks[k]
		return t.isWord("on") || t.isWord("using") || t.isPunct(",") ||
			(wordIn(t, joinConditionStop) && !wordIn(t, joinWords))
	})
	switch {
	case on < len(toks) && toks[on].isWord("on"):
		return on, nil
	case on < len(toks) && toks[on].isWord("using"):
		return 0, notSupportedAt(query, toks[on], "FULL JOIN ... USING is not supported, use ON")
	}
	return 0, errAtIndex(query, toks, on)
}

// matchFullJoin returns the number of tokens of FULL [OUTER] JOIN at i, or 0.
func matchFullJoin(toks []Token, i int) int {
	if !toks[i].isWord("full") {
		return 0
	}
	j := i + 1
	if j < len(toks) && toks[j].isWord("outer") {
		j++
	}
	if j < len(toks) && toks[j].isWord("join") {
		return j + 1 - i
	}
	return 0
}

// joinConditionStop are keywords that end an ON condition.
var joinConditionStop = wordSet(`join inner left right full cross natural where group having order
	limit offset fetch union intersect except window for returning`)

// joinWords may appear in the right side of a join before its ON.
var joinWords = wordSet(`join inner left right full cross natural`)
