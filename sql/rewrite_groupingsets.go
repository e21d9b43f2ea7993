package sql

import "github.com/streamdb/streamdb/internal/pgerr"

// Markers of rewriteGroupingSets, read back by the binder.
const (
	// GroupingSetsFunc(GroupingSetFunc(e, ...), ...) is a GROUP BY of
	// grouping sets: the clause's only item, with one GroupingSetFunc call
	// per grouping set, in PostgreSQL's order (a set may be empty, and may
	// repeat: each is grouped apart).
	GroupingSetsFunc = "__sdb_grouping_sets"
	GroupingSetFunc  = "__sdb_gset"
)

// maxGroupingSets is PostgreSQL's limit on the grouping sets one GROUP BY
// expands to.
const maxGroupingSets = 4096

// groupByEnd are the keywords that end a GROUP BY clause.
var groupByEnd = wordSet(`having window order limit offset fetch union intersect except for`)

// rewriteGroupingSets expands a GROUP BY that uses ROLLUP, CUBE, GROUPING
// SETS or the empty grouping set (), which TiDB's grammar lacks, into the
// list of its grouping sets, as PostgreSQL defines them:
//
//	GROUP BY a, ROLLUP (b, c)  ->  GROUP BY __sdb_grouping_sets(__sdb_gset(a, b, c), __sdb_gset(a, b), __sdb_gset(a))
//	GROUP BY CUBE (a, b)       ->  ... __sdb_gset(a, b), __sdb_gset(a), __sdb_gset(b), __sdb_gset()
//
// Several items multiply out (each set of one with each of the next); a
// parenthesized list inside ROLLUP or CUBE is one element; GROUPING SETS
// may nest ROLLUP, CUBE and GROUPING SETS. A GROUP BY without them is
// left alone.
func rewriteGroupingSets(query string, toks []Token) ([]Token, error) {
	for i := 0; i+1 < len(toks); i++ {
		if !toks[i].isWord("group") || !toks[i+1].isWord("by") {
			continue
		}
		start := i + 2
		end := scanLevel(toks, start, 1, func(k int) bool { return wordIn(toks[k], groupByEnd) || toks[k].isPunct(";") })
		if end < 0 || end > len(toks) {
			end = len(toks)
		}
		items := splitArgs(toks[start:end])
		special := false
		for _, it := range items {
			special = special || groupingForm(it) != ""
		}
		if !special {
			continue
		}
		sets := [][][]Token{nil}
		for _, it := range items {
			if len(it) == 0 {
				return nil, syntaxErrorAt(query, toks[min(end, len(toks)-1)])
			}
			itemSets, err := groupingItemSets(query, it, true)
			if err != nil {
				return nil, err
			}
			if len(sets)*len(itemSets) > maxGroupingSets {
				return nil, pgerr.New(pgerr.StatementTooComplex, "too many grouping sets present (maximum %d)", maxGroupingSets).
					WithPosition(position(query, it[0].Pos))
			}
			var next [][][]Token
			for _, s := range sets {
				for _, t := range itemSets {
					next = append(next, append(append([][]Token(nil), s...), t...))
				}
			}
			sets = next
		}
		at := toks[i]
		word := func(w string) Token { return Token{Kind: TokIdent, Text: w, Pos: at.Pos, End: at.End} }
		repl := []Token{word(GroupingSetsFunc), punct("(", at)}
		for k, s := range sets {
			if k > 0 {
				repl = append(repl, punct(",", at))
			}
			repl = append(repl, word(GroupingSetFunc), punct("(", at))
			for j, e := range s {
				if j > 0 {
					repl = append(repl, punct(",", at))
				}
				repl = append(repl, e...)
			}
			repl = append(repl, punct(")", at))
		}
		repl = append(repl, punct(")", at))
		toks = splice(toks, start, end, repl...)
	}
	return toks, nil
}

// groupingForm names the grouping construct a GROUP BY item (or an
// element of GROUPING SETS) is: "()", "rollup", "cube", "sets", or "" for
// any other.
func groupingForm(it []Token) string {
	switch {
	case len(it) == 2 && it[0].isPunct("(") && it[1].isPunct(")"):
		return "()"
	case len(it) >= 3 && (it[0].isWord("rollup") || it[0].isWord("cube")) && it[1].isPunct("(") && matchForward(it, 1) == len(it)-1:
		return it[0].Text
	case len(it) >= 4 && it[0].isWord("grouping") && it[1].isWord("sets") && it[2].isPunct("(") && matchForward(it, 2) == len(it)-1:
		return "sets"
	}
	return ""
}

