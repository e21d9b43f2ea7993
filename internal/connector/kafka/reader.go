package kafka

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/types"
)

// Reader tunables.
const (
	// bufferBatches bounds the decoded batches waiting for the source.
	bufferBatches = 4
	// maxPollRecords bounds the records of one batch.
	maxPollRecords = 4096
	// pollSlice is how long one poll waits before the reader looks for
	// new partitions.
	pollSlice = time.Second
	// partitionRefresh is how often it looks for new partitions.
	partitionRefresh = 5 * time.Second
)

// Reader is a connector.SplitReader over one topic: each partition is a
// split. Start runs one goroutine, owned by the Reader and joined by
// Close, that polls the brokers (kgo retries a broker that is down, with
// backoff), decodes the records and hands them over in batches through a
// bounded channel. Of a source read by several actors, each actor's
// Reader consumes only the partitions its SplitOwner gives it (Own),
// new ones included.
type Reader struct {
	opts  Options
	dec   Decoder
	owner connector.SplitOwner
	// payload is the number of columns the message's value fills.
	payload int

	out    chan []connector.SplitRecord
	cancel context.CancelFunc
	done   chan struct{}
	closed sync.Once

	mu  sync.Mutex
	err error
	// state is what SHOW SOURCES says of the brokers (State).
	state atomic.Pointer[string]
	// until, for a bounded reader (NewBackfillReader), is each
	// partition's bound; finished: it read its whole range.
	until    map[int32]int64
	finished atomic.Bool
}

// NewReader returns a reader of o's topic that decodes messages into
// cols.
func NewReader(o Options, cols []connector.Column) (*Reader, error) {
	dec, err := NewDecoder(o, cols)
	if err != nil {
		return nil, err
	}
	r := &Reader{opts: o, dec: dec, payload: len(cols) - len(o.Include),
		out: make(chan []connector.SplitRecord, bufferBatches)}
	r.setState("starting")
	return r, nil
}

// Own restricts the reader to the partitions o owns; call it before
// Start. Without it the reader reads them all.
func (r *Reader) Own(o connector.SplitOwner) { r.owner = o }

// Records implements connector.SplitReader.
func (r *Reader) Records() <-chan []connector.SplitRecord { return r.out }

// Err implements connector.SplitReader.
func (r *Reader) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		return errors.New("kafka: the reader was closed")
	}
	return r.err
}

// State describes the reader's connection: "starting", "running", or
// "retrying: <error>" while the brokers fail.
func (r *Reader) State() string { return *r.state.Load() }

func (r *Reader) setState(s string) { r.state.Store(&s) }

// Start implements connector.SplitReader.
func (r *Reader) Start(next map[int32]int64) {
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel, r.done = cancel, make(chan struct{})
	if sd, ok := r.dec.(startedDecoder); ok {
		sd.start(ctx, r.setState)
	}
	if r.until != nil {
		go r.runBounded(ctx, next)
		return
	}
	go r.run(ctx, next)
}

// Close implements connector.SplitReader.
func (r *Reader) Close() {
	r.closed.Do(func() {
		if r.cancel == nil {
			return // never started
		}
		r.cancel()
		<-r.done
	})
}

func (r *Reader) fail(err error) {
	r.mu.Lock()
	r.err = err
	r.mu.Unlock()
}

// run is the reader's goroutine.
// newClient returns the consumer of r's topic. A source's reader and a
// view's bounded backfill reader (backfill.go) must see the same offsets
// the same way, or a backfill's bound (the source's committed next
// offset) would not fall where its reader stops: read committed,
// transaction markers kept (they move the position: record), and an
// offset out of range reported, not reset (reader_retention.go).
func (r *Reader) newClient() (*kgo.Client, error) {
	return kgo.NewClient(kgo.SeedBrokers(r.opts.Brokers...), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.FetchMaxWait(200*time.Millisecond), kgo.ConsumeResetOffset(kgo.NoResetOffset()),
		kgo.KeepControlRecords())
}

