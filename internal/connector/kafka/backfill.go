package kafka

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamdb/streamdb/internal/connector"
)

// Source backfill (a view created over a SOURCE that already runs).
//
// A source stores no rows: a view created after it would see only the
// messages its reader takes from then on. Instead, the view's scans
// (exec/stream.StreamScan with ScanOptions.Splits) read the topic again
// from the source's startup position (the offsets resolved at CREATE,
// OptStartOffsets) up to the offsets the source had committed at the
// epoch the view's backfill snapshot is pinned at: exactly the messages
// the source emitted before the view's log writers attached to it. A
// bounded Reader (NewBackfillReader) does that read: it consumes only
// the partitions of its range, drops every record at or past its bound,
// and closes its channel once each partition reached its bound; Finished
// then reports true.

// NewBackfillReader returns a reader of o's topic, decoding into cols,
// that reads each partition p of until from its start (the offset
// Start's next gives it, else the resolved start offset, else the log
// start) up to until[p]-1 and then stops: its channel closes and
// Finished reports true. Start's next names, for a backfill resumed
// after a failure, the offset after the last message already taken.
func NewBackfillReader(o Options, cols []connector.Column, until map[int32]int64) (*Reader, error) {
	r, err := NewReader(o, cols)
	if err != nil {
		return nil, err
	}
	r.until = until
	if r.until == nil {
		r.until = map[int32]int64{}
	}
	return r, nil
}

// Finished reports whether a bounded reader read its whole range (its
// channel is then closed).
func (r *Reader) Finished() bool { return r.finished.Load() }

// runBounded is a bounded reader's goroutine (see NewBackfillReader).
//
// Where a partition's read ends. The bound of partition p is the offset
// after the last one its source took, but the offset bound-1 need not be
// a record this reader sees: it may be a transaction's control marker,
// an aborted transaction's record (hidden under read_committed), or a
// record the topic's compaction removed since. So a partition ends on
// its position, not on a record: the position is the offset after the
// last record fetched, control markers included (the client keeps them,
// kgo.KeepControlRecords, and the reader drops them after counting
// them), and the read ends once it reaches the bound. Every decided
// offset below the log's last stable offset is followed by a visible
// record or marker (an aborted transaction by its abort marker, a
// compacted hole by the record that replaced it), so the position
// passes the bound as soon as the log holds anything at or past it.
// When it does not (the log ends below the bound: truncated, or
// recreated), a partition that got nothing for stableCheck asks the
// log's last stable offset; at or below its position, nothing below the
// bound is left: the rest of the range is reported lost (a LostError)
// and the read ends. Retention that deletes the range under the reader
// is reported as in a source's reader (reader_retention.go), clamped to
// the bound.
func (r *Reader) runBounded(ctx context.Context, next map[int32]int64) {
	defer close(r.done)
	defer close(r.out)
	at, fromStart := r.boundedStarts(next)
	if len(at) == 0 {
		r.finished.Store(true)
		return
	}
	cl, err := r.newClient()
	if err != nil {
		r.fail(fmt.Errorf("kafka: %w", err))
		return
	}
	defer cl.Close()
	lost, ok := r.skipDeletedBounded(ctx, cl, at, fromStart)
	if !ok || !r.send(ctx, lost) {
		return
	}
	b := &boundedRead{r: r, cl: cl, left: map[int32]int64{}, moved: map[int32]time.Time{},
		a: &assigner{r: r, cl: cl, pos: map[int32]int64{}, known: map[int32]bool{}}}
	add := map[int32]kgo.Offset{}
	for p, off := range at {
		add[p] = kgo.NewOffset().At(off)
		b.a.pos[p], b.left[p], b.moved[p] = off, r.until[p], time.Now()
	}
	if len(add) > 0 {
		cl.AddConsumePartitions(map[string]map[int32]kgo.Offset{r.opts.Topic: add})
		cl.ForceMetadataRefresh()
	}
	r.setState("running")
	for ctx.Err() == nil && len(b.left) > 0 {
		pctx, cancel := context.WithTimeout(ctx, pollSlice)
		fs := cl.PollRecords(pctx, maxPollRecords)
		cancel()
		if ctx.Err() != nil {
			return
		}
		r.noteErrors(fs)
		batch := b.take(fs)
		more, err := b.a.recoverOutOfRange(ctx, outOfRange(fs, r.opts.Topic))
		if err != nil && ctx.Err() == nil {
			r.setState("retrying: " + err.Error())
		}
		batch = append(batch, b.clamp(more)...)
		batch = append(batch, b.endReached(ctx)...)
		if !r.send(ctx, batch) {
			return
		}
	}
	if ctx.Err() == nil {
		r.finished.Store(true)
	}
}

// stableCheck is how long a bounded read of a partition waits for a
// record before it asks whether the log still reaches the bound.
const stableCheck = 2 * time.Second

