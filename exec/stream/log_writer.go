package stream

import (
	"context"
	"fmt"
	"sync"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/failpoint"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// LogWriter keeps the log store of one scan actor of a creating job: it
// runs in the running graph, in an actor of its own, reading the changes
// of the upstream vnodes the scan owns, and appends each change to the
// log store in the running graph's epoch batch. It is cheap, so a
// barrier of the running graph waits for no backfill work (I8): the scan
// reads what the writer committed on the job's own barriers.
//
// At the JoinMutation of its job the actor's dispatcher attaches the
// channel to the scan before it sends the barrier; from that barrier on
// the writer passes everything through and the scan follows upstream.
type LogWriter struct {
	up       Input
	upstream *storage.Table
	sc       *StateContext
	tables   *BackfillTables
	owned    storage.VnodeBitmap
	job      uint32
	progress *BackfillProgress
	epochN   int64 // entries appended in the current epoch

	loadOnce   sync.Once
	loadErr    error
	forwarding bool
	nextSeq    int64
	row        []types.Datum
	pair       []types.Datum
	logRow     []types.Datum
}

// NewLogWriter returns the log writer of the scan of job that owns the
// upstream vnodes owned, reading the upstream's changes from up.
// progress, if not nil, is the scan's: the writer counts the entries it
// appends there.
func NewLogWriter(up Input, upstream *storage.Table, sc *StateContext, tables *BackfillTables, owned storage.VnodeBitmap, job uint32, progress *BackfillProgress) *LogWriter {
	return &LogWriter{up: up, upstream: upstream, sc: sc, tables: tables, owned: owned, job: job, progress: progress}
}

// Types implements Executor.
func (w *LogWriter) Types() []types.Type { return w.upstream.Types }

// Next implements Executor: it returns barriers (and, once joined,
// everything) and logs chunks.
func (w *LogWriter) Next(ctx context.Context) (Message, error) {
	if err := w.Load(); err != nil {
		return Message{}, err
	}
	for {
		m, err := w.up.Next(ctx)
		if err != nil || w.forwarding {
			return m, err
		}
		if failpoint.Enabled {
			if err := hitMsg(failpoint.ExecScanChunk, failpoint.ExecScanBarrier, m); err != nil {
				return Message{}, err
			}
		}
		if m.Barrier != nil {
			if w.progress != nil {
				w.progress.logged.Add(w.epochN)
			}
			w.epochN = 0
			if j, ok := m.Barrier.Mutation.(*JoinMutation); ok && j.Job == w.job {
				w.forwarding = true
			}
			return m, nil
		}
		err = w.log(m.Chunk)
		m.Chunk.Release()
		if err != nil {
			return Message{}, err
		}
	}
}

// Load finds the next sequence number, past every entry of the owned
// vnodes (entries of a vnode are replayed in seq order), once. It must
// run before the job's scan starts deleting entries (see
// Coordinator.startCreatingLocked): an entry consumed before the writer
// looked would let it reuse a seq the scan has gone past.
func (w *LogWriter) Load() error {
	w.loadOnce.Do(func() { w.loadErr = w.load() })
	return w.loadErr
}

func (w *LogWriter) load() error {
	for _, v := range w.owned.Vnodes() {
		// The committed log: the writer has written nothing yet (its
		// batch may be write-only, storage.NewWriteOnlyBatch).
		it := w.tables.Log.ScanVnode(w.sc.Store, v, nil)
		for it.Next() {
			w.nextSeq = max(w.nextSeq, it.Row()[0].(int64)+1)
		}
		if err := closeIter(it); err != nil {
			return err
		}
	}
	return nil
}

// log appends an upstream chunk to the log store. The log is kept per
// vnode, so an update pair whose halves have different vnodes (a pk
// change) is logged as a Delete and an Insert.
func (w *LogWriter) log(c *chunk.Chunk) error {
	b := w.sc.Batch()
	n := c.NumRows()
	for i := 0; i < n; i++ {
		op := c.Op(i)
		w.row = c.Row(i, w.row)
		if op == chunk.UpdateDelete && i+1 < n && c.Op(i+1) == chunk.UpdateInsert {
			w.pair = c.Row(i+1, w.pair)
			if w.upstream.Vnode(w.row) != w.upstream.Vnode(w.pair) {
				if err := w.append(b, chunk.Delete, w.row); err != nil {
					return err
				}
				op = chunk.Insert
				w.row, w.pair = w.pair, w.row
				i++
			}
		}
		if err := w.append(b, op, w.row); err != nil {
			return err
		}
	}
	return nil
}

func (w *LogWriter) append(b *storage.WriteBatch, op chunk.Op, row []types.Datum) error {
	v := w.upstream.Vnode(row)
	if invariants && !w.owned.Has(v) {
		panic(fmt.Sprintf("invariant I4 violated: log writer of table %d (job %d) received a row of vnode %d, which it does not own",
			w.upstream.ID, w.job, v))
	}
	w.logRow = append(w.logRow[:0], w.nextSeq, int64(op), int64(v))
	w.logRow = append(w.logRow, row...)
	if err := w.tables.Log.Insert(b, w.logRow); err != nil {
		return err
	}
	w.nextSeq++
	w.epochN++
	return nil
}
