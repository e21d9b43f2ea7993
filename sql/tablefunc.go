package sql

import (
	"strconv"
	"strings"
)

// Table functions in FROM (generate_series(1, 3) AS g(x), tumble(...))
// become the reserved table name __sdb_tf_N with the alias the user gave,
// or the function's name when none:
//
//	FROM generate_series(1, $1) AS g(x)  ->  FROM __sdb_tf_0 AS "g"
//	FROM generate_series(1, 3)           ->  FROM __sdb_tf_0 AS "generate_series"
//
// Statement.TableFuncs[N] keeps the name, the arguments (parsed into TiDB
// expressions, rewritten like the rest) and the column aliases.

// fromFrame is the state of one parenthesis level while looking for FROM
// clauses.
type fromFrame struct {
	sawSelect bool // a SELECT started at this level
	inFrom    bool // inside its FROM list
}

// initialFromFrame is the outermost level's state at the start of toks:
// the items of UPDATE ... FROM and DELETE ... USING follow the target in
// the rewritten statement (dml_join.go), UPDATE t, items SET ... and
// DELETE __sdb_target FROM t, items.
func initialFromFrame(toks []Token) fromFrame {
	switch {
	case len(toks) > 0 && toks[0].isWord("update"):
		return fromFrame{sawSelect: true, inFrom: true}
	case len(toks) > 0 && toks[0].isWord("delete"):
		return fromFrame{sawSelect: true}
	}
	return fromFrame{}
}

// startsDML reports whether the UPDATE or DELETE of a statement opening
// with WITH starts at toks[i] (not FOR UPDATE).
func startsDML(toks []Token, i int) bool {
	return (toks[i].isWord("update") || toks[i].isWord("delete")) && !toks[i-1].isWord("for")
}

// fromEndWords end a FROM list.
var fromEndWords = wordSet(`where group having order limit offset fetch union intersect except
	window for returning`)

// rewriteTableFuncs replaces each table function in a FROM list.
func (s *stmtParser) rewriteTableFuncs(toks []Token) ([]Token, error) {
	stack := []fromFrame{initialFromFrame(toks)}
	for i := 0; i < len(toks); i++ {
		t, top := toks[i], &stack[len(stack)-1]
		switch {
		case t.isPunct("("):
			stack = append(stack, fromFrame{})
		case t.isPunct(")"):
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
		case t.isWord("select"):
			top.sawSelect = true
		case t.isWord("from"):
			top.inFrom = top.sawSelect
		case len(stack) == 1 && i > 0 && toks[0].isWord("with") && startsDML(toks, i):
			*top = initialFromFrame(toks[i:])
		case wordIn(t, fromEndWords) || len(stack) == 1 && t.isWord("set") && toks[dmlStart(toks)].isWord("update"):
			top.inFrom = false
		case top.inFrom && t.Kind == TokIdent && !t.isWord("lateral") && i > 0 && startsFromItem(toks[i-1]):
			var err error
			if toks, err = s.replaceTableFunc(toks, i); err != nil {
				return nil, err
			}
		}
	}
	return toks, nil
}

// startsFromItem reports whether a FROM item may follow t.
func startsFromItem(t Token) bool {
	return t.isWord("from") || t.isWord("join") || t.isWord("lateral") || t.isPunct(",") ||
		(t.Kind == tokRaw && t.Text == "join")
}

// replaceTableFunc replaces the table function starting at i, if there is
// one (a plain table name is left alone).
func (s *stmtParser) replaceTableFunc(toks []Token, i int) ([]Token, error) {
	c := &cursor{query: s.query, toks: toks, i: i}
	name, err := c.qualifiedName()
	if err != nil || !c.peek().isPunct("(") {
		return toks, nil
	}
	open := c.i
	closing := matchForward(toks, open)
	if closing < 0 {
		return nil, errAtIndex(s.query, toks, len(toks))
	}
	tf := &TableFunc{Name: trimCatalog(name)}
	n := len(s.st.TableFuncs)
	s.st.TableFuncs = append(s.st.TableFuncs, tf)
	if tf.Args, err = s.parseExprs(splitArgs(toks[open+1:closing]), toks[closing]); err != nil {
		return nil, err
	}
	c.i = closing + 1
	alias, err := s.tableFuncAlias(c, tf)
	if err != nil {
		return nil, err
	}
	repl := []Token{raw(markerTableFunc+itoa(n), toks[i]), raw("as", toks[i]),
		{Kind: TokIdent, Quoted: true, Text: alias, Pos: toks[i].Pos, End: toks[i].End}}
	if i > 0 && toks[i-1].isWord("lateral") {
		// A function in FROM reads the items before it anyway: LATERAL
		// is implied (and the TiDB parser knows it only before a
		// subquery).
		return splice(toks, i-1, c.i, repl...), nil
	}
	return splice(toks, i, c.i, repl...), nil
}

// tableFuncAlias consumes [WITH ORDINALITY] [AS] alias [(col, ...)] and
// returns the alias (the function name when there is none).
func (s *stmtParser) tableFuncAlias(c *cursor, tf *TableFunc) (string, error) {
	if c.peek().isWord("with") && c.peekAt(1).isWord("ordinality") {
		tf.Ordinality = true
		c.i += 2
	}
	as := c.acceptWord("as")
	t := c.peek()
	if as && t.isPunct("(") {
		// AS (a int, b text): a column definition list, no alias.
		return lastPart(tf.Name), c.columnDefs(tf)
	}
	if t.Kind != TokIdent || (!as && !t.Quoted && aliasStop[t.Text]) {
		if as {
			return "", c.errHere()
		}
		return lastPart(tf.Name), nil
	}
	alias, err := c.ident()
	if err != nil {
		return "", err
	}
	if c.peek().isPunct("(") {
		if next := c.peekAt(2); next.isPunct(",") || next.isPunct(")") {
			tf.Columns, err = c.parenIdentList()
		} else {
			err = c.columnDefs(tf)
		}
		if err != nil {
			return "", err
		}
	}
	return alias, nil
}

// columnDefs consumes a column definition list, (name type, ...), into
// tf's Columns and ColumnTypes.
func (c *cursor) columnDefs(tf *TableFunc) error {
	if err := c.expectPunct("("); err != nil {
		return err
	}
	for {
		name, err := c.ident()
		if err != nil {
			return err
		}
		typ, err := parseTypeName(c)
		if err != nil {
			return err
		}
		tf.Columns = append(tf.Columns, name)
		tf.ColumnTypes = append(tf.ColumnTypes, typ)
		if !c.acceptPunct(",") {
			return c.expectPunct(")")
		}
	}
}

// aliasStop are keywords that may follow a FROM item without an alias.
var aliasStop = wordSet(`where join inner left right full cross natural on using group having
	order limit offset fetch union intersect except window for returning lateral tablesample with`)

// trimCatalog drops a "pg_catalog." qualifier.
func trimCatalog(name string) string { return strings.TrimPrefix(name, "pg_catalog.") }

// lastPart returns the last part of a qualified name.
func lastPart(name string) string { return name[strings.LastIndexByte(name, '.')+1:] }

func itoa(n int) string { return strconv.Itoa(n) }

// splitArgs cuts a function's argument tokens at top-level commas.
func splitArgs(toks []Token) [][]Token {
	if len(toks) == 0 {
		return nil
	}
	var args [][]Token
	start := 0
	for {
		k := scanLevel(toks, start, 1, func(k int) bool { return toks[k].isPunct(",") })
		if k >= len(toks) || k < 0 {
			return append(args, toks[start:])
		}
		args = append(args, toks[start:k])
		start = k + 1
	}
}
