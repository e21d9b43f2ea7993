package sql

import "strings"

// WindowAggFunc marks an aggregate that TiDB's parser reads as a plain
// call (string_agg, corr, jsonb_object_agg, ...: see callAggs) used as a
// window function. The parser takes OVER only after its own aggregates,
// so rewriteWindowAggs wraps the call in one of them, max, with the
// aggregate's name as the marker's first argument, and the binder reads
// the call back from it:
//
//	corr(y, x) OVER w  ->  max(__sdb_window_agg('corr', y, x)) OVER w
//
// It runs after rewriteAggOrder and rewriteAggFilter: a FILTER is then
// in the arguments as for any other call, and DISTINCT and ORDER BY are
// their markers, which the binder rejects as PostgreSQL does (they are
// not implemented for window functions).
const WindowAggFunc = "__sdb_window_agg"

// PairAggs are PostgreSQL's aggregates of two arguments, other than
// string_agg, that TiDB's parser reads as plain calls: the regression
// family and the object aggregates. The binder packs their two
// arguments into one (see the binder's bind_agg_pair.go).
var PairAggs = map[string]bool{
	"corr": true, "covar_pop": true, "covar_samp": true, "regr_avgx": true, "regr_avgy": true,
	"regr_count": true, "regr_intercept": true, "regr_r2": true, "regr_slope": true, "regr_sxx": true,
	"regr_sxy": true, "regr_syy": true, "jsonb_object_agg": true, "json_object_agg": true,
}

func init() {
	// The parser reads them as plain calls, whose DISTINCT and ORDER BY
	// rewriteAggOrder marks; json(b)_object_agg keeps a NULL value, so
	// its FILTER is a marked argument (see rewriteAggFilter).
	for name := range PairAggs {
		callAggs[name] = true
	}
	keepsNulls["jsonb_object_agg"] = true
	keepsNulls["json_object_agg"] = true
}

// rewriteWindowAggs wraps each call of one of callAggs followed by OVER
// (see WindowAggFunc).
func rewriteWindowAggs(query string, toks []Token) ([]Token, error) {
	for i := 0; i+1 < len(toks); i++ {
		t := toks[i]
		name := t.Text
		if !t.Quoted {
			name = strings.ToLower(name)
		}
		if t.Kind != TokIdent || !callAggs[name] || !toks[i+1].isPunct("(") {
			continue
		}
		start := i
		if i > 0 && toks[i-1].isPunct(".") {
			if i < 2 || !toks[i-2].isWord("pg_catalog") {
				continue // another schema's function
			}
			start = i - 2
		}
		end := matchForward(toks, i+1)
		if end < 0 {
			return nil, syntaxErrorAt(query, toks[i+1])
		}
		if end+1 >= len(toks) || !toks[end+1].isWord("over") {
			continue
		}
		repl := []Token{{Kind: TokIdent, Text: "max", Pos: t.Pos, End: t.End}, punct("(", t),
			{Kind: TokIdent, Text: WindowAggFunc, Pos: t.Pos, End: t.End}, punct("(", t), strLit(name, t)}
		if end > i+2 {
			repl = append(repl, punct(",", t))
			repl = append(repl, toks[i+2:end]...)
		}
		repl = append(repl, punct(")", t), punct(")", t))
		toks = splice(toks, start, end+1, repl...)
		i = start + len(repl) - 1
	}
	return toks, nil
}
