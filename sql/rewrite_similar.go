package sql

// SimilarFunc and NotSimilarFunc are the marker calls a [NOT] SIMILAR TO
// b [ESCAPE e] becomes (see rewriteSimilar): SimilarFunc(a, b [, e]).
const (
	SimilarFunc    = "__sdb_similar"
	NotSimilarFunc = "__sdb_not_similar"
)

// similarNonAssoc are the words that may not follow a SIMILAR TO
// expression: PostgreSQL's grammar gives LIKE, ILIKE, SIMILAR, BETWEEN
// and IN one non-associative level.
var similarNonAssoc = wordSet(`similar like ilike between in escape`)

// similarOps are the operators that bind more tightly than SIMILAR TO
// beyond those a JSON operator's operand extends over (+ - * / %): the
// "any other operator" level of PostgreSQL's precedence table.
var similarOps = wordSet(`|| & | << >>`)

// rewriteSimilar turns the SQL regular expression syntax into marker
// calls the binder reads back:
//
//	a SIMILAR TO b               ->  __sdb_similar(a, b)
//	a NOT SIMILAR TO b ESCAPE e  ->  __sdb_not_similar(a, b, e)
//	a || b SIMILAR TO c || d     ->  __sdb_similar(a || b, c || d)
//	substring(s SIMILAR p ESCAPE e)  ->  substring(s, p, e)
//
// SIMILAR TO sits with LIKE in PostgreSQL's precedence: its operands
// extend over every operator but the comparisons, and over COLLATE, AT
// TIME ZONE and the prefix signs; AND, OR, NOT, IS and comparisons bind
// more loosely. The pass runs after rewriteCasts, rewriteSubscripts and
// rewriteJSONOps, so that x::t, x[i] and j -> k are calls by then.
func rewriteSimilar(query string, toks []Token) ([]Token, error) {
	if !hasWord(toks, "similar") {
		return toks, nil
	}
	closers := forwardMatches(toks)
	e := newEdits()
	for i, t := range toks {
		if !t.isWord("similar") {
			continue
		}
		var err error
		if i+1 < len(toks) && toks[i+1].isWord("to") {
			err = similarOperator(query, toks, closers, e, i)
		} else {
			err = similarSubstringArgs(query, toks, closers, e, i)
		}
		if err != nil {
			return nil, err
		}
	}
	return e.apply(toks), nil
}

// similarOperator rewrites the [NOT] SIMILAR TO at i.
func similarOperator(query string, toks []Token, closers map[int]int, e *edits, i int) error {
	at := toks[i]
	last, marker := i-1, SimilarFunc
	if last >= 0 && toks[last].isWord("not") {
		last, marker = last-1, NotSimilarFunc
	}
	if last < 0 || !endsOperand(toks[last]) {
		return syntaxErrorAt(query, toks[i+1]) // SIMILAR is no operand: PostgreSQL stops at TO
	}
	start := jsonChainStart(toks, last)
	if start < 0 {
		return syntaxErrorAt(query, toks[i+1])
	}
	if start > 0 && wordIn(toks[start-1], similarNonAssoc) || betweenBound(toks, start) {
		return syntaxErrorAt(query, at)
	}
	end, err := similarOperand(query, toks, closers, i+2)
	if err != nil {
		return err
	}
	e.remove(last+1, i+2)
	e.insert(i+2, punct(",", at))
	if end < len(toks) && toks[end].isWord("escape") {
		escEnd, err := similarOperand(query, toks, closers, end+1)
		if err != nil {
			return err
		}
		e.remove(end, end+1)
		e.insert(end+1, punct(",", toks[end]))
		end = escEnd
	}
	if end < len(toks) && (wordIn(toks[end], similarNonAssoc) ||
		toks[end].isWord("not") && end+1 < len(toks) && wordIn(toks[end+1], similarNonAssoc)) {
		return syntaxErrorAt(query, toks[end])
	}
	e.insert(start, raw(marker, at), punct("(", at))
	e.insert(end, punct(")", at))
	return nil
}

// betweenBound reports whether the operand starting at start is the
// upper bound of a BETWEEN (x BETWEEN a AND b SIMILAR TO c is an error:
// the levels do not associate).
func betweenBound(toks []Token, start int) bool {
	if start < 1 || !toks[start-1].isWord("and") {
		return false
	}
	k := scanLevel(toks, start-2, -1, func(k int) bool {
		t := toks[k]
		return t.isPunct(",") || t.isWord("between") || t.isWord("and") || t.isWord("or") ||
			wordIn(t, exprStartWords) && !t.isWord("not") && !t.isWord("symmetric")
	})
	return k >= 0 && k < len(toks) && toks[k].isWord("between")
}

// similarOperand returns the index after the operand starting at i, or
// a syntax error where it should start.
func similarOperand(query string, toks []Token, closers map[int]int, i int) (int, error) {
	end := jsonOperandEnd(toks, closers, i)
	for end > i && end < len(toks) && toks[end].Kind == TokOp && similarOps[toks[end].Text] {
		next := jsonOperandEnd(toks, closers, end+1)
		if next == end+1 {
			return 0, errAtIndex(query, toks, end+1)
		}
		end = next
	}
	if end == i {
		return 0, errAtIndex(query, toks, i)
	}
	return end, nil
}

// similarSubstringArgs rewrites substring(s SIMILAR p ESCAPE e), the
// SIMILAR at i, into substring(s, p, e). A SIMILAR elsewhere is left for
// TiDB to reject.
func similarSubstringArgs(query string, toks []Token, closers map[int]int, e *edits, i int) error {
	open := enclosingOpen(toks, i)
	if open < 1 || !toks[open].isPunct("(") || !toks[open-1].isWord("substring") {
		return nil
	}
	close := closers[open]
	esc := scanLevel(toks, i+1, 1, func(k int) bool { return toks[k].isWord("escape") })
	if esc >= close || !toks[esc].isWord("escape") {
		return errAtIndex(query, toks, close)
	}
	e.remove(i, i+1)
	e.insert(i, punct(",", toks[i]))
	e.remove(esc, esc+1)
	e.insert(esc, punct(",", toks[esc]))
	return nil
}

// enclosingOpen returns the index of the bracket that encloses i, or -1.
func enclosingOpen(toks []Token, i int) int {
	k := scanLevel(toks, i-1, -1, func(int) bool { return false })
	if k >= 0 && k < len(toks) && isOpen(toks[k]) {
		return k
	}
	return -1
}

// hasWord reports whether toks hold the unquoted word w.
func hasWord(toks []Token, w string) bool {
	for _, t := range toks {
		if t.isWord(w) {
			return true
		}
	}
	return false
}
