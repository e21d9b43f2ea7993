package binder

import (
	"errors"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/planner"
)

// A materialized view cannot run a subquery per row (Apply): a WHERE
// conjunct [NOT] EXISTS (SELECT ... FROM ... WHERE inner = outer ...) or
// x IN (SELECT col ...) becomes a semi join (an anti join for NOT
// EXISTS) of the query's FROM with the subquery's, which the stream hash
// join maintains by counting each left row's matches.
//
// The EXISTS subquery is a plain SELECT over a FROM: no grouping,
// aggregates, DISTINCT or LIMIT. Its WHERE conjuncts that name only its
// own columns filter its rows; inner = outer column equalities are the
// join's keys (at least one is needed); the other conjuncts that name
// outer columns are the join's residual condition. NOT IN is left to
// the general path (its NULL semantics are not a plain anti join), as is
// IN on an expression.

// semiJoin makes conj, a WHERE conjunct of a view's query over from, a
// semi or anti join when it is one of the shapes above (ok false when it
// is not).
func (b *binder) semiJoin(from *rel, conj ast.ExprNode) (*rel, bool, error) {
	for {
		p, ok := conj.(*ast.ParenthesesExpr)
		if !ok {
			break
		}
		conj = p.Expr
	}
	not := false
	if u, ok := conj.(*ast.UnaryOperationExpr); ok && u.Op == opcode.Not {
		if e, ok := u.V.(*ast.ExistsSubqueryExpr); ok {
			conj, not = e, true
		}
	}
	switch n := conj.(type) {
	case *ast.ExistsSubqueryExpr:
		sq, ok := n.Sel.(*ast.SubqueryExpr)
		if !ok {
			return nil, false, nil
		}
		kind := planner.SemiJoin
		if n.Not != not {
			kind = planner.AntiJoin
		}
		r, err := b.existsJoin(from, sq, kind)
		return r, true, err
	case *ast.PatternInExpr:
		sq, ok := n.Sel.(*ast.SubqueryExpr)
		if !ok || n.Not {
			return nil, false, nil
		}
		r, err := b.inJoin(from, n, sq)
		if err == errNotSemiJoin {
			return nil, false, nil
		}
		return r, true, err
	}
	return nil, false, nil
}

// existsJoin binds [NOT] EXISTS (sq) over from as a semi (anti) join.
func (b *binder) existsJoin(from *rel, sq *ast.SubqueryExpr, kind planner.JoinKind) (*rel, error) {
	sel, ok := sq.Query.(*ast.SelectStmt)
	if !ok || sel.From == nil || sel.GroupBy != nil || sel.Having != nil || sel.Limit != nil ||
		sel.Distinct || sel.With != nil || sel.OrderBy != nil || len(collectAggs(sel.Fields)) > 0 {
		return nil, b.atNode(notSupported("this EXISTS subquery in a materialized view (only a plain SELECT ... FROM ... WHERE)"), sq)
	}
	inner, err := b.bindFromClause(sel.From)
	if err != nil {
		return nil, err
	}
	nl := len(from.scope.cols)
	both := concatScopes(from.scope, inner.scope)
	j := &planner.Join{Left: from.node, Kind: kind}
	var own, residual []expr.Expr
	for _, wc := range splitAnd(sel.Where, nil) {
		if li, ri, ok := equiKey(both, nl, wc); ok {
			j.LeftKeys = append(j.LeftKeys, li)
			j.RightKeys = append(j.RightKeys, ri-nl)
			continue
		}
		e, err := b.bindCond(&exprCtx{scope: inner.scope, clause: "WHERE"}, wc, "WHERE")
		if err == nil {
			own = append(own, e)
			continue
		}
		e, err2 := b.bindCond(&exprCtx{scope: both, clause: "WHERE"}, wc, "WHERE")
		if err2 != nil {
			return nil, err
		}
		residual = append(residual, e)
	}
	if len(j.LeftKeys) == 0 {
		return nil, b.atNode(notSupported("EXISTS subquery with no column equality to the outer query, in a materialized view"), sq)
	}
	right := inner.node
	if cond, err := andAll(own); err != nil {
		return nil, err
	} else if cond != nil {
		right = &planner.Filter{Input: right, Cond: cond}
	}
	j.Right = right
	if j.Cond, err = andAll(residual); err != nil {
		return nil, err
	}
	return &rel{node: j, scope: from.scope}, nil
}

// errNotSemiJoin: the IN is not a semi join's shape; the general path
// (an Apply, which the planner turns into joins) takes it.
var errNotSemiJoin = errors.New("not a semi join")

// inJoin binds x IN (sq) over from as a semi join on x = the subquery's
// column: x must be a column of from (else errNotSemiJoin), of the
// subquery column's type.
func (b *binder) inJoin(from *rel, n *ast.PatternInExpr, sq *ast.SubqueryExpr) (*rel, error) {
	col, ok := columnIndex(from.scope, n.Expr)
	if !ok {
		return nil, errNotSemiJoin
	}
	r, err := b.bindResultSet(sq.Query)
	if err != nil {
		return nil, err
	}
	right := visibleNode(r.node)
	cols := right.Columns()
	if len(cols) != 1 {
		return nil, b.atNode(pgerr.New(pgerr.SyntaxError, "subquery has too many columns"), n)
	}
	if !keyCompatible(from.scope.cols[col].typ, cols[0].Type) {
		// The general path brings both to a common type.
		return nil, errNotSemiJoin
	}
	j := &planner.Join{Left: from.node, Right: right, Kind: planner.SemiJoin, LeftKeys: []int{col}, RightKeys: []int{0}}
	return &rel{node: j, scope: from.scope}, nil
}
