package stream

import (
	"context"
	"fmt"
	"hash/maphash"
	"math"
	"slices"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/failpoint"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// HashAgg maintains a grouped aggregation (count, count(*), sum, avg, min,
// max, and count/sum/avg DISTINCT) under inserts and deletes. Its output is
// the group columns followed by one column per aggregate; the output stream
// key is the group columns.
//
// During an epoch the groups touched are loaded from the result table into
// a map (the dirty groups) and updated in memory; the min/max input and
// distinct tables are written to the epoch batch as rows arrive. At the
// barrier each dirty group emits its change, relative to what it emitted
// before (which is what its stored state gives):
//
//   - Insert of the result for a group that had no rows before,
//   - Delete of the old result for a group whose row count dropped to 0,
//   - UpdateDelete(old) + UpdateInsert(new) when the result changed,
//   - nothing when it did not,
//
// and its state row is written to (or, once empty, deleted from) the batch.
// The flushed groups then stay in a bounded cache of clean groups, whose
// state is what the epoch commits: a group touched again in a later epoch
// is taken from the cache instead of read back. Nothing else writes a
// group's state (its vnode is this actor's), and a failed epoch tears the
// executor down with its cache, so the cache never differs from committed
// state; an executor built over committed state (a restart, a recovery, a
// rescale) starts with an empty cache and continues exactly where its
// predecessor stopped (I6).
//
// A global aggregate (no GROUP BY) always has exactly one row: it is
// inserted at the first barrier if no state exists yet and never deleted.
// So are the fixed groups (AggSpec.FixedGroups) of the vnodes the actor
// owns (SetOwned).
type HashAgg struct {
	in     Executor
	sc     *StateContext
	l      *aggLayout
	spec   AggSpec
	types  []types.Type
	global bool
	out    *outQueue

	groups      map[string]*aggGroup
	order       []*aggGroup          // dirty groups in first-touch order
	cache       map[string]*aggGroup // clean groups, as committed
	globalReady bool                 // the global group's row is known to exist
	fixed       [][]types.Datum      // the fixed groups this actor owns, until created
	fixedKeys   map[string]bool      // the encoded keys of every fixed group this actor owns
	row         []types.Datum
	keyBuf      []byte
	columnar    bool                // chunks take the columnar path (hash_agg_columnar.go)
	rowGroups   []*aggGroup         // the columnar path's group of each row of a chunk
	intGroups   intCache[*aggGroup] // dirty groups by integer key (see intGroupAt)
	keyCols     []int               // the input columns of the group key
	// started: the first chunk was seen (see start). seen, when not nil,
	// holds the hash of every group key whose state the executor wrote
	// since it found its result table empty: another key has no state.
	started bool
	seen    *keyFilter
	seed    maphash.Seed
	// owned are the vnodes the actor owns (SetOwned); eowc: the spec
	// emits on window close; closer: how far groups closed.
	owned  []uint16
	eowc   bool
	closer closer
}

// aggGroup is a group: dirty in the current epoch, or clean in the cache.
type aggGroup struct {
	mapKey   string // its key in groups and cache
	key      []types.Datum
	stored   bool          // its state row exists in the result table
	prevOut  []types.Datum // the row downstream holds for it; nil if none
	rowCount int64
	states   []aggState
}

// NewHashAgg returns an aggregation of in's rows. tableIDs are the ids of
// its state tables, spec.NumStateTables() of them (see AggSpec for their
// order and aggLayout for their layouts).
func NewHashAgg(in Executor, sc *StateContext, spec AggSpec, tableIDs []uint32) (*HashAgg, error) {
	l, err := newAggLayout(spec, tableIDs)
	if err != nil {
		return nil, err
	}
	return &HashAgg{
		in: in, sc: sc, l: l, spec: spec, types: spec.OutTypes(), global: len(spec.GroupBy) == 0,
		out: newOutQueue(spec.OutTypes()), groups: map[string]*aggGroup{}, cache: map[string]*aggGroup{},
		columnar: l.columnarAgg(), keyCols: spec.keyCols(), seed: maphash.MakeSeed(),
		eowc: spec.Watermark != nil && spec.Watermark.EmitOnWindowClose,
	}, nil
}

// SetOwned tells h the vnodes its actor owns, so that it creates the
// fixed groups (AggSpec.FixedGroups) among them and closes the groups
// of them a watermark passed (AggSpec.Watermark). Without it h owns
// none.
func (h *HashAgg) SetOwned(owned storage.VnodeBitmap) {
	h.owned = owned.Vnodes()
	h.fixed, h.fixedKeys = nil, map[string]bool{}
	for _, k := range h.spec.FixedGroups {
		row := make([]types.Datum, len(h.l.result.Types))
		copy(row, k)
		if !owned.Has(h.l.result.Vnode(row)) {
			continue
		}
		h.fixed = append(h.fixed, k)
		h.fixedKeys[string(h.appendGroupKey(nil, k))] = true
	}
}

// appendGroupKey appends the encoding of group key values, as group
// encodes a row's.
func (h *HashAgg) appendGroupKey(buf []byte, key []types.Datum) []byte {
	for i, t := range h.l.groupTypes {
		buf = storage.AppendDatumKeyOf(buf, t, key[i])
	}
	return buf
}

// Types implements Executor.
func (h *HashAgg) Types() []types.Type { return h.types }

// StateTables returns the state tables in tableIDs order.
func (h *HashAgg) StateTables() []*storage.Table {
	return h.l.tables()
}

// Next implements Executor.
func (h *HashAgg) Next(ctx context.Context) (Message, error) {
	for {
		if m, ok := h.out.pop(); ok {
			return m, nil
		}
		msg, err := h.in.Next(ctx)
		if err != nil {
			return Message{}, err
		}
		if failpoint.Enabled {
			if err := hitMsg(failpoint.ExecHashAggChunk, failpoint.ExecHashAggBarrier, msg); err != nil {
				return Message{}, err
			}
		}
		if msg.Barrier != nil {
			if err := h.endEpoch(); err != nil {
				return Message{}, err
			}
			if err := h.closeGroups(msg.Watermarks); err != nil {
				return Message{}, err
			}
			h.forget(msg.Barrier.Mutation)
			h.out.barrierMsg(msg)
			continue
		}
		if !h.started {
			err = h.start()
		}
		if err == nil {
			err = h.applyChunk(msg.Chunk)
		}
		msg.Chunk.Release()
		if err != nil {
			return Message{}, err
		}
	}
}

func (h *HashAgg) applyChunk(c *chunk.Chunk) error {
	if h.spec.Partial {
		return h.applyPartial(c)
	}
	if h.columnar {
		return h.applyColumnar(c)
	}
	for i := 0; i < c.NumRows(); i++ {
		h.row = c.Row(i, h.row)
		sign := int64(1)
		if !c.Op(i).IsInsert() {
			sign = -1
		}
		if err := h.applyRow(h.row, sign); err != nil {
			return err
		}
	}
	return nil
}

// applyRow adds (sign 1) or removes (sign -1) one input row.
func (h *HashAgg) applyRow(row []types.Datum, sign int64) error {
	g, err := h.group(row)
	if err != nil {
		return err
	}
	g.rowCount += sign
	if h.spec.AppendOnly {
		if sign < 0 {
			return errAppendOnlyDelete
		}
	} else if err := h.writeMinMaxInputs(g.key, row, sign); err != nil {
		return err
	}
	deltas, err := h.distinctDeltas(g.key, row, sign)
	if err != nil {
		return err
	}
	for i := range h.l.calls {
		c := &h.l.calls[i]
		switch {
		case c.list >= 0:
			err = h.writeListInput(c, &g.states[i], g.key, row, sign)
		case c.minMax >= 0:
			c.updateExtreme(&g.states[i], row[c.Arg], sign)
		case c.distinct >= 0:
			err = c.accumulate(&g.states[i], row[c.Arg], deltas[c.distinct])
		default:
			err = c.accumulate(&g.states[i], argOf(c, row), sign)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// argOf is the argument value of a call for row (a dummy for count(*)).
func argOf(c *aggCallLayout, row []types.Datum) types.Datum {
	if c.Kind == expr.AggCountStar {
		return true
	}
	return row[c.Arg]
}

// group returns the dirty group of row, loading it from the result table
// when it is first touched this epoch.
func (h *HashAgg) group(row []types.Datum) (*aggGroup, error) {
	h.keyBuf = h.keyBuf[:0]
	for _, c := range h.keyCols {
		h.keyBuf = storage.AppendDatumKeyOf(h.keyBuf, h.spec.InTypes[c], row[c])
	}
	if g, ok := h.groups[string(h.keyBuf)]; ok {
		return g, nil
	}
	key := make([]types.Datum, len(h.keyCols))
	for i, c := range h.keyCols {
		key[i] = row[c]
	}
	return h.groupOf(key)
}

// groupOf returns the group of key, whose encoding is in h.keyBuf and
// which is not dirty yet, from the cache or the result table, and makes
// it dirty.
func (h *HashAgg) groupOf(key []types.Datum) (*aggGroup, error) {
	if g, ok := h.cache[string(h.keyBuf)]; ok {
		h.groups[g.mapKey] = g
		h.order = append(h.order, g)
		return g, nil
	}
	g, err := h.loadGroup(key)
	if err != nil {
		return nil, err
	}
	g.mapKey = string(h.keyBuf)
	h.groups[g.mapKey] = g
	h.order = append(h.order, g)
	return g, nil
}

// start runs before the executor applies its first chunk: if its result
// table is empty (a new view's backfill), the executor keeps a keyFilter
// of the group keys it writes from then on. Every later write to the
// vnodes it owns is its own (other actors write other vnodes; vnodes move
// only by replacing the actors, see forget), so a group it has not
// written has no state, and loading it needs no read of the store: with
// many groups, those reads were most of a backfill's time.
func (h *HashAgg) start() error {
	h.started = true
	if h.global || len(h.l.minMax) > 0 && !h.spec.AppendOnly || len(h.l.distinct) > 0 || len(h.l.lists) > 0 {
		return nil // one group, or other tables read anyway
	}
	pp, err := h.l.result.NewPrefixProbe(h.sc.Store)
	if err != nil {
		return wrapAggErr("open state", err)
	}
	if pp.Empty() {
		h.seen = newKeyFilter()
	}
	return wrapAggErr("open state", pp.Close())
}

// forget drops the key filter at a barrier that may change what the
// actor owns or who else writes its state (any mutation but flow
// control).
func (h *HashAgg) forget(m Mutation) {
	switch m.(type) {
	case nil, *ThrottleMutation:
		return
	}
	h.seen = nil
}

// loadGroup reads a group's state, or returns an empty group. The group's
// key encoding is in h.keyBuf.
func (h *HashAgg) loadGroup(key []types.Datum) (*aggGroup, error) {
	g := &aggGroup{key: key, states: make([]aggState, len(h.l.calls))}
	if h.seen != nil && !h.seen.mayContain(maphash.Bytes(h.seed, h.keyBuf)) {
		return g, nil
	}
	row, ok, err := h.l.result.Get(h.sc.Batch(), h.l.keyPK(key))
	if err != nil || !ok {
		return g, wrapAggErr("read group", err)
	}
	g.stored = true
	n := len(key)
	// Keep the stored key: equal keys may print differently (1.0, 1.00),
	// and the output must keep showing the row downstream already holds.
	g.key = row[:n:n]
	if g.rowCount, ok = row[n].(int64); !ok {
		return nil, fmt.Errorf("stream: hash agg: corrupt row count %v", row[n])
	}
	for i := range h.l.calls {
		if g.states[i], err = h.l.calls[i].decodeState(row); err != nil {
			return nil, err
		}
	}
	if !h.eowc { // (downstream holds nothing of an open group)
		g.prevOut, err = h.outputRow(g)
	}
	return g, err
}

func wrapAggErr(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("stream: hash agg: %s: %w", what, err)
}

// writeMinMaxInputs adds or deletes row in each min/max input table where
// its value is not NULL.
func (h *HashAgg) writeMinMaxInputs(key, row []types.Datum, sign int64) error {
	for i, c := range h.l.minMaxCols {
		if row[c] == nil {
			continue
		}
		r := append(append(make([]types.Datum, 0, len(h.l.minMax[i].Types)), key...), row[c])
		for _, p := range h.spec.InputPK {
			r = append(r, row[p])
		}
		var err error
		if sign > 0 {
			err = h.l.minMax[i].Insert(h.sc.Batch(), r)
		} else {
			err = h.l.minMax[i].Delete(h.sc.Batch(), r)
		}
		if err != nil {
			return wrapAggErr("write min/max input", err)
		}
	}
	return nil
}

// distinctDeltas updates each distinct table with row's value and returns,
// per table, +1 when the value appeared in the group, -1 when it
// disappeared, 0 otherwise.
func (h *HashAgg) distinctDeltas(key, row []types.Datum, sign int64) ([]int64, error) {
	if len(h.l.distCols) == 0 {
		return nil, nil
	}
	deltas := make([]int64, len(h.l.distCols))
	for i, c := range h.l.distCols {
		if row[c] == nil {
			continue
		}
		d, err := h.distinctDelta(h.l.distinct[i], key, row[c], sign)
		if err != nil {
			return nil, err
		}
		deltas[i] = d
	}
	return deltas, nil
}

func (h *HashAgg) distinctDelta(t *storage.Table, key []types.Datum, v types.Datum, sign int64) (int64, error) {
	pk := append(append(make([]types.Datum, 0, len(key)+2), key...), v) // the row, but its count
	old, ok, err := t.Get(h.sc.Batch(), append(slices.Clone(h.l.keyPK(key)), v))
	if err != nil {
		return 0, wrapAggErr("read distinct value", err)
	}
	var n int64
	if ok {
		n, _ = old[len(pk)].(int64)
	}
	m := n + sign
	switch {
	case m < 0:
		return 0, fmt.Errorf("stream: hash agg: distinct value %v deleted more often than inserted", v)
	case m == 0:
		err = t.Delete(h.sc.Batch(), append(pk, nil))
	default:
		err = t.Insert(h.sc.Batch(), append(pk, m))
	}
	if err != nil {
		return 0, wrapAggErr("write distinct value", err)
	}
	switch {
	case n == 0 && m > 0:
		return 1, nil
	case n > 0 && m == 0:
		return -1, nil
	}
	return 0, nil
}

// endEpoch emits the changes of the dirty groups and writes their state.
func (h *HashAgg) endEpoch() error {
	if h.global && !h.globalReady {
		if _, err := h.group(nil); err != nil {
			return err
		}
		h.globalReady = true
	}
	for _, k := range h.fixed {
		h.keyBuf = h.appendGroupKey(h.keyBuf[:0], k)
		if _, ok := h.groups[string(h.keyBuf)]; !ok {
			if _, err := h.groupOf(slices.Clone(k)); err != nil {
				return err
			}
		}
	}
	h.fixed = nil
	for _, g := range h.order {
		if err := h.flushGroup(g); err != nil {
			return err
		}
		if g.stored {
			h.cache[g.mapKey] = g
		} else {
			delete(h.cache, g.mapKey)
		}
	}
	clear(h.groups)
	h.intGroups.clear()
	h.order = h.order[:0]
	if len(h.cache) > aggCacheGroups {
		// Drop a quarter, arbitrary ones (map order): they are read back
		// from the result table when touched again.
		n := len(h.cache) / 4
		for k := range h.cache {
			if n == 0 {
				break
			}
			delete(h.cache, k)
			n--
		}
	}
	return nil
}

// aggCacheGroups bounds the clean groups a HashAgg keeps between epochs
// (a variable for tests).
var aggCacheGroups = 1 << 16

// flushGroup emits g's change and stages its state.
func (h *HashAgg) flushGroup(g *aggGroup) error {
	if g.rowCount < 0 {
		return fmt.Errorf("stream: hash agg: group %v has %d rows: more deletes than inserts", g.key, g.rowCount)
	}
	for i := range g.states {
		if err := g.states[i].foldPending(); err != nil {
			return wrapAggErr(h.l.calls[i].Kind.String(), err)
		}
	}
	if err := h.refreshExtremes(g); err != nil {
		return err
	}
	if g.rowCount == 0 && !h.global && !h.fixedKeys[g.mapKey] {
		if g.prevOut != nil {
			h.out.add(chunk.Delete, g.prevOut)
		}
		stored := g.stored
		g.prevOut, g.stored = nil, false
		if stored {
			return wrapAggErr("delete group", h.l.result.Delete(h.sc.Batch(), h.stateRow(g)))
		}
		return nil
	}
	cur, err := h.outputRow(g)
	if err != nil {
		return err
	}
	switch {
	case h.eowc:
		cur = nil // emitted when the group closes (closeGroups)
	case g.prevOut == nil:
		h.out.add(chunk.Insert, cur)
	case !datumsIdentical(g.prevOut, cur):
		h.out.addUpdate(g.prevOut, cur)
	}
	g.prevOut, g.stored = cur, true
	if h.seen != nil {
		h.seen.add(maphash.String(h.seed, g.mapKey))
	}
	return wrapAggErr("write group", h.l.result.Insert(h.sc.Batch(), h.stateRow(g)))
}

// writeListInput adds or deletes row in the list input table of call c
// (unless its FILTER rejects the row) and marks the call's value stale.
func (h *HashAgg) writeListInput(c *aggCallLayout, st *aggState, key, row []types.Datum, sign int64) error {
	if c.Filtered && row[c.FilterCol] != true {
		return nil
	}
	t := h.l.lists[c.list]
	r := append(make([]types.Datum, 0, len(t.Types)), key...)
	for _, p := range h.spec.InputPK {
		r = append(r, row[p])
	}
	r = append(r, row[c.Arg])
	for _, o := range c.Order {
		r = append(r, row[o.Col])
	}
	var err error
	if sign > 0 {
		err = t.Insert(h.sc.Batch(), r)
	} else {
		err = t.Delete(h.sc.Batch(), r)
	}
	st.stale = true
	return wrapAggErr("write list input", err)
}

// refreshList recomputes the value of list call c for group key from
// its list input table.
func (h *HashAgg) refreshList(c *aggCallLayout, key []types.Datum) (types.Datum, error) {
	val := len(key) + len(h.spec.InputPK)
	it := h.l.lists[c.list].ScanPrefix(h.sc.Batch(), h.l.keyPK(key), false)
	var items []expr.ListItem
	for it.Next() {
		row := it.Row()
		items = append(items, expr.ListItem{Value: row[val], Keys: slices.Clone(row[val+1:])})
	}
	err := it.Err()
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, wrapAggErr("scan list input", err)
	}
	if c.Kind.IsObjectAgg() {
		return expr.ObjectAgg(c.Kind, items, c.order, c.Distinct)
	}
	return expr.ListAgg(c.Kind, items, c.order, c.Distinct, c.Sep, c.argType)
}

// refreshExtremes recomputes each stale min/max of g from its input table
// (the first row of the group's prefix, the last one for max), and each
// stale string_agg or array_agg from its list.
func (h *HashAgg) refreshExtremes(g *aggGroup) error {
	for i := range h.l.calls {
		c := &h.l.calls[i]
		if !g.states[i].stale {
			continue
		}
		if c.list >= 0 {
			v, err := h.refreshList(c, g.key)
			if err != nil {
				return err
			}
			g.states[i] = aggState{ext: v}
			continue
		}
		if c.minMax < 0 {
			continue
		}
		v, err := h.scanExtreme(h.l.minMax[c.minMax], h.l.keyPK(g.key), c.Kind == expr.AggMax)
		if err != nil {
			return err
		}
		g.states[i] = aggState{ext: v}
	}
	return nil
}

// scanExtreme reads the least (greatest, with max) value of min/max
// input table t in the group whose key (in keyPK order) is key.
func (h *HashAgg) scanExtreme(t *storage.Table, key []types.Datum, max bool) (types.Datum, error) {
	it := t.ScanPrefix(h.sc.Batch(), key, max)
	var v types.Datum
	if it.Next() {
		v = it.Row()[len(key)]
	}
	err := it.Err()
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	return v, wrapAggErr("scan min/max input", err)
}

// outputRow is g's output row: group key then aggregate results.
func (h *HashAgg) outputRow(g *aggGroup) ([]types.Datum, error) {
	row := append(make([]types.Datum, 0, len(g.key)+len(h.l.calls)), g.key...)
	for i := range h.l.calls {
		v, err := h.l.calls[i].result(&g.states[i])
		if err != nil {
			return nil, fmt.Errorf("stream: hash agg: %w", err)
		}
		row = append(row, v)
	}
	return row, nil
}

// stateRow is g's result-table row.
func (h *HashAgg) stateRow(g *aggGroup) []types.Datum {
	row := append(make([]types.Datum, 0, len(h.l.result.Types)), g.key...)
	row = append(row, g.rowCount)
	for i := range h.l.calls {
		row = h.l.calls[i].appendState(row, &g.states[i])
	}
	for i := range h.l.calls {
		row = h.l.calls[i].appendTail(row, &g.states[i])
	}
	for i := range h.l.calls {
		row = h.l.calls[i].appendSpecial(row, &g.states[i])
	}
	return row
}

// datumsIdentical reports whether two rows would be output identically:
// the test for "this aggregate result did not change". Unlike SQL equality
// it tells 1.0 from 1.00, and NULL is identical to NULL.
func datumsIdentical(a, b []types.Datum) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !datumIdentical(a[i], b[i]) {
			return false
		}
	}
	return true
}

func datumIdentical(a, b types.Datum) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case *apd.Decimal:
		y, ok := b.(*apd.Decimal)
		return ok && x.String() == y.String()
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y) || ok && math.IsNaN(x) && math.IsNaN(y)
	}
	return a == b
}

