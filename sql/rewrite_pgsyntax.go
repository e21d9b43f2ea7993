package sql

// rewritePgSyntax removes spellings psql uses that carry no meaning for
// streamdb:
//
//	a OPERATOR(pg_catalog.~) b     ->  a ~ b   (then regexp, see rewriteOperators)
//	x COLLATE pg_catalog.default   ->  x       (also COLLATE "default" / "C")
//	pg_catalog.f(...)              ->  f(...)  (every function is in pg_catalog)
func rewritePgSyntax(query string, toks []Token) ([]Token, error) {
	for i := 0; i < len(toks); i++ {
		switch {
		case catalogCall(toks, i):
			toks = splice(toks, i, i+2)
			i--
		case toks[i].isWord("operator") && i+1 < len(toks) && toks[i+1].isPunct("("):
			closing := matchForward(toks, i+1)
			if closing < 0 || toks[closing-1].Kind != TokOp || !qualifiedOperator(toks[i+2:closing-1]) {
				return nil, syntaxErrorAt(query, toks[i])
			}
			toks = splice(toks, i, closing+1, toks[closing-1])
		case toks[i].isWord("collate"):
			toks = dropDefaultCollation(toks, i)
		case i > 0 && toks[i-1].isWord("between") && toks[i].isWord("asymmetric"):
			toks = splice(toks, i, i+1)
		case i > 0 && toks[i-1].isWord("between") && toks[i].isWord("symmetric"):
			and := betweenAnd(toks, i+1)
			if and < 0 {
				return nil, errAtIndex(query, toks, len(toks))
			}
			lo := append([]Token{raw(markerSymmetric, toks[i]), punct("(", toks[i])}, toks[i+1:and]...)
			lo = append(lo, punct(")", toks[and]))
			toks = splice(toks, i, and, lo...)
		}
	}
	return toks, nil
}

// qualifiedOperator reports whether toks (what precedes the operator in
// OPERATOR(...)) is empty or a schema name and a dot.
func qualifiedOperator(toks []Token) bool {
	return len(toks) == 0 || (len(toks) == 2 && toks[0].Kind == TokIdent && toks[1].isPunct("."))
}

// dropDefaultCollation removes COLLATE [pg_catalog.]default | "C" | "POSIX"
// at i; other collations are left for TiDB to reject.
func dropDefaultCollation(toks []Token, i int) []Token {
	j := i + 1
	if j+1 < len(toks) && toks[j].isWord("pg_catalog") && toks[j+1].isPunct(".") {
		j += 2
	}
	if j >= len(toks) || toks[j].Kind != TokIdent {
		return toks
	}
	switch toks[j].Text {
	case "default", "C", "POSIX":
		return splice(toks, i, j+1)
	}
	return toks
}

// catalogCall reports whether pg_catalog.name( starts at i (and is not a
// table name with a column list, INSERT INTO pg_catalog.t (...)).
func catalogCall(toks []Token, i int) bool {
	return i+3 < len(toks) && toks[i].isWord("pg_catalog") && toks[i+1].isPunct(".") &&
		toks[i+2].Kind == TokIdent && toks[i+3].isPunct("(") && !afterDot(toks, i) &&
		(i == 0 || !toks[i-1].isWord("into"))
}

// markerSymmetric wraps the lower bound of x BETWEEN SYMMETRIC a AND b:
// x BETWEEN __sdb_symmetric(a) AND b, which the binder reads back.
const markerSymmetric = "__sdb_symmetric"

// betweenAnd returns the index of the AND that ends a BETWEEN's lower
// bound starting at i (at the same nesting, past any nested BETWEEN's
// own AND), -1 when there is none.
func betweenAnd(toks []Token, i int) int {
	nested := 0
	for k := i; k < len(toks); k++ {
		switch t := toks[k]; {
		case isOpen(t):
			if k = matchForward(toks, k); k < 0 {
				return -1
			}
		case t.isWord("between"):
			nested++
		case t.isWord("and") && nested > 0:
			nested--
		case t.isWord("and"):
			return k
		}
	}
	return -1
}
