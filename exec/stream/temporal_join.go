package stream

import (
	"context"
	"fmt"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// TemporalJoin is RisingWave's process-time temporal join (JOIN t FOR
// SYSTEM_TIME AS OF PROCTIME()): each left row is joined with the row of
// table t its key names, as t is when the row arrives. It has one input,
// the left side; t is not a stream input but read from the store: every
// left chunk reads t through one snapshot of its committed state, by
// primary key (the lookup covers t's whole key, so a left row matches at
// most one row). Later changes of t change nothing already emitted: the
// join keeps no state of t.
//
// A left row that is retracted (Delete, or the old side of an update)
// must retract exactly the row emitted for it, which t may no longer
// give: so over a left input that may retract, the join keeps the row it
// emitted for each left row (State, keyed by the left's stream key, in
// the vnodes of the left's distribution) and retracts that one. Over an
// append-only input it keeps nothing. Barriers pass through, with their
// watermarks: the left columns keep their positions and values.
type TemporalJoin struct {
	in    Executor
	spec  TemporalJoinSpec
	sc    *StateContext
	typ   []types.Type
	b     *chunk.Builder
	left  []types.Datum
	pk    []types.Datum
	nulls []types.Datum
}

// TemporalJoinSpec describes a temporal join.
type TemporalJoinSpec struct {
	// Outer: a left row without a match is emitted padded with NULLs.
	Outer      bool
	LeftTypes  []types.Type
	RightTypes []types.Type // the table's columns the join outputs: a prefix of its rows
	// Lookup computes, from a left row, the value of each primary key
	// column of Right (in Right.PK's order); a NULL or an error matches
	// no row.
	Lookup []expr.Expr
	Right  *storage.Table
	// Cond, over the left row then the right one, must hold for a match
	// (nil: true).
	Cond expr.Expr
	// State keeps the emitted row of each left row (the left columns
	// first; its PK is the left's stream key): nil when the left input
	// never retracts.
	State *storage.Table
}

// NewTemporalJoin returns the temporal join of in's rows.
func NewTemporalJoin(in Executor, sc *StateContext, spec TemporalJoinSpec) (*TemporalJoin, error) {
	if len(spec.Lookup) != len(spec.Right.PK) {
		return nil, fmt.Errorf("stream: temporal join: %d lookup values for %d key columns", len(spec.Lookup), len(spec.Right.PK))
	}
	typ := append(append([]types.Type(nil), spec.LeftTypes...), spec.RightTypes...)
	return &TemporalJoin{in: in, spec: spec, sc: sc, typ: typ, b: chunk.NewBuilder(typ),
		nulls: make([]types.Datum, len(spec.RightTypes))}, nil
}

// Types implements Executor.
func (t *TemporalJoin) Types() []types.Type { return t.typ }

// Next implements Executor.
func (t *TemporalJoin) Next(ctx context.Context) (Message, error) {
	for {
		msg, err := t.in.Next(ctx)
		if err != nil || msg.Chunk == nil {
			return msg, err
		}
		c, err := t.join(msg.Chunk)
		msg.Chunk.Release()
		if err != nil {
			return Message{}, err
		}
		if c.NumRows() > 0 {
			return Message{Chunk: c}, nil
		}
		c.Release()
	}
}

// join returns the output of the chunk in (which stays the caller's).
func (t *TemporalJoin) join(in *chunk.Chunk) (*chunk.Chunk, error) {
	snap := t.sc.Store.Snapshot()
	defer snap.Close()
	n := in.NumRows()
	for i := 0; i < n; i++ {
		op := in.Op(i)
		if op == chunk.UpdateDelete && i+1 < n && in.Op(i+1) == chunk.UpdateInsert {
			old, err := t.retract(in.Row(i, t.left))
			if err != nil {
				return t.fail(err)
			}
			neu, err := t.match(snap, in.Row(i+1, t.left))
			if err != nil {
				return t.fail(err)
			}
			t.emitPair(old, neu)
			i++
			continue
		}
		var row []types.Datum
		var err error
		if op.IsInsert() {
			row, err = t.match(snap, in.Row(i, t.left))
		} else {
			row, err = t.retract(in.Row(i, t.left))
		}
		if err != nil {
			return t.fail(err)
		}
		if row != nil {
			t.b.Append(plainOp(op), row)
		}
	}
	return t.b.Build(), nil
}

func (t *TemporalJoin) fail(err error) (*chunk.Chunk, error) {
	t.b.Build().Release()
	return nil, err
}

// emitPair emits an update's two sides: a pair when both give a row.
func (t *TemporalJoin) emitPair(old, neu []types.Datum) {
	switch {
	case old != nil && neu != nil:
		t.b.Append(chunk.UpdateDelete, old)
		t.b.Append(chunk.UpdateInsert, neu)
	case old != nil:
		t.b.Append(chunk.Delete, old)
	case neu != nil:
		t.b.Append(chunk.Insert, neu)
	}
}

// match returns the row a new left row emits (nil: none) and keeps it
// in State.
func (t *TemporalJoin) match(snap *storage.Snapshot, left []types.Datum) ([]types.Datum, error) {
	right, err := t.lookup(snap, left)
	if err != nil {
		return nil, err
	}
	out := make([]types.Datum, 0, len(t.typ))
	out = append(out, left...)
	switch {
	case right != nil:
		out = append(out, right...)
		if t.spec.Cond != nil {
			v, err := t.spec.Cond.Eval(out)
			if err != nil {
				return nil, fmt.Errorf("stream: temporal join condition: %w", err)
			}
			if b, ok := v.(bool); !ok || !b {
				right = nil
				out = out[:len(left)]
			}
		}
	}
	if right == nil {
		if !t.spec.Outer {
			return nil, nil
		}
		out = append(out, t.nulls...)
	}
	if t.spec.State != nil {
		if err := t.spec.State.Insert(t.sc.Batch(), out); err != nil {
			return nil, fmt.Errorf("stream: temporal join state: %w", err)
		}
	}
	return out, nil
}

// lookup returns the output columns of the right row left's key names,
// nil when there is none.
func (t *TemporalJoin) lookup(snap *storage.Snapshot, left []types.Datum) ([]types.Datum, error) {
	t.pk = t.pk[:0]
	for _, e := range t.spec.Lookup {
		v, err := e.Eval(left)
		if err != nil || v == nil {
			return nil, nil // out of the key type's range, or NULL: no row has it
		}
		t.pk = append(t.pk, v)
	}
	row, ok, err := t.spec.Right.Get(snap, t.pk)
	if err != nil {
		return nil, fmt.Errorf("stream: temporal join lookup: %w", err)
	}
	if !ok {
		return nil, nil
	}
	if len(row) < len(t.spec.RightTypes) {
		return nil, fmt.Errorf("stream: temporal join lookup: row of %d columns, want %d", len(row), len(t.spec.RightTypes))
	}
	return row[:len(t.spec.RightTypes)], nil
}

// retract returns the row emitted for left, now retracted (nil: none),
// and forgets it.
func (t *TemporalJoin) retract(left []types.Datum) ([]types.Datum, error) {
	if t.spec.State == nil {
		return nil, fmt.Errorf("stream: temporal join: a retraction from an append-only input")
	}
	t.pk = t.pk[:0]
	for _, c := range t.spec.State.PK {
		t.pk = append(t.pk, left[c])
	}
	row, ok, err := t.spec.State.Get(t.sc.Batch(), t.pk)
	if err != nil {
		return nil, fmt.Errorf("stream: temporal join state: %w", err)
	}
	if !ok {
		return nil, nil
	}
	if err := t.spec.State.Delete(t.sc.Batch(), row); err != nil {
		return nil, fmt.Errorf("stream: temporal join state: %w", err)
	}
	return row, nil
}
