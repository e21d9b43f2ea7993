package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/window"
)

// A table's watermark (WATERMARK FOR ts AS ...) travels with the barriers
// (stream.Watermark); which columns of a plan it bounds, and how, is
// decided here, from the plan: a column computed from the watermark
// column alone by an expression that never decreases (window_start of a
// TUMBLE, ts - INTERVAL '1 minute', date_trunc('hour', ts)), through
// filters, projections and HOP's expansion, over a table or source with
// a watermark (append-only: its rows never come back to an earlier
// value). Nothing else keeps the rows' time: an aggregate emits old
// groups, a join pairs a new row with old ones, a temporal filter lets
// old rows in later.

// watermarkBound is how the watermark of a table bounds a column: every
// row still to come has a value of at least the least of Bounds,
// expressions over the one-column row [the watermark].
type watermarkBound struct {
	table  uint32
	bounds []expr.Expr
}

// boundOf returns how a watermark bounds column col of n, if one does.
func boundOf(n Node, col int) (watermarkBound, bool) {
	switch n := n.(type) {
	case *Scan:
		w := n.Rel.Watermark
		if w == nil || w.Column != col {
			return watermarkBound{}, false
		}
		return watermarkBound{table: n.Rel.ID, bounds: []expr.Expr{expr.NewColumn(0, n.Cols[col].Type, "watermark("+n.Rel.Name+")")}}, true
	case *Filter:
		return boundOf(n.Input, col)
	case *Project:
		return boundThrough(n.Input, [][]expr.Expr{n.Exprs}, col)
	case *Expand:
		if n.Prefix > 0 { // grouping sets: the columns moved
			return watermarkBound{}, false
		}
		return boundThrough(n.Input, n.Projections, col)
	case *Aggregate:
		// Rows still to come reach only the groups they fall in, so
		// the aggregate's changes still to come are those of groups a
		// watermark still bounds (those it closed emit before the
		// barrier that closed them).
		if col >= len(n.GroupBy) || len(n.FixedGroups) > 0 {
			return watermarkBound{}, false
		}
		return boundOf(n.Input, n.GroupBy[col])
	case *Window:
		// Rows still to come change only the results of their own
		// partition, and, when no function looks at later rows, only
		// of the rows from theirs on in the window's order.
		if col >= len(n.Input.Columns()) {
			return watermarkBound{}, false
		}
		if slices.Contains(n.Spec.Partition, col) || len(n.Spec.Order) > 0 && n.Spec.Order[0].Col == col &&
			!n.Spec.Order[0].Desc && looksBackOnly(n.Spec) {
			return boundOf(n.Input, col)
		}
	case *UnionAll:
		// Bound in every branch by the same table's watermark: the
		// merge of the branches keeps the least of theirs.
		var out watermarkBound
		for i, in := range n.Ins {
			b, ok := boundOf(in, col)
			if !ok || i > 0 && b.table != out.table {
				return watermarkBound{}, false
			}
			out.table = b.table
			out.bounds = append(out.bounds, b.bounds...)
		}
		out.bounds = distinctBounds(out.bounds)
		return out, len(out.bounds) > 0
	case *TopN:
		// Its changes still to come are those of groups rows still to
		// come fall in.
		if slices.Contains(n.GroupBy, col) {
			return boundOf(n.Input, col)
		}
	case *Join:
		// A join key both sides bound: a change still to come comes
		// from a row still to come on one side, with a key of at least
		// the lesser bound.
		nl := len(n.Left.Columns())
		if n.Temporal {
			// Left columns pass unchanged, a row per left row.
			if col < nl {
				return boundOf(n.Left, col)
			}
			return watermarkBound{}, false
		}
		side := n.LeftKeys
		if col >= nl {
			if n.Kind.FiltersLeft() {
				return watermarkBound{}, false
			}
			side, col = n.RightKeys, col-nl
		}
		if i := slices.Index(side, col); i >= 0 {
			return joinKeyBound(n, i)
		}
	}
	return watermarkBound{}, false
}

// joinKeyBound returns how one watermark bounds the i-th key pair of a
// join on both sides: the least of the two sides' bounds.
func joinKeyBound(n *Join, i int) (watermarkBound, bool) {
	l, ok := boundOf(n.Left, n.LeftKeys[i])
	if !ok {
		return watermarkBound{}, false
	}
	r, ok := boundOf(n.Right, n.RightKeys[i])
	if !ok || r.table != l.table || l.bounds[0].Type() != r.bounds[0].Type() {
		return watermarkBound{}, false
	}
	return watermarkBound{table: l.table, bounds: distinctBounds(slices.Concat(l.bounds, r.bounds))}, true
}

// joinWatermark returns n with the first key pair both sides bound by
// one watermark moved first, and the watermark that closes its keys
// (nil, and n, when no pair is bound).
func joinWatermark(n *Join) (*Join, *stream.KeyWatermark) {
	for i := range n.LeftKeys {
		b, ok := joinKeyBound(n, i)
		if !ok {
			continue
		}
		m := *n
		m.LeftKeys = append([]int{n.LeftKeys[i]}, slices.Delete(slices.Clone(n.LeftKeys), i, i+1)...)
		m.RightKeys = append([]int{n.RightKeys[i]}, slices.Delete(slices.Clone(n.RightKeys), i, i+1)...)
		return &m, &stream.KeyWatermark{Table: b.table, Bounds: b.bounds}
	}
	return n, nil
}

