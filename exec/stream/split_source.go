package stream

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// SplitErrorLog records the messages a SplitSource skipped as malformed.
type SplitErrorLog interface {
	RecordSourceError(rel uint32, split int32, offset int64, err error)
}

// SplitSourceOptions configure a SplitSource.
type SplitSourceOptions struct {
	// Job is the relation id ThrottleMutations of kind ThrottleSource
	// name; State the id of its position table (ConnectorStateTable).
	Job, State uint32
	// RowID is the index of the hidden row id column, or -1.
	RowID int
	// RateLimit caps the rows per second (0: none); Paused holds it.
	RateLimit int64
	Paused    bool
	// Progress, when set, counts the rows emitted (committed or about to
	// be); Skipped the malformed messages. Totals, when set, sums them
	// over the actors of the source's fragment and replaces them.
	Progress, Skipped *atomic.Int64
	Totals            *SplitTotals
	// Owner says which splits the actor reads, of a fragment of several
	// (the zero value: all of them).
	Owner connector.SplitOwner
	// Errors records malformed messages; nil: not recorded.
	Errors SplitErrorLog
	// ErrorState, when not 0, is the id of the table that keeps the
	// malformed messages (SplitErrorTable), written with the offsets in
	// each epoch's batch; Errors is then not told.
	ErrorState uint32
}

// Rows of a split source's position table besides its splits': the
// counters of slot k are under -1-2k (rows emitted) and -2-2k (messages
// skipped). Actor i of a fragment writes slot i (slot 0, splits -1 and
// -2, when it is alone, as before sources had several actors); see
// loadRow for the slots of actors a rescale removed.
const (
	splitRowsEmitted int32 = -1
	splitRowsSkipped int32 = -2
)

// counterKey is the position table's split id of counter which (0:
// emitted, 1: skipped) of slot k.
func counterKey(k, which int) int32 { return int32(-1 - 2*k - which) }

// counterSlot inverts counterKey for a split id below zero.
func counterSlot(split int32) (k, which int) {
	n := int(-split - 1)
	return n / 2, n % 2
}

// SplitSource is the entry of a source whose connector reads splits
// (Kafka). Barriers (and, for a table, DML chunks) arrive on in and pass
// through; between them it emits the rows its reader decoded, paced by
// the rate limit and held while paused. At every barrier it writes each
// split's next offset into its state table, in the epoch's batch: the
// rows emitted in an epoch and the offsets after them commit together,
// so after a failure the reader starts again at the committed offsets
// and every message reaches the graph exactly once (I3, I6).
//
// A source fragment of n actors runs n SplitSources, actor i reading
// the splits opts.Owner gives it, each with its own reader, and writing
// only the position rows of its splits and of its counter slot. They all
// scan the one position table (a few rows) and keep what they own, so a
// rescale, which replaces the actors at a barrier (the old ones write
// their offsets in that barrier's epoch and stop; the new ones start on
// the committed state), hands each split to its new owner with its
// offset, as vnodes move with their state (I4). Counter slots of actors
// that no longer exist fold into the slot of their new owner, in the
// same epoch batch that deletes them, so the sums stay exact.
type SplitSource struct {
	in     *Receiver
	reader connector.SplitReader
	sc     *StateContext
	state  *storage.Table
	opts   SplitSourceOptions
	typ    []types.Type

	loaded  bool
	started bool                    // a first barrier has passed: rows may flow
	next    map[int32]int64         // each split's next offset
	dirty   map[int32]bool          // splits whose next offset is not written
	counts  [2]int64                // rows emitted, messages skipped (own slot)
	saved   [2]int64                // counts as last written
	folded  []int32                 // counter rows of other slots, to delete
	totals  *SplitTotals            // sums of the fragment's actors, shown outside
	pending []connector.SplitRecord // taken from the reader, not emitted yet
	errs    *splitErrors            // kept malformed messages (nil: opts.Errors)
	nextAt  time.Time               // pacing clock under a rate limit
	row     []types.Datum
	builder *chunk.Builder
}

// NewSplitSource returns the source executor over reader; typ are its
// output types (the reader's columns, then the row id column if any). It
// owns reader: Close (an actor closer) closes it.
func NewSplitSource(in *Receiver, reader connector.SplitReader, sc *StateContext, typ []types.Type, opts SplitSourceOptions) *SplitSource {
	totals := opts.Totals
	if totals == nil {
		totals = NewSplitTotals(1, opts.Progress, opts.Skipped)
	}
	s := &SplitSource{in: in, reader: reader, sc: sc, opts: opts, typ: typ,
		state: ConnectorStateTable(opts.State), builder: chunk.NewBuilder(typ),
		next: map[int32]int64{}, dirty: map[int32]bool{}, totals: totals}
	if opts.ErrorState != 0 {
		s.errs = newSplitErrors(opts.ErrorState, opts.Owner.Actors)
	}
	return s
}

