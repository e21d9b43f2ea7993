package sql

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// parseDML parses a query or DML statement (SELECT, WITH, VALUES, TABLE,
// INSERT, UPDATE, DELETE) through the rewrite and the TiDB parser.
func (s *stmtParser) parseDML(toks []Token) (Node, error) {
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
	return s.wrapTiDB(n, toks[0])
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
