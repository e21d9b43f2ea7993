package stream

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/streamdb/streamdb/exec/expr"
	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// The columnar path of HashAgg. When every aggregate is a count, count(*),
// sum or avg without DISTINCT (no min/max or distinct table to write per
// row), a chunk is applied a column at a time: each row's group is found
// from the group columns' Arrow values (no Datum is made unless a group is
// new), then each aggregate runs down its argument column. Sums of bigint,
// which accumulate in numeric, add their values in int64 runs (see
// aggState.pend) folded into the numeric sum at the barrier. The result
// is the row-at-a-time path's (applyRow): aggregates of different calls
// and the row counts are independent, and a group's values are applied in
// row order.

// columnarAgg reports whether the layout's chunks may take the columnar
// path.
func (l *aggLayout) columnarAgg() bool {
	if len(l.minMax) > 0 || len(l.distinct) > 0 {
		return false
	}
	for i := range l.calls {
		c := &l.calls[i]
		if c.minMax >= 0 || c.distinct >= 0 {
			return false
		}
		switch c.Kind {
		case expr.AggCount, expr.AggCountStar, expr.AggSum, expr.AggAvg:
		default:
			return false
		}
	}
	return true
}

func (h *HashAgg) applyColumnar(c *chunk.Chunk) error {
	n := c.NumRows()
	h.rowGroups = h.rowGroups[:0]
	ints := h.intGroupKeys(c)
	for i := range n {
		var g *aggGroup
		var err error
		if ints != nil && !ints.IsNull(i) {
			g, err = h.intGroupAt(c, ints, i)
		} else {
			g, err = h.groupAt(c, i)
		}
		if err != nil {
			return err
		}
		h.rowGroups = append(h.rowGroups, g)
		g.rowCount += opSign(c.Op(i))
	}
	for k := range h.l.calls {
		if err := h.accumulateColumn(c, k); err != nil {
			return err
		}
	}
	return nil
}

func opSign(op chunk.Op) int64 {
	if op.IsInsert() {
		return 1
	}
	return -1
}

// accumulateColumn applies call k to every row of c.
func (h *HashAgg) accumulateColumn(c *chunk.Chunk, k int) error {
	call := &h.l.calls[k]
	if call.Kind == expr.AggCountStar {
		for i, g := range h.rowGroups {
			g.states[k].count += opSign(c.Op(i))
		}
		return nil
	}
	col := c.Rec.Column(call.Arg)
	if call.Kind == expr.AggCount {
		for i, g := range h.rowGroups {
			if !col.IsNull(i) {
				g.states[k].count += opSign(c.Op(i))
			}
		}
		return nil
	}
	if a, ok := col.(*array.Int64); ok && call.argType.ID == types.IDInt64 {
		for i, g := range h.rowGroups {
			if a.IsNull(i) {
				continue
			}
			if err := g.states[k].addInt64(a.Value(i), opSign(c.Op(i))); err != nil {
				return wrapAggErr(call.Kind.String(), err)
			}
		}
		return nil
	}
	for i, g := range h.rowGroups {
		v := chunk.Value(col, call.argType, i)
		if err := call.accumulate(&g.states[k], v, opSign(c.Op(i))); err != nil {
			return err
		}
	}
	return nil
}

// addInt64 adds (sign 1) or retracts (sign -1) a bigint value of a sum or
// avg to the state's pending run. The run is folded into the sum when it
// would overflow and whenever the count returns to zero (where a sum
// resets, see expr.SumState), so folding runs gives what accumulating
// each value would.
func (st *aggState) addInt64(v, sign int64) error {
	r, ok := addSigned(st.pend, v, sign)
	if !ok {
		if err := st.foldPending(); err != nil {
			return err
		}
		if r, ok = addSigned(0, v, sign); !ok { // -MinInt64
			return st.sum.Accumulate(v, types.TInt64, sign < 0)
		}
	}
	st.pend, st.pendN = r, st.pendN+sign
	if st.sum.Count+st.pendN == 0 {
		return st.foldPending()
	}
	return nil
}

