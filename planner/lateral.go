package planner

import (
	"fmt"

	"github.com/streamdb/streamdb/exec/batch"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// LateralJoin joins each row of Left with the rows of Right, a LATERAL
// subquery that reads the left row through Outer: FROM o, LATERAL
// (SELECT ... FROM l WHERE l.o = o.id ORDER BY ... LIMIT 3) x. Kind is
// InnerJoin (a comma, CROSS JOIN or JOIN ... ON) or LeftJoin; Cond, the
// ON condition (nil for none), is over Left's columns then Right's.
// Output: Left's columns, then Right's.
//
// A batch query runs Right once per left row. A view decorrelates it
// (decorrelateLateral) into a join on the subquery's correlation keys.
type LateralJoin struct {
	Left, Right Node
	Outer       *expr.OuterRow
	Kind        JoinKind
	Cond        expr.Expr
	Cols        []Column
}

func (n *LateralJoin) Columns() []Column { return n.Cols }
func (n *LateralJoin) Inputs() []Node    { return []Node{n.Left, n.Right} }

func (n *LateralJoin) describe() string {
	s := fmt.Sprintf("Lateral Join (%s: the subquery runs once per row)", n.Kind)
	if n.Cond != nil {
		s += ": " + n.Cond.String()
	}
	return s
}

func buildBatchLateral(n *LateralJoin, src batch.Source) (batch.Executor, error) {
	left, err := BuildBatch(n.Left, src)
	if err != nil {
		return nil, err
	}
	right := n.Right
	build := func() (batch.Executor, error) { return BuildBatch(right, src) }
	return batch.NewLateralJoin(left, build, n.Outer, n.Kind == LeftJoin, n.Cond, len(right.Columns()),
		batchColumnTypes(n.Cols)), nil
}

// decorrelateLateral rewrites a LATERAL subquery into joins a view
// maintains, as decorrelate does for subqueries in expressions: the
// correlations inner_column = outer_column come out of the subquery's
// filters and become the keys of a join with Left. Under them:
//
//   - filters and projections stay as they are;
//   - an aggregate without GROUP BY is grouped by the correlated columns;
//     a left row without a match still gets its one row, the aggregates'
//     values over no rows (count 0, the others NULL);
//   - ORDER BY ... LIMIT n [OFFSET m] is a Top-N per correlated key.
func decorrelateLateral(n *LateralJoin) (Node, error) {
	if row, ok, err := lateralRow(n); ok || err != nil {
		return row, err // no FROM: a projection of the left side
	}
	p, m, keys, agg, err := pullCorrelation(n.Right, n.Outer)
	if err != nil {
		return nil, err
	}
	wl := len(n.Left.Columns())
	kind := n.Kind
	var empty []types.Datum
	if agg != nil {
		// One row per left row, matched or not.
		kind = LeftJoin
		if n.Kind == LeftJoin && n.Cond != nil {
			return nil, notInView("LEFT JOIN LATERAL over an aggregate with an ON condition")
		}
		if empty, err = emptyRow(n.Right, agg); err != nil {
			return nil, err
		}
	}
	j := &Join{Left: n.Left, Right: p, Kind: kind}
	for _, k := range keys {
		j.LeftKeys = append(j.LeftKeys, k.outer)
		j.RightKeys = append(j.RightKeys, k.inner)
	}
	rightAt := func(i int) int {
		if i < wl {
			return i
		}
		return wl + m[i-wl]
	}
	if n.Cond != nil && n.Kind == LeftJoin {
		// The ON condition decides the match of a left join: the join's.
		j.Cond = expr.Remap(n.Cond, rightAt)
	}
	pcols := p.Columns()
	out := &Project{Input: j}
	for i := 0; i < wl; i++ {
		out.Exprs = append(out.Exprs, expr.NewColumn(i, n.Cols[i].Type, n.Cols[i].Name))
		out.Cols = append(out.Cols, n.Cols[i])
	}
	for i := range n.Right.Columns() {
		c := rightAt(wl + i)
		var e expr.Expr = expr.NewColumn(c, pcols[c-wl].Type, pcols[c-wl].Name)
		if empty != nil && empty[i] != nil {
			matched := expr.IsNull(expr.NewColumn(wl+keys[0].inner, pcols[keys[0].inner].Type, ""), true)
			if e, err = expr.Case(nil, []expr.Expr{matched}, []expr.Expr{e}, expr.NewConst(empty[i], n.Cols[wl+i].Type)); err != nil {
				return nil, err
			}
		}
		out.Exprs = append(out.Exprs, e)
		out.Cols = append(out.Cols, n.Cols[wl+i])
	}
	if n.Cond != nil && n.Kind == InnerJoin {
		return &Filter{Input: out, Cond: n.Cond}, nil
	}
	return out, nil
}