// Types implements Executor.
func (s *SplitSource) Types() []types.Type { return s.typ }

// Close stops the reader; the actor runs it when it exits.
func (s *SplitSource) Close() { s.reader.Close() }

// Next implements Executor. Upstream messages take precedence over
// records, so a barrier waits for one chunk at most, never for a poll.
func (s *SplitSource) Next(ctx context.Context) (Message, error) {
	if !s.loaded {
		if err := s.load(); err != nil {
			return Message{}, err
		}
	}
	for {
		select {
		case m, open := <-s.in.C:
			return s.handle(m, open)
		case <-ctx.Done():
			return Message{}, ctx.Err()
		default:
		}
		if !s.started || s.opts.Paused {
			m, _, err := s.waitFor(ctx, 0)
			return m, err
		}
		if d := time.Until(s.nextAt); d > 0 {
			m, ok, err := s.waitFor(ctx, d)
			if ok || err != nil {
				return m, err
			}
			continue
		}
		if len(s.pending) > 0 {
			if c := s.emit(); c != nil {
				return Message{Chunk: c}, nil
			}
			continue
		}
		select {
		case m, open := <-s.in.C:
			return s.handle(m, open)
		case recs, ok := <-s.reader.Records():
			if !ok {
				return Message{}, fmt.Errorf("stream: source %d: its reader stopped: %w", s.opts.Job, s.reader.Err())
			}
			if err := s.checkOwned(recs); err != nil {
				return Message{}, err
			}
			s.pending = recs
		case <-ctx.Done():
			return Message{}, ctx.Err()
		}
	}
}

// waitFor waits up to d (d <= 0: until one comes) for an upstream
// message; ok reports one.
func (s *SplitSource) waitFor(ctx context.Context, d time.Duration) (Message, bool, error) {
	return waitUpstream(ctx, s.in.C, d, s.handle)
}

// handle takes an upstream message: a barrier applies its mutation and
// persists the offsets; a DML chunk passes through.
func (s *SplitSource) handle(m Message, open bool) (Message, error) {
	if !open {
		return Message{}, ErrUpstreamEnded
	}
	if m.Barrier == nil {
		return m, nil
	}
	s.started = true
	if t, ok := m.Barrier.Mutation.(*ThrottleMutation); ok && t.Kind == ThrottleSource && t.Job == s.opts.Job {
		s.opts.RateLimit, s.opts.Paused = t.RateLimit, t.Paused
		s.nextAt = time.Time{}
	}
	if err := s.persist(); err != nil {
		return Message{}, fmt.Errorf("stream: source %d: %w", s.opts.Job, err)
	}
	return m, nil
}

// persist writes the offsets and counts that changed into the epoch's
// batch.
func (s *SplitSource) persist() error {
	w := s.sc.Batch()
	for split := range s.dirty {
		if err := s.state.Insert(w, []types.Datum{int64(split), s.next[split]}); err != nil {
			return err
		}
		delete(s.dirty, split)
	}
	for _, id := range s.folded {
		if err := s.state.Delete(w, []types.Datum{int64(id), int64(0)}); err != nil {
			return err
		}
	}
	fold := len(s.folded) > 0
	s.folded = nil
	if s.errs != nil {
		if err := s.errs.persist(w); err != nil {
			return err
		}
	}
	slot := s.opts.Owner.Slot()
	for i := range s.counts {
		if s.counts[i] != s.saved[i] || fold {
			if err := s.state.Insert(w, []types.Datum{int64(counterKey(slot, i)), s.counts[i]}); err != nil {
				return err
			}
			s.saved[i] = s.counts[i]
		}
	}
	return nil
}

// checkOwned fails on a record of a split the actor does not own: two
// actors reading one split would each emit its rows.
func (s *SplitSource) checkOwned(recs []connector.SplitRecord) error {
	for i := range recs {
		if !s.opts.Owner.Owns(recs[i].Split) {
			return fmt.Errorf("stream: source %d: the reader of actor %d of %d gave split %d, which is not its own",
				s.opts.Job, s.opts.Owner.Actor, s.opts.Owner.Actors, recs[i].Split)
		}
	}
	return nil
}

