package binder

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/planner"
)

// LATERAL subqueries: FROM o, LATERAL (SELECT ... WHERE l.o = o.id
// ORDER BY ... LIMIT 3) x, and LEFT JOIN LATERAL (...) x ON true. The
// subquery binds with the FROM items before it as an outer query, its
// references to them becoming expr.OuterRefs, as a correlated subquery's
// in an expression; one that makes none is a plain derived table. The
// join is a planner.LateralJoin.

// bindLateralDerived binds LATERAL (subquery) alias over lat, the scope
// of the FROM items before it (nil when there are none).
func (b *binder) bindLateralDerived(q ast.ResultSetNode, alias string, names []ast.CIStr, lat *scope) (*rel, error) {
	if lat == nil {
		lat = &scope{}
	}
	os := &outerScope{scope: lat, row: &expr.OuterRow{}}
	b.outer = append(b.outer, os)
	r, err := b.bindDerived(q, alias, names)
	b.outer = b.outer[:len(b.outer)-1]
	if err != nil {
		return nil, err
	}
	if os.used {
		r.lateralRow = os.row
	}
	return r, nil
}

// bindLateralJoin joins l with r, a LATERAL subquery reading l's rows.
func (b *binder) bindLateralJoin(l, r *rel, n *ast.Join) (*rel, error) {
	kind := joinKind(n)
	switch {
	case kind != planner.InnerJoin && kind != planner.LeftJoin:
		return nil, b.atNode(pgerr.New(pgerr.InvalidColumnReference,
			"invalid reference to FROM-clause entry for a LATERAL subquery: the combining JOIN type must be INNER or LEFT for a LATERAL reference"), n)
	case n.NaturalJoin || len(n.Using) > 0:
		return nil, notSupported("NATURAL or USING with a LATERAL subquery")
	}
	if err := b.checkAliases(l.scope, r.scope, n); err != nil {
		return nil, err
	}
	s := concatScopes(l.scope, r.scope)
	var cond expr.Expr
	if n.On != nil {
		c, err := b.bindCond(&exprCtx{scope: s, clause: "JOIN conditions"}, n.On.Expr, "JOIN/ON")
		if err != nil {
			return nil, err
		}
		if k, ok := c.(*expr.Const); !ok || k.Value != true {
			cond = c
		}
	}
	cols := append(append([]planner.Column{}, l.node.Columns()...), r.node.Columns()...)
	j := &planner.LateralJoin{Left: l.node, Right: r.node, Outer: r.lateralRow, Kind: kind, Cond: cond, Cols: cols}
	return &rel{node: j, scope: s}, nil
}
