package binder

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
)

// bindSetOpr binds a chain of UNION [ALL] branches, left to right, then
// the chain's own ORDER BY and LIMIT, which may name output columns only.
func (b *binder) bindSetOpr(with *ast.WithClause, list *ast.SetOprSelectList, ob *ast.OrderByClause, lim *ast.Limit) (*rel, error) {
	pop, err := b.pushWith(with)
	if err != nil {
		return nil, err
	}
	defer pop()
	var acc *rel
	for i, sel := range list.Selects {
		r, err := b.bindResultSet(sel)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			acc = r
			continue
		}
		if acc, err = b.union(acc, r, setOprType(sel)); err != nil {
			return nil, err
		}
	}
	return b.finishSetOpr(acc, ob, lim)
}

// setOprType returns the operator that joins a branch to the branches
// before it.
func setOprType(n ast.Node) ast.SetOprType {
	var t *ast.SetOprType
	switch s := n.(type) {
	case *ast.SelectStmt:
		t = s.AfterSetOperator
	case *ast.SetOprSelectList:
		t = s.AfterSetOperator
	}
	if t == nil {
		return ast.UnionAll
	}
	return *t
}

// union combines two branches, casting each column to the common type.
func (b *binder) union(l, r *rel, op ast.SetOprType) (*rel, error) {
	if op != ast.Union && op != ast.UnionAll {
		return nil, notSupported("%s", op.String())
	}
	lc, rc := visibleCols(l.node), visibleCols(r.node)
	if len(lc) != len(rc) {
		return nil, pgerr.New(pgerr.SyntaxError, "each UNION query must have the same number of columns")
	}
	ts := make([]types.Type, len(lc))
	for i := range lc {
		t, err := commonType([]types.Type{lc[i].Type, rc[i].Type})
		if err != nil {
			return nil, err
		}
		ts[i] = t
	}
	ln, err := castColumns(l.node, ts)
	if err != nil {
		return nil, err
	}
	rn, err := castColumns(r.node, ts)
	if err != nil {
		return nil, err
	}
	var node planner.Node = &planner.UnionAll{Ins: []planner.Node{ln, rn}, Cols: ln.Columns()}
	if op == ast.Union {
		node = distinctOf(node)
	}
	return &rel{node: node, scope: scopeOf(node.Columns(), "")}, nil
}

func visibleCols(n planner.Node) []planner.Column {
	var out []planner.Column
	for _, c := range n.Columns() {
		if !c.Hidden {
			out = append(out, c)
		}
	}
	return out
}

// castColumns projects the visible columns of n, cast to ts.
func castColumns(n planner.Node, ts []types.Type) (planner.Node, error) {
	cols := n.Columns()
	same := len(cols) == len(ts)
	p := &planner.Project{Input: n}
	j := 0
	for i, c := range cols {
		if c.Hidden {
			continue
		}
		e, err := castTo(expr.NewColumn(i, c.Type, c.Name), ts[j])
		if err != nil {
			return nil, err
		}
		same = same && c.Type == ts[j]
		p.Exprs = append(p.Exprs, e)
		p.Cols = append(p.Cols, planner.Column{Name: c.Name, Type: ts[j]})
		j++
	}
	if same {
		return n, nil
	}
	return p, nil
}

// finishSetOpr adds a set operation's ORDER BY and LIMIT.
func (b *binder) finishSetOpr(acc *rel, ob *ast.OrderByClause, lim *ast.Limit) (*rel, error) {
	node := acc.node
	if ob != nil {
		var items []selItem
		for _, c := range node.Columns() {
			items = append(items, selItem{name: c.Name})
		}
		var keys []planner.SortKey
		for _, it := range ob.Items {
			n, nullsFirst := unwrapNulls(it.Expr, it.Desc)
			col, ok, err := b.outputColumn(items, nil, n, "ORDER BY")
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, notSupported("ORDER BY on a UNION result other than by result column names")
			}
			keys = append(keys, planner.SortKey{Col: col, Desc: it.Desc, NullsFirst: nullsFirst})
		}
		node = &planner.Sort{Input: node, Keys: keys}
	}
	node, err := b.bindLimit(node, lim)
	if err != nil {
		return nil, err
	}
	return &rel{node: node, scope: scopeOf(node.Columns(), "")}, nil
}