func (r *Reader) run(ctx context.Context, next map[int32]int64) {
	defer close(r.done)
	defer close(r.out)
	cl, err := r.newClient()
	if err != nil {
		r.fail(fmt.Errorf("kafka: %w", err))
		return
	}
	defer cl.Close()
	a := &assigner{r: r, cl: cl, next: next, known: map[int32]bool{}, pos: map[int32]int64{}}
	for ctx.Err() == nil && !a.assign(ctx) {
		sleep(ctx, time.Second) // the brokers are down: kgo backs off within
	}
	refresh := time.Now().Add(partitionRefresh)
	for ctx.Err() == nil {
		pctx, cancel := context.WithTimeout(ctx, pollSlice)
		fs := cl.PollRecords(pctx, maxPollRecords)
		cancel()
		if ctx.Err() != nil {
			return
		}
		r.noteErrors(fs)
		batch := r.decode(fs)
		a.advance(batch)
		lost, err := a.recoverOutOfRange(ctx, outOfRange(fs, r.opts.Topic))
		if err != nil && ctx.Err() == nil {
			r.setState("retrying: " + err.Error())
		}
		// A lost range goes after the records before it.
		batch = append(batch, lost...)
		if len(batch) > 0 {
			select {
			case r.out <- batch:
			case <-ctx.Done():
				return
			}
		}
		if time.Now().After(refresh) {
			a.assign(ctx)
			refresh = time.Now().Add(partitionRefresh)
		}
	}
}

// noteErrors records the state the poll's errors show.
func (r *Reader) noteErrors(fs kgo.Fetches) {
	var last error
	fs.EachError(func(_ string, _ int32, err error) {
		if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) && !errors.Is(err, kerr.OffsetOutOfRange) {
			last = err
		}
	})
	switch {
	case last != nil:
		r.setState("retrying: " + last.Error())
	case !fs.Empty():
		r.setState("running")
	}
}

// decode turns a poll's records into split records.
func (r *Reader) decode(fs kgo.Fetches) []connector.SplitRecord {
	n := fs.NumRecords()
	if n == 0 {
		return nil
	}
	batch := make([]connector.SplitRecord, 0, n)
	fs.EachRecord(func(rec *kgo.Record) {
		batch = append(batch, r.record(rec))
	})
	return batch
}

// ErrNoKey is the error of an upsert message without a key: it names no
// row to replace or delete.
var ErrNoKey = errors.New("kafka: an upsert message without a key")

// record decodes one message: its value into the payload columns, then
// the INCLUDE columns. Under FORMAT PLAIN a tombstone (a null value) is
// skipped silently. Under FORMAT UPSERT a message without a key is an
// error, and a tombstone is a Delete of its key's row,
// with the payload columns NULL: the table's materialization deletes by
// primary key and retracts the row it stored (stream.Materialize's
// KeyedDeletes).
//
// A transaction's control marker (a commit or abort, which the client
// keeps: kgo.KeepControlRecords) is a record without a row or an error:
// it moves the split's next offset past it and nothing else, so a
// source's committed offset after a transaction is the log's stable end,
// not the marker's offset, and a view's backfill bound may fall right
// after a marker (backfill.go ends its read on the position for that).
func (r *Reader) record(rec *kgo.Record) connector.SplitRecord {
	if rec.Attrs.IsControl() {
		return connector.SplitRecord{Split: rec.Partition, Offset: rec.Offset}
	}
	if r.opts.Debezium {
		return r.debeziumRecord(rec) // debezium_record.go
	}
	out := connector.SplitRecord{Split: rec.Partition, Offset: rec.Offset}
	var row []types.Datum
	switch {
	case r.opts.Upsert && rec.Key == nil:
		out.Err = ErrNoKey
		return out
	case r.opts.Upsert && rec.Value == nil:
		row, out.Delete = make([]types.Datum, r.payload), true
	case rec.Value == nil:
		return out // a tombstone of a plain source: no row, as in RisingWave
	default:
		var err error
		if row, err = r.dec.Decode(rec.Value, nil); err != nil {
			if !errors.Is(err, ErrHeader) {
				out.Err = err
			}
			return out
		}
	}
	if kd, ok := r.dec.(keyDecoder); ok && r.opts.Upsert {
		if err := kd.DecodeKey(rec.Key, row); err != nil {
			out.Err, out.Delete = err, false
			return out
		}
	}
	for _, in := range r.opts.Include {
		row = append(row, in.value(rec))
	}
	out.Row = row
	return out
}

