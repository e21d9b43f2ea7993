package sql

// rewriteFirstLast turns RisingWave's first_value and last_value
// aggregates, which take an ORDER BY inside their parentheses (the window
// functions of those names never do), into the first element of an
// ordered array_agg, which rewriteAggOrder then handles:
//
//	first_value(x ORDER BY k)        ->  (array_agg(x ORDER BY k))[1]
//	last_value(x ORDER BY k DESC)    ->  (array_agg(x ORDER BY k))[1]
//
// last_value reverses each key (ASC and DESC swap, and NULLS FIRST and
// LAST): the last in one order is the first in the reverse order.
func rewriteFirstLast(query string, toks []Token) ([]Token, error) {
	e := newEdits()
	for i := 0; i+1 < len(toks); i++ {
		last := toks[i].isWord("last_value")
		if !last && !toks[i].isWord("first_value") || !toks[i+1].isPunct("(") || i > 0 && toks[i-1].isPunct(".") {
			continue
		}
		end := matchForward(toks, i+1)
		if end < 0 {
			return toks, nil // the parser reports it
		}
		order := scanLevel(toks, i+2, 1, func(k int) bool {
			return toks[k].isWord("order") && k+1 < len(toks) && toks[k+1].isWord("by")
		})
		if order >= end {
			continue // the window function
		}
		at := toks[i]
		e.remove(i, i+1)
		e.insert(i, punct("(", at), word("array_agg", at))
		if last {
			reverseOrderKeys(toks, order+2, end, e)
		}
		e.insert(end+1, punct(")", at), punct("[", at), Token{Kind: TokNumber, Text: "1", Pos: at.Pos, End: at.End},
			punct("]", at))
		i = end
	}
	return e.apply(toks), nil
}

// reverseOrderKeys reverses the ORDER BY keys in toks[i:end]: DESC is
// dropped or ASC made DESC (or DESC added), NULLS FIRST and LAST swap.
func reverseOrderKeys(toks []Token, i, end int, e *edits) {
	for i < end {
		next := scanLevel(toks, i, 1, func(k int) bool { return toks[k].isPunct(",") })
		if next > end {
			next = end
		}
		dir := -1
		for k := i; k < next; k++ {
			t := toks[k]
			switch {
			case t.isWord("asc") || t.isWord("desc"):
				dir = k
			case t.isWord("nulls") && k+1 < next && toks[k+1].isWord("first"):
				e.remove(k+1, k+2)
				e.insert(k+1, word("last", toks[k+1]))
			case t.isWord("nulls") && k+1 < next && toks[k+1].isWord("last"):
				e.remove(k+1, k+2)
				e.insert(k+1, word("first", toks[k+1]))
			}
		}
		switch {
		case dir >= 0 && toks[dir].isWord("desc"):
			e.remove(dir, dir+1)
		case dir >= 0:
			e.remove(dir, dir+1)
			e.insert(dir, word("desc", toks[dir]))
		default:
			nulls := next
			for k := i; k < next; k++ {
				if toks[k].isWord("nulls") {
					nulls = k
					break
				}
			}
			e.insert(nulls, word("desc", toks[next-1]))
		}
		i = next + 1
	}
}

// word is a synthetic keyword or identifier standing for at, which later
// passes read as one.
func word(text string, at Token) Token {
	return Token{Kind: TokIdent, Text: text, Pos: at.Pos, End: at.End}
}
