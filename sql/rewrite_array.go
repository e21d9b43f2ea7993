package sql

// Arrays, which the TiDB parser has no syntax for:
//
//	ARRAY[a, b]            ->  __sdb_array_lit(a, b)
//	ARRAY(SELECT ...)      ->  __sdb_array((SELECT ...))
//	x = ANY (arr)          ->  x = __sdb_any(arr)      (also SOME; <> ALL ...: __sdb_all)
//	arr[i]                 ->  __sdb_subscript(arr, i)
//	arr[lo:hi]             ->  __sdb_subscript(arr, __sdb_slice(lo, hi))
//	arr[:hi], arr[lo:]     ->  a left-out bound is __sdb_nobound()
//	ARRAY[[1,2],[3,4]]     ->  __sdb_array_lit(__sdb_array_lit(1,2), __sdb_array_lit(3,4))
//
// arr[i][j] nests the calls; the binder takes the chain as one subscript
// list, as PostgreSQL does.
//
// ANY / SOME / ALL over a subquery are left to the TiDB parser. The
// binder turns the markers back into array expressions.

const (
	markerArrayLit  = "__sdb_array_lit"
	markerArraySub  = "__sdb_array"
	markerAny       = "__sdb_any"
	markerAll       = "__sdb_all"
	markerSubscript = "__sdb_subscript"
	markerSlice     = "__sdb_slice"
	markerNoBound   = "__sdb_nobound"
)

// comparisonOps may stand before ANY / SOME / ALL.
var comparisonOps = wordSet(`= <> != < > <= >=`)

// rewriteArrays rewrites ARRAY[...], ARRAY(...) and op ANY|SOME|ALL (...).
func rewriteArrays(query string, toks []Token) ([]Token, error) {
	e := newEdits()
	for i := 0; i+1 < len(toks); i++ {
		t := toks[i]
		if t.Kind != TokIdent || t.Quoted || !isOpen(toks[i+1]) || afterDot(toks, i) {
			continue
		}
		closing := matchForward(toks, i+1)
		if closing < 0 {
			return nil, errAtIndex(query, toks, len(toks))
		}
		typeSuffix := i > 0 && toks[i-1].Kind == TokIdent && endsOperand(toks[i-1]) // int ARRAY[3]
		switch {
		case t.Text == "array" && typeSuffix:
		case t.Text == "array" && toks[i+1].isPunct("["):
			toks[i] = raw(markerArrayLit, t)
			subArrayLits(toks, i+1, closing, e)
		case t.Text == "array":
			toks[i] = raw(markerArraySub, t)
			e.insert(i+2, punct("(", t))
			e.insert(closing, punct(")", t))
		case (t.Text == "any" || t.Text == "some" || t.Text == "all") && toks[i+1].isPunct("(") &&
			i > 0 && toks[i-1].Kind == TokOp && comparisonOps[toks[i-1].Text] && !startsSubquery(toks, i+2):
			name := markerAny
			if t.Text == "all" {
				name = markerAll
			}
			toks[i] = raw(name, t)
		}
	}
	return e.apply(toks), nil
}

// subArrayLits turns the brackets toks[open] and toks[closing] of an
// array literal into parentheses, and each bare [...] that is one of its
// elements into a nested __sdb_array_lit(...).
func subArrayLits(toks []Token, open, closing int, e *edits) {
	toks[open] = punct("(", toks[open])
	toks[closing] = punct(")", toks[closing])
	for j := open + 1; j < closing; j++ {
		if !toks[j].isPunct("[") && !isOpen(toks[j]) {
			continue
		}
		end := matchForward(toks, j)
		if end < 0 || end > closing {
			return
		}
		if toks[j].isPunct("[") && (toks[j-1].isPunct("(") || toks[j-1].isPunct(",")) {
			e.insert(j, raw(markerArrayLit, toks[j]))
			subArrayLits(toks, j, end, e)
		}
		j = end
	}
}

// startsSubquery reports whether a subquery (possibly parenthesized)
// starts at toks[i].
func startsSubquery(toks []Token, i int) bool {
	for i < len(toks) && toks[i].isPunct("(") {
		i++
	}
	return startsQuery(toks, i)
}

// rewriteSubscripts turns operand[i] into __sdb_subscript(operand, i). It
// runs after the casts have consumed the brackets of array type names.
func rewriteSubscripts(query string, toks []Token) ([]Token, error) {
	out := make([]Token, 0, len(toks))
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if !t.isPunct("[") {
			out = append(out, t)
			continue
		}
		if i+1 < len(toks) && toks[i+1].isPunct("]") && len(out) > 0 && out[len(out)-1].Kind == TokIdent {
			// name[]: an array type a later step reads (a table
			// function's column definition list, AS t(b text[])); no
			// subscript is empty.
			out = append(out, t, toks[i+1])
			i++
			continue
		}
		start := -1
		if len(out) > 0 && endsOperand(out[len(out)-1]) {
			start = operandStart(out, len(out)-1)
		}
		closing := matchForward(toks, i)
		if start < 0 || closing < 0 || closing == i+1 {
			return nil, errAtIndex(query, toks, i)
		}
		inner, err := rewriteSubscripts(query, toks[i+1:closing])
		if err != nil {
			return nil, err
		}
		inner = sliceCall(inner, t, toks[closing])
		operand := append([]Token(nil), out[start:]...)
		call := []Token{raw(markerSubscript, operand[0]), punct("(", operand[0])}
		call = append(call, operand...)
		call = append(call, punct(",", t))
		call = append(call, inner...)
		call = append(call, punct(")", toks[closing]))
		out = append(out[:start], call...)
		i = closing
	}
	return out, nil
}

// sliceCall turns the tokens lo:hi inside a subscript's brackets (open
// and closing) into __sdb_slice(lo, hi), a left-out bound into
// __sdb_nobound(); a plain index comes back as it was.
func sliceCall(inner []Token, open, closing Token) []Token {
	colon, depth := -1, 0
	for j, t := range inner {
		switch {
		case isOpen(t):
			depth++
		case isClose(t):
			depth--
		case depth == 0 && t.isPunct(":") && colon < 0:
			colon = j
		}
	}
	if colon < 0 {
		return inner
	}
	bound := func(ts []Token, at Token) []Token {
		if len(ts) == 0 {
			return []Token{raw(markerNoBound, at), punct("(", at), punct(")", at)}
		}
		return ts
	}
	out := []Token{raw(markerSlice, open), punct("(", open)}
	out = append(out, bound(inner[:colon], open)...)
	out = append(out, punct(",", inner[colon]))
	out = append(out, bound(inner[colon+1:], closing)...)
	return append(out, punct(")", closing))
}