// assigner adds the topic's partitions the reader owns to the client's
// consumption, each at its committed offset, else its resolved start,
// else its log start (a partition created after the source).
type assigner struct {
	r     *Reader
	cl    *kgo.Client
	next  map[int32]int64
	known map[int32]bool
	// pos is each partition's position: the offset after the last
	// record handed over, or where it was added at; absent for one
	// added at its beginning and not read yet (reader_retention.go).
	pos map[int32]int64
}

// assign adds the partitions not consumed yet; false when the metadata
// could not be read.
func (a *assigner) assign(ctx context.Context) bool {
	mctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	parts, err := partitions(mctx, a.cl, a.r.opts.Topic)
	if err != nil {
		if ctx.Err() == nil {
			a.r.setState("retrying: " + err.Error())
		}
		return false
	}
	add := map[int32]kgo.Offset{}
	at := map[int32]int64{}
	for _, p := range parts {
		if a.known[p] || !a.r.owner.Owns(p) {
			continue
		}
		off, ok := a.next[p]
		if !ok {
			off, ok = a.r.opts.StartOffsets[p]
		}
		if ok {
			at[p] = off
		} else {
			add[p] = kgo.NewOffset().AtStart()
		}
	}
	lost, err := a.skipDeleted(mctx, at)
	if err != nil {
		if ctx.Err() == nil {
			a.r.setState("retrying: " + err.Error())
		}
		return false
	}
	if len(lost) > 0 {
		select {
		case a.r.out <- lost:
		case <-ctx.Done():
			return false
		}
	}
	for p, off := range at {
		add[p] = kgo.NewOffset().At(off)
		a.pos[p] = off
	}
	for p := range add {
		a.known[p] = true
	}
	if len(add) > 0 {
		a.cl.AddConsumePartitions(map[string]map[int32]kgo.Offset{a.r.opts.Topic: add})
		// The client fetches a partition once its own metadata has it,
		// which it may refresh only minutes later (a partition created
		// after the client started waited over 30 s on a loaded
		// machine): refresh it now.
		a.cl.ForceMetadataRefresh()
	}
	if *a.r.state.Load() == "starting" {
		a.r.setState("running")
	}
	return true
}

// skipDeleted moves each offset of at that the topic's retention already
// deleted (below its partition's log start) to the log start, and
// returns a record for each range it skipped: an error the source counts
// and lists, at the last offset lost, so the split's next offset after
// it is the log start. Without it kgo would reset to the log start
// silently (ConsumeResetOffset).
func (a *assigner) skipDeleted(ctx context.Context, at map[int32]int64) ([]connector.SplitRecord, error) {
	if len(at) == 0 {
		return nil, nil
	}
	parts := make([]int32, 0, len(at))
	for p := range at {
		parts = append(parts, p)
	}
	starts, err := listOffsets(ctx, a.cl, a.r.opts.Topic, parts, -2)
	if err != nil {
		return nil, fmt.Errorf("kafka: listing the log start offsets: %w", err)
	}
	var lost []connector.SplitRecord
	for _, p := range parts {
		if start := starts[p]; at[p] < start {
			lost = append(lost, connector.SplitRecord{Split: p, Offset: start - 1, Err: &LostError{Partition: p, From: at[p], To: start}})
			at[p] = start
		}
	}
	return lost, nil
}

// LostError reports messages deleted by a topic's retention before a
// source read them: offsets From to To-1 of Partition. Truncated, for a
// view's backfill (backfill.go), says the log ends below To: they are
// gone, not known to be deleted by retention.
type LostError struct {
	Partition int32
	From, To  int64
	Truncated bool
}

func (e *LostError) Error() string {
	if e.Truncated {
		return fmt.Sprintf("kafka: offsets %d to %d of partition %d (%d messages) are no longer in the topic's log, which ends before them",
			e.From, e.To-1, e.Partition, e.To-e.From)
	}
	return fmt.Sprintf("kafka: offsets %d to %d of partition %d (%d messages) were deleted by the topic's retention before they were read",
		e.From, e.To-1, e.Partition, e.To-e.From)
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
