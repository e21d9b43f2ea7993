package stream

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
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
	ints := intKeyColumn(c, h.keyCols)
	for i := range n {
		g, err := h.rowGroup(c, ints, i)
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

// intCache is a direct-mapped cache of groups by the value of a
// one-integer-column group key: it answers most rows without encoding the
// key or hashing a string. Keys in [0, intCacheSlots), the common small
// codes and ids, index an array of group pointers (32 KiB, which stays
// in the CPU's first-level cache: a hashed entry cost a GROUP BY
// backfill's local aggregate a cache miss a row); other keys go to a
// hashed table whose entries are overwritten on collision. G is a
// pointer type: its zero value is "no group".
type intCache[G comparable] struct {
	dense []G
	slots []intEntry[G]
}

type intEntry[G comparable] struct {
	v  int64
	g  G
	ok bool
}

// intCacheSlots is the size of each of an intCache's tables (a power of
// two).
const intCacheSlots = 1 << 12

func (c *intCache[G]) get(v int64) (G, bool) {
	var zero G
	if uint64(v) < intCacheSlots {
		if c.dense == nil {
			return zero, false
		}
		g := c.dense[v]
		return g, g != zero
	}
	if c.slots == nil {
		return zero, false
	}
	e := &c.slots[uint64(v)*0x9e3779b97f4a7c15>>52]
	return e.g, e.ok && e.v == v
}

func (c *intCache[G]) put(v int64, g G) {
	if uint64(v) < intCacheSlots {
		if c.dense == nil {
			c.dense = make([]G, intCacheSlots)
		}
		c.dense[v] = g
		return
	}
	if c.slots == nil {
		c.slots = make([]intEntry[G], intCacheSlots)
	}
	c.slots[uint64(v)*0x9e3779b97f4a7c15>>52] = intEntry[G]{v: v, g: g, ok: true}
}

func (c *intCache[G]) clear() {
	clear(c.dense)
	clear(c.slots)
}

// intKeyColumn returns c's group column when the group key (cols) is one
// integer column, else nil.
func intKeyColumn(c *chunk.Chunk, cols []int) arrow.Array {
	if len(cols) != 1 {
		return nil
	}
	col := c.Rec.Column(cols[0])
	switch col.(type) {
	case *array.Int64, *array.Int32, *array.Int16:
		return col
	}
	return nil
}

// intKeyAt is the value of row i of an intKeyColumn.
func intKeyAt(col arrow.Array, i int) int64 {
	switch a := col.(type) {
	case *array.Int64:
		return a.Value(i)
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Int16:
		return int64(a.Value(i))
	}
	panic("stream: intKeyAt of a non-integer column")
}

// appendRowGroupKey appends the group key of row i of c, whose key is
// the columns cols: their storage key encoding, in which values equal in
// SQL are equal (see storage.AppendDatumKey).
func appendRowGroupKey(b []byte, c *chunk.Chunk, cols []int, i int) ([]byte, error) {
	for _, col := range cols {
		var err error
		if b, err = storage.AppendKeyAt(b, c.Types[col], c, col, i); err != nil {
			return b, wrapAggErr("group key", err)
		}
	}
	return b, nil
}

// groupKeyDatums is the group key of row i of c as Datums.
func groupKeyDatums(c *chunk.Chunk, cols []int, i int) []types.Datum {
	key := make([]types.Datum, len(cols))
	for j, col := range cols {
		key[j] = chunk.Value(c.Rec.Column(col), c.Types[col], i)
	}
	return key
}

// intGroupAt is groupAt for a non-null key of one integer column, through
// the epoch's cache of dirty groups by key value (cleared with the dirty
// groups at the barrier, see endEpoch).
func (h *HashAgg) intGroupAt(c *chunk.Chunk, col arrow.Array, i int) (*aggGroup, error) {
	v := intKeyAt(col, i)
	if g, ok := h.intGroups.get(v); ok {
		return g, nil
	}
	g, err := h.groupAt(c, i)
	if err == nil {
		h.intGroups.put(v, g)
	}
	return g, err
}

// rowGroup returns the dirty group of row i of c, through the integer
// key cache when ints (intKeyColumn of c) is not nil.
func (h *HashAgg) rowGroup(c *chunk.Chunk, ints arrow.Array, i int) (*aggGroup, error) {
	if ints != nil && !ints.IsNull(i) {
		return h.intGroupAt(c, ints, i)
	}
	return h.groupAt(c, i)
}

// groupAt returns the dirty group of row i of c (see group).
func (h *HashAgg) groupAt(c *chunk.Chunk, i int) (*aggGroup, error) {
	var err error
	if h.keyBuf, err = appendRowGroupKey(h.keyBuf[:0], c, h.keyCols, i); err != nil {
		return nil, err
	}
	if g, ok := h.groups[string(h.keyBuf)]; ok {
		return g, nil
	}
	return h.groupOf(groupKeyDatums(c, h.keyCols, i))
}

// applyPartial merges a chunk of partial aggregates (AggSpec.Partial):
// each row adds its group's net row count and each call's partial state.
func (h *HashAgg) applyPartial(c *chunk.Chunk) error {
	ints := intKeyColumn(c, h.keyCols)
	counts := c.Rec.Column(len(h.keyCols)).(*array.Int64)
	for i := range c.NumRows() {
		if !c.Op(i).IsInsert() {
			return fmt.Errorf("stream: hash agg: partial aggregate with op %v", c.Op(i))
		}
		g, err := h.rowGroup(c, ints, i)
		if err != nil {
			return err
		}
		g.rowCount += counts.Value(i)
		for k := range h.l.calls {
			call := &h.l.calls[k]
			st := &g.states[k]
			switch call.Kind {
			case expr.AggCount, expr.AggCountStar:
				st.count += c.Rec.Column(call.stateCol).(*array.Int64).Value(i)
			case expr.AggMin, expr.AggMax: // an append-only spec's partial extreme
				call.updateExtreme(st, chunk.Value(c.Rec.Column(call.stateCol), c.Types[call.stateCol], i), 1)
			default:
				sum := chunk.Value(c.Rec.Column(call.stateCol), c.Types[call.stateCol], i)
				n := c.Rec.Column(call.stateCol + 1).(*array.Int64).Value(i)
				if err := st.sum.AddPartial(sum, n); err != nil {
					return wrapAggErr(call.Kind.String(), err)
				}
			}
		}
	}
	return nil
}
