package stream

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/internal/window"
	"github.com/streamdb/streamdb/storage"
)

// OverWindowSpec is what an OverWindow computes: the window functions of
// Window over rows whose stream key is InputPK.
type OverWindowSpec struct {
	Window  *window.Spec
	InputPK []int
}

// OverWindow maintains window functions: its output is each input row
// followed by its results, keyed by the input's stream key.
//
// Its state table keeps every row of each partition in window order (the
// partition's columns, an order-preserving encoding of the ORDER BY
// values, the input row), with the results it last emitted for the row
// and the row's number and dense rank (those two only when a rank
// function needs them to resume). During an epoch it only notes, per
// partition, which rows came and went. At the barrier it applies them to
// the state, then recomputes the part of each changed partition whose
// results a change can affect (window.Spec.Reach: to the partition's end
// for row_number or a running sum, a few rows around the change for lag,
// lead or a sliding frame), reading just that part, the context it
// needs, and the stored results of the row before it, from which running
// results resume. It emits Insert and Delete for the rows that came and
// went and an update for each other row whose results changed, so a
// change near the end of a large partition costs what it touches.
//
// It keeps nothing in memory across barriers, so an executor rebuilt over
// committed state (restart, recovery, rescale) continues exactly (I6).
type OverWindow struct {
	in    Executor
	sc    *StateContext
	spec  OverWindowSpec
	w     *window.Spec
	table *storage.Table
	types []types.Type
	out   *outQueue
	reach window.Reach
	// ranks: the rows' numbers and dense ranks are kept (a rank function
	// resumes from them).
	ranks   bool
	np, nin int // partition columns, input columns
	nf      int // functions
	changes changeSet
}

// changeSet collects an epoch's changes by partition (or group).
type changeSet struct {
	parts map[string]*owPartition // by the partition's key encoding
	list  []*owPartition          // in first-change order
	row   []types.Datum
	buf   []byte
}

// owPartition is a partition changed this epoch.
type owPartition struct {
	mapKey  string
	key     []types.Datum
	changes map[string]*owChange // by the row's stream key
	list    []*owChange          // in first-change order
}

// owChange is the net change of one row in an epoch: old is the row as
// the state held it (nil if it did not), new the row as it is now (nil if
// deleted).
type owChange struct {
	old, new []types.Datum
}

