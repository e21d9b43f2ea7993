package sql

import "strings"

// rewriteAtTimeZone turns x AT TIME ZONE z into timezone(z, x), the call
// PostgreSQL's grammar makes of it (the TiDB parser has no AT TIME ZONE):
//
//	ts AT TIME ZONE 'UTC'                ->  timezone('UTC', ts)
//	ts AT TIME ZONE 'a' AT TIME ZONE 'b' ->  timezone('b', timezone('a', ts))
//	a + b AT TIME ZONE z                 ->  a + timezone(z, b)
//
// AT binds more tightly than every binary operator but less than :: and
// [ ] (already calls when the pass runs, after rewriteCasts and
// rewriteSubscripts): the left operand is the one primary expression
// before AT, the zone the one after ZONE (with its prefix sign, a call
// or a parenthesized expression). Chains apply left to right.
func rewriteAtTimeZone(query string, toks []Token) ([]Token, error) {
	for findAtTimeZone(toks, 0) >= 0 {
		var err error
		if toks, err = atTimeZonePass(query, toks); err != nil {
			return nil, err
		}
	}
	return toks, nil
}

// atTimeZonePass rewrites the AT TIME ZONEs of toks in one linear pass.
// A zone operand that holds an AT TIME ZONE itself is copied as it is:
// the next pass rewrites it.
func atTimeZonePass(query string, toks []Token) ([]Token, error) {
	e := newEdits()
	calls := map[int][]Token{} // "timezone(z," to open before an index, outermost first
	chained := map[int]int{}   // the last token of a zone operand -> where its call starts
	for i := 0; i+2 < len(toks); i++ {
		if !toks[i].isWord("at") || !toks[i+1].isWord("time") || !toks[i+2].isWord("zone") {
			continue
		}
		if i == 0 || !endsOperand(toks[i-1]) {
			return nil, syntaxErrorAt(query, toks[i])
		}
		start, ok := chained[i-1]
		if !ok {
			if start = operandStart(toks, i-1); start < 0 {
				return nil, syntaxErrorAt(query, toks[i])
			}
		}
		end := zoneOperandEnd(toks, i+3)
		if end == i+3 {
			if end == len(toks) {
				return nil, syntaxErrorAtEnd(query, toks[len(toks)-1].End)
			}
			return nil, syntaxErrorAt(query, toks[end])
		}
		at := toks[i]
		open := []Token{{Kind: TokIdent, Text: "timezone", Pos: at.Pos, End: at.End}, punct("(", at)}
		open = append(open, toks[i+3:end]...)
		open = append(open, punct(",", at))
		calls[start] = append(open, calls[start]...)
		e.remove(i, end)
		e.insert(i, punct(")", at))
		chained[end-1] = start
		i = end - 1
	}
	for k, ts := range calls {
		e.insert(k, ts...)
	}
	return e.apply(toks), nil
}

// findAtTimeZone returns the index of the first AT of AT TIME ZONE at or
// after from, or -1.
func findAtTimeZone(toks []Token, from int) int {
	for i := from; i+2 < len(toks); i++ {
		if toks[i].isWord("at") && toks[i+1].isWord("time") && toks[i+2].isWord("zone") {
			return i
		}
	}
	return -1
}

// zoneOperandEnd returns the index after the zone operand starting at i
// (i when there is none): a literal, parameter, name (qualified), call or
// parenthesized expression, after optional prefix signs.
func zoneOperandEnd(toks []Token, i int) int {
	start := i
	for i < len(toks) && (toks[i].isPunct("-") || toks[i].isPunct("+")) {
		i++
	}
	if i >= len(toks) {
		return start
	}
	t := toks[i]
	switch {
	case t.Kind == TokString || t.Kind == TokNumber || t.Kind == TokParam:
		return i + 1
	case isOpen(t) && t.Text == "(":
		if j := matchForward(toks, i); j > 0 {
			return j + 1
		}
		return start
	case t.Kind == TokIdent && (t.Quoted || !exprStartWords[t.Text]),
		t.Kind == tokRaw && strings.HasPrefix(t.Text, markerPrefix):
		i++
		for i+1 < len(toks) && toks[i].isPunct(".") && toks[i+1].Kind == TokIdent {
			i += 2
		}
		if i < len(toks) && toks[i].isPunct("(") {
			if j := matchForward(toks, i); j > 0 {
				return j + 1
			}
			return start
		}
		return i
	}
	return start
}