// load reads the committed offsets of the actor's splits and its
// counter slots, and starts the reader at them.
func (s *SplitSource) load() error {
	it := s.state.Scan(s.sc.Batch())
	for it.Next() {
		row := it.Row()
		s.loadRow(int32(row[0].(int64)), row[1].(int64))
	}
	err := it.Err()
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("stream: source %d: loading its offsets: %w", s.opts.Job, err)
	}
	if s.errs != nil {
		if err := s.errs.load(s.sc.Batch(), s.opts.Owner.Owns); err != nil {
			return fmt.Errorf("stream: source %d: %w", s.opts.Job, err)
		}
	}
	s.saved = s.counts
	s.totals.add(s.counts[0], s.counts[1], true)
	from := make(map[int32]int64, len(s.next))
	for k, v := range s.next {
		from[k] = v
	}
	s.reader.Start(from)
	s.loaded = true
	return nil
}

// loadRow takes one committed row of the position table: a split's next
// offset, or a counter. The counters of a slot the actor owns but does
// not write (an actor's before a rescale to fewer) add to its own and
// are deleted at its first barrier, in the batch that writes the sum.
func (s *SplitSource) loadRow(split int32, n int64) {
	if split >= 0 {
		if s.opts.Owner.Owns(split) {
			s.next[split] = n
		}
		return
	}
	k, which := counterSlot(split)
	if !s.opts.Owner.OwnsSlot(k) {
		return
	}
	s.counts[which] += n
	if k != s.opts.Owner.Slot() {
		s.folded = append(s.folded, split)
	}
}

// rate is the actor's share of the source's rate limit (0: none): the
// limit divided among the actors of its fragment, rounded up.
func (s *SplitSource) rate() int64 {
	r, n := s.opts.RateLimit, int64(s.opts.Owner.Actors)
	if r > 0 && n > 1 {
		r = (r + n - 1) / n
	}
	return r
}

// SplitRowID is the hidden row id of the message at offset of split: a
// function of where the message is, so a replayed message gets the id
// it had, and ids of two messages never meet (splits below 2^21,
// offsets below 2^40).
func SplitRowID(split int32, offset int64) int64 {
	return RowIDBase | int64(split)<<40 | offset&(1<<40-1)
}

// emit takes up to a chunk's worth of rows (under a rate limit, a tenth
// of a second's) from pending, advancing each split's offset past every
// record taken, rows or not; nil when none of them was a row. A record
// marked Delete (an upsert tombstone) goes out as a Delete of its key.
func (s *SplitSource) emit() *chunk.Chunk {
	n := scanChunkRows
	r := s.rate()
	if r > 0 {
		n = int(min(int64(n), max(1, r/10)))
	}
	rows, k, skipped := 0, 0, 0
	for ; k < len(s.pending) && rows < n; k++ {
		rec := &s.pending[k]
		s.next[rec.Split] = rec.Offset + 1
		s.dirty[rec.Split] = true
		if rec.Row == nil {
			if rec.Err != nil {
				skipped++
				if s.errs != nil {
					s.errs.add(rec.Split, rec.Offset, rec.Err, time.Now())
				} else if s.opts.Errors != nil {
					s.opts.Errors.RecordSourceError(s.opts.Job, rec.Split, rec.Offset, rec.Err)
				}
			}
			continue
		}
		if rec.Before != nil { // an update of a row's key: its old key goes first
			s.builder.Append(chunk.Delete, rec.Before)
			rows++
		}
		s.row = append(s.row[:0], rec.Row...)
		if s.opts.RowID >= 0 {
			s.row = append(s.row, SplitRowID(rec.Split, rec.Offset))
		}
		op := chunk.Insert
		if rec.Delete {
			op = chunk.Delete // an upsert tombstone: see Materialize.KeyedDeletes
		}
		s.builder.Append(op, s.row)
		rows++
	}
	clear(s.pending[:k])
	s.pending = s.pending[k:]
	s.counts[0] += int64(rows)
	s.counts[1] += int64(skipped)
	s.totals.add(int64(rows), int64(skipped), false)
	if rows == 0 {
		return nil
	}
	if r > 0 {
		now := time.Now()
		if s.nextAt.Before(now) {
			s.nextAt = now
		}
		s.nextAt = s.nextAt.Add(time.Duration(float64(rows) / float64(r) * float64(time.Second)))
	}
	return s.builder.Build()
}
