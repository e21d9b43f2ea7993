package sql

// PrefixOpFunc is the marker call a prefix operator becomes:
// PrefixOpFunc('op', operand). The binder reads |/ x as sqrt(x) and ||/ x
// as cbrt(x), both over double precision (PostgreSQL defines them for it
// only), and @ x as abs(x).
const PrefixOpFunc = "__sdb_prefix_op"

// prefixOps are the prefix operators rewritePrefixOps takes.
var prefixOps = wordSet(`|/ ||/ @`)

// rewritePrefixOps turns each prefix operator into its marker call. The
// operand is what a right operand of an operator of the "any other
// operator" level is (jsonOperandEnd): it extends over + - * / %, so |/
// 25 + 11 is sqrt(36), as in PostgreSQL. The rightmost operator goes
// first, so that |/ |/ 16 is sqrt(sqrt(16)). A use with an operand
// before it (a binary |/ or @) is left for checkTokens' error.
func rewritePrefixOps(query string, toks []Token) ([]Token, error) {
	for i := len(toks) - 1; i >= 0; i-- {
		t := toks[i]
		if t.Kind != TokOp || !prefixOps[t.Text] || i > 0 && endsOperand(toks[i-1]) {
			continue
		}
		end := jsonOperandEnd(toks, forwardMatches(toks), i+1)
		if end == i+1 {
			return nil, errAtIndex(query, toks, end)
		}
		call := []Token{{Kind: TokIdent, Text: PrefixOpFunc, Pos: t.Pos, End: t.End}, punct("(", t), strLit(t.Text, t), punct(",", t)}
		call = append(call, toks[i+1:end]...)
		call = append(call, punct(")", t))
		toks = append(toks[:i:i], append(call, toks[end:]...)...)
	}
	return toks, nil
}
