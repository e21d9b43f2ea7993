package sql

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// parseDML parses a query or DML statement (SELECT, WITH, VALUES, TABLE,
// INSERT, UPDATE, DELETE) through the rewrite and the TiDB parser.
func (s *stmtParser) parseDML(toks []Token) (Node, error) {
	if err := s.refuseWithDML(toks); err != nil {
		return nil, err
	}
	if n, ok, err := s.parseSelectInto(toks); ok {
		return n, err
	}
	m := dmlStart(toks)
	if m > 0 && toks[m].isWord("insert") {
		var err error
		if toks, err = s.moveInsertWith(toks, m); err != nil {
			return nil, err
		}
		m = 0
	}
	toks, returning, err := s.splitReturning(toks, m)
	if err != nil {
		return nil, err
	}
	toks, overriding := splitOverriding(toks)
	toks = rewriteDefaultValues(toks)
	var alias string
	var oc *OnConflict
	joined := false
	var rest []Token
	switch {
	case toks[m].isWord("insert"):
		toks, alias, oc, err = s.splitInsertForms(toks)
	case toks[m].isWord("update"):
		rest, joined = moveUpdateFrom(toks[m:])
		toks = append(toks[:m:m], rest...)
		toks, err = s.expandUpdateSet(toks, m)
	case toks[m].isWord("delete"):
		rest, joined = moveDeleteUsing(toks[m:])
		toks = append(toks[:m:m], rest...)
	}
	if err != nil {
		return nil, err
	}
	rw, err := rewrite(s.query, toks)
	if err != nil {
		return nil, err
	}
	if len(rw) == 0 { // the rewrite dropped everything: COLLATE "C"
		return nil, syntaxErrorAt(s.query, toks[0])
	}
	n, err := s.parseTiDB(rw)
	if err != nil {
		return nil, err
	}
	s.st.tidbText = s.last
	node, err := s.wrapTiDB(n, toks[0])
	if err != nil {
		return nil, err
	}
	switch x := node.(type) {
	case *InsertStmt:
		x.Returning, x.Alias, x.OnConflict, x.Overriding = returning, alias, oc, overriding
	case *UpdateStmt:
		x.Returning, x.From = returning, joined
	case *DeleteStmt:
		x.Returning, x.Using = returning, joined
	default:
		if returning != nil {
			return nil, syntaxErrorAt(s.query, toks[0])
		}
	}
	return node, nil
}

// splitReturning takes the RETURNING list off an INSERT, UPDATE or DELETE
// (the TiDB parser knows no RETURNING): the statement's tokens before it,
// and the list parsed as the select list of SELECT list.
// toks[m] is the statement's first word after its WITH clause, if any.
func (s *stmtParser) splitReturning(toks []Token, m int) ([]Token, *ast.FieldList, error) {
	if len(toks) == 0 || !toks[m].isWord("insert") && !toks[m].isWord("update") && !toks[m].isWord("delete") {
		return toks, nil, nil
	}
	depth := 0
	for i, t := range toks {
		switch {
		case isOpen(t):
			depth++
		case isClose(t):
			depth--
		case depth == 0 && t.isWord("returning"):
			list := toks[i+1:]
			if len(list) == 0 || list[0].isPunct(";") {
				return nil, nil, syntaxErrorAt(s.query, t)
			}
			sel := append([]Token{{Kind: TokIdent, Text: "select", Pos: t.Pos, End: t.End}}, list...)
			rw, err := rewrite(s.query, sel)
			if err != nil {
				return nil, nil, err
			}
			n, err := s.parseTiDB(rw)
			if err != nil {
				return nil, nil, err
			}
			q, ok := n.(*ast.SelectStmt)
			if !ok || q.From != nil || q.Where != nil || q.GroupBy != nil || q.OrderBy != nil || q.Limit != nil {
				return nil, nil, syntaxErrorAt(s.query, list[0])
			}
			return toks[:i], q.Fields, nil
		}
	}
	return toks, nil, nil
}

// dmlStart returns the index of the INSERT, UPDATE or DELETE that a
// statement opening with WITH goes on with; 0 for any other statement.
func dmlStart(toks []Token) int {
	if !toks[0].isWord("with") {
		return 0
	}
	i := findTopLevel(toks, 1, func(i int) bool {
		t := toks[i]
		return t.isWord("insert") || t.isWord("update") || t.isWord("delete") || t.isWord("select") || t.isWord("values")
	})
	if i < 0 || toks[i].isWord("select") || toks[i].isWord("values") {
		return 0
	}
	return i
}

