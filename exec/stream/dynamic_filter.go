package stream

import (
	"context"
	"fmt"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/failpoint"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// DynamicFilterSpec is a filter Left Op threshold, where the threshold is
// Right over the one row of another input (a scalar subquery: WHERE
// price > (SELECT avg(price) FROM bids)).
type DynamicFilterSpec struct {
	InTypes []types.Type
	InputPK []int
	// Left is over the input row; Right over the threshold input's row.
	// Both are of type Type.
	Left, Right expr.Expr
	Type        types.Type
	// Op is one of <, <=, >, >=.
	Op string
	// Temporal makes it a temporal filter (WHERE ts > now() - INTERVAL
	// '1 hour'): there is no threshold input, and Right is over a row of
	// one timestamptz, the Time of each barrier, which moves the
	// threshold before the barrier passes. It implies Monotonic.
	Temporal bool
	// Monotonic says the threshold, once set, never goes down (a temporal
	// filter's: now() only moves on). The state then keeps only the rows
	// whose fate may still change (see mayChange), and the filter never
	// moves the threshold down.
	Monotonic bool
}

// DynamicFilter passes the rows of its input for which Left Op threshold
// holds, where the threshold is the value of its other input's single row
// (none: NULL, which no row passes), and keeps doing so as both change.
//
// Its state holds every input row under the order-preserving encoding of
// its Left value (NULL first, which never passes), and the threshold. A
// row passes or not against the current threshold as it comes. When the
// threshold moves, only the rows between the old and the new one change
// their fate: they are read, in order, and emitted as inserted or
// deleted; a move of a threshold over a million rows by a little costs
// the few rows it crosses, not a million. Threshold changes are applied
// as a whole before the next input chunk or barrier, so a Delete and an
// Insert of the threshold row in one epoch move it once.
//
// Both inputs are aligned (I1); the actor is the fragment's only one (its
// state is one vnode's). Nothing outlives a barrier in memory but the
// threshold, which the state holds too (I6).
type DynamicFilter struct {
	align *Align
	sc    *StateContext
	spec  DynamicFilterSpec
	rows  *storage.Table // sort key, input row
	thr   *storage.Table // 0, threshold
	out   *outQueue

	started bool
	// The threshold: set says a threshold row exists; val is its value
	// and key its sort key (when val is not NULL).
	set bool
	val types.Datum
	key string
	// pending is the threshold input's net change since it was last
	// applied.
	pending    bool
	pendingSet bool
	pendingVal types.Datum
	row        []types.Datum
}

// NewDynamicFilter returns the filter of left by the threshold that right
// gives; tableIDs are its two state tables' (rows, threshold).
func NewDynamicFilter(left, right []*Receiver, sc *StateContext, spec DynamicFilterSpec, tableIDs []uint32) (*DynamicFilter, error) {
	switch spec.Op {
	case "<", "<=", ">", ">=":
	default:
		return nil, fmt.Errorf("stream: dynamic filter: operator %q", spec.Op)
	}
	if len(tableIDs) != 2 {
		return nil, fmt.Errorf("stream: dynamic filter needs 2 state tables, got %d", len(tableIDs))
	}
	if spec.Temporal {
		if len(right) > 0 {
			return nil, fmt.Errorf("stream: a temporal filter takes no threshold input")
		}
		spec.Monotonic = true
	}
	d := &DynamicFilter{align: NewAlignInputs(left, right), sc: sc, spec: spec}
	ts := append([]types.Type{types.TText}, spec.InTypes...)
	pk := []int{0}
	for _, c := range spec.InputPK {
		pk = append(pk, 1+c)
	}
	d.rows = &storage.Table{ID: tableIDs[0], Types: ts, PK: pk, DistKey: []int{}}
	d.thr = &storage.Table{ID: tableIDs[1], Types: []types.Type{types.TInt64, spec.Type}, PK: []int{0}, DistKey: []int{}}
	d.out = newOutQueue(spec.InTypes)
	return d, nil
}

// Types implements Executor.
func (d *DynamicFilter) Types() []types.Type { return d.spec.InTypes }

// StateTables returns the rows' and the threshold's state tables.
func (d *DynamicFilter) StateTables() []*storage.Table { return []*storage.Table{d.rows, d.thr} }

// Next implements Executor.
func (d *DynamicFilter) Next(ctx context.Context) (Message, error) {
	for {
		if m, ok := d.out.pop(); ok {
			return m, nil
		}
		side, msg, err := d.align.Next(ctx)
		if err != nil {
			return Message{}, err
		}
		if failpoint.Enabled {
			if err := hitMsg(failpoint.ExecHashJoinChunk, failpoint.ExecHashJoinBarrier, msg); err != nil {
				return Message{}, err
			}
		}
		if !d.started {
			if err := d.start(); err != nil {
				return Message{}, err
			}
		}
		if d.spec.Temporal && msg.Barrier != nil {
			if err := d.noteTime(msg.Barrier.Time); err != nil {
				return Message{}, err
			}
		}
		if msg.Barrier != nil || side == AlignLeft {
			if err := d.applyThreshold(); err != nil {
				return Message{}, err
			}
		}
		switch {
		case msg.Barrier != nil:
			d.out.barrier(msg.Barrier)
			continue
		case side == AlignLeft:
			err = d.applyRows(msg.Chunk)
		default:
			err = d.noteThreshold(msg.Chunk)
		}
		msg.Chunk.Release()
		if err != nil {
			return Message{}, fmt.Errorf("stream: dynamic filter: %w", err)
		}
		d.out.flush()
	}
}

// start loads the threshold from the state.
func (d *DynamicFilter) start() error {
	d.started = true
	it := d.thr.ScanPrefix(d.sc.Batch(), nil, false)
	for it.Next() {
		d.set, d.val = true, cloneRow(it.Row()[1:])[0]
	}
	if err := closeIter(it); err != nil {
		return fmt.Errorf("stream: dynamic filter: load threshold: %w", err)
	}
	return d.setKey()
}

func (d *DynamicFilter) setKey() error {
	d.key = ""
	if d.set && d.val != nil {
		k, err := d.sortKey(d.val)
		if err != nil {
			return err
		}
		d.key = k
	}
	return nil
}

// sortKey is the order-preserving encoding of a value (NULL: "\x00").
func (d *DynamicFilter) sortKey(v types.Datum) (string, error) {
	if v == nil {
		return "\x00", nil
	}
	b, err := storage.AppendKey([]byte{1}, d.spec.Type, v)
	return string(b), err
}

// passes reports whether a row whose Left value has sort key k passes
// under the threshold whose sort key is t ("" when there is none or it
// is NULL).
func (d *DynamicFilter) passes(k, t string) bool {
	if t == "" || k[0] != 1 {
		return false
	}
	switch d.spec.Op {
	case "<":
		return k < t
	case "<=":
		return k <= t
	case ">":
		return k > t
	default:
		return k >= t
	}
}

// applyRows stores the input rows and emits those that pass.
func (d *DynamicFilter) applyRows(c *chunk.Chunk) error {
	batch := d.sc.Batch()
	n := c.NumRows()
	for i := 0; i < n; i++ {
		d.row = c.Row(i, d.row)
		row := cloneRow(d.row)
		k, pass, err := d.rowKey(row)
		if err != nil {
			return err
		}
		op := c.Op(i)
		if op == chunk.UpdateDelete && i+1 < n && c.Op(i+1) == chunk.UpdateInsert {
			next := cloneRow(c.Row(i+1, nil))
			k2, pass2, err := d.rowKey(next)
			if err != nil {
				return err
			}
			if err := d.unstore(batch, k, row); err != nil {
				return err
			}
			if err := d.store(batch, k2, next); err != nil {
				return err
			}
			switch {
			case pass && pass2:
				d.out.addUpdate(row, next)
			case pass:
				d.out.add(chunk.Delete, row)
			case pass2:
				d.out.add(chunk.Insert, next)
			}
			i++
			continue
		}
		if op.IsInsert() {
			err = d.store(batch, k, row)
		} else {
			err = d.unstore(batch, k, row)
		}
		if err != nil {
			return err
		}
		if pass {
			if op.IsInsert() {
				d.out.add(chunk.Insert, row)
			} else {
				d.out.add(chunk.Delete, row)
			}
		}
	}
	return nil
}

// store keeps a row whose Left value has sort key k in the state (under
// a monotonic threshold, only when its fate may still change).
func (d *DynamicFilter) store(batch *storage.WriteBatch, k string, row []types.Datum) error {
	if d.spec.Monotonic && !d.mayChange(k, d.key) {
		return nil
	}
	return d.rows.Insert(batch, d.stateRow(k, row))
}

// unstore removes a row from the state (under a monotonic threshold, a
// row whose fate was sealed is not there).
func (d *DynamicFilter) unstore(batch *storage.WriteBatch, k string, row []types.Datum) error {
	if d.spec.Monotonic && !d.mayChange(k, d.key) {
		return nil
	}
	return d.rows.Delete(batch, d.stateRow(k, row))
}

// mayChange reports whether, under a monotonic threshold whose sort key
// is t ("" when unset), a row whose Left value has sort key k can still
// change its fate. A NULL never passes. Before a threshold, every other
// row may come to pass. Under > and >=, a row that fails now fails for
// good (the threshold only rises past it); under < and <=, one that
// passes passes for good.
func (d *DynamicFilter) mayChange(k, t string) bool {
	if k[0] != 1 {
		return false
	}
	if t == "" {
		return true
	}
	pass := d.passes(k, t)
	if d.spec.Op == ">" || d.spec.Op == ">=" {
		return pass
	}
	return !pass
}

func (d *DynamicFilter) rowKey(row []types.Datum) (string, bool, error) {
	v, err := d.spec.Left.Eval(row)
	if err != nil {
		return "", false, err
	}
	k, err := d.sortKey(v)
	if err != nil {
		return "", false, err
	}
	return k, d.passes(k, d.key), nil
}

func (d *DynamicFilter) stateRow(k string, row []types.Datum) []types.Datum {
	return append([]types.Datum{k}, row...)
}

// noteThreshold records the threshold input's changes (applied later, as
// a whole: see applyThreshold).
func (d *DynamicFilter) noteThreshold(c *chunk.Chunk) error {
	if !d.pending {
		d.pending, d.pendingSet, d.pendingVal = true, d.set, d.val
	}
	var row []types.Datum
	for i := 0; i < c.NumRows(); i++ {
		row = c.Row(i, row)
		if !c.Op(i).IsInsert() {
			d.pendingSet, d.pendingVal = false, nil
			continue
		}
		v, err := d.spec.Right.Eval(row)
		if err != nil {
			return err
		}
		d.pendingSet, d.pendingVal = true, cloneRow([]types.Datum{v})[0]
	}
	return nil
}

// noteTime makes a temporal filter's threshold Right over the barrier
// time t (applied before the barrier passes).
func (d *DynamicFilter) noteTime(t int64) error {
	v, err := d.spec.Right.Eval([]types.Datum{types.Timestamp(t)})
	if err != nil {
		return err
	}
	d.pending, d.pendingSet, d.pendingVal = true, true, v
	return nil
}

// applyThreshold moves the threshold to its pending value: the rows
// between the old and the new one that pass under one and not the other
// are emitted, and the new threshold is stored.
func (d *DynamicFilter) applyThreshold() error {
	if !d.pending {
		return nil
	}
	d.pending = false
	oldSet, oldVal, oldKey := d.set, d.val, d.key
	d.set, d.val = d.pendingSet, d.pendingVal
	if err := d.setKey(); err != nil {
		return err
	}
	if d.spec.Monotonic && oldKey != "" && (d.key == "" || d.key < oldKey) {
		// A threshold going down (or away) would need rows the state
		// let go of: it holds where it was.
		d.set, d.val, d.key = oldSet, oldVal, oldKey
		return nil
	}
	batch := d.sc.Batch()
	if oldSet {
		if err := d.thr.Delete(batch, []types.Datum{int64(0), oldVal}); err != nil {
			return err
		}
	}
	if d.set {
		if err := d.thr.Insert(batch, []types.Datum{int64(0), d.val}); err != nil {
			return err
		}
	}
	if oldKey == d.key {
		return nil
	}
	// The rows whose fate can differ lie between the two thresholds (or,
	// when one is missing, in the other's passing range).
	lo, hi := min(oldKey, d.key), max(oldKey, d.key)
	if oldKey == "" || d.key == "" {
		t := max(oldKey, d.key)
		if d.spec.Op == "<" || d.spec.Op == "<=" {
			lo, hi = "\x01", t
		} else {
			lo, hi = t, "\x02"
		}
	}
	if d.spec.Monotonic && oldKey == "" && (d.spec.Op == ">" || d.spec.Op == ">=") {
		// The first threshold also seals the rows below it, which
		// failed before it and fail for good now. (Any later move up
		// seals the rows it crosses, which the range above covers.)
		lo = "\x01"
	}
	var sealed [][]types.Datum
	it := d.rows.ScanPrefixFrom(batch, nil, []types.Datum{lo}, false)
	for it.Next() {
		sr := it.Row()
		k := sr[0].(string)
		if k > hi {
			break
		}
		if d.spec.Monotonic && !d.mayChange(k, d.key) {
			sealed = append(sealed, cloneRow(sr))
		}
		was, now := d.passes(k, oldKey), d.passes(k, d.key)
		if was == now {
			continue
		}
		row := cloneRow(sr[1:])
		if now {
			d.out.add(chunk.Insert, row)
		} else {
			d.out.add(chunk.Delete, row)
		}
	}
	if err := closeIter(it); err != nil {
		return err
	}
	for _, sr := range sealed {
		if err := d.rows.Delete(batch, sr); err != nil {
			return err
		}
	}
	return nil
}
