package sql

import "github.com/streamdb/streamdb/internal/pgerr"

// rewriteOverlaps turns (s1, e1) OVERLAPS (s2, e2) (either row may be
// written ROW(...)) into overlaps(s1, e1, s2, e2), which the binder binds
// as the function PostgreSQL defines it by. A side that is not a row of
// two is PostgreSQL's syntax error.
func rewriteOverlaps(query string, toks []Token) ([]Token, error) {
	for i := 1; i+1 < len(toks); i++ {
		t := toks[i]
		rOpen := i + 1
		if toks[rOpen].isWord("row") && rOpen+1 < len(toks) {
			rOpen++
		}
		if !t.isWord("overlaps") || t.Quoted || !toks[i-1].isPunct(")") || !toks[rOpen].isPunct("(") {
			continue
		}
		lOpen := matchBackward(toks, i-1)
		rClose := matchForward(toks, rOpen)
		if lOpen < 0 || rClose < 0 {
			return nil, syntaxErrorAt(query, t)
		}
		for side, span := range [][2]int{{lOpen, i - 1}, {rOpen, rClose}} {
			if topLevelCommas(toks, span[0], span[1]) != 1 {
				which := [...]string{"left", "right"}[side]
				return nil, pgerr.New(pgerr.SyntaxError, "wrong number of parameters on %s side of OVERLAPS expression", which).
					WithPosition(position(query, toks[lOpen].Pos))
			}
		}
		start := lOpen
		if start > 0 && toks[start-1].isWord("row") {
			start--
		}
		inner := []Token{{Kind: TokIdent, Text: "overlaps", Pos: t.Pos, End: t.End}, punct("(", t)}
		inner = append(inner, toks[lOpen+1:i-1]...)
		inner = append(inner, punct(",", t))
		inner = append(inner, toks[rOpen+1:rClose]...)
		inner = append(inner, punct(")", t))
		rest := append(inner, toks[rClose+1:]...)
		toks = append(toks[:start:start], rest...)
		i = start + len(inner) - 1
	}
	return toks, nil
}

// topLevelCommas counts the commas directly inside the brackets at open
// and close.
func topLevelCommas(toks []Token, open, close int) int {
	n, depth := 0, 0
	for k := open + 1; k < close; k++ {
		switch {
		case isOpen(toks[k]):
			depth++
		case isClose(toks[k]):
			depth--
		case depth == 0 && toks[k].isPunct(","):
			n++
		}
	}
	return n
}

// rewriteRowOfOne turns ROW(x), a row of one element (which TiDB's
// grammar lacks), into (x): compared, tested for NULL or for
// distinctness, a row of one element is that element.
func rewriteRowOfOne(query string, toks []Token) ([]Token, error) {
	e := newEdits()
	for i := 0; i+1 < len(toks); i++ {
		if !toks[i].isWord("row") || toks[i].Quoted || !toks[i+1].isPunct("(") {
			continue
		}
		close := matchForward(toks, i+1)
		if close < 0 || close == i+2 || topLevelCommas(toks, i+1, close) != 0 {
			continue
		}
		e.remove(i, i+1)
	}
	return e.apply(toks), nil
}
