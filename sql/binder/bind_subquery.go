package binder

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
)

// Subqueries in expressions: (SELECT ...) as a value, x [NOT] IN (SELECT
// ...), x = ANY (SELECT ...), x <> ALL (SELECT ...), [NOT] EXISTS (SELECT
// ...) and ARRAY(SELECT ...). The clause that
// allows them (WHERE, HAVING, the select list and ORDER BY) gives its
// exprCtx a subqueries list over its input; each subquery becomes a
// planner.Subquery of an Apply over that input and, in the expression, a
// reference to the column the Apply appends for it. The clause then wraps
// its input in the Apply (subqueries.wrap) and, where later clauses must
// not see the extra columns, drops them again.
//
// A subquery that refers to a column of the query around it is
// correlated: the reference binds as an expr.OuterRef to the row the
// Apply is at, and the Apply runs the subquery once per row (see
// outerScope). References out of an aggregating query are 0A000, as is
// any subquery in a clause without a list (JOIN ... ON, GROUP BY,
// aggregate arguments, VALUES, DML). In a materialized view the planner
// turns the Apply into joins (planner/decorrelate.go), or refuses it.

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

// outerScope is the scope of a query enclosing the subquery being bound:
// a column of it binds as a reference to row, which the Apply over the
// scope's input sets to each row in turn.
type outerScope struct {
	scope *scope
	row   *expr.OuterRow
	// grouped scopes (an aggregating query's) cannot be referred to.
	grouped bool
	// used is set when the subquery refers to the scope.
	used bool
}

// bindSubqueryPlan binds the query of a subquery in an expression, with
// the outer scope visible for correlated references; outer is non-nil
// when the subquery has any.
func (b *binder) bindSubqueryPlan(c *exprCtx, q ast.ResultSetNode, what string) (planner.Node, *expr.OuterRow, error) {
	if c.subs == nil {
		if b.dml != "" {
			return nil, nil, notSupported("%s in %s", what, b.dml)
		}
		if c.clause != "" && c.clause != "nested" {
			return nil, nil, notSupported("%s in %s", what, c.clause)
		}
		return nil, nil, notSupported("%s in this position", what)
	}
	os := &outerScope{scope: c.scope, row: &expr.OuterRow{}, grouped: c.grouped != nil}
	b.outer = append(b.outer, os)
	defer func() { b.outer = b.outer[:len(b.outer)-1] }()
	r, err := b.bindResultSet(q)
	if err != nil {
		return nil, nil, err
	}
	if !os.used {
		return visibleNode(r.node), nil, nil
	}
	return visibleNode(r.node), os.row, nil
}

// bindScalarSubquery binds (SELECT ...) used as a value.
func (b *binder) bindScalarSubquery(c *exprCtx, n *ast.SubqueryExpr) (expr.Expr, error) {
	plan, outer, err := b.bindSubqueryPlan(c, n.Query, "subquery")
	if err != nil {
		return nil, err
	}
	cols := plan.Columns()
	if len(cols) != 1 {
		return nil, b.atNode(pgerr.New(pgerr.SyntaxError, "subquery must return only one column"), n)
	}
	return c.subs.add(planner.Subquery{Kind: planner.ScalarSubquery, Plan: plan, Outer: outer},
		planner.Column{Name: cols[0].Name, Type: cols[0].Type}), nil
}