// closeGroups closes the groups the watermark of ws passed
// (AggSpec.Watermark), once the epoch's changes are staged: it drops
// their state, from every state table, in the epoch's batch, and under
// EMIT ON WINDOW CLOSE emits their rows. No row still to come can reach
// them, so a view over an unbounded stream keeps bounded state. The
// emission and the deletion commit together, so a group is emitted once
// across restarts and recoveries (I7).
func (h *HashAgg) closeGroups(ws []Watermark) error {
	spec := h.spec.Watermark
	if spec == nil || len(ws) == 0 {
		return nil
	}
	keyType := h.l.groupTypes[spec.Key]
	bound, ok := h.closer.next(ws, spec.Table, spec.Bounds, keyType)
	if !ok {
		return nil
	}
	kr := h.closer.keyRange(bound)
	b := h.sc.Batch()
	if h.eowc {
		rows, err := closedRows(h.l.result, b, h.owned, kr)
		if err != nil {
			return err
		}
		n := len(h.l.groupTypes)
		for _, row := range rows {
			g := &aggGroup{key: row[:n:n], states: make([]aggState, len(h.l.calls))}
			for i := range h.l.calls {
				if g.states[i], err = h.l.calls[i].decodeState(row); err != nil {
					return err
				}
			}
			out, err := h.outputRow(g)
			if err != nil {
				return err
			}
			h.out.add(chunk.Insert, out)
		}
	}
	// The closed groups' state, in every table, is one key range of
	// each vnode: deleted without reading it.
	for _, t := range h.l.tables() {
		if err := t.DeleteRangeIn(b, kr, h.owned); err != nil {
			return wrapAggErr("drop closed groups", err)
		}
	}
	for k, g := range h.cache {
		if v := g.key[spec.Key]; v != nil && expr.Compare(v, bound, keyType) < 0 {
			delete(h.cache, k)
		}
	}
	h.closer.done(bound, false)
	return nil
}
