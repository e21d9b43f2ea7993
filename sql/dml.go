package sql

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// parseDML parses a query or DML statement (SELECT, WITH, VALUES, TABLE,
// INSERT, UPDATE, DELETE) through the rewrite and the TiDB parser.
func (s *stmtParser) parseDML(toks []Token) (Node, error) {
	toks, returning, err := s.splitReturning(toks)
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
	if err != nil || returning == nil {
		return node, err
	}
	switch x := node.(type) {
	case *InsertStmt:
		x.Returning = returning
	case *UpdateStmt:
		x.Returning = returning
	case *DeleteStmt:
		x.Returning = returning
	default:
		return nil, syntaxErrorAt(s.query, toks[0])
	}
	return node, nil
}

// splitReturning takes the RETURNING list off an INSERT, UPDATE or DELETE
// (the TiDB parser knows no RETURNING): the statement's tokens before it,
// and the list parsed as the select list of SELECT list.
func (s *stmtParser) splitReturning(toks []Token) ([]Token, *ast.FieldList, error) {
	if len(toks) == 0 || !toks[0].isWord("insert") && !toks[0].isWord("update") && !toks[0].isWord("delete") {
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
