package binder

import (
	"fmt"
	"slices"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
)

// bindSetOpr binds a chain of UNION [ALL], INTERSECT and EXCEPT
// branches, left to right (the parser nests INTERSECT's tighter binding),
// then the chain's own ORDER BY and LIMIT, which may name output columns
// only.
func (b *binder) bindSetOpr(with *ast.WithClause, list *ast.SetOprSelectList, ob *ast.OrderByClause, lim *ast.Limit) (*rel, error) {
	pop, err := b.pushWith(with)
	if err != nil {
		return nil, err
	}
	defer pop()
	// INTERSECT binds tighter than UNION and EXCEPT, which go left to
	// right: the branches joined by INTERSECT are combined first, into
	// the terms the others then join.
	var terms []*rel
	var ops []ast.SetOprType // ops[i] joins terms[i] to the ones before
	for i, sel := range list.Selects {
		b.setOpBranch = true
		r, err := b.bindResultSet(sel)
		b.setOpBranch = false
		if err != nil {
			return nil, err
		}
		op := setOprType(sel)
		if i > 0 && (op == ast.Intersect || op == ast.IntersectAll) {
			last := len(terms) - 1
			if terms[last], err = b.setOp(terms[last], r, op); err != nil {
				return nil, err
			}
			continue
		}
		terms, ops = append(terms, r), append(ops, op)
	}
	acc := terms[0]
	for i := 1; i < len(terms); i++ {
		var err error
		if acc, err = b.setOp(acc, terms[i], ops[i]); err != nil {
			return nil, err
		}
	}
	if len(list.Selects) == 1 {
		// A parenthesized lone branch: nothing resolved its unknowns.
		ts := make([]types.Type, 0)
		for _, c := range visibleCols(acc.node) {
			ts = append(ts, c.Type)
		}
		node, err := resolveBranch(acc.node, ts)
		if err != nil {
			return nil, err
		}
		acc = &rel{node: node, scope: scopeOf(node.Columns(), "")}
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

// setOp combines two branches, casting each column to the common type.
// UNION ALL concatenates them and UNION removes duplicates from that.
// INTERSECT and EXCEPT count, per distinct row, its copies in each
// branch: a UNION ALL of the branches, each row marked with its side,
// grouped by every column with one count per side, keeps the rows found
// on both sides (INTERSECT) or on the left only (EXCEPT). As grouping
// does, they take NULLs as equal, like Postgres.
func (b *binder) setOp(l, r *rel, op ast.SetOprType) (*rel, error) {
	name := "UNION"
	switch op {
	case ast.Union, ast.UnionAll:
	case ast.Intersect, ast.IntersectAll:
		name = "INTERSECT"
	case ast.Except, ast.ExceptAll:
		name = "EXCEPT"
	default:
		return nil, notSupported("%s", op.String())
	}
	lc, rc := visibleCols(l.node), visibleCols(r.node)
	if len(lc) != len(rc) {
		return nil, pgerr.New(pgerr.SyntaxError, "each %s query must have the same number of columns", name)
	}
	ts := make([]types.Type, len(lc))
	for i := range lc {
		t, err := commonType([]types.Type{lc[i].Type, rc[i].Type})
		if err != nil {
			return nil, err
		}
		ts[i] = t
	}
	var ins [2]planner.Node
	for i, side := range []planner.Node{l.node, r.node} {
		n, err := resolveBranch(side, ts)
		if err != nil {
			return nil, err
		}
		if ins[i], err = castColumns(n, ts); err != nil {
			return nil, err
		}
	}
	var node planner.Node
	switch op {
	case ast.UnionAll:
		node = &planner.UnionAll{Ins: ins[:], Cols: ins[0].Columns()}
	case ast.Union:
		node = distinctOf(&planner.UnionAll{Ins: ins[:], Cols: ins[0].Columns()})
	default:
		var err error
		if node, err = countedSetOp(ins, op); err != nil {
			return nil, err
		}
	}
	return &rel{node: node, scope: scopeOf(node.Columns(), "")}, nil
}

// countedSetOp plans INTERSECT [ALL] or EXCEPT [ALL] of two branches of
// the same visible columns (see setOp). The ALL forms keep each distinct
// row as many times as the smaller count says (INTERSECT ALL) or the
// left count less the right one (EXCEPT ALL): a Replicate of the row.
func countedSetOp(ins [2]planner.Node, op ast.SetOprType) (planner.Node, error) {
	cols := ins[0].Columns()
	n := len(cols)
	one := types.Datum(int64(1))
	var marked [2]planner.Node
	for side, in := range ins {
		p := &planner.Project{Input: in}
		for i, c := range in.Columns() {
			p.Exprs = append(p.Exprs, expr.NewColumn(i, c.Type, c.Name))
			p.Cols = append(p.Cols, planner.Column{Name: c.Name, Type: c.Type})
		}
		// One marker column per side: 1 on rows of that side, else NULL.
		for m := range 2 {
			v := one
			if m != side {
				v = nil
			}
			p.Exprs = append(p.Exprs, expr.NewConst(v, types.TInt64))
			p.Cols = append(p.Cols, planner.Column{Name: fmt.Sprintf("_side%d", m), Type: types.TInt64, Hidden: true})
		}
		marked[side] = p
	}
	u := &planner.UnionAll{Ins: marked[:], Cols: marked[0].Columns()}
	agg := &planner.Aggregate{Input: u}
	for i := range n {
		agg.GroupBy = append(agg.GroupBy, i)
		agg.Cols = append(agg.Cols, cols[i])
	}
	for m := range 2 {
		agg.Aggs = append(agg.Aggs, planner.AggCall{Kind: expr.AggCount, Arg: n + m, Type: types.TInt64})
		agg.Cols = append(agg.Cols, planner.Column{Name: fmt.Sprintf("_count%d", m), Type: types.TInt64, Hidden: true})
	}
	// left > 0 AND right > 0 (INTERSECT), left > 0 AND right = 0 (EXCEPT):
	// counts are never NULL, so the condition is never unknown.
	c0, c1 := expr.NewColumn(n, types.TInt64, "_count0"), expr.NewColumn(n+1, types.TInt64, "_count1")
	if op == ast.IntersectAll || op == ast.ExceptAll {
		var copies expr.Expr
		var err error
		if op == ast.IntersectAll {
			copies, err = expr.Func("least", []expr.Expr{c0, c1})
		} else {
			copies, err = expr.Binary("-", c0, c1)
		}
		if err != nil {
			return nil, err
		}
		p := &planner.Project{Input: agg}
		for i := range n {
			p.Exprs = append(p.Exprs, expr.NewColumn(i, cols[i].Type, cols[i].Name))
			p.Cols = append(p.Cols, cols[i])
		}
		p.Exprs = append(p.Exprs, copies)
		p.Cols = append(p.Cols, planner.Column{Name: "_copies", Type: types.TInt64, Hidden: true})
		return dropExtras(planner.NewReplicate(p, n), n), nil
	}
	intersect := op == ast.Intersect
	zero := expr.NewConst(int64(0), types.TInt64)
	left, err := expr.Binary(">", c0, zero)
	if err != nil {
		return nil, err
	}
	rop := "="
	if intersect {
		rop = ">"
	}
	right, err := expr.Binary(rop, c1, zero)
	if err != nil {
		return nil, err
	}
	cond, err := expr.Binary("AND", left, right)
	if err != nil {
		return nil, err
	}
	return dropExtras(&planner.Filter{Input: agg, Cond: cond}, n), nil
}

// resolveBranch gives the unknown-typed visible outputs of a set
// operation's branch (bound with setOpBranch) the types ts: a bare NULL
// takes the type, a string literal is cast to it as Postgres does; with
// ts unknown too, text.
func resolveBranch(n planner.Node, ts []types.Type) (planner.Node, error) {
	p, ok := n.(*planner.Project)
	if !ok {
		return n, nil
	}
	j := 0
	var out *planner.Project
	for i, c := range p.Cols {
		if c.Hidden {
			continue
		}
		if c.Type.ID == types.IDUnknown {
			t := ts[j]
			if t.ID == types.IDUnknown {
				t = types.TText
			}
			e, err := castTo(p.Exprs[i], t)
			if err != nil {
				return nil, err
			}
			if out == nil {
				out = &planner.Project{Input: p.Input, Exprs: slices.Clone(p.Exprs), Cols: slices.Clone(p.Cols)}
			}
			out.Exprs[i], out.Cols[i].Type = e, t
		}
		j++
	}
	if out == nil {
		return n, nil
	}
	return out, nil
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
