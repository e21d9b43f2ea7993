package sql

// AggWithinFunc(e, desc, nulls) is the WITHIN GROUP (ORDER BY e ...) key
// of an ordered-set aggregate, flagged as AggOrderFunc's, as the last
// argument of the call (see rewriteWithinGroup).
const AggWithinFunc = "__sdb_agg_within"

// orderedSetAggs are PostgreSQL's ordered-set aggregates. A FILTER on one
// becomes a marked argument (see rewriteAggFilter): its first argument is
// the fraction, not the value.
var orderedSetAggs = map[string]bool{"percentile_cont": true, "percentile_disc": true, "mode": true}

func init() {
	for name := range orderedSetAggs {
		keepsNulls[name] = true
	}
}

// rewriteWithinGroup turns an aggregate's WITHIN GROUP clause, which
// TiDB's grammar lacks, into marker arguments of a plain call:
//
//	percentile_cont(0.5) WITHIN GROUP (ORDER BY x DESC)  ->  "percentile_cont"(0.5, __sdb_agg_within(x, 1, 0))
//	mode() WITHIN GROUP (ORDER BY x)                     ->  "mode"(__sdb_agg_within(x, 0, 0))
//
// The binder checks that the aggregate is an ordered-set one. It runs
// before rewriteAggOrder and rewriteAggFilter (a FILTER may follow).
func rewriteWithinGroup(query string, toks []Token) ([]Token, error) {
	for i := 1; i+2 < len(toks); i++ {
		if !toks[i].isWord("within") || !toks[i+1].isWord("group") || !toks[i-1].isPunct(")") {
			continue
		}
		if !toks[i+2].isPunct("(") {
			return nil, syntaxErrorAt(query, toks[i+2])
		}
		open := matchBackward(toks, i-1)
		if open < 1 || toks[open-1].Kind != TokIdent {
			return nil, syntaxErrorAt(query, toks[i])
		}
		gclose := matchForward(toks, i+2)
		if gclose < 0 {
			return nil, syntaxErrorAt(query, toks[i+2])
		}
		inner := toks[i+3 : gclose]
		if len(inner) < 3 || !inner[0].isWord("order") || !inner[1].isWord("by") {
			if len(inner) == 0 {
				return nil, syntaxErrorAt(query, toks[gclose])
			}
			return nil, syntaxErrorAt(query, inner[0])
		}
		if k := gclose + 1; k < len(toks) && toks[k].isWord("over") {
			return nil, notSupportedAt(query, toks[open-1], "OVER is not supported for ordered-set aggregate %s", toks[open-1].Text)
		}
		at := toks[i]
		word := func(w string) Token { return Token{Kind: TokIdent, Text: w, Pos: at.Pos, End: at.End} }
		name := toks[open-1]
		name.Quoted = true // a plain call: TiDB's grammar may know the name otherwise
		direct := toks[open+1 : i-1]
		if toks[open-1].isWord("approx_percentile") {
			// RisingWave's approx_percentile(q [, relative_error]): the
			// exact percentile_cont(q) is within any error it allows.
			name.Text = "percentile_cont"
			if args := splitArgs(direct); len(args) == 2 {
				direct = args[0]
			}
		}
		repl := []Token{name, punct("(", at)}
		repl = append(repl, direct...)
		for k, item := range splitArgs(inner[2:]) {
			key, desc, nulls, err := orderItem(query, item)
			if err != nil {
				return nil, err
			}
			if k > 0 || i-1 > open+1 {
				repl = append(repl, punct(",", at))
			}
			repl = append(repl, word(AggWithinFunc), punct("(", at))
			repl = append(repl, key...)
			repl = append(repl, punct(",", at), Token{Kind: TokNumber, Text: desc, Pos: at.Pos, End: at.End},
				punct(",", at), Token{Kind: TokNumber, Text: nulls, Pos: at.Pos, End: at.End}, punct(")", at))
		}
		repl = append(repl, punct(")", at))
		toks = splice(toks, open-1, gclose+1, repl...)
		i = open - 1 + len(repl) - 1
	}
	return toks, nil
}
