package stream

import (
	"context"
	"fmt"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// SubscriptionTables are the state of a subscription (CREATE
// SUBSCRIPTION): the change log of the relation it follows, and the
// epochs the log holds.
//
//   - Log: (seq, op, the relation's columns...), keyed by seq, which
//     rises by one per change in the order the changes reached the log;
//   - Epochs: (epoch, first, end, time), one row per epoch of the running
//     graph the log covers, written by the barrier that ends the epoch:
//     the epoch's changes are the log rows with first <= seq < end, and
//     time (unix microseconds) is when the epoch ended.
//
// Both commit with the epoch, so a reader's snapshot holds an epoch's row
// exactly when it holds the epoch's changes. Neither is spread over
// vnodes: a subscription's log is written by one actor.
type SubscriptionTables struct {
	Log, Epochs *storage.Table
}

// NewSubscriptionTables lays out the tables with the given ids for a
// relation of types rel.
func NewSubscriptionTables(logID, epochsID uint32, rel []types.Type) *SubscriptionTables {
	logTypes := append([]types.Type{types.TInt64, types.TInt64}, rel...)
	return &SubscriptionTables{
		Log:    &storage.Table{ID: logID, Types: logTypes, PK: []int{0}},
		Epochs: &storage.Table{ID: epochsID, Types: []types.Type{types.TInt64, types.TInt64, types.TInt64, types.TInt64}, PK: []int{0}},
	}
}

// The columns of a SubscriptionTables' Epochs row.
const (
	subEpoch = iota
	subFirst
	subEnd
	subTime
)

// SubscriptionEpoch is one epoch a subscription's log covers.
type SubscriptionEpoch struct {
	Epoch      uint64
	First, End int64 // the epoch's changes: First <= seq < End
	TimeMicros int64 // when the epoch ended
}

// DecodeSubscriptionEpoch reads a row of SubscriptionTables.Epochs.
func DecodeSubscriptionEpoch(row []types.Datum) SubscriptionEpoch {
	return SubscriptionEpoch{Epoch: uint64(row[subEpoch].(int64)), First: row[subFirst].(int64),
		End: row[subEnd].(int64), TimeMicros: row[subTime].(int64)}
}

// SubscriptionLog appends every change of its input, the stream of the
// relation a subscription follows, to the subscription's log, and records
// at each barrier the epoch it ends (see SubscriptionTables). It drops the
// epochs that ended more than Retention before a barrier, with their
// changes, by range deletion. It emits barriers only: nothing reads a
// subscription downstream.
//
// A new subscription's first barrier (Fresh) is the one that attached it:
// the epoch it ends had changes before the subscription saw any, so it is
// not recorded. After a rebuild the first barrier ends an epoch whose
// changes all came after it, and is recorded.
type SubscriptionLog struct {
	in        Executor
	sc        *StateContext
	tables    *SubscriptionTables
	retention int64 // microseconds; 0 keeps everything
	fresh     bool

	loaded  bool
	nextSeq int64 // the seq of the next change
	first   int64 // the first seq of the current epoch
	oldest  int64 // when the oldest recorded epoch ended (0: none)
	row     []types.Datum
	logRow  []types.Datum
}

// NewSubscriptionLog returns the log writer of a subscription; fresh says
// the subscription is new (its first barrier attaches it).
func NewSubscriptionLog(in Executor, sc *StateContext, tables *SubscriptionTables, retentionMicros int64, fresh bool) *SubscriptionLog {
	return &SubscriptionLog{in: in, sc: sc, tables: tables, retention: retentionMicros, fresh: fresh}
}

// Types implements Executor.
func (s *SubscriptionLog) Types() []types.Type { return s.in.Types() }

// Next implements Executor.
func (s *SubscriptionLog) Next(ctx context.Context) (Message, error) {
	if !s.loaded {
		if err := s.load(); err != nil {
			return Message{}, err
		}
		s.loaded = true
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

// load finds the next seq (past the last recorded epoch's end) and the
// oldest epoch's time.
func (s *SubscriptionLog) load() error {
	it := s.tables.Epochs.ScanPrefix(s.sc.Store, nil, true)
	if it.Next() {
		s.nextSeq = DecodeSubscriptionEpoch(it.Row()).End
	}
	if err := closeIter(it); err != nil {
		return err
	}
	s.first = s.nextSeq
	it = s.tables.Epochs.ScanPrefix(s.sc.Store, nil, false)
	if it.Next() {
		s.oldest = DecodeSubscriptionEpoch(it.Row()).TimeMicros
	}
	return closeIter(it)
}

func (s *SubscriptionLog) append(c *chunk.Chunk) error {
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

// barrier records the epoch b ends and drops the epochs past retention.
func (s *SubscriptionLog) barrier(b *Barrier) error {
	if s.fresh {
		s.fresh = false
		if s.nextSeq != s.first {
			return fmt.Errorf("stream: subscription log %d took changes before the barrier that attached it", s.tables.Log.ID)
		}
		return nil
	}
	w := s.sc.Batch()
	row := []types.Datum{int64(b.Prev), s.first, s.nextSeq, b.Time}
	if err := s.tables.Epochs.Insert(w, row); err != nil {
		return err
	}
	if s.oldest == 0 {
		s.oldest = b.Time
	}
	s.first = s.nextSeq
	if s.retention <= 0 || b.Time-s.oldest <= s.retention {
		return nil
	}
	return s.expire(w, b.Prev, b.Time-s.retention)
}

// expire drops the epochs that ended before cutoff, and their changes;
// the epoch just recorded, newest, always stays.
func (s *SubscriptionLog) expire(w *storage.WriteBatch, newest uint64, cutoff int64) error {
	it := s.tables.Epochs.ScanPrefix(w, nil, false)
	var last *SubscriptionEpoch
	s.oldest = 0
	for it.Next() {
		e := DecodeSubscriptionEpoch(it.Row())
		if e.TimeMicros >= cutoff || e.Epoch == newest {
			s.oldest = e.TimeMicros
			break
		}
		last = &e
	}
	if err := closeIter(it); err != nil || last == nil {
		return err
	}
	// Neither table has a DistKey: all of a table's rows are in one vnode.
	all := []uint16{s.tables.Epochs.Vnode(make([]types.Datum, len(s.tables.Epochs.Types)))}
	upTo := &storage.KeyBound{Value: int64(last.Epoch), Inclusive: true}
	if err := s.tables.Epochs.DeleteRangeIn(w, storage.KeyRange{Upper: upTo}, all); err != nil {
		return err
	}
	return s.tables.Log.DeleteRangeIn(w, storage.KeyRange{Upper: &storage.KeyBound{Value: last.End}}, all)
}
