package binder

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/planner"
)

// A set-returning function (generate_series, unnest, jsonb_each, ...) in
// a select list repeats each row of the query's input once per row it
// yields: SELECT id, generate_series(1, n) FROM t. The calls bind, over
// the input row, as one planner.ProjectSet under the projection, which
// runs them in lockstep as PostgreSQL 10 and later do (the shorter padded
// with NULLs); in the expression each is a reference to its columns that
// the ProjectSet appends (a function returning a record, jsonb_each, is
// its record's text: expr.RecordText). None under aggregation or window
// functions, or elsewhere (WHERE, JOIN ... ON, ...: 0A000, as in
// Postgres), nor in another's arguments.

// srfSlot holds a select list's set-returning functions.
type srfSlot struct {
	base  int // the input's column count: the first function's column
	fns   []planner.Node
	calls []srfCall
	width int // the columns of fns
	// closed: the ProjectSet is built (under the aggregate, for GROUP BY
	// items); no function may join.
	closed bool
}

// srfCall is a bound call: its node, srfKey and reference.
type srfCall struct {
	call *ast.FuncCallExpr
	key  string
	ref  expr.Expr
}

// bindSRF binds a set-returning function call in an expression.
func (b *binder) bindSRF(c *exprCtx, n *ast.FuncCallExpr) (expr.Expr, error) {
	name := n.FnName.L
	if c.srf == nil {
		where := c.clause
		if where == "" || where == "nested" {
			where = "this position"
		}
		return nil, b.at(pgerr.New(pgerr.FeatureNotSupported, "set-returning function %s is not allowed in %s", name, where), n, n.FnName.O)
	}
	for _, k := range c.srf.calls {
		if k.call == n {
			return k.ref, nil
		}
	}
	fn, err := b.bindSetFuncCall(c, name, n.Args)
	if err != nil {
		return nil, b.at(err, n, n.FnName.O)
	}
	// The same call written twice (GROUP BY unnest(x) and the select
	// list's unnest(x)) is one: it would yield the same rows.
	key := srfKey(fn)
	for _, k := range c.srf.calls {
		if k.key == key {
			c.srf.calls = append(c.srf.calls, srfCall{call: n, key: key, ref: k.ref})
			return k.ref, nil
		}
	}
	if c.srf.closed {
		return nil, b.at(notSupported("a set-returning function over grouped rows"), n, n.FnName.O)
	}
	ref := c.srf.add(fn, name)
	c.srf.calls = append(c.srf.calls, srfCall{call: n, key: key, ref: ref})
	return ref, nil
}

// bindSetFuncCall binds a set-returning function with its arguments
// over c's scope.
func (b *binder) bindSetFuncCall(c *exprCtx, name string, args []ast.ExprNode) (planner.Node, error) {
	inner := &exprCtx{scope: c.scope, clause: "arguments of set-returning functions"}
	switch {
	case name == "unnest":
		return b.bindUnnestOver(inner, args)
	case expr.IsSetFunc(name):
		return b.bindSetFuncOver(inner, name, args)
	}
	return b.bindGenerateSeriesOver(inner, args)
}

// add appends fn's columns (a function of one column names it name) and
// returns the reference to its value: its column, or its record's text.
func (s *srfSlot) add(fn planner.Node, name string) expr.Expr {
	cols := fn.Columns()
	if len(cols) == 1 && cols[0].Name == "" {
		cols[0].Name = name
	}
	at := s.base + s.width
	s.fns = append(s.fns, fn)
	s.width += len(cols)
	if len(cols) == 1 {
		return expr.NewColumn(at, cols[0].Type, name)
	}
	fields := make([]expr.Expr, len(cols))
	for i, col := range cols {
		fields[i] = expr.NewColumn(at+i, col.Type, col.Name)
	}
	return expr.RecordText(fields)
}

// projectSet returns the ProjectSet of the slot's functions over in; its
// scope is in's, then the ProjectSet's columns (named by position only).
// nil when the slot has none.
func (s *srfSlot) projectSet(in *rel) *rel {
	if len(s.fns) == 0 {
		return nil
	}
	s.closed = true
	ps := planner.NewProjectSet(in.node, s.fns...)
	return &rel{node: ps, scope: concatScopes(in.scope, scopeOf(ps.Cols[s.base:], ""))}
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
// result; in a LEFT JOIN each row of l keeps the rows it accepts, or one
// NULL-padded row. WITH ORDINALITY numbers the function's rows before
// the condition, and a NULL-padded row's ordinal is NULL, as in
// PostgreSQL.
func (b *binder) bindLateral(l, r *rel, n *ast.Join) (*rel, error) {
	if err := b.checkAliases(l.scope, r.scope, n); err != nil {
		return nil, err
	}
	fns := r.fns
	if fns == nil {
		fns = []planner.Node{r.node}
	}
	ps := planner.NewProjectSet(l.node, fns...)
	if r.ordinality {
		// WITH ORDINALITY shows the ordinal, under its name (the
		// scope's last column).
		ord := r.scope.cols[len(r.scope.cols)-1]
		c := &ps.Cols[len(ps.Cols)-1]
		c.Hidden, c.Name, c.Table = false, ord.name, ord.table
	}
	s := concatScopes(l.scope, r.scope)
	out := &rel{node: ps, scope: s}
	left := n.Tp == ast.LeftJoin
	if n.On == nil {
		ps.Outer = left
		return out, nil
	}
	c := &exprCtx{scope: s, clause: "JOIN conditions"}
	cond, err := b.bindCond(c, n.On.Expr, "JOIN conditions")
	if err != nil {
		return nil, err
	}
	if k, ok := cond.(*expr.Const); ok && k.Value == true {
		cond = nil // ON true
	}
	if left {
		ps.Cond, ps.Outer = cond, true
		return out, nil
	}
	if cond == nil {
		return out, nil
	}
	out.node = &planner.Filter{Input: ps, Cond: cond}
	return out, nil
}
