package binder

import (
	"fmt"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
)

// bindValuesQuery binds VALUES (...), (...) used as a query: columns
// column1, column2 ... of each column's common type.
func (b *binder) bindValuesQuery(s *ast.SelectStmt) (*rel, error) {
	rows := make([][]ast.ExprNode, len(s.Lists))
	for i, r := range s.Lists {
		rows[i] = r.Values
	}
	bound, err := b.bindValueRows(rows)
	if err != nil {
		return nil, err
	}
	node, err := unifyValues(bound)
	if err != nil {
		return nil, err
	}
	st := &selectState{cur: &rel{node: node, scope: scopeOf(node.Columns(), "")}}
	st.ctx = &exprCtx{scope: st.cur.scope}
	for i, c := range node.Columns() {
		st.items = append(st.items, selItem{col: i, name: c.Name})
		st.exprs = append(st.exprs, expr.NewColumn(i, c.Type, c.Name))
	}
	return b.finishSelect(st, false, s.OrderBy, s.Limit)
}

// bindValueRows binds constant rows, checking they all have one length.
func (b *binder) bindValueRows(rows [][]ast.ExprNode) ([][]expr.Expr, error) {
	c := &exprCtx{scope: &scope{}, clause: "VALUES"}
	out := make([][]expr.Expr, len(rows))
	for i, r := range rows {
		if len(r) != len(rows[0]) {
			return nil, pgerr.New(pgerr.SyntaxError, "VALUES lists must all be the same length")
		}
		out[i] = make([]expr.Expr, len(r))
		for j, n := range r {
			e, err := b.bindExpr(c, n)
			if err != nil {
				return nil, err
			}
			out[i][j] = e
		}
	}
	return out, nil
}

// unifyValues casts every column of rows to its common type.
func unifyValues(rows [][]expr.Expr) (*planner.Values, error) {
	v := &planner.Values{Rows: rows}
	if len(rows) == 0 {
		return v, nil
	}
	for j := range rows[0] {
		ts := make([]types.Type, len(rows))
		for i := range rows {
			ts[i] = rows[i][j].Type()
		}
		t, err := commonType(ts)
		if err != nil {
			return nil, err
		}
		for i := range rows {
			if rows[i][j], err = castTo(rows[i][j], t); err != nil {
				return nil, err
			}
		}
		v.Cols = append(v.Cols, planner.Column{Name: fmt.Sprintf("column%d", j+1), Type: t})
	}
	return v, nil
}

// commonType is expr.CommonType, with an all-unknown column resolved to
// text.
func commonType(ts []types.Type) (types.Type, error) {
	t, err := expr.CommonType(ts)
	if err != nil {
		return t, err
	}
	if t.ID == types.IDUnknown {
		t = types.TText
	}
	return t, nil
}

// castTo casts e to t unless it already has type t.
func castTo(e expr.Expr, t types.Type) (expr.Expr, error) {
	if e.Type() == t {
		return e, nil
	}
	if c, ok := e.(*expr.Const); ok && c.Value == nil {
		return expr.NewConst(nil, t), nil
	}
	return expr.Cast(e, t)
}
