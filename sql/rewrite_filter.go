package sql

// rewriteAggFilter turns an aggregate's FILTER clause, which TiDB's parser
// lacks, into a CASE on its first argument; aggregates ignore NULLs, so
// the rows the condition rejects do not count:
//
//	count(*) FILTER (WHERE c)          ->  count(CASE WHEN (c) THEN 1 END)
//	sum(DISTINCT x) FILTER (WHERE c)   ->  sum(DISTINCT CASE WHEN (c) THEN (x) END)
//	string_agg(x, ',') FILTER (WHERE c) -> string_agg(CASE WHEN (c) THEN (x) END, ',')
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