// bindExists binds [NOT] EXISTS (SELECT ...).
func (b *binder) bindExists(c *exprCtx, n *ast.ExistsSubqueryExpr) (expr.Expr, error) {
	sq, ok := n.Sel.(*ast.SubqueryExpr)
	if !ok {
		return nil, notSupported("EXISTS of %T", n.Sel)
	}
	plan, outer, err := b.bindSubqueryPlan(c, sq.Query, "EXISTS subquery")
	if err != nil {
		return nil, err
	}
	e := c.subs.add(planner.Subquery{Kind: planner.ExistsSubquery, Plan: plan, Outer: outer},
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
	if elems, ok := rowElems(n.Expr); ok {
		if n.Not {
			return b.bindRowQuantified(c, n, "<>", true, elems, sq)
		}
		return b.bindRowQuantified(c, n, "=", false, elems, sq)
	}
	return b.bindInQuery(c, n, n.Expr, sq, n.Not)
}

// bindCompareSubquery binds x = ANY (SELECT ...) as x IN (SELECT ...)
// and x <> ALL (SELECT ...) as x NOT IN (SELECT ...).
func (b *binder) bindCompareSubquery(c *exprCtx, n *ast.CompareSubqueryExpr) (expr.Expr, error) {
	sq, ok := n.R.(*ast.SubqueryExpr)
	if elems, isRow := rowElems(n.L); ok && isRow {
		op, known := binaryOps[n.Op]
		if !known {
			return nil, notSupported("operator %s with a row and a subquery", n.Op)
		}
		return b.bindRowQuantified(c, n, op, n.All, elems, sq)
	}
	switch {
	case ok && n.Op == opcode.EQ && !n.All:
		return b.bindInQuery(c, n, n.L, sq, false)
	case ok && n.Op == opcode.NE && n.All:
		return b.bindInQuery(c, n, n.L, sq, true)
	}
	op, known := binaryOps[n.Op]
	if !ok || !known || !rowOperators[op] || op == "IS NOT DISTINCT FROM" {
		q := "ANY"
		if n.All {
			q = "ALL"
		}
		return nil, notSupported("%s %s (subquery)", binaryOps[n.Op], q)
	}
	return b.bindQuantified(c, n, op, sq)
}

// bindQuantified binds x op ANY|ALL (SELECT ...) for the operators IN
// does not cover.
func (b *binder) bindQuantified(c *exprCtx, n *ast.CompareSubqueryExpr, op string, sq *ast.SubqueryExpr) (expr.Expr, error) {
	p, err := b.bindProbedSubquery(c, n, n.L, sq, "subquery", op, func(err error) error { return b.atOp(err, n, op) })
	if err != nil {
		return nil, err
	}
	// The comparison must exist for the type (checked here, so the
	// error comes at bind time).
	if _, err := expr.Binary(op, expr.NewColumn(0, p.typ, "x"), expr.NewColumn(1, p.typ, "y")); err != nil {
		return nil, err
	}
	return c.subs.add(planner.Subquery{Kind: planner.QuantifiedSubquery, Plan: p.plan, Probe: p.x, Op: op, All: n.All, Outer: p.outer},
		planner.Column{Name: "?column?", Type: types.TBool}), nil
}

// bindInQuery binds x [NOT] IN (subquery).
func (b *binder) bindInQuery(c *exprCtx, n ast.Node, left ast.ExprNode, sq *ast.SubqueryExpr, not bool) (expr.Expr, error) {
	p, err := b.bindProbedSubquery(c, n, left, sq, "IN subquery", "=", func(err error) error { return b.at(err, n, "in") })
	if err != nil {
		return nil, err
	}
	return c.subs.add(planner.Subquery{Kind: planner.InSubquery, Plan: p.plan, Probe: p.x, Not: not, Outer: p.outer},
		planner.Column{Name: "?column?", Type: types.TBool}), nil
}

// probedSubquery is a one-column subquery and the value x compared with
// its rows (x IN (SELECT ...), x op ANY|ALL (SELECT ...)), both of type
// typ.
type probedSubquery struct {
	x     expr.Expr
	plan  planner.Node
	outer *expr.OuterRow
	typ   types.Type
}

// bindProbedSubquery binds left and the subquery sq (named what in
// errors) of the comparison n by op, and brings both to the type op
// compares them as (comparisonType); at positions the error of a comparison that does not exist.
func (b *binder) bindProbedSubquery(c *exprCtx, n ast.Node, left ast.ExprNode, sq *ast.SubqueryExpr, what, op string,
	at func(error) error) (probedSubquery, error) {
	x, err := b.bindExpr(c, left)
	if err != nil {
		return probedSubquery{}, err
	}
	plan, outer, err := b.bindSubqueryPlan(c, sq.Query, what)
	if err != nil {
		return probedSubquery{}, err
	}
	cols := plan.Columns()
	if len(cols) != 1 {
		return probedSubquery{}, b.atNode(pgerr.New(pgerr.SyntaxError, "subquery has too many columns"), n)
	}
	if x, err = b.decideParam(x, cols[0].Type); err != nil {
		return probedSubquery{}, err
	}
	t, err := comparisonType(op, x.Type(), cols[0].Type)
	if err != nil {
		err := pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s %s %s", x.Type(), op, cols[0].Type)
		err.Hint = "No operator matches the given name and argument types. You might need to add explicit type casts."
		return probedSubquery{}, at(err)
	}
	if x, err = castTo(x, t); err != nil {
		return probedSubquery{}, err
	}
	if cols[0].Type != t {
		col, err := castTo(expr.NewColumn(0, cols[0].Type, cols[0].Name), t)
		if err != nil {
			return probedSubquery{}, err
		}
		plan = &planner.Project{Input: plan, Exprs: []expr.Expr{col}, Cols: []planner.Column{{Name: cols[0].Name, Type: t}}}
	}
	return probedSubquery{x: x, plan: plan, outer: outer, typ: t}, nil
}

// comparisonType is the type x op y compares its operands as, as
// PostgreSQL's make_op resolves the operator of x IN (SELECT y) and x
// op ANY|ALL (SELECT y): the one type the chosen operator converts both
// to (text for character = text, character for varchar = character),
// else their common type.
func comparisonType(op string, l, r types.Type) (types.Type, error) {
	e, err := expr.Binary(op, expr.NewColumn(0, l, "x"), expr.NewColumn(1, r, "y"))
	if err == nil {
		if ch := e.Children(); len(ch) == 2 && ch[0].Type().ID == ch[1].Type().ID && ch[0].Type().ID != types.IDUnknown {
			if ch[0].Type() == ch[1].Type() {
				return ch[0].Type(), nil
			}
			return commonType([]types.Type{ch[0].Type(), ch[1].Type()})
		}
	}
	return commonType([]types.Type{l, r})
}

// bindArraySubquery binds ARRAY(SELECT ...).
func (b *binder) bindArraySubquery(c *exprCtx, n *ast.SubqueryExpr) (expr.Expr, error) {
	plan, outer, err := b.bindSubqueryPlan(c, n.Query, "ARRAY subquery")
	if err != nil {
		return nil, err
	}
	cols := plan.Columns()
	if len(cols) != 1 {
		return nil, b.atNode(pgerr.New(pgerr.SyntaxError, "subquery must return only one column"), n)
	}
	elem := cols[0].Type
	if elem.ID == types.IDUnknown {
		elem = types.TText
		col, err := castTo(expr.NewColumn(0, cols[0].Type, cols[0].Name), elem)
		if err != nil {
			return nil, err
		}
		plan = &planner.Project{Input: plan, Exprs: []expr.Expr{col}, Cols: []planner.Column{{Name: cols[0].Name, Type: elem}}}
	}
	typ := types.ArrayOf(elem.ID)
	if elem.ID == types.IDArray {
		typ = elem // ARRAY(SELECT arrays): one more dimension
	}
	return c.subs.add(planner.Subquery{Kind: planner.ArraySubquery, Plan: plan, Outer: outer},
		planner.Column{Name: "array", Type: typ}), nil
}

// outerColumn binds table.name as a reference to an enclosing query's
// row; ok is false when no enclosing query has the column.
func (b *binder) outerColumn(table, name string) (expr.Expr, bool, *pgerr.Error) {
	for i := len(b.outer) - 1; i >= 0; i-- {
		os := b.outer[i]
		idx, perr := os.scope.resolve(table, name)
		switch {
		case perr != nil && perr.Code == pgerr.AmbiguousColumn:
			return nil, true, perr
		case perr != nil:
			continue
		case os.grouped:
			return nil, true, notSupported("correlated subquery (a reference to column %q of an aggregating outer query)", qualified(table, name))
		}
		// The subquery of scope i's query runs once per row; any subquery
		// nested in it runs anew with it.
		os.used = true
		col := os.scope.cols[idx]
		return expr.NewOuterRef(os.row, idx, col.typ, name), true, nil
	}
	return nil, false, nil
}
