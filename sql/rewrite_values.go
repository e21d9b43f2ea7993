package sql

// rewriteValues marks each row of a VALUES list that is a query (not the
// rows of an INSERT) with ROW, the form TiDB accepts:
//
//	VALUES (1, 'a'), (2, 'b')             ->  VALUES ROW(1, 'a'), ROW(2, 'b')
//	FROM (VALUES (1), (2)) AS v(x)        ->  FROM (VALUES ROW(1), ROW(2)) AS v(x)
//
// VALUES is a query where it starts the statement or follows '(' or a set
// operator; INSERT INTO t [(cols)] VALUES (...) keeps its rows as they are.
// The binder sees an ast.SelectStmt of kind SelectStmtKindValues.
func rewriteValues(query string, toks []Token) ([]Token, error) {
	e := newEdits()
	for i, t := range toks {
		if !t.isWord("values") || !valuesIsQuery(toks, i) {
			continue
		}
		for j := i + 1; j < len(toks) && toks[j].isPunct("("); {
			closing := matchForward(toks, j)
			if closing < 0 {
				break // unbalanced: TiDB reports it
			}
			e.insert(j, raw("row", toks[j]))
			if j = closing + 1; j >= len(toks) || !toks[j].isPunct(",") {
				break
			}
			j++
		}
	}
	return e.apply(toks), nil
}

// setOpWords may precede a query that is an operand of a set operation.
var setOpWords = wordSet(`union intersect except all distinct`)

func valuesIsQuery(toks []Token, i int) bool {
	if i == 0 {
		return true
	}
	p := toks[i-1]
	return p.isPunct("(") || wordIn(p, setOpWords)
}

// rewriteConcat marks a written call of concat(...) so that the binder
// tells it from a || b, which TiDB (with PIPES_AS_CONCAT) also parses as a
// call of concat:
//
//	concat(a, b)  ->  __sdb_concat(a, b)
//
// Postgres's concat ignores NULL arguments; || yields NULL for one.
//
// It also renames the sequence functions, which TiDB parses as MySQL's
// (taking a table name, or no parentheses):
//
//	nextval('s')  ->  __sdb_fn_nextval('s')   (setval, lastval too)
func rewriteConcat(query string, toks []Token) ([]Token, error) {
	for i, t := range toks {
		if t.Kind != TokIdent || i+1 >= len(toks) || !toks[i+1].isPunct("(") || afterDot(toks, i) {
			continue
		}
		switch t.Text {
		case "concat":
			toks[i] = raw(markerConcat, t)
		case "nextval", "setval", "lastval":
			toks[i] = raw(MarkerFuncPrefix+t.Text, t)
		}
	}
	return toks, nil
}

// MarkerFuncPrefix starts the name of a function call the rewrite
// renamed, because TiDB parses its name otherwise: the binder drops it.
const MarkerFuncPrefix = "__sdb_fn_"
