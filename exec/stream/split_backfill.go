package stream

import (
	"context"
	"fmt"
	"time"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// Source backfill: the snapshot of a SOURCE whose connector reads splits
// (Kafka). A source stores no rows, so a view created over it would see
// only the messages read after its log writers attached. With
// ScanOptions.Splits the scan's snapshot phase reads the topic again
// instead of a table: each split from the source's startup position up
// to the source's committed next offset in the pinned snapshot (the
// source's position table, ConnectorStateTable, read through the same
// Pebble snapshot as the rest of the backfill), so the snapshot holds
// exactly the messages the source emitted up to the pinned epoch E0, and
// the log store the ones after it: every message reaches the view once
// (I3).
//
// The upstream's key is its hidden row id, SplitRowID(split, offset),
// which sorts by split then offset.
//
// Progress. The scan's per-vnode progress (last pk emitted) keeps its
// meaning: "every snapshot row of this vnode with a row id up to lastPK
// was emitted". A bounded reader reads the splits concurrently, so the
// scan reads them one split at a time instead (a reader per split, in
// split order): when the scan has taken split p up to offset o, every
// row of the snapshot with a row id up to SplitRowID(p, o) was emitted,
// whatever its vnode, and each owned vnode not done records that as its
// position (advanceSplits). At a resume (restart, recovery, rescale)
// the scan starts at the least position of its unfinished vnodes and
// emits a row only when it is past its own vnode's position, so a vnode
// that moved from an actor further along is not emitted twice (I4); the
// log entries past a vnode's position are purged at resume as for a
// table (purgeCovered): the new snapshot, pinned at the resume's epoch,
// reaches past them.

// BoundedSplitReader is a connector.SplitReader of a bounded range: its
// channel closes once the range is read, and Finished then says so.
type BoundedSplitReader interface {
	connector.SplitReader
	Finished() bool
}

// SplitBackfill makes a scan's snapshot the messages a source of splits
// emitted up to the pinned epoch (see above).
type SplitBackfill struct {
	// State is the id of the source's position table.
	State uint32
	// NewReader returns a reader of split up to until (excluded), to be
	// started from the split's start (Start(nil)) or from an offset.
	NewReader func(split int32, until int64) (BoundedSplitReader, error)
	// Errors, when not 0, is the source's error table (SplitErrorTable),
	// and Lost says which record errors are ranges the backfill found
	// lost (deleted by the topic's retention since the source read
	// them). The scan writes those into Errors in its job's epoch batch,
	// with the position past them (see saveLost); malformed messages the
	// source recorded itself when it read them.
	Errors uint32
	Lost   func(error) bool
	// Starts returns split's first offset the backfill reads, when
	// known (for SHOW JOBS' rows_total; nil: unknown).
	Starts func(split int32) (int64, bool)
}

// splitScan is a scan's read of a source's splits.
type splitScan struct {
	until  map[int32]int64
	splits []int32 // to read, ascending
	next   int     // index in splits of the next to open
	reader BoundedSplitReader
	split  int32
	recs   []connector.SplitRecord
	row    []types.Datum
	// rows counts the rows emitted per vnode since the last advance.
	rows map[uint16]int64
	// firstSplit is read from splitFrom on (a resume; -1: from its
	// start).
	firstSplit int32
	splitFrom  int64
	// last is the row id of the last record taken (moved: since the last
	// advance).
	last  int64
	moved bool
}

// startSplits reads the source's committed offsets through snap and
// positions the read at the least position of the unfinished vnodes.
func (s *StreamScan) startSplits(snap storage.Reader) error {
	if len(s.upstream.PK) != 1 || s.upstream.PK[0] != len(s.upstream.Types)-1 {
		return fmt.Errorf("stream: scan of source %d: a source backfill needs the hidden row id as the last column", s.upstream.ID)
	}
	ss := &splitScan{until: map[int32]int64{}, rows: map[uint16]int64{}}
	it := ConnectorStateTable(s.opts.Splits.State).Scan(snap)
	for it.Next() {
		row := it.Row()
		if p := int32(row[0].(int64)); p >= 0 {
			ss.until[p] = row[1].(int64)
		}
	}
	if err := closeIter(it); err != nil {
		return fmt.Errorf("stream: scan of source %d: its offsets: %w", s.upstream.ID, err)
	}
	from, any := int64(-1), false // the least position; -1: the start
	for _, v := range s.prog.owned {
		vp := &s.prog.vnodes[v]
		if vp.done {
			continue
		}
		var pos int64 = -1
		if vp.lastPK != nil {
			pos = vp.lastPK[0].(int64)
		}
		if !any || pos < from {
			from, any = pos, true
		}
	}
	for p, u := range ss.until {
		ss.splits = append(ss.splits, p)
		var start int64 // unknown: the log start, taken as 0
		if s.opts.Splits.Starts != nil {
			start, _ = s.opts.Splits.Starts(p)
		}
		s.prog.splitsTotal += max(0, u-start)
	}
	sortInt32(ss.splits)
	ss.splitFrom = -1
	if from >= 0 {
		p, o := splitOfRowID(from)
		keep := ss.splits[:0]
		for _, q := range ss.splits {
			if q >= p {
				keep = append(keep, q)
			}
		}
		ss.splits = keep
		ss.firstSplit, ss.splitFrom = p, o+1
	}
	s.splits = ss
	return nil
}

// splitOfRowID inverts SplitRowID.
func splitOfRowID(id int64) (int32, int64) {
	return int32((id &^ RowIDBase) >> 40), id & (1<<40 - 1)
}

func sortInt32(a []int32) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// nextSplits emits the next chunk of the splits' snapshot rows; ok is
// false when every split has been read (the phase then moves on). With
// nothing to emit yet it waits for records or for a job barrier, which it
// takes (ok).
func (s *StreamScan) nextSplits(ctx context.Context) (Message, bool, error) {
	ss := s.splits
	limit := s.chunkLimit()
fill:
	for s.builder.Len() < limit {
		if len(ss.recs) == 0 {
			if ss.reader == nil {
				if ss.next == len(ss.splits) {
					break
				}
				if err := s.openSplit(); err != nil {
					return Message{}, false, err
				}
				continue
			}
			if s.builder.Len() > 0 {
				select {
				case recs, open := <-ss.reader.Records():
					if err := s.takeRecords(recs, open); err != nil {
						return Message{}, false, err
					}
					continue
				default:
					break fill // emit what there is
				}
			}
			mayBlock(ctx)
			select {
			case m, open := <-s.opts.Barriers.C:
				working(ctx)
				if !open {
					return Message{}, false, ErrUpstreamEnded
				}
				// Records taken but not emitted (other vnodes', markers,
				// lost ranges) move the position the barrier saves.
				s.advanceSplits()
				m, err := s.jobBarrier(m)
				return m, true, err
			case recs, open := <-ss.reader.Records():
				working(ctx)
				if err := s.takeRecords(recs, open); err != nil {
					return Message{}, false, err
				}
				continue
			case <-ctx.Done():
				return Message{}, false, ctx.Err()
			}
		}
		rec := &ss.recs[0]
		ss.recs = ss.recs[1:]
		id := SplitRowID(rec.Split, rec.Offset)
		ss.last, ss.moved = id, true
		if rec.Row == nil || rec.Delete {
			// Malformed (the source recorded it), a transaction marker,
			// or lost.
			if rec.Err != nil && s.recordsLost(id) && s.opts.Splits.Lost(rec.Err) {
				s.splitLost = append(s.splitLost, splitError{splitErrorKey{rec.Split, rec.Offset}, time.Now().UnixMicro(),
					fmt.Sprintf("backfill of job %d: %v", s.opts.Job, rec.Err)})
			}
			continue
		}
		ss.row = append(append(ss.row[:0], rec.Row...), id)
		v := s.upstream.Vnode(ss.row)
		if !s.owned.Has(v) {
			continue
		}
		vp := &s.prog.vnodes[v]
		if vp.done || (vp.lastPK != nil && vp.lastPK[0].(int64) >= id) {
			continue
		}
		s.builder.Append(chunk.Insert, ss.row)
		ss.rows[v]++
	}
	s.advanceSplits()
	if n := s.builder.Len(); n > 0 {
		s.charge(n)
		s.publish()
		return Message{Chunk: s.builder.Build()}, true, nil
	}
	if ss.reader != nil || ss.next < len(ss.splits) {
		return Message{}, false, nil
	}
	for _, v := range s.prog.owned {
		if !s.prog.vnodes[v].done {
			s.prog.finishVnode(int(v))
		}
	}
	s.splits = nil
	s.prog.snapshotDone = true
	s.phase = phaseLogStore
	s.publish()
	return Message{}, false, nil
}

// takeRecords takes a batch from the split's reader; a closed channel
// ends the split (or fails the scan, when the reader failed).
func (s *StreamScan) takeRecords(recs []connector.SplitRecord, open bool) error {
	ss := s.splits
	if open {
		ss.recs = recs
		return nil
	}
	r := ss.reader
	ss.reader = nil
	r.Close()
	if !r.Finished() {
		return fmt.Errorf("stream: scan of source %d: reading split %d: %w", s.upstream.ID, ss.split, r.Err())
	}
	// The whole split is read: every row id of it up to its bound is.
	if u := ss.until[ss.split]; u > 0 {
		ss.last, ss.moved = SplitRowID(ss.split, u-1), true
	}
	return nil
}

// openSplit starts the reader of the next split.
func (s *StreamScan) openSplit() error {
	ss := s.splits
	p := ss.splits[ss.next]
	ss.next++
	next := int64(-1)
	if p == ss.firstSplit && ss.splitFrom >= 0 {
		next = ss.splitFrom
	}
	r, err := s.opts.Splits.NewReader(p, ss.until[p])
	if err != nil {
		return fmt.Errorf("stream: scan of source %d: %w", s.upstream.ID, err)
	}
	ss.reader, ss.split = r, p
	var from map[int32]int64
	if next >= 0 {
		from = map[int32]int64{p: next}
	}
	r.Start(from)
	return nil
}

// advanceSplits records the read's position in every owned vnode not
// done that is behind it, with the rows emitted of each.
func (s *StreamScan) advanceSplits() {
	ss := s.splits
	if !ss.moved {
		return
	}
	ss.moved = false
	for _, v := range s.prog.owned {
		vp := &s.prog.vnodes[v]
		if vp.done {
			continue
		}
		if vp.lastPK == nil {
			vp.lastPK = []types.Datum{ss.last}
		} else if vp.lastPK[0].(int64) < ss.last {
			vp.lastPK[0] = ss.last
		}
		n := ss.rows[v]
		vp.rows += n
		s.prog.rowsRead += n
		vp.dirty = true
	}
	clear(ss.rows)
}

// closeSplits stops a split read in progress.
func (s *StreamScan) closeSplits() {
	if s.splits != nil && s.splits.reader != nil {
		s.splits.reader.Close()
		s.splits.reader = nil
	}
}

// recordsLost reports whether this scan records a lost range whose last
// offset has row id id: the one scan of the view that owns vnode 0 does
// (every scan reads every split, and two actors may not write one key in
// an epoch, I4), when vnode 0's position is before id, as it would emit
// a row of vnode 0 there: the range was not recorded in a committed
// epoch (the position passes it in the batch that records it), and the
// owner of vnode 0, which reads from at most that position, meets it.
func (s *StreamScan) recordsLost(id int64) bool {
	if s.opts.Splits.Errors == 0 || s.opts.Splits.Lost == nil || !s.owned.Has(0) {
		return false
	}
	vp := &s.prog.vnodes[0]
	return !vp.done && (vp.lastPK == nil || vp.lastPK[0].(int64) < id)
}

// saveLost writes the ranges the backfill found lost since the last job
// barrier into the source's error table, in the job's epoch batch w:
// the batch that also saves the progress past them, so a range is
// listed once the epoch commits and, read again after a recovery, is
// written again under the same key (split, last offset lost), as the
// source's own lost ranges are (streamdb_catalog.source_errors lists
// both). Of a view's scans only one writes them (recordsLost).
func (s *StreamScan) saveLost(w *storage.WriteBatch) error {
	if len(s.splitLost) == 0 {
		return nil
	}
	t := SplitErrorTable(s.opts.Splits.Errors)
	for _, e := range s.splitLost {
		if err := t.Insert(w, []types.Datum{int64(e.split), e.offset, e.at, e.err}); err != nil {
			return fmt.Errorf("stream: scan of source %d: recording a lost range: %w", s.upstream.ID, err)
		}
	}
	s.splitLost = s.splitLost[:0]
	return nil
}