// moveInsertWith turns WITH ctes INSERT INTO t [(cols)] query (the
// INSERT at toks[m]) into INSERT INTO t [(cols)] WITH ctes query, which
// the TiDB parser reads: the CTEs are the query's.
func (s *stmtParser) moveInsertWith(toks []Token, m int) ([]Token, error) {
	j := m + 1
	if j < len(toks) && toks[j].isWord("into") {
		j++
	}
	for j < len(toks) && (toks[j].Kind == TokIdent || toks[j].isPunct(".")) && !toks[j].isWord("select") && !toks[j].isWord("values") {
		j++
	}
	if j < len(toks) && toks[j].isPunct("(") && !startsQuery(toks, j+1) {
		if j = matchForward(toks, j); j < 0 {
			return nil, syntaxErrorAt(s.query, toks[m])
		}
		j++
	}
	if j >= len(toks) {
		return nil, syntaxErrorAtEnd(s.query, toks[len(toks)-1].End)
	}
	if toks[j].isWord("values") {
		return moveWithValues(toks, m, j), nil
	}
	if !toks[j].isWord("select") && !(toks[j].isPunct("(") && startsQuery(toks, j+1)) {
		return nil, notSupportedAt(s.query, toks[0], "WITH before INSERT ... %s is not supported", s.query[toks[j].Pos:toks[j].End])
	}
	out := make([]Token, 0, len(toks))
	out = append(out, toks[m:j]...)
	out = append(out, toks[:m]...)
	return append(out, toks[j:]...), nil
}

// moveWithValues turns WITH ctes INSERT INTO t [(cols)] VALUES (..), (..)
// (the INSERT at toks[m], VALUES at toks[j]) into INSERT INTO t [(cols)]
// WITH ctes VALUES ROW(..), ROW(..), which the TiDB parser reads as a
// VALUES query with the CTEs; the binder inserts its rows as an INSERT's
// VALUES list (see InsertStmt). ROW is a raw token, which no pass takes
// for a user's ROW(x).
func moveWithValues(toks []Token, m, j int) []Token {
	out := make([]Token, 0, len(toks)+4)
	out = append(out, toks[m:j]...)
	out = append(out, toks[:m]...)
	out = append(out, toks[j])
	k := j + 1
	for k < len(toks) && toks[k].isPunct("(") {
		closing := matchForward(toks, k)
		if closing < 0 {
			break // unbalanced: TiDB reports it
		}
		out = append(out, raw("row", toks[k]))
		out = append(out, toks[k:closing+1]...)
		k = closing + 1
		if k >= len(toks) || !toks[k].isPunct(",") {
			break
		}
		out = append(out, toks[k])
		k++
	}
	return append(out, toks[k:]...)
}

// wrapTiDB maps a TiDB statement to this package's node types; any other
// statement TiDB accepts (its DDL, SHOW, ...) is not supported.
func (s *stmtParser) wrapTiDB(n ast.StmtNode, first Token) (Node, error) {
	switch x := n.(type) {
	case *ast.SelectStmt:
		return &SelectStmt{AST: x}, nil
	case *ast.SetOprStmt:
		return &SelectStmt{AST: x}, nil
	case *ast.InsertStmt:
		if x.IsReplace {
			break
		}
		return &InsertStmt{AST: x}, nil
	case *ast.UpdateStmt:
		return &UpdateStmt{AST: x}, nil
	case *ast.DeleteStmt:
		return &DeleteStmt{AST: x}, nil
	}
	return nil, notSupportedAt(s.query, first, "statement is not supported: %s", s.query[first.Pos:first.End])
}

// parseQuery parses tokens that must form a query (SELECT, WITH, VALUES
// ...), as in CREATE MATERIALIZED VIEW ... AS query.
func (s *stmtParser) parseQuery(toks []Token) (*SelectStmt, error) {
	n, err := s.parseDML(toks)
	if err != nil {
		return nil, err
	}
	sel, ok := n.(*SelectStmt)
	if !ok {
		return nil, syntaxErrorAt(s.query, toks[0])
	}
	return sel, nil
}

// splitOverriding takes OVERRIDING {SYSTEM | USER} VALUE (which the TiDB
// parser does not know) off an INSERT, before its VALUES or query, and
// returns which ("system", "user" or "").
func splitOverriding(toks []Token) ([]Token, string) {
	if len(toks) == 0 || !toks[0].isWord("insert") {
		return toks, ""
	}
	depth := 0
	for i := 0; i+2 < len(toks); i++ {
		t := toks[i]
		switch {
		case isOpen(t):
			depth++
		case isClose(t):
			depth--
		case depth == 0 && t.isWord("overriding") && (toks[i+1].isWord("system") || toks[i+1].isWord("user")) && toks[i+2].isWord("value"):
			kind := strings.ToLower(toks[i+1].Text)
			out := append(append([]Token(nil), toks[:i]...), toks[i+3:]...)
			return out, kind
		}
	}
	return toks, ""
}

// rewriteDefaultValues turns INSERT INTO t DEFAULT VALUES, which the
// TiDB parser does not know, into INSERT INTO t VALUES (): one row of
// the columns' defaults.
func rewriteDefaultValues(toks []Token) []Token {
	if len(toks) == 0 || !toks[0].isWord("insert") {
		return toks
	}
	depth := 0
	for i := 0; i+1 < len(toks); i++ {
		t := toks[i]
		switch {
		case isOpen(t):
			depth++
		case isClose(t):
			depth--
		case depth == 0 && t.isWord("default") && toks[i+1].isWord("values"):
			v := toks[i+1]
			out := append([]Token(nil), toks[:i]...)
			out = append(out, raw("VALUES", t), punct("(", v), punct(")", v))
			return append(out, toks[i+2:]...)
		}
	}
	return toks
}
