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

// EmitOnClose runs a view's rows EMIT ON WINDOW CLOSE when its top is
// not an aggregate (which closes its own groups, AggWatermark): the top
// rows of each window (a group Top-N), window functions ordered by the
// watermark column, or any query whose output column Col a watermark
// bounds (KeyWatermark). Upstream's changes still to come all concern
// rows whose Col is at least the watermark's bound, so a row below the
// bound is final.
//
// It keeps the current version of each row not yet final in its state
// (keyed by Col, then the stream key) and emits nothing; at each barrier
// whose watermark moved the bound, it emits the rows below it, once,
// as inserts, and deletes them from its state in the same epoch (I7).
type EmitOnClose struct {
	in     Executor
	sc     *StateContext
	table  *storage.Table
	col    int
	wm     *KeyWatermark
	owned  []uint16
	closer closer
	out    *outQueue
	row    []types.Datum
}

// EmitOnCloseTable is the layout of an EmitOnClose's state with id: rows
// of types ts keyed by column col and then the stream key key, placed in
// vnodes by distKey (the distribution its input arrives in).
func EmitOnCloseTable(id uint32, ts []types.Type, col int, key, distKey []int) *storage.Table {
	pk := []int{col}
	for _, k := range key {
		if k != col {
			pk = append(pk, k)
		}
	}
	return &storage.Table{ID: id, Types: ts, PK: pk, DistKey: distKey}
}

// NewEmitOnClose returns in's rows emitted once final by the watermark
// wm on column col; state is its EmitOnCloseTable, owned the vnodes its
// actor owns.
func NewEmitOnClose(in Executor, sc *StateContext, state *storage.Table, col int, wm *KeyWatermark, owned storage.VnodeBitmap) *EmitOnClose {
	return &EmitOnClose{in: in, sc: sc, table: state, col: col, wm: wm, owned: owned.Vnodes(), out: newOutQueue(in.Types())}
}

// Types implements Executor.
func (e *EmitOnClose) Types() []types.Type { return e.in.Types() }

// StateTables returns its state table.
func (e *EmitOnClose) StateTables() []*storage.Table { return []*storage.Table{e.table} }

// Next implements Executor.
func (e *EmitOnClose) Next(ctx context.Context) (Message, error) {
	for {
		if m, ok := e.out.pop(); ok {
			return m, nil
		}
		msg, err := e.in.Next(ctx)
		if err != nil {
			return Message{}, err
		}
		if failpoint.Enabled {
			if err := hitStateless(msg); err != nil {
				return Message{}, err
			}
		}
		if msg.Barrier != nil {
			if err := e.close(msg.Watermarks); err != nil {
				return Message{}, err
			}
			e.out.barrierMsg(msg)
			continue
		}
		err = e.apply(msg.Chunk)
		msg.Chunk.Release()
		if err != nil {
			return Message{}, err
		}
	}
}

// apply keeps the latest version of each row of c.
func (e *EmitOnClose) apply(c *chunk.Chunk) error {
	b := e.sc.Batch()
	for i := 0; i < c.NumRows(); i++ {
		e.row = c.Row(i, e.row)
		if c := e.closer.closed; invariants && c != nil && e.row[e.col] != nil && expr.Compare(e.row[e.col], c, e.table.Types[e.col]) < 0 {
			panic(fmt.Sprintf("invariant I7 violated: emit on window close of table %d took a change of a row below its closed bound %v: %v",
				e.table.ID, c, e.row))
		}
		var err error
		if c.Op(i).IsInsert() {
			err = e.table.Insert(b, e.row)
		} else {
			err = e.table.Delete(b, e.row)
		}
		if err != nil {
			return fmt.Errorf("stream: emit on window close: %w", err)
		}
	}
	return nil
}

// close emits and forgets the rows the watermark of ws made final.
func (e *EmitOnClose) close(ws []Watermark) error {
	bound, ok := e.closer.next(ws, e.wm.Table, e.wm.Bounds, e.table.Types[e.col])
	if !ok {
		return nil
	}
	b := e.sc.Batch()
	kr := e.closer.keyRange(bound)
	rows, err := closedRows(e.table, b, e.owned, kr)
	if err != nil {
		return err
	}
	for _, r := range rows {
		e.out.add(chunk.Insert, r)
	}
	if err := e.table.DeleteRangeIn(b, kr, e.owned); err != nil {
		return fmt.Errorf("stream: emit on window close: %w", err)
	}
	e.closer.done(bound, false)
	return nil
}
