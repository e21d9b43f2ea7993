package batch

import (
	"context"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// HashAgg groups its input by key columns and computes aggregates per
// group. Output: the key columns then one column per aggregate, groups in
// order of first appearance. With no keys it yields exactly one row, even
// for an empty input; so does each of its fixed groups (SetFixedGroups).
type HashAgg struct {
	in      Executor
	fixed   [][]types.Datum
	groupBy []int
	aggs    []AggSpec
	types   []types.Type
	argType []types.Type
	out     *rowsEmitter
}

// group is one group's key values and aggregate states.
type group struct {
	key    []types.Datum
	states []aggState
}

// NewHashAgg returns an aggregation of in.
func NewHashAgg(in Executor, groupBy []int, aggs []AggSpec) *HashAgg {
	inTypes := in.Types()
	h := &HashAgg{in: in, groupBy: groupBy, aggs: aggs}
	for _, k := range groupBy {
		h.types = append(h.types, inTypes[k])
	}
	for i, a := range aggs {
		for _, k := range a.Order {
			aggs[i].order = append(aggs[i].order, expr.ListOrder{Type: inTypes[k.Col], Desc: k.Desc, NullsFirst: k.NullsFirst})
		}
		h.types = append(h.types, a.Type)
		t := types.TUnknown
		if a.Arg >= 0 {
			t = inTypes[a.Arg]
		}
		h.argType = append(h.argType, t)
		aggs[i].argType = t
	}
	return h
}

// SetFixedGroups makes h output a row for each of keys (values of the
// group columns) whether or not input rows fall in it, as a global
// aggregate does for its one group: the empty grouping sets.
func (h *HashAgg) SetFixedGroups(keys [][]types.Datum) { h.fixed = keys }

// Types implements Executor.
func (h *HashAgg) Types() []types.Type { return h.types }

// Next implements Executor. The first call consumes the whole input.
func (h *HashAgg) Next(ctx context.Context) (*chunk.Chunk, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if h.out == nil {
		rows, err := h.aggregate(ctx)
		if err != nil {
			return nil, err
		}
		h.out = &rowsEmitter{rows: rows, rb: newRowBuilder(h.types)}
	}
	return h.out.next(), nil
}

// aggregate consumes the input and returns the output rows.
func (h *HashAgg) aggregate(ctx context.Context) ([][]types.Datum, error) {
	groups := map[string]*group{}
	var order []*group
	var row []types.Datum
	var key, scratch []byte
	for {
		c, err := h.in.Next(ctx)
		if err != nil || c == nil {
			if err != nil {
				return nil, err
			}
			break
		}
		for i := 0; i < c.NumRows(); i++ {
			row = c.Row(i, row)
			key = key[:0]
			for _, k := range h.groupBy {
				key = storage.AppendDatumKeyOf(key, c.Types[k], row[k])
			}
			g, ok := groups[string(key)]
			if !ok {
				g = h.newGroup(row)
				groups[string(key)] = g
				order = append(order, g)
			}
			if err := h.accumulate(g, row, scratch); err != nil {
				c.Release()
				return nil, err
			}
		}
		c.Release()
	}
	if len(order) == 0 && len(h.groupBy) == 0 {
		order = append(order, h.newGroup(nil))
	}
	for _, k := range h.fixed {
		key = key[:0]
		for i, c := range h.groupBy {
			key = storage.AppendDatumKeyOf(key, h.in.Types()[c], k[i])
		}
		if _, ok := groups[string(key)]; !ok {
			g := &group{key: k, states: make([]aggState, len(h.aggs))}
			groups[string(key)] = g
			order = append(order, g)
		}
	}
	return h.results(order)
}

func (h *HashAgg) newGroup(row []types.Datum) *group {
	g := &group{key: make([]types.Datum, len(h.groupBy)), states: make([]aggState, len(h.aggs))}
	for i, k := range h.groupBy {
		g.key[i] = cloneDatum(row[k])
	}
	return g
}

func (h *HashAgg) accumulate(g *group, row []types.Datum, scratch []byte) error {
	for j := range h.aggs {
		if err := g.states[j].add(&h.aggs[j], h.argType[j], row, scratch); err != nil {
			return err
		}
	}
	return nil
}

func (h *HashAgg) results(groups []*group) ([][]types.Datum, error) {
	out := make([][]types.Datum, len(groups))
	for i, g := range groups {
		r := append(make([]types.Datum, 0, len(h.types)), g.key...)
		for j := range h.aggs {
			v, err := g.states[j].result(&h.aggs[j])
			if err != nil {
				return nil, err
			}
			r = append(r, v)
		}
		out[i] = r
	}
	return out, nil
}

// Close implements Executor.
func (h *HashAgg) Close() error {
	if h.out != nil {
		h.out.rb.release()
	}
	return h.in.Close()
}
