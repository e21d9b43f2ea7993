package binder

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
)

// Row constructors, ROW(a, b) or (a, b), exist only as operands of a
// comparison, IS [NOT] DISTINCT FROM, IN and IS [NOT] NULL; each binds
// to a scalar expression over the elements, with PostgreSQL's meaning
// (section 9.24.5 of its manual):
//
//	(a, b) =  (c, d)   a = c AND b = d
//	(a, b) <> (c, d)   a <> c OR b <> d
//	(a, b) <  (c, d)   the first pair that is unequal or has a NULL decides:
//	                   CASE WHEN a IS NULL OR c IS NULL THEN NULL
//	                        WHEN a = c THEN b < d ELSE a < c END
//	(a, b) IS NOT DISTINCT FROM (c, d)   a IS NOT DISTINCT FROM c AND ...
//	(a, b) IN ((c, d), (e, f))           (a, b) = (c, d) OR (a, b) = (e, f)
//	(a, b) IS NULL                       a IS NULL AND b IS NULL
//
// An element is evaluated once per place it appears in the expansion.

// rowElems returns the elements of a row constructor (through
// parentheses); ok is false when n is not one.
func rowElems(n ast.ExprNode) ([]ast.ExprNode, bool) {
	for {
		p, ok := n.(*ast.ParenthesesExpr)
		if !ok {
			break
		}
		n = p.Expr
	}
	r, ok := n.(*ast.RowExpr)
	if !ok {
		return nil, false
	}
	return r.Values, true
}

// rowOperators are the operators a row comparison takes.
var rowOperators = map[string]bool{"=": true, "<>": true, "<": true, "<=": true, ">": true, ">=": true,
	"IS NOT DISTINCT FROM": true}

// bindRowCompare binds l op r where one side is a row constructor.
func (b *binder) bindRowCompare(c *exprCtx, n ast.Node, op string, l, r ast.ExprNode) (expr.Expr, error) {
	le, lok := rowElems(l)
	re, rok := rowElems(r)
	if !rowOperators[op] {
		return nil, notSupported("operator %s on a row constructor", op)
	}
	if lok && !rok {
		if sq, ok := unparen(r).(*ast.SubqueryExpr); ok {
			return b.bindRowSubquery(c, n, op, le, sq)
		}
	}
	if !lok || !rok {
		return nil, b.atNode(pgerr.New(pgerr.FeatureNotSupported,
			"a row constructor compared with a value that is not a row constructor is not supported"), n)
	}
	ls, err := b.bindExprs(c, le)
	if err != nil {
		return nil, err
	}
	rs, err := b.bindExprs(c, re)
	if err != nil {
		return nil, err
	}
	return b.rowCompare(n, op, ls, rs)
}

func unparen(n ast.ExprNode) ast.ExprNode {
	for {
		p, ok := n.(*ast.ParenthesesExpr)
		if !ok {
			return n
		}
		n = p.Expr
	}
}