// NewOverWindow returns the window functions of spec over in; tableID is
// its state table's.
func NewOverWindow(in Executor, sc *StateContext, spec OverWindowSpec, tableID uint32) (*OverWindow, error) {
	w := spec.Window
	inTypes := in.Types()
	if len(inTypes) != len(w.InTypes) {
		return nil, fmt.Errorf("stream: over window: %d input columns, expected %d", len(inTypes), len(w.InTypes))
	}
	o := &OverWindow{in: in, sc: sc, spec: spec, w: w, reach: w.Reach(),
		np: len(w.Partition), nin: len(inTypes), nf: len(w.Funcs)}
	for _, f := range w.Funcs {
		switch f.Kind {
		case window.RowNumber, window.Rank, window.DenseRank:
			o.ranks = true
		}
	}
	o.types = slices.Clone(inTypes)
	for _, f := range w.Funcs {
		o.types = append(o.types, f.Type)
	}
	// State rows: partition columns, sort key, input row, results, row
	// number, dense rank.
	var ts []types.Type
	var pk, dist []int
	for i, c := range w.Partition {
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
	for _, f := range w.Funcs {
		ts = append(ts, f.Type)
	}
	ts = append(ts, types.TInt64, types.TInt64)
	o.table = &storage.Table{ID: tableID, Types: ts, PK: pk, DistKey: dist}
	o.out = newOutQueue(o.types)
	return o, nil
}

// Types implements Executor.
func (o *OverWindow) Types() []types.Type { return o.types }

// Next implements Executor.
func (o *OverWindow) Next(ctx context.Context) (Message, error) {
	for {
		if m, ok := o.out.pop(); ok {
			return m, nil
		}
		msg, err := o.in.Next(ctx)
		if err != nil {
			return Message{}, err
		}
		if msg.Barrier != nil {
			if err := o.endEpoch(); err != nil {
				return Message{}, err
			}
			o.out.barrierMsg(msg)
			continue
		}
		err = o.changes.note(msg.Chunk, o.w.Partition, o.spec.InputPK)
		msg.Chunk.Release()
		if err != nil {
			return Message{}, fmt.Errorf("stream: over window: %w", err)
		}
	}
}

// note records a chunk's rows as changes of their partitions (the
// values of the partition columns), each row known by its stream key pk.
func (cs *changeSet) note(c *chunk.Chunk, partition, pk []int) error {
	if cs.parts == nil {
		cs.parts = map[string]*owPartition{}
	}
	for i := 0; i < c.NumRows(); i++ {
		row := cloneRow(c.Row(i, cs.row))
		cs.buf = cs.buf[:0]
		for _, p := range partition {
			cs.buf = storage.AppendDatumKeyOf(cs.buf, c.Types[p], row[p])
		}
		part := cs.parts[string(cs.buf)]
		if part == nil {
			part = &owPartition{mapKey: string(cs.buf), changes: map[string]*owChange{}}
			for _, p := range partition {
				part.key = append(part.key, row[p])
			}
			cs.parts[part.mapKey] = part
			cs.list = append(cs.list, part)
		}
		cs.buf = cs.buf[:0]
		for _, k := range pk {
			cs.buf = storage.AppendDatumKeyOf(cs.buf, c.Types[k], row[k])
		}
		ch := part.changes[string(cs.buf)]
		if ch == nil {
			ch = &owChange{}
			part.changes[string(cs.buf)] = ch
			part.list = append(part.list, ch)
		}
		if c.Op(i).IsInsert() {
			if ch.new != nil {
				return fmt.Errorf("row %v inserted twice", row)
			}
			ch.new = row
			continue
		}
		switch {
		case ch.new != nil:
			ch.new = nil
		case ch.old == nil:
			ch.old = row
		default:
			return fmt.Errorf("row %v deleted twice", row)
		}
	}
	return nil
}

// reset forgets the epoch's changes.
func (cs *changeSet) reset() {
	clear(cs.parts)
	cs.list = cs.list[:0]
}

func cloneRow(row []types.Datum) []types.Datum {
	out := make([]types.Datum, len(row))
	for i, v := range row {
		if s, ok := v.(string); ok {
			v = strings.Clone(s)
		}
		out[i] = v
	}
	return out
}

// sortKey encodes row's ORDER BY values so that byte order is window
// order: per key a NULL marker placed first or last, then the value's
// key encoding, inverted for DESC.
func (o *OverWindow) sortKey(row []types.Datum) (string, error) {
	return sortKey(o.w.Order, o.w.InTypes, row)
}

// sortKey is OverWindow.sortKey for the given order over rows of types ts.
func sortKey(order []window.SortKey, ts []types.Type, row []types.Datum) (string, error) {
	var b []byte
	for _, k := range order {
		v := row[k.Col]
		if v == nil {
			if k.NullsFirst {
				b = append(b, 0)
			} else {
				b = append(b, 2)
			}
			continue
		}
		b = append(b, 1)
		n := len(b)
		var err error
		if b, err = storage.AppendKey(b, ts[k.Col], v); err != nil {
			return "", err
		}
		if k.Desc {
			for i := n; i < len(b); i++ {
				b[i] = ^b[i]
			}
		}
	}
	return string(b), nil
}

// freshMark, in a state row's row number, marks a row inserted in this
// epoch whose results are not computed yet (a real row number is at
// least 1).
const freshMark = int64(-1)

// stateRow is the state row of input row in with results res (nil: not
// computed yet, marked fresh).
func (o *OverWindow) stateRow(part []types.Datum, sk string, in, res []types.Datum) []types.Datum {
	r := make([]types.Datum, 0, len(o.table.Types))
	r = append(r, part...)
	r = append(r, sk)
	r = append(r, in...)
	if res == nil {
		r = append(r, make([]types.Datum, o.nf+window.BaseCols)...)
		r[len(r)-2] = freshMark
		return r
	}
	r = append(r, res...)
	if !o.ranks {
		r[len(r)-2], r[len(r)-1] = nil, nil
	}
	return r
}

// statePK is the state pk of input row in.
func (o *OverWindow) statePK(part []types.Datum, sk string, in []types.Datum) []types.Datum {
	r := append(slices.Clone(part), sk)
	for _, k := range o.spec.InputPK {
		r = append(r, in[k])
	}
	return r
}

// stateInput, stateResults and stateSortKey take a state row apart.
func (o *OverWindow) stateInput(r []types.Datum) []types.Datum {
	return r[o.np+1 : o.np+1+o.nin]
}
func (o *OverWindow) stateResults(r []types.Datum) []types.Datum { return r[o.np+1+o.nin:] }
func (o *OverWindow) stateSortKey(r []types.Datum) string        { return stateSortKey(r, o.np) }

// stateSortKey is the sort key of a state row whose first np columns are
// the partition's.
func stateSortKey(r []types.Datum, np int) string { s, _ := r[np].(string); return s }

func (o *OverWindow) endEpoch() error {
	for _, p := range o.changes.list {
		if err := o.flushPartition(p); err != nil {
			return fmt.Errorf("stream: over window: %w", err)
		}
	}
	o.changes.reset()
	return nil
}

// flushPartition applies a partition's changes to the state and emits
// what they change.
func (o *OverWindow) flushPartition(p *owPartition) error {
	batch := o.sc.Batch()
	lo, hi := "", ""
	first := true
	span := func(sk string) {
		if first || sk < lo {
			lo = sk
		}
		if first || sk > hi {
			hi = sk
		}
		first = false
	}
	for _, ch := range p.list {
		if ch.old == nil {
			continue
		}
		sk, err := o.sortKey(ch.old)
		if err != nil {
			return err
		}
		pk := o.statePK(p.key, sk, ch.old)
		stored, ok, err := o.table.Get(batch, pk)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("deleted row %v is not in the state", ch.old)
		}
		res := o.stateResults(stored)
		o.out.add(chunk.Delete, append(slices.Clone(o.stateInput(stored)), res[:o.nf]...))
		if err := o.table.Delete(batch, stored); err != nil {
			return err
		}
		span(sk)
	}
	for _, ch := range p.list {
		if ch.new == nil {
			continue
		}
		sk, err := o.sortKey(ch.new)
		if err != nil {
			return err
		}
		if err := o.table.Insert(batch, o.stateRow(p.key, sk, ch.new, nil)); err != nil {
			return err
		}
		span(sk)
	}
	if first {
		return nil // nothing changed
	}
	return o.recompute(p.key, lo, hi)
}