// boundedStarts returns where each owned partition of the range starts
// (Start's next, else the resolved start offset, else 0: the log start)
// and which start at the log start with no known offset (a loss there is
// not reported: nothing of the partition was taken). A partition
// already at its bound is left out.
func (r *Reader) boundedStarts(next map[int32]int64) (at map[int32]int64, fromStart map[int32]bool) {
	at, fromStart = map[int32]int64{}, map[int32]bool{}
	for p, u := range r.until {
		if !r.owner.Owns(p) {
			continue
		}
		from, ok := next[p]
		if !ok {
			from, ok = r.opts.StartOffsets[p]
		}
		if !ok {
			from, fromStart[p] = 0, true
		}
		if from < u {
			at[p] = from
		}
	}
	return at, fromStart
}

// skipDeletedBounded moves each start of at that the topic's retention
// deleted since the source read it to the log start, dropping the
// partitions that leaves at their bound, and returns a LostError record
// for each range skipped, clamped to the bound. It retries while the
// brokers fail; ok is false when ctx ended first.
func (r *Reader) skipDeletedBounded(ctx context.Context, cl *kgo.Client, at map[int32]int64, fromStart map[int32]bool) (lost []connector.SplitRecord, ok bool) {
	parts := make([]int32, 0, len(at))
	for p := range at {
		parts = append(parts, p)
	}
	for ctx.Err() == nil {
		lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		starts, err := listOffsets(lctx, cl, r.opts.Topic, parts, -2)
		cancel()
		if err != nil {
			r.setState("retrying: " + err.Error())
			sleep(ctx, time.Second)
			continue
		}
		for _, p := range parts {
			start, u := starts[p], r.until[p]
			if at[p] >= start {
				continue
			}
			if !fromStart[p] {
				to := min(start, u)
				lost = append(lost, connector.SplitRecord{Split: p, Offset: to - 1, Err: &LostError{Partition: p, From: at[p], To: to}})
			}
			at[p] = start
			if start >= u {
				delete(at, p)
			}
		}
		return lost, true
	}
	return nil, false
}

// send hands a batch over (nothing for an empty one); false when ctx
// ended first.
func (r *Reader) send(ctx context.Context, batch []connector.SplitRecord) bool {
	if len(batch) == 0 {
		return true
	}
	select {
	case r.out <- batch:
		return true
	case <-ctx.Done():
		return false
	}
}

// boundedRead is runBounded's state; only its goroutine uses it.
type boundedRead struct {
	r  *Reader
	cl *kgo.Client
	// a.pos is each partition's position: the offset after the last
	// record fetched, control markers included.
	a *assigner
	// left holds the bound of each partition still read; moved when its
	// position last moved (or its stable end was last asked).
	left  map[int32]int64
	moved map[int32]time.Time
}

// take advances the positions past the records of fs and returns the
// decoded data records below their partition's bound.
func (b *boundedRead) take(fs kgo.Fetches) []connector.SplitRecord {
	var out []connector.SplitRecord
	now := time.Now()
	fs.EachPartition(func(ftp kgo.FetchTopicPartition) {
		u, reading := b.left[ftp.Partition]
		if ftp.Topic != b.r.opts.Topic || !reading {
			return
		}
		for _, rec := range ftp.Records {
			if rec.Offset >= b.a.pos[rec.Partition] {
				b.a.pos[rec.Partition], b.moved[rec.Partition] = rec.Offset+1, now
			}
			if rec.Offset >= u || rec.Attrs.IsControl() {
				continue // past the bound (the view takes it live), or a marker
			}
			out = append(out, b.r.record(rec))
		}
	})
	return out
}

// clamp keeps the lost ranges of partitions still read, cut at their
// bound.
func (b *boundedRead) clamp(lost []connector.SplitRecord) []connector.SplitRecord {
	kept := lost[:0]
	for _, rec := range lost {
		u, reading := b.left[rec.Split]
		if !reading {
			continue
		}
		if lerr, ok := rec.Err.(*LostError); ok && lerr.To > u {
			lerr.To, rec.Offset = u, u-1
		}
		kept = append(kept, rec)
	}
	return kept
}

// endReached ends the read of each partition whose position reached its
// bound, and of each whose log no longer reaches its position (see
// runBounded), returning a LostError record for the rest of the range
// of those.
func (b *boundedRead) endReached(ctx context.Context) []connector.SplitRecord {
	var ended, idle []int32
	now := time.Now()
	for p, u := range b.left {
		switch {
		case b.a.pos[p] >= u:
			ended = append(ended, p)
		case now.Sub(b.moved[p]) >= stableCheck:
			idle = append(idle, p)
		}
	}
	var lost []connector.SplitRecord
	if len(idle) > 0 {
		lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		ends, err := listStableEnds(lctx, b.cl, b.r.opts.Topic, idle)
		cancel()
		for _, p := range idle {
			b.moved[p] = now
			if end, ok := ends[p]; err == nil && ok && end <= b.a.pos[p] {
				u := b.left[p]
				lost = append(lost, connector.SplitRecord{Split: p, Offset: u - 1,
					Err: &LostError{Partition: p, From: b.a.pos[p], To: u, Truncated: true}})
				ended = append(ended, p)
			}
		}
	}
	for _, p := range ended {
		delete(b.left, p)
	}
	if len(ended) > 0 {
		b.cl.RemoveConsumePartitions(map[string][]int32{b.r.opts.Topic: ended})
	}
	return lost
}
