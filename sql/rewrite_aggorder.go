package sql

import "strings"

// Markers of rewriteAggOrder, read back by the binder.
const (
	// AggDistinctFunc, a call with no arguments among a list aggregate's
	// arguments, marks DISTINCT.
	AggDistinctFunc = "__sdb_agg_distinct"
	// AggOrderFunc(e, desc, nulls) is one ORDER BY key of a list
	// aggregate: desc 1 for DESC, nulls 1 for NULLS FIRST, 2 for NULLS
	// LAST, 0 for the direction's default.
	AggOrderFunc = "__sdb_agg_order"
)

// callAggs are the aggregates TiDB's parser reads as plain function calls
// whose DISTINCT and ORDER BY the rewrite moves into markers.
var callAggs = map[string]bool{"string_agg": true, "array_agg": true, "bool_and": true, "bool_or": true, "every": true,
	"stddev": true, "variance": true, "jsonb_agg": true, "json_agg": true}

// nativeAggs are the aggregates TiDB's grammar knows, whose calls the
// rewrite leaves alone unless they hold an ORDER BY, or a DISTINCT the
// grammar lacks (nativeDistinct lists those it has): such a call becomes
// a plain function call with markers, as callAggs'. The ORDER BY cannot
// change their values; under DISTINCT it is checked as PostgreSQL does.
var nativeAggs = map[string]bool{"count": true, "sum": true, "avg": true, "min": true, "max": true,
	"bit_and": true, "bit_or": true, "bit_xor": true, "var_pop": true, "var_samp": true,
	"stddev_pop": true, "stddev_samp": true}

var nativeDistinct = map[string]bool{"count": true, "sum": true, "avg": true, "min": true, "max": true,
	"var_pop": true, "var_samp": true, "stddev_pop": true, "stddev_samp": true}

// samplingAggs are PostgreSQL's names for stddev_samp and var_samp, which
// TiDB's grammar takes for its stddev_pop and var_pop.
var samplingAggs = map[string]bool{"stddev": true, "variance": true}

// rewriteAggOrder turns the DISTINCT and the ORDER BY inside a call of
// string_agg, array_agg, bool_and, bool_or or every, which TiDB's grammar
// has only for its own aggregates, into marker arguments:
//
//	array_agg(DISTINCT x)                   ->  array_agg(x, __sdb_agg_distinct())
//	string_agg(s, ',' ORDER BY k DESC, j)   ->  string_agg(s, ',', __sdb_agg_order(k, 1, 0), __sdb_agg_order(j, 0, 0))
//	array_agg(x ORDER BY x NULLS FIRST)     ->  array_agg(x, __sdb_agg_order(x, 0, 1))
//
// It runs before rewriteAggFilter, which adds FILTER's marker after them.
func rewriteAggOrder(query string, toks []Token) ([]Token, error) {
	for i := 0; i+1 < len(toks); i++ {
		name := strings.ToLower(toks[i].Text)
		if toks[i].Kind != TokIdent || toks[i].Quoted || !callAggs[name] && !nativeAggs[name] || !toks[i+1].isPunct("(") {
			continue
		}
		if i > 0 && toks[i-1].isPunct(".") && !(i > 1 && toks[i-2].isWord("pg_catalog")) {
			continue // another schema's function
		}
		if samplingAggs[toks[i].Text] {
			// TiDB's grammar reads stddev and variance as its own
			// aggregates, the population forms: quoted, they are plain
			// calls of PostgreSQL's (the sample forms).
			toks[i].Quoted = true
		}
		open := i + 1
		end := matchForward(toks, open)
		if end < 0 {
			return nil, syntaxErrorAt(query, toks[open])
		}
		inner := toks[open+1 : end]
		distinct := len(inner) > 0 && inner[0].isWord("distinct")
		if distinct || len(inner) > 0 && inner[0].isWord("all") {
			inner = inner[1:]
		}
		orderAt := scanLevel(inner, 0, 1, func(k int) bool {
			return inner[k].isWord("order") && k+1 < len(inner) && inner[k+1].isWord("by")
		})
		if orderAt < 0 || orderAt >= len(inner) {
			orderAt = -1
		}
		if nativeAggs[name] {
			if orderAt < 0 && (!distinct || nativeDistinct[name]) {
				continue // TiDB's grammar reads it as it is
			}
			toks[i].Quoted = true // a plain call, with markers
		}
		if !distinct && orderAt < 0 {
			if len(inner) != end-open-1 {
				toks = splice(toks, open+1, end, inner...) // drop ALL
			}
			continue
		}
		args := inner
		var items [][]Token
		if orderAt >= 0 {
			args = inner[:orderAt]
			if orderAt+2 >= len(inner) {
				return nil, syntaxErrorAt(query, toks[end])
			}
			items = splitArgs(inner[orderAt+2:])
		}
		if len(args) == 0 {
			return nil, syntaxErrorAt(query, inner[max(orderAt, 0)])
		}
		at := toks[i]
		word := func(w string) Token { return Token{Kind: TokIdent, Text: w, Pos: at.Pos, End: at.End} }
		repl := append([]Token(nil), args...)
		if distinct {
			repl = append(repl, punct(",", at), word(AggDistinctFunc), punct("(", at), punct(")", at))
		}
		for _, item := range items {
			key, desc, nulls, err := orderItem(query, item)
			if err != nil {
				return nil, err
			}
			repl = append(repl, punct(",", at), word(AggOrderFunc), punct("(", at))
			repl = append(repl, key...)
			repl = append(repl, punct(",", at), Token{Kind: TokNumber, Text: desc, Pos: at.Pos, End: at.End},
				punct(",", at), Token{Kind: TokNumber, Text: nulls, Pos: at.Pos, End: at.End}, punct(")", at))
		}
		toks = splice(toks, open+1, end, repl...)
	}
	return toks, nil
}

// orderItem splits an ORDER BY item into its expression, direction ("1"
// for DESC) and null ordering ("1" NULLS FIRST, "2" NULLS LAST, "0" the
// default).
func orderItem(query string, item []Token) (key []Token, desc, nulls string, err error) {
	desc, nulls = "0", "0"
	n := len(item)
	if n >= 2 && item[n-2].isWord("nulls") && (item[n-1].isWord("first") || item[n-1].isWord("last")) {
		nulls = "1"
		if item[n-1].isWord("last") {
			nulls = "2"
		}
		n -= 2
	}
	if n >= 1 && (item[n-1].isWord("asc") || item[n-1].isWord("desc")) {
		if item[n-1].isWord("desc") {
			desc = "1"
		}
		n--
	}
	if n >= 2 && item[n-2].isWord("using") {
		return nil, "", "", syntaxErrorAt(query, item[n-2])
	}
	if n == 0 {
		if len(item) > 0 {
			return nil, "", "", syntaxErrorAt(query, item[0])
		}
		return nil, "", "", syntaxErrorAtEnd(query, len(query))
	}
	return item[:n], desc, nulls, nil
}