func (b *binder) bindExprs(c *exprCtx, ns []ast.ExprNode) ([]expr.Expr, error) {
	out := make([]expr.Expr, len(ns))
	for i, n := range ns {
		e, err := b.bindExpr(c, n)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

// rowCompare builds the comparison of two bound rows.
func (b *binder) rowCompare(n ast.Node, op string, ls, rs []expr.Expr) (expr.Expr, error) {
	if len(ls) != len(rs) {
		return nil, b.atOp(pgerr.New(pgerr.SyntaxError, "unequal number of entries in row expressions"), n, op)
	}
	if len(ls) == 0 {
		return nil, b.atNode(pgerr.New(pgerr.FeatureNotSupported, "cannot compare rows of zero length"), n)
	}
	pairs := make([]expr.Expr, len(ls))
	for i := range ls {
		p, err := b.binary(op, ls[i], rs[i])
		if err != nil {
			return nil, err
		}
		pairs[i] = p
	}
	switch op {
	case "=", "IS NOT DISTINCT FROM":
		return fold("AND", pairs)
	case "<>":
		return fold("OR", pairs)
	}
	strict := map[string]string{"<": "<", "<=": "<", ">": ">", ">=": ">"}[op]
	out := pairs[len(pairs)-1]
	for i := len(ls) - 2; i >= 0; i-- {
		eq, err := b.binary("=", ls[i], rs[i])
		if err != nil {
			return nil, err
		}
		decide, err := b.binary(strict, ls[i], rs[i])
		if err != nil {
			return nil, err
		}
		null, err := expr.Binary("OR", expr.IsNull(ls[i], false), expr.IsNull(rs[i], false))
		if err != nil {
			return nil, err
		}
		out, err = expr.Case(nil, []expr.Expr{null, eq}, []expr.Expr{expr.NewConst(nil, types.TBool), out}, decide)
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// fold joins es with AND or OR, left to right.
func fold(op string, es []expr.Expr) (expr.Expr, error) {
	out := es[0]
	for _, e := range es[1:] {
		var err error
		if out, err = expr.Binary(op, out, e); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// bindRowIn binds (a, b) [NOT] IN ((c, d), ...) as an OR of row
// equalities.
func (b *binder) bindRowIn(c *exprCtx, n *ast.PatternInExpr, le []ast.ExprNode) (expr.Expr, error) {
	ls, err := b.bindExprs(c, le)
	if err != nil {
		return nil, err
	}
	alts := make([]expr.Expr, len(n.List))
	for i, item := range n.List {
		re, ok := rowElems(item)
		if !ok {
			return nil, b.atNode(pgerr.New(pgerr.FeatureNotSupported,
				"a row constructor compared with a value that is not a row constructor is not supported"), n)
		}
		rs, err := b.bindExprs(c, re)
		if err != nil {
			return nil, err
		}
		if alts[i], err = b.rowCompare(n, "=", ls, rs); err != nil {
			return nil, err
		}
	}
	out, err := fold("OR", alts)
	if err != nil || !n.Not {
		return out, err
	}
	return expr.Unary("NOT", out)
}

// bindRowIsNull binds (a, b) IS [NOT] NULL: every element is [not] NULL.
func (b *binder) bindRowIsNull(c *exprCtx, elems []ast.ExprNode, not bool) (expr.Expr, error) {
	es, err := b.bindExprs(c, elems)
	if err != nil {
		return nil, err
	}
	for i := range es {
		es[i] = expr.IsNull(es[i], not)
	}
	return fold("AND", es)
}

// bindRowSubquery binds (a, b) op (SELECT x, y ...): the subquery is a
// scalar subquery per column (each one row at most, as PostgreSQL
// requires of a row subquery), compared as a row.
func (b *binder) bindRowSubquery(c *exprCtx, n ast.Node, op string, le []ast.ExprNode, sq *ast.SubqueryExpr) (expr.Expr, error) {
	ls, err := b.bindExprs(c, le)
	if err != nil {
		return nil, err
	}
	rs := make([]expr.Expr, len(ls))
	for i := range ls {
		plan, outer, err := b.bindSubqueryPlan(c, sq.Query, "subquery")
		if err != nil {
			return nil, err
		}
		cols := plan.Columns()
		switch {
		case len(cols) > len(ls):
			return nil, b.atNode(pgerr.New(pgerr.SyntaxError, "subquery has too many columns"), n)
		case len(cols) < len(ls):
			return nil, b.atNode(pgerr.New(pgerr.SyntaxError, "subquery has too few columns"), n)
		}
		col := cols[i]
		p := &planner.Project{Input: plan, Exprs: []expr.Expr{expr.NewColumn(i, col.Type, col.Name)},
			Cols: []planner.Column{{Name: col.Name, Type: col.Type}}}
		rs[i] = c.subs.add(planner.Subquery{Kind: planner.ScalarSubquery, Plan: p, Outer: outer},
			planner.Column{Name: col.Name, Type: col.Type})
	}
	return b.rowCompare(n, op, ls, rs)
}

// atOp positions err at operator op near node (PostgreSQL's caret for an
// operator's error), or at node when op is not found as written.
func (b *binder) atOp(err error, node ast.Node, op string) error {
	if pos := b.position(node, op); pos > 0 {
		return b.at(err, node, op)
	}
	return b.atNode(err, node)
}

// bindRowQuantified binds (a, b) op ANY|ALL (SELECT x, y ...), and
// (a, b) [NOT] IN (SELECT ...) as = ANY (<> ALL): each row of the
// subquery is compared with the left row by the row comparison's rules,
// the results combined as ANY or ALL combine them. Batch queries only (a
// view refuses it).
func (b *binder) bindRowQuantified(c *exprCtx, n ast.Node, op string, all bool, le []ast.ExprNode, sq *ast.SubqueryExpr) (expr.Expr, error) {
	if !rowOperators[op] || op == "IS NOT DISTINCT FROM" {
		return nil, notSupported("operator %s with a row and a subquery", op)
	}
	ls, err := b.bindExprs(c, le)
	if err != nil {
		return nil, err
	}
	plan, outer, err := b.bindSubqueryPlan(c, sq.Query, "subquery")
	if err != nil {
		return nil, err
	}
	cols := plan.Columns()
	switch {
	case len(cols) > len(ls):
		return nil, b.atNode(pgerr.New(pgerr.SyntaxError, "subquery has too many columns"), n)
	case len(cols) < len(ls):
		return nil, b.atNode(pgerr.New(pgerr.SyntaxError, "subquery has too few columns"), n)
	}
	x := make([]expr.Expr, len(ls))
	y := make([]expr.Expr, len(ls))
	for i := range ls {
		if ls[i], err = b.decideParam(ls[i], cols[i].Type); err != nil {
			return nil, err
		}
		x[i] = expr.NewColumn(i, ls[i].Type(), "x")
		y[i] = expr.NewColumn(len(ls)+i, cols[i].Type, cols[i].Name)
	}
	cmp, err := b.rowCompare(n, op, x, y)
	if err != nil {
		return nil, err
	}
	return c.subs.add(planner.Subquery{Kind: planner.QuantifiedSubquery, Plan: plan, Op: op, All: all, Row: ls, Cmp: cmp, Outer: outer},
		planner.Column{Name: "?column?", Type: types.TBool}), nil
}