// wholeParens reports whether it is one parenthesized group.
func wholeParens(it []Token) bool {
	return len(it) >= 2 && it[0].isPunct("(") && matchForward(it, 0) == len(it)-1
}

// groupingItemSets returns the grouping sets of one GROUP BY item (top:
// directly in GROUP BY) or one element of GROUPING SETS: each set is a
// list of expressions.
func groupingItemSets(query string, it []Token, top bool) ([][][]Token, error) {
	switch form := groupingForm(it); {
	case form == "()":
		return [][][]Token{{}}, nil
	case form == "rollup" || form == "cube":
		elems, err := groupingElements(query, it[2:len(it)-1], it[len(it)-1])
		if err != nil {
			return nil, err
		}
		if form == "rollup" {
			return rollupSets(elems), nil
		}
		if len(elems) > 12 {
			return nil, pgerr.New(pgerr.ProgramLimitExceeded, "CUBE is limited to 12 elements").WithPosition(position(query, it[0].Pos))
		}
		return cubeSets(elems), nil
	case form == "sets":
		inner := it[3 : len(it)-1]
		if len(inner) == 0 {
			return nil, syntaxErrorAt(query, it[len(it)-1])
		}
		var sets [][][]Token
		for _, e := range splitArgs(inner) {
			if len(e) == 0 {
				return nil, syntaxErrorAt(query, it[len(it)-1])
			}
			s, err := groupingItemSets(query, e, false)
			if err != nil {
				return nil, err
			}
			sets = append(sets, s...)
			if len(sets) > maxGroupingSets {
				return nil, pgerr.New(pgerr.StatementTooComplex, "too many grouping sets present (maximum %d)", maxGroupingSets).
					WithPosition(position(query, it[0].Pos))
			}
		}
		return sets, nil
	case wholeParens(it):
		// (a, b): one set of several expressions; (a + b) one of one.
		var set [][]Token
		for _, e := range splitArgs(it[1 : len(it)-1]) {
			if len(e) == 0 {
				return nil, syntaxErrorAt(query, it[len(it)-1])
			}
			set = append(set, e)
		}
		return [][][]Token{set}, nil
	}
	return [][][]Token{{it}}, nil
}

// groupingElements splits the elements of ROLLUP or CUBE: an expression,
// or a parenthesized list of them taken as one element.
func groupingElements(query string, inner []Token, closer Token) ([][][]Token, error) {
	if len(inner) == 0 {
		return nil, syntaxErrorAt(query, closer)
	}
	var elems [][][]Token
	for _, e := range splitArgs(inner) {
		if len(e) == 0 {
			return nil, syntaxErrorAt(query, closer)
		}
		if wholeParens(e) {
			var parts [][]Token
			if len(e) > 2 {
				for _, p := range splitArgs(e[1 : len(e)-1]) {
					if len(p) == 0 {
						return nil, syntaxErrorAt(query, closer)
					}
					parts = append(parts, p)
				}
			}
			elems = append(elems, parts)
			continue
		}
		elems = append(elems, [][]Token{e})
	}
	return elems, nil
}

// rollupSets are ROLLUP's sets: every prefix of the elements, longest
// first.
func rollupSets(elems [][][]Token) [][][]Token {
	sets := make([][][]Token, 0, len(elems)+1)
	for n := len(elems); n >= 0; n-- {
		var s [][]Token
		for _, e := range elems[:n] {
			s = append(s, e...)
		}
		sets = append(sets, s)
	}
	return sets
}

// cubeSets are CUBE's sets: every subset of the elements, in PostgreSQL's
// order (for CUBE (a, b): (a, b), (a), (b), ()).
func cubeSets(elems [][][]Token) [][][]Token {
	n := len(elems)
	sets := make([][][]Token, 0, 1<<n)
	for mask := 1<<n - 1; mask >= 0; mask-- {
		var s [][]Token
		for k, e := range elems {
			if mask&(1<<(n-1-k)) != 0 {
				s = append(s, e...)
			}
		}
		sets = append(sets, s)
	}
	return sets
}
