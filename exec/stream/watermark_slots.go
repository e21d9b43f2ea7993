package stream

import (
	"fmt"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// Watermarks of several readers.
//
// A Kafka table or source with a WATERMARK read by n actors runs one
// WatermarkFilter per actor (SetSlot(i, n)), each with a watermark of
// its own: the greatest expression value of the rows its partitions
// gave, kept in row i (its slot) of the relation's one WatermarkTable.
// Every barrier an actor sends carries its watermark, and downstream a
// Merge keeps the least over its inputs (LeastWatermarks), so a window
// closes only once every reader has passed it, as RisingWave aligns the
// watermarks of a source's actors and Flink a task's input channels.
//
// An actor with no partition, or whose partitions are idle, would hold
// that least back forever: after idleWatermarkBarriers barriers in a row
// without a row it reads the committed slots of the others and takes
// the greatest of their watermarks when above its own, as RisingWave's
// watermark filter takes the global greatest while its input is idle
// (Flink instead leaves an idle input out of the least until it has
// rows again, WatermarkStrategy.withIdleness). A row that comes later
// to an actor that took a greater watermark is late like any other:
// below a watermark the views may already have closed windows on.
//
// A rescale (or a restart) starts each new actor at the least of the
// committed slots' watermarks: the least the views downstream last saw,
// so the merged watermark never goes back (I7) and no row on time
// before is late after it. The slots k >= n of a rescale to fewer
// actors fold into actor k mod n: it adds their late rows to its own and
// deletes them in the batch of its first barrier, so the late count
// stays exact. A single filter (no SetSlot) keeps slot 0 alone, as
// before.

// idleWatermarkBarriers is how many barriers in a row without a row an
// actor of several waits before it takes the others' watermark.
const idleWatermarkBarriers = 5

// SetSlot makes the filter actor slot of slots readers of one relation
// (call it before the first Next): it keeps its watermark in row slot
// of the state, starts at the least of the committed rows and follows
// the others while idle.
func (w *WatermarkFilter) SetSlot(slot, slots int) {
	w.slot, w.slots = slot, max(slots, 1)
}

// loadSlots reads the committed slots: the watermark starts at their
// least, and the late rows are the filter's slot's plus those of the
// slots it folds.
func (w *WatermarkFilter) loadSlots() error {
	it := w.state.Scan(w.sc.Batch())
	for it.Next() {
		row := it.Row()
		k := int(row[0].(int64))
		if v := row[1]; v != nil && (w.wm == nil || expr.Compare(v, w.wm, w.typ) < 0) {
			w.wm = v
		}
		if k%w.slots != w.slot {
			continue
		}
		w.late += row[2].(int64)
		if k != w.slot {
			w.folded = append(w.folded, k)
		}
	}
	err := it.Err()
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("stream: loading the watermarks: %w", err)
	}
	// Write the slot at the first barrier: its watermark may be another
	// slot's least, and folded slots go in the same batch.
	w.dirty = true
	return nil
}

// foldSlots deletes the rows of the slots the filter folded.
func (w *WatermarkFilter) foldSlots() error {
	for _, k := range w.folded {
		if err := w.state.Delete(w.sc.Batch(), []types.Datum{int64(k), nil, int64(0)}); err != nil {
			return fmt.Errorf("stream: folding a watermark: %w", err)
		}
	}
	w.folded = nil
	return nil
}

// followIdle counts the barriers of an actor of several whose epoch had
// no row, and every idleWatermarkBarriers of them raises its watermark
// to the greatest committed one of the others.
func (w *WatermarkFilter) followIdle() error {
	if w.slots <= 1 {
		return nil
	}
	if w.rows {
		w.rows, w.idle = false, 0
		return nil
	}
	if w.idle++; w.idle < idleWatermarkBarriers {
		return nil
	}
	w.idle = 0
	var greatest types.Datum
	it := w.state.Scan(w.sc.Batch())
	for it.Next() {
		row := it.Row()
		if int(row[0].(int64)) == w.slot {
			continue
		}
		if v := row[1]; v != nil && (greatest == nil || expr.Compare(v, greatest, w.typ) > 0) {
			greatest = v
		}
	}
	err := it.Err()
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("stream: reading the other watermarks: %w", err)
	}
	if greatest != nil && (w.next == nil || expr.Compare(greatest, w.next, w.typ) > 0) {
		w.next = greatest
	}
	return nil
}

// show tells the stats the filter's watermark and late rows.
func (w *WatermarkFilter) show() {
	if w.stats == nil {
		return
	}
	if w.slots <= 1 {
		w.stats.set(w.wm, w.late)
		return
	}
	w.stats.setSlot(w.slot, w.slots, w.typ, w.wm, w.late)
}

// slotMark is one reader's part of WatermarkStats.
type slotMark struct {
	wm   types.Datum
	late int64
}

// setSlot records reader slot of slots: the stats show the least
// watermark over the readers (nil while one has none: what the views
// downstream see) and the sum of their late rows.
func (s *WatermarkStats) setSlot(slot, slots int, typ types.Type, wm types.Datum, late int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.slots == nil {
		s.slots = make([]slotMark, slots)
		s.known = make([]bool, slots)
	}
	s.slots[slot], s.known[slot] = slotMark{wm, late}, true
	var least types.Datum
	var sum int64
	all := true
	for i, m := range s.slots {
		sum += m.late
		if !s.known[i] || m.wm == nil {
			all = false
			continue
		}
		if least == nil || expr.Compare(m.wm, least, typ) < 0 {
			least = m.wm
		}
	}
	if !all {
		least = nil
	}
	s.wm = least
	s.late.Store(sum)
}

// Input returns the filter's input.
func (w *WatermarkFilter) Input() Executor { return w.in }
