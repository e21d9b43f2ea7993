package stream

import (
	"context"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// SinkTables are the state of a sink (CREATE SINK): its input's changes
// not yet delivered, as a subscription logs them (SubscriptionTables:
// changes keyed by a seq that rises by one per change), cut into
// batches, and where delivery stands.
//
//   - Log: (seq, op, the input's columns...), keyed by seq;
//   - Batches: (batch, epoch, first, end), one row per barrier that
//     ended an epoch of the input with changes: the batch's changes are
//     the log rows with first <= seq < end, and epoch is the running
//     graph's epoch it ended, 0 for a creating job's own barrier (the
//     backfill's: those epochs restart from 0 when the job is rebuilt,
//     which is why batches are numbered by the sink and not by epoch);
//   - Delivered: one row (0, batch, epoch, end, messages, time): the
//     last batch delivered, the end of its changes, the messages sent in
//     all and when (unix microseconds). Written by the delivery
//     goroutine in a Pebble batch of its own after the destination
//     acknowledged the batch.
//
// Log and Batches are written by the sink's one actor only
// (SinkLog), and commit with the epoch (or the creating job's
// checkpoint), so a batch's row is committed exactly when its changes
// are. The actor deletes what was delivered, at a barrier, from what the
// delivery goroutine published: nothing else writes them. None is spread
// over vnodes.
type SinkTables struct {
	Log, Batches, Delivered *storage.Table
}

// NumSinkTables is how many state tables a sink owns.
const NumSinkTables = 3

// NewSinkTables lays out the tables with the given ids (NumSinkTables)
// for an input of types rel.
func NewSinkTables(ids []uint32, rel []types.Type) *SinkTables {
	logTypes := append([]types.Type{types.TInt64, types.TInt64}, rel...)
	i64 := types.TInt64
	return &SinkTables{
		Log:       &storage.Table{ID: ids[0], Types: logTypes, PK: []int{0}},
		Batches:   &storage.Table{ID: ids[1], Types: []types.Type{i64, i64, i64, i64}, PK: []int{0}},
		Delivered: &storage.Table{ID: ids[2], Types: []types.Type{i64, i64, i64, i64, i64, i64}, PK: []int{0}},
	}
}

// SinkMark is where a sink's delivery stands: every batch up to Batch has
// been delivered, whose changes end before seq End.
type SinkMark struct {
	Batch    int64
	Epoch    uint64
	End      int64
	Messages int64
	Time     int64 // unix microseconds
}

// LoadSinkMark reads the Delivered row (the zero mark when none).
func LoadSinkMark(r storage.Reader, t *SinkTables) (SinkMark, error) {
	row, ok, err := t.Delivered.Get(r, []types.Datum{int64(0)})
	if err != nil || !ok {
		return SinkMark{}, err
	}
	return SinkMark{Batch: row[1].(int64), Epoch: uint64(row[2].(int64)), End: row[3].(int64),
		Messages: row[4].(int64), Time: row[5].(int64)}, nil
}

func (m SinkMark) row() []types.Datum {
	return []types.Datum{int64(0), m.Batch, int64(m.Epoch), m.End, m.Messages, m.Time}
}

// sinkBatchRow is a row of SinkTables.Batches.
type sinkBatchRow struct {
	batch      int64
	epoch      uint64
	first, end int64
}

func decodeSinkBatch(row []types.Datum) sinkBatchRow {
	return sinkBatchRow{batch: row[0].(int64), epoch: uint64(row[1].(int64)), first: row[2].(int64), end: row[3].(int64)}
}

// SinkLog appends every change of its input, the stream of the relation
// or query a sink reads, to the sink's log, and records at each barrier
// the batch the barrier ends (see SinkTables). It runs in the sink's
// one actor, on the creating job's barriers during the backfill (the
// snapshot's rows are then changes like any other) and on the running
// graph's after. It emits barriers only.
//
// It owns the sink's delivery goroutine (sinkDelivery): started on the
// first Next, once the log's position is loaded, and stopped and joined
// by Close, which the actor runs when it exits (a DROP, a recovery, the
// database's Close). At each barrier it deletes the batches the
// goroutine has delivered since the last one, in the epoch's batch.
type SinkLog struct {
	in       Executor
	sc       *StateContext
	tables   *SinkTables
	delivery *sinkDelivery

	loaded    bool
	nextSeq   int64 // the seq of the next change
	first     int64 // the first seq of the current batch
	nextBatch int64
	truncated int64 // the batches up to this one are deleted
	row       []types.Datum
	logRow    []types.Datum
}

// NewSinkLog returns the log writer of a sink, delivering through w.
func NewSinkLog(in Executor, sc *StateContext, tables *SinkTables, w SinkWriter) *SinkLog {
	return &SinkLog{in: in, sc: sc, tables: tables, delivery: newSinkDelivery(sc.Store, tables, w)}
}

// Types implements Executor.
func (s *SinkLog) Types() []types.Type { return s.in.Types() }

// State describes the delivery goroutine: "starting", "delivering",
// "retrying: ..." (SHOW SINKS).
func (s *SinkLog) State() string { return s.delivery.State() }

// Sent returns the messages sent since the sink's actor started.
func (s *SinkLog) Sent() int64 { return s.delivery.sent.Load() }

// Close stops and joins the delivery goroutine; the actor runs it when
// it exits.
func (s *SinkLog) Close() { s.delivery.Close() }

// Next implements Executor.
func (s *SinkLog) Next(ctx context.Context) (Message, error) {
	if !s.loaded {
		if err := s.load(); err != nil {
			return Message{}, err
		}
		s.loaded = true
		s.delivery.Start()
	}
	for {
		m, err := s.in.Next(ctx)
		if err != nil {
			return m, err
		}
		if m.Barrier != nil {
			if err := s.barrier(m.Barrier); err != nil {
				return Message{}, err
			}
			return m, nil
		}
		err = s.append(m.Chunk)
		m.Chunk.Release()
		if err != nil {
			return Message{}, err
		}
	}
}

// load finds the next seq and batch: past the last batch logged, or past
// the last delivered when every batch was.
func (s *SinkLog) load() error {
	mark, err := LoadSinkMark(s.sc.Store, s.tables)
	if err != nil {
		return err
	}
	s.nextSeq, s.nextBatch, s.truncated = mark.End, mark.Batch+1, mark.Batch
	it := s.tables.Batches.ScanPrefix(s.sc.Store, nil, true)
	if it.Next() {
		last := decodeSinkBatch(it.Row())
		s.nextSeq, s.nextBatch = max(s.nextSeq, last.end), max(s.nextBatch, last.batch+1)
	}
	s.first = s.nextSeq
	return closeIter(it)
}

func (s *SinkLog) append(c *chunk.Chunk) error {
	b := s.sc.Batch()
	for i, n := 0, c.NumRows(); i < n; i++ {
		s.row = c.Row(i, s.row)
		s.logRow = append(s.logRow[:0], s.nextSeq, int64(c.Op(i)))
		s.logRow = append(s.logRow, s.row...)
		if err := s.tables.Log.Insert(b, s.logRow); err != nil {
			return err
		}
		s.nextSeq++
	}
	return nil
}

// barrier records the batch b ends (when it had changes) and deletes the
// batches delivered since the last barrier.
func (s *SinkLog) barrier(b *Barrier) error {
	w := s.sc.Batch()
	if s.nextSeq > s.first {
		epoch := int64(b.Prev)
		if b.ofJob() {
			epoch = 0
		}
		if err := s.tables.Batches.Insert(w, []types.Datum{s.nextBatch, epoch, s.first, s.nextSeq}); err != nil {
			return err
		}
		s.nextBatch++
		s.first = s.nextSeq
	}
	mark := s.delivery.mark.Load()
	if mark == nil || mark.Batch <= s.truncated {
		return nil
	}
	s.truncated = mark.Batch
	all := []uint16{s.tables.Batches.Vnode(make([]types.Datum, len(s.tables.Batches.Types)))}
	upTo := &storage.KeyBound{Value: mark.Batch, Inclusive: true}
	if err := s.tables.Batches.DeleteRangeIn(w, storage.KeyRange{Upper: upTo}, all); err != nil {
		return err
	}
	return s.tables.Log.DeleteRangeIn(w, storage.KeyRange{Upper: &storage.KeyBound{Value: mark.End}}, all)
}
