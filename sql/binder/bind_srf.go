package binder

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/planner"
)

// A set-returning function (generate_series, unnest) in a select list
// repeats each row of the query's input once per value it yields:
// SELECT id, generate_series(1, n) FROM t. The call binds, over the
// input row, as a planner.ProjectSet under the projection, and in the
// expression as a reference to the value column the ProjectSet appends.
// One such call per select list; none under aggregation or window
// functions, or elsewhere (WHERE, JOIN ... ON, ...: 0A000, as in
// Postgres).

// srfSlot holds a select list's set-returning function.
type srfSlot struct {
	base int // the input's column count: the value's column
	fn   planner.Node
	call *ast.FuncCallExpr
	name string
	ref  expr.Expr
}

// bindSRF binds a generate_series or unnest call in an expression.
func (b *binder) bindSRF(c *exprCtx, n *ast.FuncCallExpr) (expr.Expr, error) {
	name := n.FnName.L
	if c.srf == nil {
		where := c.clause
		if where == "" || where == "nested" {
			where = "this position"
		}
		return nil, b.at(pgerr.New(pgerr.FeatureNotSupported, "set-returning function %s is not allowed in %s", name, where), n, n.FnName.O)
	}
	if c.srf.fn != nil && c.srf.call == n {
		return c.srf.ref, nil
	}
	inner := &exprCtx{scope: c.scope, clause: "arguments of set-returning functions"}
	var fn planner.Node
	var err error
	switch {
	case name == "unnest":
		fn, err = b.bindUnnestOver(inner, n.Args)
	case expr.IsSetFunc(name):
		fn, err = b.bindSetFuncOver(inner, name, n.Args)
	default:
		fn, err = b.bindGenerateSeriesOver(inner, n.Args)
	}
	if err != nil {
		return nil, b.at(err, n, n.FnName.O)
	}
	if c.srf.fn != nil {
		// The same call written twice (GROUP BY unnest(x) and the select
		// list's unnest(x)) is one.
		if srfKey(fn) == srfKey(c.srf.fn) {
			return c.srf.ref, nil
		}
		return nil, b.at(notSupported("more than one set-returning function in a select list"), n, n.FnName.O)
	}
	typ := fn.Columns()[0].Type
	c.srf.fn, c.srf.call, c.srf.name = fn, n, name
	c.srf.ref = expr.NewColumn(c.srf.base, typ, name)
	return c.srf.ref, nil
}

// srfKey identifies a bound set-returning function call.
func srfKey(fn planner.Node) string {
	switch f := fn.(type) {
	case *planner.GenerateSeries:
		return "generate_series(" + f.Start.String() + "," + f.Stop.String() + "," + f.Step.String() + ")"
	case *planner.Unnest:
		if f.Set != nil {
			args := make([]string, len(f.Set.Args))
			for i, a := range f.Set.Args {
				args[i] = a.String()
			}
			return f.Set.Name + "(" + strings.Join(args, ",") + ")"
		}
		return "unnest(" + f.Arg.String() + ")"
	}
	return ""
}

// bindLateral runs r, a set-returning function over l's rows, after l:
// FROM t, generate_series(1, t.n) AS g. An ON condition filters the
// result.
func (b *binder) bindLateral(l, r *rel, n *ast.Join) (*rel, error) {
	if err := b.checkAliases(l.scope, r.scope, n); err != nil {
		return nil, err
	}
	col := r.node.Columns()[0]
	ps := planner.NewProjectSet(l.node, r.node, col.Name, col.Table)
	if r.ordinality {
		// WITH ORDINALITY shows the ordinal, under its name.
		ord := r.scope.cols[1]
		c := &ps.Cols[len(ps.Cols)-1]
		c.Hidden, c.Name, c.Table = false, ord.name, col.Table
	}
	s := concatScopes(l.scope, r.scope)
	out := &rel{node: ps, scope: s}
	left := n.Tp == ast.LeftJoin
	if left && r.ordinality {
		// The ordinals would be those of the values the condition
		// keeps, and 1 on a NULL-padded row (PostgreSQL: the function's
		// own, and NULL).
		return nil, pgerr.New(pgerr.FeatureNotSupported, "WITH ORDINALITY in a LEFT JOIN is not supported")
	}
	if n.On == nil {
		ps.Outer = left
		return out, nil
	}
	c := &exprCtx{scope: s, clause: "JOIN conditions"}
	cond, err := b.bindCond(c, n.On.Expr, "JOIN conditions")
	if err != nil {
		return nil, err
	}
	if left {
		// Each row keeps the values the condition accepts, or one
		// NULL-padded row.
		ps.Cond, ps.Outer = cond, true
		return out, nil
	}
	out.node = &planner.Filter{Input: ps, Cond: cond}
	return out, nil
}
