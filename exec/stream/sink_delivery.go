package stream

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/failpoint"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// SinkChange is one change a sink delivers: an op and the input's row.
type SinkChange struct {
	Op  chunk.Op
	Row []types.Datum
}

// SinkBatch is what one barrier of a sink's input changed, in order.
type SinkBatch struct {
	// Seq numbers the sink's batches, from 1, in delivery order.
	Seq int64
	// Epoch is the running graph's epoch the batch ended; 0 for a batch
	// of the backfill.
	Epoch   uint64
	Changes []SinkChange
}

// SinkWriter delivers a sink's batches to its destination (the Kafka
// sink of internal/connector/kafka). One goroutine calls it.
type SinkWriter interface {
	// Open connects. A destination that records what it was given
	// itself (exactly once: a transaction commits the batch and its
	// number together) returns the last batch it holds, with ok; at
	// least once, ok is false and the sink's Delivered row says.
	Open(ctx context.Context) (last int64, ok bool, err error)
	// Write delivers one batch and returns the messages it sent; on an
	// error the batch is written again (exactly once: none of it was).
	Write(ctx context.Context, b *SinkBatch) (messages int, err error)
	// Close releases the connection.
	Close()
}

// sinkRetry bounds the wait before delivering again after an error;
// sinkPoll is how often delivery looks for committed batches besides
// the commits of the running graph's epochs (a creating job's
// checkpoints do not wake it); sinkRound bounds the batches read from
// one snapshot.
const (
	sinkRetryMin = 100 * time.Millisecond
	sinkRetryMax = 5 * time.Second
	sinkPoll     = 250 * time.Millisecond
	sinkRound    = 16
)

// sinkDelivery is a sink's delivery goroutine: it reads the batches that
// have committed, in order, and hands each to the writer; once the
// writer has delivered a batch it records the batch in the Delivered
// row (its own Pebble batch) and publishes the mark, from which the
// sink's actor deletes the delivered batches at its next barrier.
//
// At least once, a crash between the writer's acknowledgment and the
// Delivered row sends the batch again. Exactly once, the writer's
// destination records the batch number with the batch (Open reads it
// back), and the Delivered row only tells SHOW SINKS and the actor.
//
// A batch must be durable before it is delivered: one delivered and then
// lost with a crash would be made again, under the same number, with
// other rows. Epochs of the running graph commit synced; a creating
// job's checkpoints need not, so before delivering a backfill batch
// delivery makes a synced write (the WAL makes everything before it
// durable).
type sinkDelivery struct {
	store  *storage.Store
	tables *SinkTables
	w      SinkWriter

	mark  atomic.Pointer[SinkMark]
	sent  atomic.Int64
	state atomic.Pointer[string]

	startOnce, closeOnce sync.Once
	cancel               context.CancelFunc
	exited               chan struct{}
	cur                  SinkMark // the goroutine's
}

func newSinkDelivery(st *storage.Store, t *SinkTables, w SinkWriter) *sinkDelivery {
	d := &sinkDelivery{store: st, tables: t, w: w, exited: make(chan struct{})}
	d.setState("starting")
	return d
}

func (d *sinkDelivery) setState(s string) { d.state.Store(&s) }

// State describes the goroutine for SHOW SINKS.
func (d *sinkDelivery) State() string { return *d.state.Load() }

// Start starts the goroutine, once.
func (d *sinkDelivery) Start() {
	d.startOnce.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		d.cancel = cancel
		go func() {
			defer close(d.exited)
			defer d.w.Close()
			d.run(ctx)
		}()
	})
}

// Close stops the goroutine and waits for it (a no-op when it never
// started, and then it never will).
func (d *sinkDelivery) Close() {
	d.closeOnce.Do(func() {
		started := true
		d.startOnce.Do(func() { started = false })
		if !started {
			d.w.Close()
			return
		}
		d.cancel()
		<-d.exited
	})
}

// run delivers until ctx ends, retrying a failed delivery with backoff.
func (d *sinkDelivery) run(ctx context.Context) {
	wait := sinkRetryMin
	opened := false
	for ctx.Err() == nil {
		changed := d.store.EpochChanged()
		var err error
		if !opened {
			if err = d.open(ctx); err == nil {
				opened = true
			}
		}
		if err == nil {
			err = d.deliver(ctx)
		}
		pause := sinkPoll
		if err != nil && ctx.Err() == nil {
			// Connect again: what the destination holds is known
			// again (a batch it took may not be recorded here).
			opened = false
			d.setState("retrying: " + err.Error())
			pause, wait = wait, min(2*wait, sinkRetryMax)
		} else if err == nil {
			d.setState("delivering")
			wait = sinkRetryMin
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
		case <-changed:
		case <-t.C:
		}
		t.Stop()
	}
}

