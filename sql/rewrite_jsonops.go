package sql

import "strings"

// JSONOpFunc is the marker call a PostgreSQL JSON operator becomes (see
// rewriteJSONOps): JSONOpFunc('op', left, right), op the operator as
// written ("->", "->>", "#>", "#>>", "#-", "@>", "<@", "?", "?|", "?&", and
// the array overlap "&&").
const JSONOpFunc = "__sdb_op"

// jsonOps are the operators rewriteJSONOps turns into JSONOpFunc calls.
// The bitwise operators # & | << >>, ^@ (starts with) and the network
// operators <<= and >>= are of their level too, and travel the same way:
// TiDB would give & | << >> MySQL's precedence (| below & below << >>),
// where PostgreSQL has one level, left to right (4 | 1 & 2 is (4 | 1) & 2,
// 0); inet's << and >> (contained by, contains) share the bitwise shifts'
// spelling and are told apart by their operands' types.
var jsonOps = wordSet(`-> ->> #> #>> #- @> <@ ? ?| ?& && # ^@ & | << >> <<= >>=`)

// Operators around a JSON operator, by PostgreSQL's precedence
// (sql-syntax-lexical.html#SQL-PRECEDENCE). The JSON operators are of the
// "any other operator" level, left-associative. An operand of one extends
// over the operators that bind more tightly (:: and [ ] are marker calls
// by the time the pass runs, ^ is rejected by checkTokens); a left operand
// also extends back over the operators of the same level, a right one
// ends at them. Every other operator (comparisons, and the pattern
// operators, which rewriteOperators has made words) ends an operand.
var (
	jsonTighterOps = wordSet(`+ - * / %`)
	jsonPrefixOps  = wordSet(`+ - ~`)
	jsonLevelOps   = wordSet(`|| & | << >> -> ->> #> #>> #- @> <@ ? ?| ?& && # ^@ <<= >>=`)
)

// rewriteJSONOps turns each binary use of a JSON operator into a marker
// call the binder reads back:
//
//	j -> 'a'             ->  __sdb_op('->', j, 'a')
//	j -> 'a' ->> 'b'     ->  __sdb_op('->>', __sdb_op('->', j, 'a'), 'b')
//	a || b -> 'k' = x    ->  __sdb_op('->', a || b, 'k') = x
//	j -> 1 + 2           ->  __sdb_op('->', j, 1 + 2)
//	NOT j ? 'a'          ->  NOT __sdb_op('?', j, 'a')
//
// It runs after rewriteCasts and rewriteSubscripts, so that x::jsonb and
// x[i] are already calls (they bind more tightly), and after
// rewriteDistinct and rewriteOperators, whose results (<=>, regexp, like)
// end an operand. The marker's name, its '(' and the operator string
// carry the operator's position, where PostgreSQL reports errors about an
// operator expression. A prefix use (no left operand) is a syntax error
// at the operator, as in PostgreSQL.
func rewriteJSONOps(query string, toks []Token) ([]Token, error) {
	type use struct{ op, end int }
	if !hasJSONOp(toks) {
		return toks, nil
	}
	closers := forwardMatches(toks)
	e := newEdits()
	done := map[int]bool{}
	for i, t := range toks {
		if t.Kind != TokOp || !jsonOps[t.Text] || done[i] {
			continue
		}
		if i == 0 || !endsOperand(toks[i-1]) {
			return nil, syntaxErrorAt(query, t)
		}
		start := jsonChainStart(toks, i-1)
		if start < 0 {
			return nil, syntaxErrorAt(query, t)
		}
		// Walk the chain of same-level operators from i: each JSON
		// operator's right operand ends where the next operator starts.
		var uses []use
		for k := i; ; {
			end := jsonOperandEnd(toks, closers, k+1)
			if end == k+1 && jsonOps[toks[k].Text] {
				return nil, jsonOperandErr(query, toks, k, end)
			}
			if end == k+1 {
				break // another operator's operand: TiDB reports it
			}
			if jsonOps[toks[k].Text] {
				uses = append(uses, use{k, end})
				done[k] = true
			}
			if end >= len(toks) || toks[end].Kind != TokOp || !jsonLevelOps[toks[end].Text] {
				break
			}
			k = end
		}
		for _, u := range uses {
			at := toks[u.op]
			e.remove(u.op, u.op+1)
			e.insert(u.op, punct(",", at))
			e.insert(u.end, punct(")", at))
		}
		for k := len(uses) - 1; k >= 0; k-- { // the last operator is the outermost call
			at := toks[uses[k].op]
			e.insert(start, Token{Kind: TokIdent, Text: JSONOpFunc, Pos: at.Pos, End: at.End},
				punct("(", at), strLit(at.Text, at), punct(",", at))
		}
	}
	return e.apply(toks), nil
}

