package sql

// rewritePower turns a ^ b (exponentiation; TiDB reads ^ as xor) into
// power(a, b). ^ binds more tightly than * / % and less than a unary sign
// and is left-associative, as in PostgreSQL: 2 * 3 ^ 2 is 2 * power(3, 2),
// -2 ^ 2 is power(-2, 2), and 2 ^ 3 ^ 2 is power(power(2, 3), 2). It runs
// after rewriteCasts and rewriteSubscripts (x::t and x[i] are calls), so
// an operand is one primary: a name, a literal, a call or a
// parenthesized expression, with its signs.
func rewritePower(query string, toks []Token) ([]Token, error) {
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.Kind != TokOp || t.Text != "^" {
			continue
		}
		start := -1
		if i > 0 && endsOperand(toks[i-1]) {
			start = signedStart(toks, operandStart(toks, i-1))
		}
		end := primaryEnd(toks, i+1)
		if start < 0 || end < 0 {
			return nil, syntaxErrorAt(query, t)
		}
		call := []Token{{Kind: TokIdent, Text: "power", Pos: t.Pos, End: t.End}, punct("(", t)}
		call = append(call, toks[start:i]...)
		call = append(call, punct(",", t))
		call = append(call, toks[i+1:end]...)
		call = append(call, punct(")", t))
		rest := append(call, toks[end:]...)
		toks = append(toks[:start:start], rest...)
		i = start + len(call) - 1
	}
	return toks, nil
}

// signedStart extends the operand starting at j back over unary signs: a
// + or - with no operand before it.
func signedStart(toks []Token, j int) int {
	for j > 0 && toks[j-1].Kind == TokOp && (toks[j-1].Text == "-" || toks[j-1].Text == "+") &&
		(j < 2 || !endsOperand(toks[j-2])) {
		j--
	}
	return j
}

// primaryEnd returns the index after the primary expression starting at
// i (with its unary signs), -1 when none starts there.
func primaryEnd(toks []Token, i int) int {
	for i < len(toks) && toks[i].Kind == TokOp && (toks[i].Text == "-" || toks[i].Text == "+") {
		i++
	}
	if i >= len(toks) {
		return -1
	}
	t := toks[i]
	switch {
	case t.isPunct("("):
		if e := matchForward(toks, i); e >= 0 {
			return e + 1
		}
		return -1
	case t.Kind == TokNumber || t.Kind == TokString || t.Kind == TokParam:
		return i + 1
	case t.isWord("case"):
		return caseEnd(toks, i)
	case t.Kind == TokIdent && (t.Quoted || !exprStartWords[t.Text]), t.Kind == tokRaw:
		for i+2 < len(toks) && toks[i+1].isPunct(".") && toks[i+2].Kind == TokIdent {
			i += 2
		}
		if i+1 < len(toks) && toks[i+1].isPunct("(") {
			if e := matchForward(toks, i+1); e >= 0 {
				return e + 1
			}
			return -1
		}
		return i + 1
	}
	return -1
}

// caseEnd returns the index after the END closing the CASE at i.
func caseEnd(toks []Token, i int) int {
	depth := 0
	for k := i; k < len(toks); k++ {
		switch {
		case toks[k].isWord("case"):
			depth++
		case toks[k].isWord("end"):
			depth--
			if depth == 0 {
				return k + 1
			}
		}
	}
	return -1
}