// open loads the Delivered row and connects; a destination that records
// batches itself moves the mark to its last one.
func (d *sinkDelivery) open(ctx context.Context) error {
	mark, err := LoadSinkMark(d.store, d.tables)
	if err != nil {
		return err
	}
	last, ok, err := d.w.Open(ctx)
	if err != nil {
		return err
	}
	if ok && last > mark.Batch {
		mark.Batch = last
		row, found, err := d.tables.Batches.Get(d.store, []types.Datum{last})
		if err != nil {
			return err
		}
		if found {
			b := decodeSinkBatch(row)
			mark.End, mark.Epoch = b.end, b.epoch
		}
		if err := d.record(mark, false); err != nil {
			return err
		}
	}
	d.cur = mark
	d.publish()
	return nil
}

func (d *sinkDelivery) publish() {
	m := d.cur
	d.mark.Store(&m)
}

// record writes mark as the Delivered row, in a Pebble batch of its own.
func (d *sinkDelivery) record(mark SinkMark, sync bool) error {
	w := d.store.NewWriteBatch()
	if err := d.tables.Delivered.Insert(w, mark.row()); err != nil {
		_ = w.Close()
		return err
	}
	return d.store.CommitJob([]*storage.WriteBatch{w}, sync)
}

// deliver delivers the committed batches after the mark, a round of
// them at a time.
func (d *sinkDelivery) deliver(ctx context.Context) error {
	for ctx.Err() == nil {
		n, err := d.deliverRound(ctx)
		if err != nil || n < sinkRound {
			return err
		}
	}
	return nil
}

func (d *sinkDelivery) deliverRound(ctx context.Context) (int, error) {
	snap := d.store.Snapshot()
	defer snap.Close()
	batches, err := d.pending(snap)
	if err != nil || len(batches) == 0 {
		return 0, err
	}
	for _, b := range batches {
		if b.epoch == 0 {
			// A backfill batch: make it durable first (see sinkDelivery).
			if err := d.record(d.cur, true); err != nil {
				return 0, err
			}
			break
		}
	}
	for _, b := range batches {
		sb, err := d.read(snap, b)
		if err != nil {
			return 0, err
		}
		n, err := d.w.Write(ctx, sb)
		if err != nil {
			return 0, fmt.Errorf("delivering batch %d: %w", b.batch, err)
		}
		if failpoint.Enabled {
			if err := failpoint.Hit(failpoint.SinkDelivered); err != nil {
				return 0, err
			}
		}
		next := SinkMark{Batch: b.batch, Epoch: b.epoch, End: b.end, Messages: d.cur.Messages + int64(n),
			Time: time.Now().UnixMicro()}
		if err := d.record(next, false); err != nil {
			return 0, err
		}
		d.cur = next
		d.sent.Add(int64(n))
		d.publish()
	}
	return len(batches), nil
}

// pending returns up to sinkRound committed batches after the mark.
func (d *sinkDelivery) pending(r storage.Reader) ([]sinkBatchRow, error) {
	it := d.tables.Batches.ScanRange(r, storage.KeyRange{Lower: &storage.KeyBound{Value: d.cur.Batch}})
	var out []sinkBatchRow
	for len(out) < sinkRound && it.Next() {
		out = append(out, decodeSinkBatch(it.Row()))
	}
	return out, closeIter(it)
}

// errSinkGap is the failure of a batch that does not follow the last
// delivered one: its changes were deleted, or never logged.
var errSinkGap = errors.New("stream: a sink batch's changes are missing from its log")

// read returns the changes of batch b.
func (d *sinkDelivery) read(r storage.Reader, b sinkBatchRow) (*SinkBatch, error) {
	sb := &SinkBatch{Seq: b.batch, Epoch: b.epoch, Changes: make([]SinkChange, 0, b.end-b.first)}
	it := d.tables.Log.ScanRange(r, storage.KeyRange{Lower: &storage.KeyBound{Value: b.first, Inclusive: true},
		Upper: &storage.KeyBound{Value: b.end}})
	for it.Next() {
		row := it.Row()
		sb.Changes = append(sb.Changes, SinkChange{Op: chunk.Op(row[1].(int64)), Row: append([]types.Datum(nil), row[2:]...)})
	}
	if err := closeIter(it); err != nil {
		return nil, err
	}
	if int64(len(sb.Changes)) != b.end-b.first {
		return nil, fmt.Errorf("%w: batch %d has %d of %d", errSinkGap, b.batch, len(sb.Changes), b.end-b.first)
	}
	return sb, nil
}
