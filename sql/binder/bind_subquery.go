package binder

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/exec/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
)

// Uncorrelated subqueries in expressions: (SELECT ...) as a value,
// x [NOT] IN (SELECT ...) and [NOT] EXISTS (SELECT ...). The clause that
// allows them (WHERE, HAVING, the select list and ORDER BY) gives its
// exprCtx a subqueries list over its input; each subquery becomes a
// planner.Subquery of an Apply over that input and, in the expression, a
// reference to the column the Apply appends for it. The clause then wraps
// its input in the Apply (subqueries.wrap) and, where later clauses must
// not see the extra columns, drops them again.
//
// A subquery that refers to a column of the outer query (correlated) is
// 0A000, as is any subquery in a materialized view or in a clause without
// a list (JOIN ... ON, GROUP BY, aggregate arguments, VALUES, DML).

// subqueries collects the subqueries of the expressions bound over one
// input; each yields a column appended after the input's.
type subqueries struct {
	base int // the input's column count
	list []planner.Subquery
	cols []planner.Column
}

func newSubqueries(in planner.Node) *subqueries {
	return &subqueries{base: len(in.Columns())}
}

// add records a subquery and returns a reference to its column.
func (s *subqueries) add(sq planner.Subquery, col planner.Column) expr.Expr {
	s.list = append(s.list, sq)
	s.cols = append(s.cols, col)
	return expr.NewColumn(s.base+len(s.list)-1, col.Type, col.Name)
}

// wrap returns in with the subqueries' columns appended, or in itself
// when there are none. in must be the input the list was made for.
func (s *subqueries) wrap(in planner.Node) planner.Node {
	if s == nil || len(s.list) == 0 {
		return in
	}
	cols := append(append([]planner.Column{}, in.Columns()...), s.cols...)
	for i := s.base; i < len(cols); i++ {
		cols[i].Hidden = true
	}
	return &planner.Apply{Input: in, Subs: s.list, Cols: cols}
}

// wrapped reports whether wrap adds an Apply.
func (s *subqueries) wrapped() bool { return s != nil && len(s.list) > 0 }

// keepFirst projects n onto its first k columns.
func keepFirst(n planner.Node, k int) planner.Node {
	cols := n.Columns()[:k]
	p := &planner.Project{Input: n, Cols: append([]planner.Column{}, cols...)}
	for i, c := range cols {
		p.Exprs = append(p.Exprs, expr.NewColumn(i, c.Type, c.Name))
	}
	return p
}

// bindSubqueryPlan binds the query of a subquery in an expression, with
// the outer scope visible only to report a correlated reference.
func (b *binder) bindSubqueryPlan(c *exprCtx, q ast.ResultSetNode, what string) (planner.Node, error) {
	if b.inView {
		return nil, notSupported("%s in a materialized view", what)
	}
	if c.subs == nil {
		if b.dml != "" {
			return nil, notSupported("%s in %s", what, b.dml)
		}
		if c.clause != "" && c.clause != "nested" {
			return nil, notSupported("%s in %s", what, c.clause)
		}
		return nil, notSupported("%s in this position", what)
	}
	b.outer = append(b.outer, c.scope)
	defer func() { b.outer = b.outer[:len(b.outer)-1] }()
	r, err := b.bindResultSet(q)
	if err != nil {
		return nil, err
	}
	return visibleNode(r.node), nil
}

// bindScalarSubquery binds (SELECT ...) used as a value.
func (b *binder) bindScalarSubquery(c *exprCtx, n *ast.SubqueryExpr) (expr.Expr, error) {
	plan, err := b.bindSubqueryPlan(c, n.Query, "subquery")
	if err != nil {
		return nil, err
	}
	cols := plan.Columns()
	if len(cols) != 1 {
		return nil, b.atNode(pgerr.New(pgerr.SyntaxError, "subquery must return only one column"), n)
	}
	return c.subs.add(planner.Subquery{Kind: planner.ScalarSubquery, Plan: plan},
		planner.Column{Name: cols[0].Name, Type: cols[0].Type}), nil
}

// bindExists binds [NOT] EXISTS (SELECT ...).
func (b *binder) bindExists(c *exprCtx, n *ast.ExistsSubqueryExpr) (expr.Expr, error) {
	sq, ok := n.Sel.(*ast.SubqueryExpr)
	if !ok {
		return nil, notSupported("EXISTS of %T", n.Sel)
	}
	plan, err := b.bindSubqueryPlan(c, sq.Query, "EXISTS subquery")
	if err != nil {
		return nil, err
	}
	e := c.subs.add(planner.Subquery{Kind: planner.ExistsSubquery, Plan: plan},
		planner.Column{Name: "exists", Type: types.TBool})
	if n.Not {
		return expr.Unary("NOT", e)
	}
	return e, nil
}

// bindInSubquery binds x [NOT] IN (SELECT ...): x and the subquery's
// column are brought to their common type.
func (b *binder) bindInSubquery(c *exprCtx, n *ast.PatternInExpr) (expr.Expr, error) {
	sq, ok := n.Sel.(*ast.SubqueryExpr)
	if !ok {
		return nil, notSupported("IN of %T", n.Sel)
	}
	x, err := b.bindExpr(c, n.Expr)
	if err != nil {
		return nil, err
	}
	plan, err := b.bindSubqueryPlan(c, sq.Query, "IN subquery")
	if err != nil {
		return nil, err
	}
	cols := plan.Columns()
	if len(cols) != 1 {
		return nil, b.atNode(pgerr.New(pgerr.SyntaxError, "subquery has too many columns"), n)
	}
	if x, err = b.decideParam(x, cols[0].Type); err != nil {
		return nil, err
	}
	t, err := commonType([]types.Type{x.Type(), cols[0].Type})
	if err != nil {
		err := pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s = %s", x.Type(), cols[0].Type)
		err.Hint = "No operator matches the given name and argument types. You might need to add explicit type casts."
		return nil, b.at(err, n, "in")
	}
	if x, err = castTo(x, t); err != nil {
		return nil, err
	}
	if cols[0].Type != t {
		col, err := castTo(expr.NewColumn(0, cols[0].Type, cols[0].Name), t)
		if err != nil {
			return nil, err
		}
		plan = &planner.Project{Input: plan, Exprs: []expr.Expr{col}, Cols: []planner.Column{{Name: cols[0].Name, Type: t}}}
	}
	return c.subs.add(planner.Subquery{Kind: planner.InSubquery, Plan: plan, Probe: x, Not: n.Not},
		planner.Column{Name: "?column?", Type: types.TBool}), nil
}

// correlated returns the 0A000 for a reference to a column of an outer
// query, or nil when no outer scope has the column.
func (b *binder) correlated(table, name string) *pgerr.Error {
	for i := len(b.outer) - 1; i >= 0; i-- {
		if _, perr := b.outer[i].resolve(table, name); perr == nil || perr.Code == pgerr.AmbiguousColumn {
			return notSupported("correlated subquery (a reference to column %q of an outer query)", qualified(table, name))
		}
	}
	return nil
}
