package sql

import (
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// passOps are operators the rendering passes to TiDB unchanged: they mean
// the same in both dialects (the binder gives / its Postgres meaning).
var passOps = wordSet(`+ - * / % < > = <= >= <> != || & | << >> ::`)

// regexOps maps Postgres pattern operators to the TiDB keywords that stand
// for them. REGEXP in the AST always means Postgres's case-sensitive ~.
var regexOps = map[string]string{
	"~":    "regexp",
	"!~":   "not regexp",
	"~~":   "like",
	"!~~":  "not like",
	"~~*":  "ilike",
	"!~~*": "not ilike",
	"~*":   "regexp", // with the pattern wrapped in __sdb_icase(...)
	"!~*":  "not regexp",
}

// markerICase wraps the pattern of a case-insensitive match (~*, !~*).
const markerICase = "__sdb_icase"

// checkTokens rejects what the rendering could not carry over faithfully:
// reserved identifiers, operators that mean something else (or nothing)
// to TiDB (# is a comment there, ^ is xor, ? a placeholder, @ a
// variable), a lone ':' other than one of an array slice's brackets
// (a[lo:hi], which rewriteSubscripts takes), and two adjacent string
// literals (which TiDB would concatenate). The JSON operators (->, #>,
// @>, ?, ...) pass: they become marker calls (rewriteJSONOps).
func checkTokens(query string, toks []Token) ([]Token, error) {
	var open []string // the brackets open at each token
	for i, t := range toks {
		switch {
		case isOpen(t):
			open = append(open, t.Text)
		case isClose(t) && len(open) > 0:
			open = open[:len(open)-1]
		case t.isPunct(":") && len(open) > 0 && open[len(open)-1] == "[":
			continue
		}
		if err := checkToken(query, toks, i); err != nil {
			return nil, err
		}
	}
	return toks, nil
}

func checkToken(query string, toks []Token, i int) error {
	t := toks[i]
	switch t.Kind {
	case TokIdent:
		return checkReservedIdent(query, t)
	case TokString:
		if i > 0 && toks[i-1].Kind == TokString {
			return syntaxErrorAt(query, t)
		}
	case TokPunct:
		if t.Text == ":" {
			return syntaxErrorAt(query, t)
		}
	case TokOp:
		return checkOperator(query, toks, i)
	}
	return nil
}

func checkOperator(query string, toks []Token, i int) error {
	t := toks[i]
	if passOps[t.Text] || jsonOps[t.Text] || t.Text == "^" { // JSON operators: see rewriteJSONOps; ^: rewritePower
		return nil
	}
	if prefixOps[t.Text] && (i == 0 || !endsOperand(toks[i-1])) { // rewritePrefixOps
		return nil
	}
	if _, ok := regexOps[t.Text]; ok {
		return nil
	}
	if t.Text == "!" || strings.ContainsAny(t.Text, "?`") {
		return syntaxErrorAt(query, t)
	}
	return notSupportedAt(query, t, "operator is not supported: %s", t.Text)
}

// checkReservedIdent rejects identifiers that start with the marker prefix.
func checkReservedIdent(query string, t Token) error {
	if t.Kind == TokIdent && strings.HasPrefix(strings.ToLower(t.Text), markerPrefix) {
		return pgerr.New(pgerr.SyntaxError, "identifier %q is reserved: names starting with %q are for internal use",
			t.Text, markerPrefix).WithPosition(position(query, t.Pos))
	}
	return nil
}

// rewriteOperators turns the Postgres pattern operators into TiDB's:
// a ~ b -> a regexp b, a !~ b -> a not regexp b, a ~* b -> a regexp
// __sdb_icase(b), ~~ -> like, ~~* -> ilike (and negations). A prefix ~
// (bitwise not) is left alone.
func rewriteOperators(query string, toks []Token) ([]Token, error) {
	e := newEdits()
	for i, t := range toks {
		kw, ok := regexOps[t.Text]
		if t.Kind != TokOp || !ok {
			continue
		}
		if i == 0 || !endsOperand(toks[i-1]) {
			if t.Text == "~" {
				continue
			}
			return nil, syntaxErrorAt(query, t)
		}
		toks[i] = raw(kw, t)
		if t.Text == "~*" || t.Text == "!~*" {
			end := regexOperandEnd(toks, i+1)
			if end == i+1 {
				return nil, errAtIndex(query, toks, end)
			}
			e.insert(i+1, raw(markerICase, t), punct("(", t))
			e.insert(end, punct(")", t))
		}
	}
	return e.apply(toks), nil
}

// regexOperandEnd returns the index after the right operand of a pattern
// operator starting at i: it extends over arithmetic and ||, and ends at
// a comparison, a boolean operator or a clause keyword.
func regexOperandEnd(toks []Token, i int) int {
	caseDepth := 0
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
		case t.Kind == TokOp:
			_, isRegex := regexOps[t.Text]
			return comparisonOps[t.Text] || isRegex
		}
		return wordIn(t, distinctStop) || wordIn(t, notComparisons) || t.isWord("not")
	})
}