// jsonOperandErr is the error for the missing right operand of the
// operator at op: a syntax error where the operand should start, or 0A000
// for op ANY|SOME|ALL (...), which the rewrite does not carry for these
// operators.
func jsonOperandErr(query string, toks []Token, op, at int) error {
	if at < len(toks) && (toks[at].isWord("any") || toks[at].isWord("some") || toks[at].isWord("all")) &&
		at+1 < len(toks) && toks[at+1].isPunct("(") {
		return notSupportedAt(query, toks[at], "operator %s with %s (...) is not supported",
			toks[op].Text, strings.ToUpper(toks[at].Text))
	}
	return errAtIndex(query, toks, at)
}

// jsonChainStart returns the index of the first token of the left operand
// of a JSON operator, whose last token is at j: it extends back over
// operands joined by tighter or same-level operators (left
// associativity), or -1 when there is no operand.
func jsonChainStart(toks []Token, j int) int {
	for {
		s := operandStart(toks, j)
		for s >= 2 && toks[s-1].isPunct(".") && toks[s-2].isPunct(")") { // (x).field
			s = operandStart(toks, s-2)
		}
		if s < 0 {
			return -1
		}
		switch {
		case s >= 2 && toks[s-1].isWord("collate"):
			// x COLLATE name binds more tightly.
			j = s - 2
			continue
		case s >= 4 && toks[s-1].isWord("zone") && toks[s-2].isWord("time") && toks[s-3].isWord("at"):
			// x AT TIME ZONE z binds more tightly.
			j = s - 4
			continue
		}
		for s >= 1 && toks[s-1].Kind == TokOp && jsonPrefixOps[toks[s-1].Text] && (s == 1 || !endsOperand(toks[s-2])) {
			s--
		}
		if s >= 2 && toks[s-1].Kind == TokOp && (jsonTighterOps[toks[s-1].Text] || jsonLevelOps[toks[s-1].Text]) &&
			endsOperand(toks[s-2]) {
			j = s - 2
			continue
		}
		return s
	}
}

// hasJSONOp reports whether toks hold a JSON operator (most statements
// have none, and the pass leaves them as they are).
func hasJSONOp(toks []Token) bool {
	for _, t := range toks {
		if t.Kind == TokOp && jsonOps[t.Text] {
			return true
		}
	}
	return false
}

// forwardMatches maps the index of each '(' or '[' to that of the bracket
// closing it, and each CASE to its END; len(toks) when there is none. The
// operand scans look them up, so that nested operands cost linear time.
func forwardMatches(toks []Token) map[int]int {
	m := map[int]int{}
	var brackets, cases []int
	for k, t := range toks {
		switch {
		case isOpen(t):
			brackets = append(brackets, k)
		case isClose(t) && len(brackets) > 0:
			m[brackets[len(brackets)-1]] = k
			brackets = brackets[:len(brackets)-1]
		case t.isWord("case"):
			cases = append(cases, k)
		case t.isWord("end") && len(cases) > 0:
			m[cases[len(cases)-1]] = k
			cases = cases[:len(cases)-1]
		}
	}
	for _, k := range append(brackets, cases...) {
		m[k] = len(toks)
	}
	return m
}

// jsonOperandEnd returns the index after the right operand of a JSON
// operator starting at i (i itself when there is none): one operand with
// its prefix operators, calls, field selections, COLLATE, AT TIME ZONE
// and OVER, and the operands joined to it by tighter operators (+ - * /
// %). It ends at anything else: a same-level or looser operator, a
// keyword (AND, IS, BETWEEN, FROM, AS, ...), an alias, ',' or a closing
// bracket.
func jsonOperandEnd(toks []Token, closers map[int]int, i int) int {
	need, callable := true, false
	for i < len(toks) {
		t := toks[i]
		if need {
			callable = false
			switch {
			case t.Kind == TokOp && jsonPrefixOps[t.Text]:
				i++
				continue
			case isOpen(t), t.isWord("case"):
				i = closers[i] + 1
			case t.Kind == TokString || t.Kind == TokNumber || t.Kind == TokParam:
				i++
			case t.Kind == TokIdent && (t.Quoted || !exprStartWords[t.Text]),
				t.Kind == tokRaw && strings.HasPrefix(t.Text, markerPrefix):
				i, callable = i+1, true
			default:
				return i
			}
			need = false
			continue
		}
		switch {
		case t.isPunct("(") && callable, t.isPunct("["):
			i, callable = closers[i]+1, false
		case t.isPunct(".") && i+1 < len(toks) && (toks[i+1].Kind == TokIdent || toks[i+1].isPunct("*")):
			i, callable = i+2, toks[i+1].Kind == TokIdent
		case t.Kind == TokOp && jsonTighterOps[t.Text]:
			i, need = i+1, true
		case t.isWord("collate") && i+1 < len(toks) && toks[i+1].Kind == TokIdent:
			i, callable = i+2, false
		case t.isWord("at") && i+2 < len(toks) && toks[i+1].isWord("time") && toks[i+2].isWord("zone"):
			i, need = i+3, true
		case t.isWord("over") && i+1 < len(toks) && isOpen(toks[i+1]):
			i, callable = closers[i+1]+1, false
		case t.isWord("over") && i+1 < len(toks) && toks[i+1].Kind == TokIdent:
			i, callable = i+2, false
		default:
			return i
		}
	}
	return min(i, len(toks))
}
