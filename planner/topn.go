package planner

import (
	"fmt"
	"slices"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/window"
)

// TopN keeps, per group of the GroupBy columns, the top rows in Order: a
// view's ORDER BY ... LIMIT (no group, no rank column), or a filter
// keeping row_number(), rank() or dense_rank() at most Limit over a window
// (the window's partition is the group, and the function's value stays a
// column, RankCol). Only stream plans hold one (withStreamKey makes them);
// a batch query computes the same as Limit over Sort, or Filter over
// Window.
type TopN struct {
	Input         Node
	GroupBy       []int
	Order         []window.SortKey
	Kind          stream.TopNKind
	Limit, Offset int64
	RankCol       bool
	Cols          []Column
}

func (n *TopN) Columns() []Column { return n.Cols }
func (n *TopN) Inputs() []Node    { return []Node{n.Input} }

// limitWithKey plans a view's LIMIT: a TopN over its ORDER BY.
func limitWithKey(n *Limit) (Node, []int, error) {
	s, ok := n.Input.(*Sort)
	if !ok {
		// LIMIT without ORDER BY takes any n rows, as RisingWave's views
		// do: those first in the input's stream key order.
		s = &Sort{Input: n.Input}
	}
	switch {
	case n.Count < 0:
		return nil, nil, pgerr.New(pgerr.FeatureNotSupported, "OFFSET without LIMIT is not supported in a materialized view")
	case n.Count == 0:
		return nil, nil, pgerr.New(pgerr.FeatureNotSupported, "LIMIT 0 is not supported in a materialized view")
	}
	t := &TopN{Input: s.Input, Kind: stream.TopRowNumber, Limit: n.Count, Offset: n.Offset, Cols: s.Input.Columns()}
	for _, k := range s.Keys {
		t.Order = append(t.Order, window.SortKey{Col: k.Col, Desc: k.Desc, NullsFirst: k.NullsFirst})
	}
	return topNWithKey(t)
}

func topNWithKey(n *TopN) (Node, []int, error) {
	in, key, err := withStreamKey(n.Input)
	if err != nil {
		return nil, nil, err
	}
	nin := len(n.Input.Columns())
	added := len(in.Columns()) - nin
	t := *n
	t.Input = in
	t.Cols = slices.Clone(in.Columns())
	if n.RankCol {
		t.Cols = append(t.Cols, n.Cols[nin])
	}
	key = withPartition(key, n.GroupBy)
	if !n.RankCol || added == 0 {
		return &t, key, nil
	}
	// The rank column goes back to its place after the input's columns,
	// the added key columns after it.
	p, key := resultsBeforeAdded(&t, nin, added, key)
	return p, key, nil
}

// topNFilter turns a filter keeping a ranking window function's value at
// most a constant into a TopN, looking through projections between the
// filter and the window; ok is false when the filter is not one.
func topNFilter(f *Filter) (Node, bool) {
	conds := expr.Conjuncts(f.Cond)
	for i, c := range conds {
		col, limit, ok := rankBound(c)
		if !ok {
			continue
		}
		n, ok := windowTopN(f.Input, col, limit)
		if !ok {
			continue
		}
		rest := slices.Delete(slices.Clone(conds), i, i+1)
		if len(rest) == 0 {
			return n, true
		}
		cond := rest[0]
		for _, r := range rest[1:] {
			var err error
			if cond, err = expr.Binary("AND", cond, r); err != nil {
				return nil, false
			}
		}
		return &Filter{Input: n, Cond: cond}, true
	}
	return nil, false
}

