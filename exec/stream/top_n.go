package stream

import (
	"context"
	"fmt"
	"slices"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/internal/window"
	"github.com/streamdb/streamdb/storage"
)

// TopNKind says which rows of a group a TopN keeps.
type TopNKind uint8

// TopN kinds.
const (
	// TopRowNumber keeps the rows numbered Offset+1..Offset+Limit in the
	// group's order (peers in stream key order): ORDER BY ... LIMIT and
	// row_number() <= n.
	TopRowNumber TopNKind = iota
	// TopRank keeps the rows whose rank is at most Limit (peers of the
	// last such row included): rank() <= n.
	TopRank
	// TopDenseRank keeps the rows of the first Limit peer groups:
	// dense_rank() <= n.
	TopDenseRank
)

// TopNSpec is what a TopN keeps: per group of the GroupBy columns, the top
// rows in Order.
type TopNSpec struct {
	GroupBy []int
	Order   []window.SortKey
	InTypes []types.Type
	InputPK []int
	Kind    TopNKind
	// Limit and Offset count rows for TopRowNumber; Limit counts ranks
	// for the others, which have no Offset.
	Limit, Offset int64
	// RankCol: each output row carries its row number, rank or dense
	// rank (the window function the TopN replaces) in a last column.
	RankCol bool
	// Watermark, when not nil, closes the groups whose first GroupBy
	// column it passed: their rows are deleted from the state.
	Watermark *KeyWatermark
	// AppendOnly says every input row is an insert (planner-proven, as
	// AggSpec.AppendOnly). Nothing then ever leaves a group's top, so a
	// row that falls out of it, or arrives past it, can never come back:
	// the state keeps only the rows within the limit (with OFFSET, the
	// skipped rows too; with ranks, the last rank's peers), not the
	// whole group. A delete fails the TopN.
	AppendOnly bool
}

// TopN maintains the top rows of each group (a view's ORDER BY ... LIMIT,
// or a filter on row_number(), rank() or dense_rank() over a window).
//
// Its state table holds every row of each group in the group's order (the
// group columns, the order-preserving encoding of the ORDER BY values
// that OverWindow uses, the row). It remembers, for a bounded number of
// groups, the top rows it last emitted. At a barrier, for each group that
// changed: if every change lies past the last of its top rows (and is no
// peer of it), the changes only go to the state; otherwise it applies them,
// reads the group's new top rows (a prefix of the group: as many rows as
// the limit, and their peers for the rank kinds) and emits the difference
// from the old ones. A change deep in a large group costs one write.
//
// Nothing it keeps in memory outlives the executor, and what it keeps is
// what the committed state gives (I6).
type TopN struct {
	in      Executor
	sc      *StateContext
	spec    TopNSpec
	table   *storage.Table
	types   []types.Type
	out     *outQueue
	order   *window.Spec // to tell peers apart
	ng      int
	changes changeSet
	cache   map[string][]topRow // by group: the top rows last emitted
	// owned are the vnodes the actor owns (SetOwned); closed: the bound
	// below which every group was closed (spec.Watermark; nil: none yet).
	owned  []uint16
	closer closer
}

// SetOwned tells t the vnodes its actor owns, whose closed groups it
// deletes (TopNSpec.Watermark).
func (t *TopN) SetOwned(owned storage.VnodeBitmap) { t.owned = owned.Vnodes() }

// closeGroups deletes, once the epoch's changes are staged, the rows of
// the groups the watermark of ws passed (TopNSpec.Watermark): their top
// rows stay downstream, and nothing can change them any more.
func (t *TopN) closeGroups(ws []Watermark) error {
	spec := t.spec.Watermark
	if spec == nil {
		return nil
	}
	keyType := t.table.Types[0]
	bound, ok := t.closer.next(ws, spec.Table, spec.Bounds, keyType)
	if !ok {
		return nil
	}
	if err := t.table.DeleteRangeIn(t.sc.Batch(), t.closer.keyRange(bound), t.owned); err != nil {
		return err
	}
	for k, rows := range t.cache {
		if len(rows) == 0 || rows[0].state[0] != nil && expr.Compare(rows[0].state[0], bound, keyType) < 0 {
			delete(t.cache, k)
		}
	}
	t.closer.done(bound, false)
	return nil
}

// topRow is one of a group's top rows: its state row and its rank value.
type topRow struct {
	state []types.Datum
	rank  int64
}

// topNCacheGroups bounds the groups whose top rows a TopN remembers.
var topNCacheGroups = 1 << 14

