package stream

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/failpoint"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// WatermarkFilter is the first operator of a table or source with a
// WATERMARK FOR column AS expr (RisingWave's syntax). The watermark is the
// greatest value of expr over the rows that passed, and it only rises: at
// each barrier it takes the greatest value of the epoch's rows. A row
// whose column is below the watermark of the last barrier, or NULL, is
// late: it is dropped (it never reaches the table or a view) and counted.
// Rows of one epoch are judged against the same watermark, so a
// statement's rows, which one epoch commits whole, are judged alike
// whatever their order within it.
//
// The watermark and the count of late rows are its state (one row of
// WatermarkTable), written at a barrier when they changed, so they
// commit with the epoch whose rows moved them (I3) and a restart or a
// recovery resumes from them: the watermark never goes back.
//
// Its input is append-only (the binder refuses UPDATE and DELETE on the
// table); a retraction fails the actor.
type WatermarkFilter struct {
	in    Executor
	table uint32 // the table's (or source's) relation id
	col   int
	typ   types.Type // the column's
	expr  expr.Expr
	sc    *StateContext
	state *storage.Table
	stats *WatermarkStats

	loaded bool
	wm     types.Datum // the watermark (nil: none yet)
	late   int64
	next   types.Datum // the greatest expr value this epoch (nil: none)
	dirty  bool
	row    []types.Datum
	// onCol: expr is a non-decreasing function of the column alone, so
	// its greatest value is its value at the column's greatest; arg is
	// the row it is evaluated over then.
	onCol bool
	arg   []types.Datum

	// Of a relation read by several actors (watermark_slots.go): the
	// filter's slot of slots, the slots it folds, whether the epoch had
	// a row, and the barriers in a row without one.
	slot, slots int
	folded      []int
	rows        bool
	idle        int
}

// WatermarkTable is the layout of a WatermarkFilter's state with id: one
// row (key 0, the watermark, the late rows) for a column of type t.
func WatermarkTable(id uint32, t types.Type) *storage.Table {
	return &storage.Table{ID: id, Types: []types.Type{types.TInt16, t, types.TInt64}, PK: []int{0}, DistKey: []int{}}
}

// WatermarkStats is what a WatermarkFilter shows outside its actor (the
// catalog's streamdb_catalog.watermarks), safe for concurrent use.
type WatermarkStats struct {
	mu   sync.Mutex
	wm   types.Datum
	late atomic.Int64
	// slots, known: each reader's, of a relation read by several
	// (WatermarkFilter.SetSlot).
	slots []slotMark
	known []bool
}

// Watermark returns the watermark of the last barrier (nil: none yet)
// and the late rows dropped so far.
func (s *WatermarkStats) Watermark() (wm types.Datum, late int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.wm, s.late.Load()
}

func (s *WatermarkStats) set(wm types.Datum, late int64) {
	s.mu.Lock()
	s.wm = wm
	s.late.Store(late)
	s.mu.Unlock()
}

// NewWatermarkFilter returns the filter of the rows of table (a relation
// id) from in by the watermark of column col (of in's row) that e (over
// in's row, of col's type) advances; state is its WatermarkTable, stats,
// when not nil, shows it. Each barrier it passes carries the watermark.
func NewWatermarkFilter(in Executor, table uint32, col int, e expr.Expr, sc *StateContext, state *storage.Table, stats *WatermarkStats) *WatermarkFilter {
	cols := expr.Columns(e)
	onCol := len(cols) == 1 && cols[0] == col && expr.NonDecreasing(e, col)
	return &WatermarkFilter{in: in, table: table, col: col, typ: in.Types()[col], expr: e, sc: sc, state: state, stats: stats,
		onCol: onCol, arg: make([]types.Datum, len(in.Types()))}
}

// Types implements Executor.
func (w *WatermarkFilter) Types() []types.Type { return w.in.Types() }

// StateTables returns the filter's state table.
func (w *WatermarkFilter) StateTables() []*storage.Table { return []*storage.Table{w.state} }

