package stream

import (
	"fmt"
	"slices"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// closer is what an operator that closes the state a watermark passed
// (HashAgg, HashJoin, TopN, EmitOnClose) keeps: the bound below which it
// closed everything, and where its next close starts. The state to close
// leads with the bounded column in every state table's key, so what a
// move of the bound closes is one key range of each vnode its actor owns
// (which a rescale gives the new actors whole, I4). A closer starts
// empty after a restart, a recovery or a rescale: its first close then
// starts at the beginning of the vnodes, and finds nothing closed before.
type closer struct {
	closed types.Datum // nil: nothing closed yet
	from   types.Datum // where the next close starts (nil: the beginning)
}

// next returns the bound the watermark of table in ws gives (the least
// of bounds, expressions over the one-column row [watermark], of type
// t), when it moved past the last one; ok is false when it did not, when
// ws has no watermark of table, or when a bound fails or is NULL (near
// the ends of time the bound may not exist: then nothing closes, rather
// than the view failing).
func (c *closer) next(ws []Watermark, table uint32, bounds []expr.Expr, t types.Type) (bound types.Datum, ok bool) {
	wm, ok := findWatermark(ws, table)
	if !ok {
		return nil, false
	}
	bound, ok = leastBound(bounds, wm.Value, t)
	if !ok || c.closed != nil && expr.Compare(bound, c.closed, t) <= 0 {
		return nil, false
	}
	return bound, true
}

// keyRange is the range a close up to bound covers: from the start of
// the next close on, below bound.
func (c *closer) keyRange(bound types.Datum) storage.KeyRange {
	kr := storage.KeyRange{Upper: &storage.KeyBound{Value: bound}}
	if c.from != nil {
		kr.Lower = &storage.KeyBound{Value: c.from, Inclusive: true}
	}
	return kr
}

// done records a close up to bound. unseen says the close could not see
// all of the epoch's writes (a join's ingested ones, epochWrites): they
// lie at or above the last bound, where the next close then starts.
func (c *closer) done(bound types.Datum, unseen bool) {
	c.from = bound
	if unseen {
		c.from = c.closed
	}
	c.closed = bound
}

// leastBound evaluates bounds (AggWatermark.Bounds, KeyWatermark.Bounds)
// for watermark wm: the least of them, of type t. ok is false when one
// fails or is NULL.
func leastBound(bounds []expr.Expr, wm types.Datum, t types.Type) (bound types.Datum, ok bool) {
	arg := []types.Datum{wm}
	for _, b := range bounds {
		v, err := b.Eval(arg)
		if err != nil || v == nil {
			return nil, false
		}
		if bound == nil || expr.Compare(v, bound, t) < 0 {
			bound = v
		}
	}
	return bound, bound != nil
}

// closedRows returns the rows of t within vnodes in key range kr, read
// whole before any is deleted.
func closedRows(t *storage.Table, r storage.Reader, vnodes []uint16, kr storage.KeyRange) ([][]types.Datum, error) {
	it := t.ScanRangeIn(r, kr, vnodes)
	var rows [][]types.Datum
	for it.Next() {
		rows = append(rows, slices.Clone(it.Row()))
	}
	err := it.Err()
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("stream: closing by watermark: %w", err)
	}
	return rows, nil
}
