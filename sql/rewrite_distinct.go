package sql

// rewriteDistinct turns IS [NOT] DISTINCT FROM into TiDB's null-safe
// equality:
//
//	a IS NOT DISTINCT FROM b   ->   a <=> (b)
//	a IS DISTINCT FROM b       ->   a <=> (b) is false
//
// The right operand is parenthesized because in Postgres it extends over
// comparisons (IS binds looser than =, LIKE, BETWEEN, IN); the left one
// needs nothing, as TiDB's grammar groups a <=> b IS FALSE the Postgres
// way. <=> never yields NULL, so IS FALSE is exactly NOT. The binder sees
// plain NullEQ and IsTruth nodes: no marker to undo.
func rewriteDistinct(query string, toks []Token) ([]Token, error) {
	e := newEdits()
	for i := 0; i < len(toks); i++ {
		n, not := matchDistinct(toks, i)
		if n == 0 {
			continue
		}
		if i == 0 || i+n >= len(toks) {
			return nil, syntaxErrorAt(query, toks[i])
		}
		end := distinctOperandEnd(toks, i+n)
		if end == i+n {
			return nil, errAtIndex(query, toks, end)
		}
		at := toks[i]
		e.remove(i, i+n)
		e.insert(i+n, raw("<=>", at), punct("(", at))
		e.insert(end, punct(")", at))
		if !not {
			e.insert(end, raw("is false", at))
		}
		i += n - 1
	}
	return e.apply(toks), nil
}

// matchDistinct reports whether IS [NOT] DISTINCT FROM starts at i: the
// number of its tokens (0 if not) and whether NOT is there.
func matchDistinct(toks []Token, i int) (int, bool) {
	if !toks[i].isWord("is") {
		return 0, false
	}
	j, not := i+1, false
	if j < len(toks) && toks[j].isWord("not") {
		j, not = j+1, true
	}
	if j+1 < len(toks) && toks[j].isWord("distinct") && toks[j+1].isWord("from") {
		return j + 2 - i, not
	}
	return 0, false
}

// distinctStop are keywords that end the right operand of IS DISTINCT FROM.
var distinctStop = wordSet(`and or is isnull notnull then when else end from where group having
	order limit offset fetch union intersect except as asc desc nulls on join inner left right
	full cross natural using window for returning into`)

// distinctOperandEnd returns the index after the operand starting at i.
func distinctOperandEnd(toks []Token, i int) int {
	inBetween, caseDepth := false, 0
	return scanLevel(toks, i, 1, func(k int) bool {
		t := toks[k]
		switch {
		case t.isWord("case"):
			caseDepth++
			return false
		case caseDepth > 0:
			if t.isWord("end") {
				caseDepth--
			}
			return false
		case t.isPunct(","):
			return true
		case t.isWord("between"):
			inBetween = true
		case t.isWord("and") && inBetween:
			inBetween = false
			return false
		case t.isWord("not"):
			return !(k+1 < len(toks) && wordIn(toks[k+1], notComparisons))
		}
		if k+1 < len(toks) && toks[k+1].isPunct("(") && (t.isWord("left") || t.isWord("right")) {
			return false // left(s, n), right(s, n): functions, not joins
		}
		return wordIn(t, distinctStop)
	})
}

// notComparisons may follow NOT inside a comparison (a NOT LIKE b).
var notComparisons = wordSet(`like ilike in between similar regexp`)

// errAtIndex is a syntax error at toks[i], or at the end of input.
func errAtIndex(query string, toks []Token, i int) error {
	if i >= len(toks) {
		end := 0
		if len(toks) > 0 {
			end = toks[len(toks)-1].End
		}
		return syntaxErrorAtEnd(query, end)
	}
	return syntaxErrorAt(query, toks[i])
}