// Next implements Executor.
func (w *WatermarkFilter) Next(ctx context.Context) (Message, error) {
	for {
		msg, err := w.in.Next(ctx)
		if err != nil {
			return msg, err
		}
		if failpoint.Enabled {
			if err := hitStateless(msg); err != nil {
				return Message{}, err
			}
		}
		if !w.loaded {
			if err := w.load(); err != nil {
				return Message{}, err
			}
		}
		if msg.Barrier != nil {
			if err := w.barrier(); err != nil {
				return Message{}, err
			}
			if w.wm != nil {
				// Every barrier carries it, so an operator downstream
				// built since (a restart, a recovery, a rescale) learns
				// it at once.
				msg.Watermarks = []Watermark{{Table: w.table, Type: w.typ, Value: w.wm}}
			}
			return msg, nil
		}
		if msg.Chunk == nil {
			return msg, nil
		}
		c, err := w.filter(msg.Chunk)
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

// load reads the watermark and the count the last committed epoch left.
func (w *WatermarkFilter) load() error {
	if w.slots > 0 {
		if err := w.loadSlots(); err != nil {
			return err
		}
		w.loaded = true
		w.show()
		return nil
	}
	row, ok, err := w.state.Get(w.sc.Batch(), []types.Datum{int64(0)})
	if err != nil {
		return fmt.Errorf("stream: loading a watermark: %w", err)
	}
	if ok {
		w.wm, w.late = row[1], row[2].(int64)
	}
	w.loaded = true
	w.show()
	return nil
}

// filter returns the rows of c that are not late: c itself (a reference
// the caller keeps) when none is, which is the common case, else a copy
// of the others (chunk.Take). It reads the watermark column alone, and,
// when the expression is a non-decreasing function of that column alone
// (ts - INTERVAL '5 seconds'), evaluates it once per chunk, at the
// column's greatest value.
func (w *WatermarkFilter) filter(c *chunk.Chunk) (*chunk.Chunk, error) {
	n := c.NumRows()
	col := c.Rec.Column(w.col)
	w.rows = w.rows || n > 0
	var keep []int // the rows kept, once one is late
	var greatest types.Datum
	for i := 0; i < n; i++ {
		if op := c.Op(i); op != chunk.Insert {
			return nil, fmt.Errorf("stream: watermark filter: an append-only input took a %v", op)
		}
		v := chunk.Value(col, w.typ, i)
		if v == nil || (w.wm != nil && expr.Compare(v, w.wm, w.typ) < 0) {
			w.late++
			w.dirty = true
			if keep == nil {
				keep = make([]int, 0, n)
				for j := 0; j < i; j++ {
					keep = append(keep, j)
				}
			}
			continue
		}
		if keep != nil {
			keep = append(keep, i)
		}
		if w.onCol {
			if greatest == nil || expr.Compare(v, greatest, w.typ) > 0 {
				greatest = v
			}
			continue
		}
		w.row = c.Row(i, w.row)
		w.raise(w.row)
	}
	if greatest != nil {
		w.arg[w.col] = greatest
		w.raise(w.arg)
	}
	if keep == nil {
		c.Retain()
		return c, nil
	}
	ops := make([]chunk.Op, len(keep)) // all Insert
	return chunk.Take(c, keep, ops), nil
}

// raise takes the expression's value over row, an on-time row, into the
// epoch's greatest. A row the expression fails on (an overflow near the
// ends of time) moves nothing: failing the actor would only refuse the
// statement, again after each recovery.
func (w *WatermarkFilter) raise(row []types.Datum) {
	e, err := w.expr.Eval(row)
	if err == nil && e != nil && (w.next == nil || expr.Compare(e, w.next, w.typ) > 0) {
		w.next = e
	}
}

// barrier raises the watermark to the epoch's greatest value and stages
// the state when it changed.
func (w *WatermarkFilter) barrier() error {
	if err := w.followIdle(); err != nil {
		return err
	}
	if err := w.foldSlots(); err != nil {
		return err
	}
	if w.next != nil && (w.wm == nil || expr.Compare(w.next, w.wm, w.typ) > 0) {
		w.wm = w.next
		w.dirty = true
	}
	w.next = nil
	if !w.dirty {
		return nil
	}
	w.dirty = false
	if err := w.state.Insert(w.sc.Batch(), []types.Datum{int64(w.slot), w.wm, w.late}); err != nil {
		return fmt.Errorf("stream: saving a watermark: %w", err)
	}
	w.show()
	return nil
}
