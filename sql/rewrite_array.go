package sql

// Arrays, which the TiDB parser has no syntax for:
//
//	ARRAY[a, b]            ->  __sdb_array_lit(a, b)
//	ARRAY(SELECT ...)      ->  __sdb_array((SELECT ...))
//	x = ANY (arr)          ->  x = __sdb_any(arr)      (also SOME; <> ALL ...: __sdb_all)
//	arr[i]                 ->  __sdb_subscript(arr, i)
//
// ANY / SOME / ALL over a subquery are left to the TiDB parser. The
// binder turns the markers back into array expressions.

const (
	markerArrayLit  = "__sdb_array_lit"
	markerArraySub  = "__sdb_array"
	markerAny       = "__sdb_any"
	markerAll       = "__sdb_all"
	markerSubscript = "__sdb_subscript"
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
			toks[i+1] = punct("(", toks[i+1])
			toks[closing] = punct(")", toks[closing])
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