// NewTopN returns the top rows of in per spec; tableID is its state
// table's.
func NewTopN(in Executor, sc *StateContext, spec TopNSpec, tableID uint32) (*TopN, error) {
	inTypes := in.Types()
	if len(inTypes) != len(spec.InTypes) {
		return nil, fmt.Errorf("stream: top n: %d input columns, expected %d", len(inTypes), len(spec.InTypes))
	}
	if spec.Limit <= 0 {
		return nil, fmt.Errorf("stream: top n: limit %d", spec.Limit)
	}
	if spec.Watermark != nil && (len(spec.GroupBy) == 0 || len(spec.Watermark.Bounds) == 0) {
		return nil, fmt.Errorf("stream: top n: a watermark without a group column")
	}
	t := &TopN{in: in, sc: sc, spec: spec, ng: len(spec.GroupBy),
		cache: map[string][]topRow{}, order: &window.Spec{Order: spec.Order, InTypes: inTypes}}
	t.types = slices.Clone(inTypes)
	if spec.RankCol {
		t.types = append(t.types, types.TInt64)
	}
	var ts []types.Type
	var pk, dist []int
	for i, c := range spec.GroupBy {
		ts = append(ts, inTypes[c])
		pk, dist = append(pk, i), append(dist, i)
	}
	pk = append(pk, len(ts))
	ts = append(ts, types.TText)
	base := len(ts)
	ts = append(ts, inTypes...)
	for _, c := range spec.InputPK {
		pk = append(pk, base+c)
	}
	t.table = &storage.Table{ID: tableID, Types: ts, PK: pk, DistKey: dist}
	t.out = newOutQueue(t.types)
	return t, nil
}

// Types implements Executor.
func (t *TopN) Types() []types.Type { return t.types }

// Next implements Executor.
func (t *TopN) Next(ctx context.Context) (Message, error) {
	for {
		if m, ok := t.out.pop(); ok {
			return m, nil
		}
		msg, err := t.in.Next(ctx)
		if err != nil {
			return Message{}, err
		}
		if msg.Barrier != nil {
			if err := t.endEpoch(); err != nil {
				return Message{}, fmt.Errorf("stream: top n: %w", err)
			}
			if err := t.closeGroups(msg.Watermarks); err != nil {
				return Message{}, fmt.Errorf("stream: top n: %w", err)
			}
			t.out.barrierMsg(msg)
			continue
		}
		err = t.changes.note(msg.Chunk, t.spec.GroupBy, t.spec.InputPK)
		msg.Chunk.Release()
		if err != nil {
			return Message{}, fmt.Errorf("stream: top n: %w", err)
		}
	}
}

func (t *TopN) sortKey(row []types.Datum) (string, error) {
	return sortKey(t.spec.Order, t.spec.InTypes, row)
}

func (t *TopN) stateRow(group []types.Datum, sk string, in []types.Datum) []types.Datum {
	r := make([]types.Datum, 0, len(t.table.Types))
	r = append(append(append(r, group...), sk), in...)
	return r
}

func (t *TopN) stateInput(r []types.Datum) []types.Datum { return r[t.ng+1:] }

func (t *TopN) endEpoch() error {
	for _, p := range t.changes.list {
		if err := t.flushGroup(p); err != nil {
			return err
		}
	}
	t.changes.reset()
	if len(t.cache) > topNCacheGroups {
		n := len(t.cache) / 4
		for k := range t.cache {
			if n == 0 {
				break
			}
			delete(t.cache, k)
			n--
		}
	}
	return nil
}

// flushGroup applies a group's changes to the state and emits how its
// top rows changed.
func (t *TopN) flushGroup(p *owPartition) error {
	batch := t.sc.Batch()
	gk := p.mapKey
	old, cached := t.cache[gk]
	if !cached {
		var err error
		if old, _, err = t.readTop(p.key, false); err != nil {
			return err
		}
	}
	if t.spec.AppendOnly {
		return t.flushAppendOnly(p, old)
	}
	// past: every change lies past the old top rows, which hold as many
	// rows (or ranks) as the limit asks for, so none of them enters.
	past := len(old) > 0 && t.topFull(old)
	var lastKey []byte
	if past {
		k, err := t.table.Key(old[len(old)-1].state)
		if err != nil {
			return err
		}
		lastKey = k
	}
	lastSK := ""
	if len(old) > 0 {
		lastSK = stateSortKey(old[len(old)-1].state, t.ng)
	}
	apply := func(row []types.Datum, insert bool) error {
		sk, err := t.sortKey(row)
		if err != nil {
			return err
		}
		sr := t.stateRow(p.key, sk, row)
		if past {
			k, err := t.table.Key(sr)
			if err != nil {
				return err
			}
			if string(k) <= string(lastKey) || sk == lastSK {
				past = false
			}
		}
		if insert {
			return t.table.Insert(batch, sr)
		}
		return t.table.Delete(batch, sr)
	}
	for _, ch := range p.list {
		if ch.old != nil {
			if err := apply(ch.old, false); err != nil {
				return err
			}
		}
	}
	for _, ch := range p.list {
		if ch.new != nil {
			if err := apply(ch.new, true); err != nil {
				return err
			}
		}
	}
	if past {
		t.cache[gk] = old
		return nil
	}
	now, _, err := t.readTop(p.key, false)
	if err != nil {
		return err
	}
	t.emitNow(gk, old, now)
	return nil
}