// addSigned returns acc + sign*v and whether it fits an int64.
func addSigned(acc, v, sign int64) (int64, bool) {
	if sign < 0 {
		if v == -v && v != 0 { // MinInt64
			return 0, false
		}
		v = -v
	}
	r := acc + v
	// Overflow iff acc and v have the same sign and r's differs.
	return r, (acc^r)&(v^r) >= 0
}

// foldPending adds the pending run to the sum.
func (st *aggState) foldPending() error {
	if st.pend == 0 && st.pendN == 0 {
		return nil
	}
	err := st.sum.AddInt64Run(st.pend, st.pendN)
	st.pend, st.pendN = 0, 0
	return err
}

// intGroup is an entry of HashAgg.intGroups.
type intGroup struct {
	v int64
	g *aggGroup
}

// intGroupSlots is the size of HashAgg.intGroups (a power of two).
const intGroupSlots = 1 << 12

// intGroupKeys returns c's group column when the aggregation groups by
// one integer column, else nil.
func (h *HashAgg) intGroupKeys(c *chunk.Chunk) arrow.Array {
	if len(h.spec.GroupBy) != 1 {
		return nil
	}
	col := c.Rec.Column(h.spec.GroupBy[0])
	switch col.(type) {
	case *array.Int64, *array.Int32, *array.Int16:
		return col
	}
	return nil
}

// intGroupAt is groupAt for a non-null key of one integer column: a
// direct-mapped cache of the epoch's dirty groups by key value answers
// most rows without encoding the key or hashing a string (cleared with
// the dirty groups at the barrier, see endEpoch).
func (h *HashAgg) intGroupAt(c *chunk.Chunk, col arrow.Array, i int) (*aggGroup, error) {
	var v int64
	switch a := col.(type) {
	case *array.Int64:
		v = a.Value(i)
	case *array.Int32:
		v = int64(a.Value(i))
	case *array.Int16:
		v = int64(a.Value(i))
	}
	if h.intGroups == nil {
		h.intGroups = make([]intGroup, intGroupSlots)
	}
	slot := &h.intGroups[uint64(v)*0x9e3779b97f4a7c15>>52]
	if slot.g != nil && slot.v == v {
		return slot.g, nil
	}
	g, err := h.groupAt(c, i)
	if err == nil {
		*slot = intGroup{v: v, g: g}
	}
	return g, err
}

// groupAt returns the dirty group of row i of c (see group).
func (h *HashAgg) groupAt(c *chunk.Chunk, i int) (*aggGroup, error) {
	h.keyBuf = h.keyBuf[:0]
	for _, col := range h.spec.GroupBy {
		h.keyBuf = appendGroupValue(h.keyBuf, c.Rec.Column(col), c.Types[col], i)
	}
	if g, ok := h.groups[string(h.keyBuf)]; ok {
		return g, nil
	}
	key := make([]types.Datum, len(h.spec.GroupBy))
	for j, col := range h.spec.GroupBy {
		key[j] = chunk.Value(c.Rec.Column(col), c.Types[col], i)
	}
	return h.groupOf(key)
}

// appendGroupValue appends the group-key encoding of row i of col (of
// type t): appendGroupDatum of its Datum, without making the Datum for
// integers.
func appendGroupValue(b []byte, col arrow.Array, t types.Type, i int) []byte {
	if col.IsNull(i) {
		return append(b, 0)
	}
	switch a := col.(type) {
	case *array.Int64:
		return binary.BigEndian.AppendUint64(append(b, 2), uint64(a.Value(i)))
	case *array.Int32:
		return binary.BigEndian.AppendUint64(append(b, 2), uint64(int64(a.Value(i))))
	case *array.Int16:
		return binary.BigEndian.AppendUint64(append(b, 2), uint64(int64(a.Value(i))))
	}
	return appendGroupDatum(b, chunk.Value(col, t, i))
}
