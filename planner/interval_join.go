package planner

import (
	"fmt"
	"strings"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/expr"
)

// Interval joins: a join whose condition bounds a column of one side by
// a column of the other, both bounded by one table's watermark,
//
//	a JOIN b ON a.k = b.k AND a.ts BETWEEN b.ts - INTERVAL '10 seconds' AND b.ts
//
// lets go of the rows of a side that no change still to come on the
// other side can match (stream.IntervalWatermark). A conjunct
//
//	L(l) >= R(r)   (or >; with the sides in either order)
//
// where L reads one left column l and R one right column r, both
// expressions that never decrease as their column grows
// (expr.NonDecreasing), only gets harder to satisfy as r grows: a left
// row with L(l) < R(least bound of r) matches no right row still to
// come, whose r is at least that bound. L(l) <= R(r) likewise lets
// right rows go. BETWEEN gives one conjunct of each, so both sides'
// state stays bounded. The join key need not be bound (Nexmark q7 joins
// on a price), and the join may be of any kind: the rows that go are
// those no change still to come can reach, so degrees and padded rows
// stay right.

// intervalWatermark returns how the conjuncts of n's condition let the
// state of its sides go (nil when none does).
func intervalWatermark(n *Join) *stream.IntervalWatermark {
	if n.Cond == nil {
		return nil
	}
	var w *stream.IntervalWatermark
	for _, c := range expr.Conjuncts(n.Cond) {
		side, b, table, ok := intervalConjunct(n, c)
		if !ok || w != nil && w.Table != table {
			continue
		}
		if w == nil {
			w = &stream.IntervalWatermark{Table: table}
		}
		w.Sides[side] = append(w.Sides[side], b)
	}
	return w
}

// intervalConjunct returns the side of n whose rows conjunct c lets go
// (0 left, 1 right) and how, and the table whose watermark bounds its
// columns; ok is false when c is no such conjunct.
func intervalConjunct(n *Join, c expr.Expr) (side int, b stream.IntervalBound, table uint32, ok bool) {
	op, l, r, ok := expr.Comparison(c)
	if _, cmp := flippedOps[op]; !ok || !cmp {
		return 0, b, 0, false
	}
	nl, nr := len(n.Left.Columns()), len(n.Right.Columns())
	lc, rc := expr.Columns(l), expr.Columns(r)
	if len(lc) != 1 || len(rc) != 1 || expr.HasOuterRefs(c) {
		return 0, b, 0, false
	}
	if lc[0] >= nl && rc[0] < nl {
		l, r, lc, rc, op = r, l, rc, lc, flippedOps[op]
	}
	if lc[0] >= nl || rc[0] < nl || !expr.NonDecreasing(l, lc[0]) || !expr.NonDecreasing(r, rc[0]) {
		return 0, b, 0, false
	}
	lb, ok := boundOf(n.Left, lc[0])
	if !ok {
		return 0, b, 0, false
	}
	rb, ok := boundOf(n.Right, rc[0]-nl)
	if !ok || rb.table != lb.table || lb.bounds[0].Type() != n.Left.Columns()[lc[0]].Type ||
		rb.bounds[0].Type() != n.Right.Columns()[rc[0]-nl].Type {
		return 0, b, 0, false
	}
	if op == ">" || op == ">=" {
		// Left rows go: the right column becomes the one after them.
		b = stream.IntervalBound{Col: lc[0], OtherCol: rc[0] - nl, Bounds: lb.bounds, OtherBounds: rb.bounds,
			Match: expr.Remap(c, func(i int) int { return min(i, nl) })}
		return 0, b, lb.table, true
	}
	// Right rows go: the left column becomes the one after them.
	b = stream.IntervalBound{Col: rc[0] - nl, OtherCol: lc[0], Bounds: rb.bounds, OtherBounds: lb.bounds,
		Match: expr.Remap(c, func(i int) int {
			if i < nl {
				return nr
			}
			return i - nl
		})}
	return 1, b, lb.table, true
}

// intervalFilter moves the conjuncts of a WHERE over an inner join (or
// over a projection of its columns, see joinWithKey) that let the join's
// state go into the join's condition, which is the same for an inner
// join (Nexmark q7 writes its interval in WHERE); ok is false when it
// has none.
func intervalFilter(f *Filter) (Node, bool) {
	in := f.Input
	p, projected := in.(*Project)
	if projected {
		in = p.Input
	}
	j, isJoin := in.(*Join)
	if !isJoin || j.Kind != InnerJoin || j.Temporal {
		return nil, false
	}
	var moved, rest []expr.Expr
	for _, c := range expr.Conjuncts(f.Cond) {
		jc, ok := c, true
		if projected {
			jc, ok = throughProject(p, c)
		}
		if ok {
			_, _, _, ok = intervalConjunct(j, jc)
		}
		if ok {
			moved = append(moved, jc)
		} else {
			rest = append(rest, c)
		}
	}
	if len(moved) == 0 {
		return nil, false
	}
	if j.Cond != nil {
		moved = append([]expr.Expr{j.Cond}, moved...)
	}
	cond, ok := andExprs(moved)
	restCond, ok2 := andExprs(rest)
	if !ok || !ok2 {
		return nil, false
	}
	nj := *j
	nj.Cond = cond
	var out Node = &nj
	if projected {
		np := *p
		np.Input = out
		out = &np
	}
	if restCond != nil {
		out = &Filter{Input: out, Cond: restCond}
	}
	return out, true
}

// throughProject returns e, over p's output, over p's input; ok is false
// when e reads a column p computes.
func throughProject(p *Project, e expr.Expr) (expr.Expr, bool) {
	for _, c := range expr.Columns(e) {
		if _, ok := p.Exprs[c].(*expr.Column); !ok {
			return nil, false
		}
	}
	return expr.Remap(e, func(i int) int { return p.Exprs[i].(*expr.Column).Index }), true
}

// describeInterval renders how w lets the rows of each side go, for
// EXPLAIN: a row goes when its column is below its bound and the
// conjunct does not hold with the other side's column at its bound.
func describeInterval(w *stream.IntervalWatermark, left, right []Column) string {
	var parts []string
	for s, bounds := range w.Sides {
		cols, name := left, "left"
		if s == 1 {
			cols, name = right, "right"
		}
		for _, b := range bounds {
			other := expr.NewColumn(len(cols), b.OtherBounds[0].Type(), leastOf(b.OtherBounds))
			match := expr.Substitute(unnamed(b.Match, len(cols)), len(cols), other)
			parts = append(parts, fmt.Sprintf("%s: $%d < %s and not %s", name, b.Col, leastOf(b.Bounds), match))
		}
	}
	return strings.Join(parts, "; ")
}

// unnamed returns e with its columns below n shown by position.
func unnamed(e expr.Expr, n int) expr.Expr {
	if c, ok := e.(*expr.Column); ok && c.Index < n {
		return expr.NewColumn(c.Index, c.Typ, "")
	}
	ch := e.Children()
	if len(ch) == 0 {
		return e
	}
	nc := make([]expr.Expr, len(ch))
	for i, c := range ch {
		nc[i] = unnamed(c, n)
	}
	return e.WithChildren(nc)
}
