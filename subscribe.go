package streamdb

import (
	"context"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/streamdb/streamdb/internal/engine"
	"github.com/streamdb/streamdb/internal/types"
)

// SubscribeOptions say where a subscription starts. The zero value (or
// nil) starts from now: the changes committed after the call.
type SubscribeOptions struct {
	// Since, when not 0, replays the changes committed after this epoch
	// that the subscription still retains, then follows (the name must
	// be a subscription: CREATE SUBSCRIPTION). An epoch older than its
	// retention is an error.
	Since uint64
	// Full starts with the relation's current rows, as Insert changes of
	// the epoch they were read at, then follows its changes.
	Full bool
	// BatchRows caps the rows of one batch (0: ArrowBatchRows).
	BatchRows int
}

// Subscription is a stream of a table's, view's or subscription's
// changes as Arrow record batches, read with Next (see DB.Subscribe). It
// is used from one goroutine: to end a Next that waits, cancel its
// context, then Close.
type Subscription struct {
	ctx    context.Context
	r      *engine.SubscriptionReader
	typs   []types.Type
	schema *arrow.Schema
	b      *array.RecordBuilder
	rows   int64
	cur    arrow.RecordBatch
	epoch  uint64
	end    bool
	err    error
	closed bool
}

// subscribeWait is how long one read waits for a change before it looks
// at its context again.
const subscribeWait = 250 * time.Millisecond

// Subscribe streams the changes of name: a subscription (CREATE
// SUBSCRIPTION s FROM v), or a table or materialized view (followed from
// now, or FULL, through a temporary subscription that goes with the
// stream). Each batch holds the relation's columns, then op (utf8:
// Insert, Delete, UpdateDelete or UpdateInsert, RisingWave's spelling,
// an update being an UpdateDelete/UpdateInsert pair) and epoch (int64:
// the epoch the change committed in), in commit order. A batch holds
// changes of one epoch; EpochEnd says whether it is the epoch's last, so
// a consumer can commit its own work per epoch and resume with Since.
//
// A slow consumer holds nothing back: changes wait in the subscription's
// log (for its retention). Cancelling ctx ends the stream cleanly (Next
// reports false and Err nil); dropping the relation or the subscription
// ends it with an error. Close it when done.
func (db *DB) Subscribe(ctx context.Context, name string, opts *SubscribeOptions) (*Subscription, error) {
	var o SubscribeOptions
	if opts != nil {
		o = *opts
	}
	start := engine.SubscriptionStart{Full: o.Full}
	if o.Since != 0 {
		start.Since = &o.Since
	}
	r, err := db.e.Subscribe(ctx, name, start)
	if err != nil {
		return nil, publicError(err)
	}
	s := &Subscription{ctx: ctx, r: r, rows: int64(o.BatchRows)}
	if s.rows <= 0 {
		s.rows = ArrowBatchRows
	}
	cols := r.Columns()
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		s.typs = append(s.typs, c.Type)
		fields[i] = arrow.Field{Name: c.Name, Type: arrowType(c.Type), Nullable: i < len(cols)-2}
	}
	s.schema = arrow.NewSchema(fields, nil)
	s.b = array.NewRecordBuilder(memory.DefaultAllocator, s.schema)
	return s, nil
}

// Schema returns the batches' schema.
func (s *Subscription) Schema() *arrow.Schema { return s.schema }

// Next waits for the next batch of changes. It reports false when the
// stream ended: its context was cancelled (Err is nil), or an error (Err).
func (s *Subscription) Next() bool {
	s.release()
	for s.err == nil && !s.closed {
		if err := s.ctx.Err(); err != nil {
			return false
		}
		n, end, err := s.r.Read(s.ctx, s.rows, subscribeWait, func(row []types.Datum) error {
			for i, d := range row {
				if err := appendArrow(s.b.Field(i), d, s.typs[i]); err != nil {
					return err
				}
			}
			s.epoch = uint64(row[len(row)-1].(int64))
			return nil
		})
		if err != nil {
			s.b.NewRecordBatch().Release() // drop a partial batch
			if s.ctx.Err() != nil {
				return false // cancelled: the end, not an error
			}
			s.err = publicError(err)
			return false
		}
		if n > 0 {
			s.cur, s.end = s.b.NewRecordBatch(), end
			return true
		}
	}
	return false
}

// RecordBatch returns the current batch, valid until the next call of
// Next (Retain it to keep it).
func (s *Subscription) RecordBatch() arrow.RecordBatch { return s.cur }

// Epoch is the epoch of the current batch's changes.
func (s *Subscription) Epoch() uint64 { return s.epoch }

// EpochEnd reports whether the current batch holds the last changes of
// its epoch.
func (s *Subscription) EpochEnd() bool { return s.end }

// Err returns the error that ended the stream, if any (nil when its
// context was cancelled).
func (s *Subscription) Err() error { return s.err }

// Close ends the stream and frees what it holds.
func (s *Subscription) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	s.release()
	s.b.Release()
	s.r.Close()
	return nil
}

func (s *Subscription) release() {
	if s.cur != nil {
		s.cur.Release()
		s.cur = nil
	}
}