// recompute recomputes the rows of a partition that changes at sort keys
// lo..hi can affect, and emits their changes.
func (o *OverWindow) recompute(part []types.Datum, lo, hi string) error {
	batch := o.sc.Batch()
	r := o.reach
	var before [][]types.Datum // region rows before lo, nearest first
	var ctx [][]types.Datum    // context rows before those, nearest first
	atStart := r.Before == window.ReachAll
	from := append(slices.Clone(part), lo)
	if atStart {
		from = slices.Clone(part)
	} else {
		it := o.table.ScanPrefixFrom(batch, part, from, true)
		need := max(r.CtxBefore, 1) // the row before the region is the base
		for {
			if !it.Next() {
				atStart = true
				break
			}
			row := slices.Clone(it.Row())
			n := int64(len(before))
			if len(ctx) == 0 && (n < r.Before || n > 0 && o.stateSortKey(row) == o.stateSortKey(before[n-1])) {
				before = append(before, row)
				continue
			}
			ctx = append(ctx, row)
			if int64(len(ctx)) >= need {
				break
			}
		}
		if err := closeIter(it); err != nil {
			return err
		}
	}
	var region, after [][]types.Datum
	atEnd := false
	it := o.table.ScanPrefixFrom(batch, part, from, false)
	var extra int64 // region rows past hi
	for {
		if !it.Next() {
			atEnd = true
			break
		}
		row := slices.Clone(it.Row())
		sk := o.stateSortKey(row)
		if len(after) == 0 {
			n := len(region)
			switch {
			case sk <= hi:
				region = append(region, row)
				continue
			case r.After == window.ReachAll || extra < r.After || n > 0 && sk == o.stateSortKey(region[n-1]):
				region = append(region, row)
				extra++
				continue
			}
		}
		if int64(len(after)) >= r.CtxAfter {
			break
		}
		after = append(after, row)
	}
	if err := closeIter(it); err != nil {
		return err
	}
	rows := make([][]types.Datum, 0, len(ctx)+len(before)+len(region)+len(after))
	for i := len(ctx) - 1; i >= 0; i-- {
		rows = append(rows, ctx[i])
	}
	for i := len(before) - 1; i >= 0; i-- {
		rows = append(rows, before[i])
	}
	rows = append(rows, region...)
	rows = append(rows, after...)
	in := window.Input{Rows: make([][]types.Datum, len(rows)), From: len(ctx), To: len(ctx) + len(before) + len(region),
		AtStart: atStart, AtEnd: atEnd}
	for i, row := range rows {
		in.Rows[i] = o.stateInput(row)
	}
	if !atStart && len(ctx) > 0 {
		in.Base = o.stateResults(ctx[0])
	}
	res, err := o.w.Eval(in)
	if err != nil {
		return err
	}
	for i := in.From; i < in.To; i++ {
		row := rows[i]
		now := res[i-in.From]
		if !o.ranks {
			now[o.nf], now[o.nf+1] = nil, nil
		}
		input := o.stateInput(row)
		prev := o.stateResults(row)
		switch {
		case prev[o.nf] == freshMark:
			o.out.add(chunk.Insert, append(slices.Clone(input), now[:o.nf]...))
		case datumsIdentical(prev, now):
			continue
		case !datumsIdentical(prev[:o.nf], now[:o.nf]):
			o.out.addUpdate(append(slices.Clone(input), prev[:o.nf]...), append(slices.Clone(input), now[:o.nf]...))
		}
		if err := o.table.Insert(o.sc.Batch(), o.stateRow(part, o.stateSortKey(row), input, now)); err != nil {
			return err
		}
	}
	return nil
}