// boundThrough is boundOf column col of projections over in: each
// projection's expression of col must be a non-decreasing function of
// one column of in that a watermark bounds; the bound is the least over
// them all.
func boundThrough(in Node, projs [][]expr.Expr, col int) (watermarkBound, bool) {
	var out watermarkBound
	for i, p := range projs {
		e := p[col]
		cols := expr.Columns(e)
		if len(cols) != 1 || !expr.NonDecreasing(e, cols[0]) {
			return watermarkBound{}, false
		}
		b, ok := boundOf(in, cols[0])
		if !ok || i > 0 && b.table != out.table {
			return watermarkBound{}, false
		}
		out.table = b.table
		for _, be := range b.bounds {
			out.bounds = append(out.bounds, expr.Substitute(e, cols[0], be))
		}
	}
	out.bounds = distinctBounds(out.bounds)
	return out, len(out.bounds) > 0
}

// distinctBounds drops the bounds equal to an earlier one.
func distinctBounds(bounds []expr.Expr) []expr.Expr {
	seen := map[string]bool{}
	out := bounds[:0]
	for _, b := range bounds {
		if k := b.String(); !seen[k] {
			seen[k] = true
			out = append(out, b)
		}
	}
	return out
}

// aggWatermark returns the watermark that closes the groups of n, an
// aggregate: the first group column a watermark bounds (nil when none
// does, or when n has fixed groups, which never close), and how EXPLAIN
// shows it.
func aggWatermark(n *Aggregate, eowc bool) (*stream.AggWatermark, string) {
	if len(n.FixedGroups) > 0 {
		return nil, ""
	}
	for i, c := range n.GroupBy {
		b, ok := boundOf(n.Input, c)
		if !ok {
			continue
		}
		desc := fmt.Sprintf("closes groups: $%d < %s", i, leastOf(b.bounds))
		if eowc {
			desc += ", EMIT ON WINDOW CLOSE"
		}
		return &stream.AggWatermark{Table: b.table, Key: i, Bounds: b.bounds, EmitOnWindowClose: eowc}, desc
	}
	return nil, ""
}

// emitAggregate returns the aggregate of a plan that emits on window
// close: the one under the plan's top filters and projections, when a
// watermark bounds one of its group columns (nil when none).
func emitAggregate(plan Node) *Aggregate {
	for {
		switch m := plan.(type) {
		case *Filter:
			plan = m.Input
		case *Project:
			plan = m.Input
		case *Aggregate:
			if w, _ := aggWatermark(m, true); w != nil {
				return m
			}
			return nil
		default:
			return nil
		}
	}
}

// CheckEmitOnWindowClose checks that a view's plan can run with EMIT ON
// WINDOW CLOSE: an aggregate grouped by a column a watermark bounds (a
// window of TUMBLE or HOP over a table's watermark column), under
// filters and projections only, which then emits a group once it
// closes; or any plan with an output column a watermark bounds (the top
// rows per window, window functions ordered by the watermark column),
// whose rows are then held until final (stream.EmitOnClose).
func CheckEmitOnWindowClose(plan Node) error {
	if emitAggregate(plan) != nil {
		return nil
	}
	if _, _, ok := emitColumn(plan); ok {
		return nil
	}
	err := pgerr.New(pgerr.FeatureNotSupported, "EMIT ON WINDOW CLOSE needs a column a watermark bounds in the view's output")
	err.Hint = "Group or partition by window_start or window_end of TUMBLE or HOP over a table or source with a WATERMARK FOR its time column, " +
		"or order window functions by that column."
	return err
}

// leastOf renders the least of bounds.
func leastOf(bounds []expr.Expr) string {
	if len(bounds) == 1 {
		return bounds[0].String()
	}
	s := make([]string, len(bounds))
	for i, e := range bounds {
		s[i] = e.String()
	}
	return "least(" + strings.Join(s, ", ") + ")"
}

// topNWatermark returns n with the first group column a watermark bounds
// moved first, and the watermark that closes its groups (nil, and n,
// when none is bound).
func topNWatermark(n *TopN) (*TopN, *stream.KeyWatermark) {
	for i, c := range n.GroupBy {
		b, ok := boundOf(n.Input, c)
		if !ok {
			continue
		}
		m := *n
		m.GroupBy = append([]int{c}, slices.Delete(slices.Clone(n.GroupBy), i, i+1)...)
		return &m, &stream.KeyWatermark{Table: b.table, Bounds: b.bounds}
	}
	return n, nil
}

// looksBackOnly reports whether every function of a window reads only
// rows up to the current one (and its peers) in the window's order: no
// lead, no frame ending after the current row, nothing of the whole
// partition (ntile, percent_rank, cume_dist).
func looksBackOnly(s *window.Spec) bool {
	for _, f := range s.Funcs {
		switch f.Kind {
		case window.RowNumber, window.Rank, window.DenseRank:
		case window.Lag:
			if f.N < 0 {
				return false
			}
		case window.FirstValue, window.LastValue, window.NthValue, window.Agg:
			switch f.Frame.End.Kind {
			case window.UnboundedPreceding, window.Preceding, window.CurrentRow:
			default:
				return false
			}
		default:
			return false
		}
	}
	return true
}

// emitColumn returns, for a view that emits on window close, the column
// of its output a watermark bounds (the first; ok false when none) and
// that watermark.
func emitColumn(plan Node) (int, *stream.KeyWatermark, bool) {
	for c := range plan.Columns() {
		if b, ok := boundOf(plan, c); ok {
			return c, &stream.KeyWatermark{Table: b.table, Bounds: b.bounds}, true
		}
	}
	return 0, nil, false
}