// emitNow emits the change of group gk's top rows from old to now and
// remembers now.
func (t *TopN) emitNow(gk string, old, now []topRow) {
	t.emitDiff(old, now)
	if len(now) == 0 {
		delete(t.cache, gk)
	} else {
		t.cache[gk] = now
	}
}

// flushAppendOnly is flushGroup over an insert-only input
// (TopNSpec.AppendOnly). When the group's top is full, an insert past its
// last row (and no peer of it) cannot enter, now or ever, and is not
// written at all; otherwise the inserts are written, the new top read,
// and the rows the top no longer reaches (pushed out by the inserts, or
// inserted past it) deleted, so the state holds the top and no more.
func (t *TopN) flushAppendOnly(p *owPartition, old []topRow) error {
	batch := t.sc.Batch()
	var lastKey []byte
	var lastSK string
	full := len(old) > 0 && t.topFull(old)
	if full {
		k, err := t.table.Key(old[len(old)-1].state)
		if err != nil {
			return err
		}
		lastKey, lastSK = k, stateSortKey(old[len(old)-1].state, t.ng)
	}
	entered := false
	for _, ch := range p.list {
		if ch.old != nil {
			return errAppendOnlyDelete
		}
		sk, err := t.sortKey(ch.new)
		if err != nil {
			return err
		}
		sr := t.stateRow(p.key, sk, ch.new)
		if full {
			k, err := t.table.Key(sr)
			if err != nil {
				return err
			}
			if string(k) > string(lastKey) && sk != lastSK {
				continue // past a full top
			}
		}
		if err := t.table.Insert(batch, sr); err != nil {
			return err
		}
		entered = true
	}
	if !entered {
		t.cache[p.mapKey] = old
		return nil
	}
	now, beyond, err := t.readTop(p.key, true)
	if err != nil {
		return err
	}
	for _, r := range beyond {
		if err := t.table.Delete(batch, r); err != nil {
			return err
		}
	}
	t.emitNow(p.mapKey, old, now)
	return nil
}

// topFull reports whether a group's top rows reach the limit: then a row
// that comes after the last of them (and is no peer of it) stays out.
func (t *TopN) topFull(top []topRow) bool {
	switch t.spec.Kind {
	case TopRowNumber:
		return int64(len(top)) >= t.spec.Limit
	default:
		return top[len(top)-1].rank >= t.spec.Limit
	}
}

// readTop reads a group's top rows from the state; with beyond, it also
// returns the state rows past them, which the top can no longer reach
// (for the rank kinds, from the first row ranked past the limit).
func (t *TopN) readTop(group []types.Datum, beyond bool) (top []topRow, past [][]types.Datum, err error) {
	it := t.table.ScanPrefix(t.sc.Batch(), group, false)
	var n, dense int64 // rows read, peer groups seen
	var prev []types.Datum
	var rank int64
	stopped := false
	for it.Next() {
		row := slices.Clone(it.Row())
		if stopped {
			past = append(past, row)
			continue
		}
		in := t.stateInput(row)
		n++
		if prev == nil || !t.order.Peers(prev, in) {
			dense++
			rank = n
		}
		prev = in
		var keep, stop bool
		switch t.spec.Kind {
		case TopRowNumber:
			keep = n > t.spec.Offset
			stop = n >= t.spec.Offset+t.spec.Limit
		case TopRank:
			keep, stop = rank <= t.spec.Limit, rank > t.spec.Limit
		case TopDenseRank:
			keep, stop = dense <= t.spec.Limit, dense > t.spec.Limit
		}
		if keep {
			v := n
			switch t.spec.Kind {
			case TopRank:
				v = rank
			case TopDenseRank:
				v = dense
			}
			top = append(top, topRow{state: row, rank: v})
		}
		if stop {
			if !beyond {
				break
			}
			stopped = true
			if !keep {
				past = append(past, row) // ranked past the limit itself
			}
		}
	}
	return top, past, closeIter(it)
}

// emitDiff emits the change from a group's old top rows to its new ones.
func (t *TopN) emitDiff(old, now []topRow) {
	key := func(r topRow) string {
		var b []byte
		in := t.stateInput(r.state)
		for _, c := range t.spec.InputPK {
			b = storage.AppendDatumKeyOf(b, t.spec.InTypes[c], in[c])
		}
		return string(b)
	}
	outRow := func(r topRow) []types.Datum {
		o := slices.Clone(t.stateInput(r.state))
		if t.spec.RankCol {
			o = append(o, r.rank)
		}
		return o
	}
	nowByKey := make(map[string][]types.Datum, len(now))
	for _, r := range now {
		nowByKey[key(r)] = outRow(r)
	}
	oldByKey := make(map[string]bool, len(old))
	for _, r := range old {
		k := key(r)
		oldByKey[k] = true
		o := outRow(r)
		n, ok := nowByKey[k]
		switch {
		case !ok:
			t.out.add(chunk.Delete, o)
		case !datumsIdentical(o, n):
			t.out.addUpdate(o, n)
		}
	}
	for _, r := range now {
		if k := key(r); !oldByKey[k] {
			t.out.add(chunk.Insert, nowByKey[k])
		}
	}
}
