package sql

import "strings"

// AggFilterFunc marks, as the last argument of an aggregate that keeps
// NULL inputs, the condition of its FILTER clause (see rewriteAggFilter).
const AggFilterFunc = "__sdb_agg_filter"

// keepsNulls are the aggregates that do not skip NULL inputs.
var keepsNulls = map[string]bool{"array_agg": true, "jsonb_agg": true, "json_agg": true}

// rewriteAggFilter turns an aggregate's FILTER clause, which TiDB's parser
// lacks, into a CASE on its first argument; aggregates ignore NULLs, so
// the rows the condition rejects do not count:
//
//	count(*) FILTER (WHERE c)          ->  count(CASE WHEN (c) THEN 1 END)
//	sum(DISTINCT x) FILTER (WHERE c)   ->  sum(DISTINCT CASE WHEN (c) THEN (x) END)
//	string_agg(x, ',') FILTER (WHERE c) -> string_agg(CASE WHEN (c) THEN (x) END, ',')
//
// An aggregate that keeps NULLs (array_agg, jsonb_agg, and
// json(b)_object_agg, whose NULL key is an error) takes the condition as
// a last argument instead, marked by AggFilterFunc, and skips the rows it
// rejects:
//
//	array_agg(x) FILTER (WHERE c)      ->  array_agg(x, __sdb_agg_filter(c))
func rewriteAggFilter(query string, toks []Token) ([]Token, error) {
	for i := 1; i+2 < len(toks); i++ {
		if !toks[i].isWord("filter") || !toks[i-1].isPunct(")") || !toks[i+1].isPunct("(") || !toks[i+2].isWord("where") {
			continue
		}
		open := matchBackward(toks, i-1)
		fclose := matchForward(toks, i+1)
		if open < 1 || fclose < 0 || toks[open-1].Kind != TokIdent {
			return nil, syntaxErrorAt(query, toks[i])
		}
		cond := toks[i+3 : fclose]
		if len(cond) == 0 {
			return nil, syntaxErrorAt(query, toks[fclose])
		}
		args := toks[open+1 : i-1]
		at := toks[i]
		var prefix []Token
		if len(args) > 0 && (args[0].isWord("distinct") || args[0].isWord("all")) {
			prefix, args = args[:1], args[1:]
		}
		parts := splitArgs(args)
		if len(parts) == 0 {
			return nil, syntaxErrorAt(query, toks[i-1])
		}
		first := parts[0]
		if len(first) == 1 && first[0].isPunct("*") {
			first = []Token{{Kind: TokNumber, Text: "1", Pos: at.Pos, End: at.End}}
		}
		word := func(w string) Token { return Token{Kind: TokIdent, Text: w, Pos: at.Pos, End: at.End} }
		if keepsNulls[strings.ToLower(toks[open-1].Text)] {
			// A NULL from the CASE would be kept as an element: the
			// condition goes to the binder as a marked last argument,
			// and the aggregate skips the rows it rejects.
			repl := append([]Token(nil), args...)
			repl = append(repl, punct(",", at), word(AggFilterFunc), punct("(", at))
			repl = append(repl, cond...)
			repl = append(repl, punct(")", at), punct(")", at))
			toks = splice(toks, open+1, fclose+1, append(prefix, repl...)...)
			i = open
			continue
		}
		repl := append([]Token(nil), prefix...)
		repl = append(repl, word("case"), word("when"), punct("(", at))
		repl = append(repl, cond...)
		repl = append(repl, punct(")", at), word("then"), punct("(", at))
		repl = append(repl, first...)
		repl = append(repl, punct(")", at), word("end"))
		if len(parts) > 1 {
			// The other arguments follow the first one's comma.
			rest := args[len(parts[0]):]
			repl = append(repl, rest...)
		}
		toks = splice(toks, open+1, fclose+1, append(repl, punct(")", at))...)
		i = open
	}
	return toks, nil
}
