package sql

import "strings"

// The rewrite turns the tokens of a Postgres statement into tokens whose
// rendering the TiDB parser accepts with the same meaning, using the
// reserved markers documented in the package comment (stmt.go). It works
// on tokens, never on raw text, in passes that each handle one construct;
// every pass keeps each synthetic token's Pos/End pointing at the user's
// token it came from, so errors found later still point into the query.

// markerPrefix starts every identifier the rewrite invents. User
// identifiers starting with it are rejected.
const markerPrefix = "__sdb_"

// Marker names.
const (
	markerCast         = "__sdb_cast"
	markerFullJoin     = "__sdb_full_join"
	markerTemporalJoin = "__sdb_temporal_join"
	markerNullsFst     = "__sdb_nulls_first"
	markerNullsLast    = "__sdb_nulls_last"
	markerTableFunc    = "__sdb_tf_"
	markerConcat       = "__sdb_concat"
	markerDerived      = "__sdb_derived"
	markerExtract      = "__sdb_extract"
)

// rewrite runs the context-free passes over a statement's tokens. Table
// functions are handled later, when the tokens are parsed (see tablefunc).
func rewrite(query string, toks []Token) ([]Token, error) {
	passes := []func(string, []Token) ([]Token, error){
		rewriteNamedArgs,
		checkTokens,
		rewriteTemporalJoin,
		rewriteGroupingSets,
		rewriteWithinGroup,
		rewriteDistinctOn,
		rewriteFirstLast,
		rewriteAggOrder,
		rewriteAggFilter,
		rewriteWindowAggs,
		rewritePgSyntax,
		rewriteArrays,
		rewriteOperators,
		rewriteRowOfOne,
		rewriteDistinct,
		rewriteCasts,
		rewriteOverlaps,
		rewriteFrameOffsets,
		rewriteFrameExclude,
		rewriteSubscripts,
		rewritePower,
		rewriteAtTimeZone,
		rewritePrefixOps,
		rewriteJSONOps,
		rewriteSimilar,
		rewriteNullsOrder,
		rewriteFullJoin,
		rewriteValues,
		rewriteConcat,
		rewriteExtract,
		rewriteLimit,
	}
	toks = append([]Token(nil), toks...)
	var err error
	for _, pass := range passes {
		if toks, err = pass(query, toks); err != nil {
			return nil, err
		}
	}
	return toks, nil
}

// raw is a synthetic token rendered as text, standing for the user's at.
func raw(text string, at Token) Token {
	return Token{Kind: tokRaw, Text: text, Pos: at.Pos, End: at.End}
}

// punct is a synthetic punctuation token ( ) , standing for at; unlike raw
// tokens, the bracket matching of later passes sees it.
func punct(text string, at Token) Token {
	return Token{Kind: TokPunct, Text: text, Pos: at.Pos, End: at.End}
}

// strLit is a synthetic string literal standing for at.
func strLit(val string, at Token) Token {
	return Token{Kind: TokString, Text: val, Pos: at.Pos, End: at.End}
}

// splice returns toks with toks[i:j] replaced by repl.
func splice(toks []Token, i, j int, repl ...Token) []Token {
	out := make([]Token, 0, len(toks)-(j-i)+len(repl))
	out = append(out, toks[:i]...)
	out = append(out, repl...)
	return append(out, toks[j:]...)
}

// edits collects insertions and deletions against a token slice, to be
// applied in one linear pass (passes that splice as they go would be
// quadratic in the number of constructs).
type edits struct {
	before map[int][]Token // tokens to insert before index i (len(toks): at the end)
	drop   map[int]bool    // indexes to leave out
}

func newEdits() *edits { return &edits{before: map[int][]Token{}, drop: map[int]bool{}} }

func (e *edits) insert(i int, ts ...Token) { e.before[i] = append(e.before[i], ts...) }

func (e *edits) remove(i, j int) {
	for k := i; k < j; k++ {
		e.drop[k] = true
	}
}

// apply returns toks with the edits made.
func (e *edits) apply(toks []Token) []Token {
	if len(e.before) == 0 && len(e.drop) == 0 {
		return toks
	}
	out := make([]Token, 0, len(toks)+len(e.before)*3)
	for i := 0; i <= len(toks); i++ {
		out = append(out, e.before[i]...)
		if i < len(toks) && !e.drop[i] {
			out = append(out, toks[i])
		}
	}
	return out
}

func isOpen(t Token) bool  { return t.Kind == TokPunct && (t.Text == "(" || t.Text == "[") }
func isClose(t Token) bool { return t.Kind == TokPunct && (t.Text == ")" || t.Text == "]") }

// matchForward returns the index of the bracket closing the one at i, or -1.
func matchForward(toks []Token, i int) int {
	depth := 0
	for j := i; j < len(toks); j++ {
		switch {
		case isOpen(toks[j]):
			depth++
		case isClose(toks[j]):
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// matchBackward returns the index of the bracket opening the one at j, or -1.
func matchBackward(toks []Token, j int) int {
	depth := 0
	for i := j; i >= 0; i-- {
		switch {
		case isClose(toks[i]):
			depth++
		case isOpen(toks[i]):
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// scanLevel walks toks from i in direction dir (+1 or -1), skipping
// bracketed groups, and returns the first index at the starting nesting
// level for which stop returns true; a bracket that closes the level also
// stops the walk. It returns len(toks) or -1 when the walk runs off the end.
func scanLevel(toks []Token, i, dir int, stop func(int) bool) int {
	for ; i >= 0 && i < len(toks); i += dir {
		t := toks[i]
		if (dir > 0 && isClose(t)) || (dir < 0 && isOpen(t)) {
			return i
		}
		if (dir > 0 && isOpen(t)) || (dir < 0 && isClose(t)) {
			if i = skipGroup(toks, i, dir); i < 0 || i >= len(toks) {
				return i
			}
			continue
		}
		if stop(i) {
			return i
		}
	}
	return i
}

// skipGroup returns the index of the bracket matching the one at i.
func skipGroup(toks []Token, i, dir int) int {
	var m int
	if dir > 0 {
		if m = matchForward(toks, i); m < 0 {
			return len(toks)
		}
	} else if m = matchBackward(toks, i); m < 0 {
		return -1
	}
	return m
}

// wordIn reports whether t is an unquoted keyword in the set.
func wordIn(t Token, set map[string]bool) bool {
	return t.Kind == TokIdent && !t.Quoted && set[t.Text]
}

func wordSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// exprStartWords are keywords after which an expression begins, so that
// an operator following one is a prefix operator.
var exprStartWords = wordSet(`select where and or not when then else on having by in is like ilike
	between case return returning as distinct all any some from limit offset using values set
	with into escape similar to over partition`)

// endsOperand reports whether t can be the last token of an operand: an
// operator after it is infix.
func endsOperand(t Token) bool {
	switch t.Kind {
	case TokIdent:
		return t.Quoted || !exprStartWords[t.Text]
	case TokNumber, TokString, TokParam:
		return true
	case TokPunct:
		return t.Text == ")" || t.Text == "]"
	}
	return false
}