// rankBound recognizes col <= k, col < k, col = 1 and their mirror
// images, with k a constant: the rows it keeps have col at most limit.
func rankBound(c expr.Expr) (col int, limit int64, ok bool) {
	op, l, r, ok := expr.Comparison(c)
	if !ok {
		return 0, 0, false
	}
	lc, lok := l.(*expr.Column)
	rc, rok := r.(*expr.Column)
	mirror := map[string]string{"<=": ">=", "<": ">", "=": "=", ">=": "<=", ">": "<"}
	switch {
	case lok && !rok:
	case rok && !lok:
		lc, r, op = rc, l, mirror[op]
	default:
		return 0, 0, false
	}
	if len(expr.Columns(r)) > 0 {
		return 0, 0, false
	}
	v, err := r.Eval(nil)
	k, isInt := v.(int64)
	if err != nil || !isInt {
		return 0, 0, false
	}
	switch op {
	case "<=":
	case "<":
		k--
	case "=":
		if k != 1 {
			return 0, 0, false
		}
	default:
		return 0, 0, false
	}
	return lc.Index, k, k > 0
}

// windowTopN returns n with the Window that computes column col (through
// projections that pass it on) replaced by a TopN keeping the rows whose
// value is at most limit, when that Window computes just one ranking
// function.
func windowTopN(n Node, col int, limit int64) (Node, bool) {
	switch x := n.(type) {
	case *Project:
		c, ok := x.Exprs[col].(*expr.Column)
		if !ok {
			return nil, false
		}
		in, ok := windowTopN(x.Input, c.Index, limit)
		if !ok {
			return nil, false
		}
		return &Project{Input: in, Exprs: x.Exprs, Cols: x.Cols}, true
	case *Window:
		nin := len(x.Input.Columns())
		if len(x.Spec.Funcs) != 1 || col != nin {
			return nil, false
		}
		var kind stream.TopNKind
		switch x.Spec.Funcs[0].Kind {
		case window.RowNumber:
			kind = stream.TopRowNumber
		case window.Rank:
			kind = stream.TopRank
		case window.DenseRank:
			kind = stream.TopDenseRank
		default:
			return nil, false
		}
		return &TopN{Input: x.Input, GroupBy: x.Spec.Partition, Order: x.Spec.Order, Kind: kind,
			Limit: limit, RankCol: true, Cols: x.Cols}, true
	}
	return nil, false
}

// buildTopN runs a TopN in actors that own its groups, like a Window.
func (b *jobBuilder) buildTopN(n *TopN) (*fragment, error) {
	var closing *stream.KeyWatermark
	if b.closeWindows {
		// The group column a watermark bounds leads the state's key.
		n, closing = topNWatermark(n)
	}
	in, err := b.build(n.Input)
	if err != nil {
		return nil, err
	}
	spec := stream.TopNSpec{GroupBy: n.GroupBy, Order: n.Order, InTypes: in.types(), InputPK: in.key,
		Kind: n.Kind, Limit: n.Limit, Offset: n.Offset, RankCol: n.RankCol, Watermark: closing,
		AppendOnly: appendOnly(n.Input)}
	ids := b.stateTableIDs(1)
	f, err := b.partitionedBy(in, n.GroupBy, "topn")
	if err != nil {
		return nil, err
	}
	f.key = withPartition(f.key, n.GroupBy)
	op := describeTopN(n)
	if spec.AppendOnly {
		op += " [append-only]" // its state keeps the top rows only
	}
	if closing != nil {
		op += fmt.Sprintf(" (closes groups: $%d < %s)", n.GroupBy[0], leastOf(closing.Bounds))
	}
	f.ops = append(f.ops, op)
	for i, a := range f.actors {
		t, err := stream.NewTopN(f.execs[i], a.State, spec, ids[0])
		if err != nil {
			return nil, err
		}
		t.SetOwned(f.vnodes[i])
		f.execs[i] = t
	}
	return f, nil
}

func describeTopN(n *TopN) string {
	s := "TopN"
	if len(n.GroupBy) > 0 {
		s = "GroupTopN group by " + KeyCols(n.GroupBy)
	}
	s += " order by [" + orderString(n.Order) + "]"
	switch n.Kind {
	case stream.TopRank:
		return s + fmt.Sprintf(" rank <= %d", n.Limit)
	case stream.TopDenseRank:
		return s + fmt.Sprintf(" dense_rank <= %d", n.Limit)
	}
	s += fmt.Sprintf(" limit %d", n.Limit)
	if n.Offset > 0 {
		s += fmt.Sprintf(" offset %d", n.Offset)
	}
	return s
}
