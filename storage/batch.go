package storage

import (
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"

	"github.com/streamdb/streamdb/internal/failpoint"
)

// WriteBatch stages the state writes of one actor for one epoch. Reads
// through it see committed state plus its own writes (a Pebble indexed
// batch; an iterator sees the batch as it was when the iterator was
// made). Not safe for concurrent use.
//
// A batch starts unindexed, which makes writes cheap (no skiplist
// insert per key), and becomes indexed at its first read: the writes so
// far are copied into an indexed batch once. An actor that only writes
// in an epoch (a view's Materialize in release builds, a filter or
// projection over a source) never pays for an index.
type WriteBatch struct {
	s *Store
	b *pebble.Batch // nil once closed or committed
	// indexed: b is a Pebble indexed batch that reads can go through.
	indexed bool
	// writeOnly batches are never indexed: reads through them fail
	// (ErrWriteOnly).
	writeOnly bool
	// sizeHint, until the first write, is the capacity to give the batch
	// then (see SizeHint).
	sizeHint int

	key, val []byte // scratch buffers reused by Table writes

	ingests []*Ingest // see AddIngest
}

// NewWriteBatch returns an empty batch. On a closed store the batch's
// operations fail with ErrClosed.
func (s *Store) NewWriteBatch() *WriteBatch {
	w := &WriteBatch{s: s}
	if !s.closed.Load() {
		w.b = s.db.NewBatch()
	}
	return w
}

// NewWriteOnlyBatch returns an empty batch that cannot be read through
// (no index is kept of its writes, which makes filling it cheaper): for
// actors that only write, such as a table's materialization of DML its
// statements have already checked.
func (s *Store) NewWriteOnlyBatch() *WriteBatch {
	w := &WriteBatch{s: s, writeOnly: true}
	if !s.closed.Load() {
		w.b = s.db.NewBatch()
	}
	return w
}

// maxSizeHint caps SizeHint.
const maxSizeHint = 64 << 20

// SizeHint asks for n bytes of room at the first write (at most 64 MiB),
// so that a batch expected to grow as large as the last epoch's does not
// grow by copying. An idle actor's batch allocates nothing.
func (w *WriteBatch) SizeHint(n int) { w.sizeHint = min(n, maxSizeHint) }

// Len returns the size in bytes of the staged writes.
func (w *WriteBatch) Len() int {
	if w.b == nil {
		return 0
	}
	return w.b.Len()
}

// presize gives an empty batch the room SizeHint asked for.
func (w *WriteBatch) presize() {
	hint := w.sizeHint
	w.sizeHint = 0
	if w.b.Empty() && hint > 0 {
		nb := w.s.db.NewBatchWithSize(hint)
		_ = w.b.Close()
		w.b = nb
	}
}

// ErrWriteOnly is returned by reads through a batch made by
// NewWriteOnlyBatch.
var ErrWriteOnly = errors.New("storage: read through a write-only batch")

// WriteOnly reports whether the batch was made by NewWriteOnlyBatch.
func (w *WriteBatch) WriteOnly() bool { return w.writeOnly }

// Count returns the number of writes staged.
func (w *WriteBatch) Count() uint32 {
	if w.b == nil {
		return 0
	}
	return w.b.Count()
}

// Empty reports whether nothing is staged.
func (w *WriteBatch) Empty() bool { return w.b == nil || w.b.Empty() }

// Close discards the batch without committing it. Closing twice, or after
// CommitEpoch, is harmless.
func (w *WriteBatch) Close() error {
	w.discardIngests()
	if w.b == nil {
		return nil
	}
	err := w.b.Close()
	w.b = nil
	return err
}

func (w *WriteBatch) owner() *Store { return w.s }

func (w *WriteBatch) reader() (pebble.Reader, error) {
	if w.b == nil || w.s.closed.Load() {
		return nil, ErrClosed
	}
	if w.writeOnly {
		return nil, ErrWriteOnly
	}
	if !w.indexed {
		ib := w.s.db.NewIndexedBatchWithSize(max(w.b.Len(), w.sizeHint))
		w.sizeHint = 0
		if err := ib.Apply(w.b, nil); err != nil {
			_ = ib.Close()
			return nil, fmt.Errorf("storage: index write batch: %w", err)
		}
		_ = w.b.Close()
		w.b, w.indexed = ib, true
	}
	return w.b, nil
}

func (w *WriteBatch) set(key, value []byte) error {
	if w.b == nil {
		return ErrClosed
	}
	if w.sizeHint > 0 {
		w.presize()
	}
	return w.b.Set(key, value, nil)
}

func (w *WriteBatch) delete(key []byte) error {
	if w.b == nil {
		return ErrClosed
	}
	if w.sizeHint > 0 {
		w.presize()
	}
	if id, ok := tableOfKey(key); ok && w.s.hasBlocks(id) {
		// A deletion would uncover a block's row: hide it (block_keys.go).
		return w.b.Set(key, tombstoneValue, nil)
	}
	return w.b.Delete(key, nil)
}

func (w *WriteBatch) deleteRange(start, end []byte) error {
	if w.b == nil {
		return ErrClosed
	}
	if w.sizeHint > 0 {
		w.presize()
	}
	return w.b.DeleteRange(start, end, nil)
}

// Set stages key = value, a row of a table: key made by the table's key
// functions (AppendRowKey), value by EncodeRow. For writers that encode
// rows themselves (for instance to keep them in memory too).
func (w *WriteBatch) Set(key, value []byte) error { return w.set(key, value) }

// Delete stages the deletion of key, a key made by a table's key
// functions.
func (w *WriteBatch) Delete(key []byte) error { return w.delete(key) }

// CommitEpoch atomically applies batches (nil entries ignored), whose
// keys must be disjoint (they are applied in no particular order), and
// records epoch as committed,
// in one Pebble batch written with Sync (NoSync under Options.NoSync):
// after a crash either all of it is there or none. The batches are closed
// whatever the outcome. epoch must be greater than CommittedEpoch;
// CommitEpoch calls are serialized.
func (s *Store) CommitEpoch(epoch uint64, batches []*WriteBatch) error {
	defer closeAll(batches)
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	if err := s.writable(); err != nil {
		return err
	}
	if cur := s.epoch.Load(); epoch <= cur {
		return fmt.Errorf("%w: %d after %d", ErrEpochNotIncreasing, epoch, cur)
	}
	return s.commitLocked(epoch, batches)
}

// CommitComponents is CommitEpoch for the barriers of parts of the
// streaming graph that commit on their own (components, whose state and
// sources are disjoint): epoch, the greatest of them, may be at or below
// CommittedEpoch when another part committed a later epoch first. The
// record keeps the greatest epoch ever committed, so epochs numbered
// after a reopen are above every part's.
func (s *Store) CommitComponents(epoch uint64, batches []*WriteBatch) error {
	defer closeAll(batches)
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	if err := s.writable(); err != nil {
		return err
	}
	return s.commitLocked(max(epoch, s.epoch.Load()), batches)
}

// CommitJob atomically applies batches (nil entries ignored, keys
// disjoint) like CommitEpoch, but records no epoch: it commits the
// checkpoint of a job that runs on its own barriers (a view being
// created), whose state tables nothing else writes. It is written
// without Sync: a crash keeps it or drops it whole, the job then resumes
// from its checkpoint before, and the next synced commit (any epoch's)
// makes it durable with everything before it in the WAL; with sync it is
// durable when CommitJob returns (as CommitEpoch's are). The batches are
// closed whatever the outcome.
//
// It never waits for an epoch's commit in progress, nor makes one wait:
// its ingests (a backfill's bulk of rows) have a pending-ingest record of
// their own (jobIngestKey), and no snapshot waits for them (nothing reads
// a creating job's tables but the job, which waits for its commit).
func (s *Store) CommitJob(batches []*WriteBatch, sync bool) error {
	opts := pebble.NoSync
	if sync {
		opts = s.writeOpts
	}
	defer closeAll(batches)
	if err := s.writable(); err != nil {
		return err
	}
	b, owned, ingest, err := s.prepareCommit(batches)
	if err != nil {
		return err
	}
	if owned {
		defer b.Close()
	}
	if len(ingest) == 0 {
		if b.Empty() {
			return nil
		}
		if err := s.guard(func() error { return b.Commit(opts) }); err != nil {
			return fmt.Errorf("storage: commit of a job checkpoint: %w", err)
		}
		return nil
	}
	key := jobIngestKey(s.jobIngests.Add(1))
	tried := false
	defer func() {
		if !tried {
			s.removeStaged(stagedNames(ingest))
		}
	}()
	if err := b.Set(key, encodePendingIngest(0, ingest), nil); err != nil {
		return fmt.Errorf("storage: commit of a job checkpoint: %w", err)
	}
	tried = true
	// Synced: the record must be durable before the files are ingested.
	if err := s.guard(func() error { return b.Commit(s.writeOpts) }); err != nil {
		return fmt.Errorf("storage: commit of a job checkpoint: %w", err)
	}
	if err := s.applyIngest(ingest, key); err != nil {
		// Committed, not yet ingested: a reopen redoes it.
		return fmt.Errorf("storage: ingest of a job checkpoint: %w", s.fail(err))
	}
	return nil
}

// prepareCommit merges batches into the Pebble batch to commit (owned:
// the caller closes it) and claims their ingests.
func (s *Store) prepareCommit(batches []*WriteBatch) (b *pebble.Batch, owned bool, ingest []stagedFile, err error) {
	b, owned, err = s.epochBatch(batches)
	if err != nil {
		return nil, false, nil, err
	}
	if ingest, err = claimIngests(batches); err == nil {
		err = recordBlockTables(b, batches)
	}
	if err != nil && owned {
		_ = b.Close()
	}
	return b, owned, ingest, err
}

// commitLocked commits batches and the record of epoch. Callers hold
// commitMu.
func (s *Store) commitLocked(epoch uint64, batches []*WriteBatch) error {
	b, owned, ingest, err := s.prepareCommit(batches)
	if err != nil {
		return err
	}
	if owned {
		defer b.Close()
	}
	// Staged files go with the commit: removed unless it was tried (its
	// record may then be durable, and Open redoes them).
	tried := false
	if len(ingest) > 0 {
		defer func() {
			if !tried {
				s.removeStaged(stagedNames(ingest))
			}
		}()
		if err := b.Set(pendingIngestKey, encodePendingIngest(epoch, ingest), nil); err != nil {
			return fmt.Errorf("storage: commit epoch %d: %w", epoch, err)
		}
		s.visMu.Lock()
		defer s.visMu.Unlock()
	}
	if err := b.Set(epochKey, encodeEpoch(epoch), nil); err != nil {
		return fmt.Errorf("storage: commit epoch %d: %w", epoch, err)
	}
	if failpoint.Enabled {
		if err := failpoint.Hit(failpoint.StorageCommit); err != nil {
			return fmt.Errorf("storage: commit epoch %d: %w", epoch, err)
		}
	}
	tried = true
	if err := s.guard(func() error { return b.Commit(s.writeOpts) }); err != nil {
		return fmt.Errorf("storage: commit epoch %d: %w", epoch, err)
	}
	if failpoint.Enabled {
		if err := failpoint.Hit(failpoint.StorageSync); err != nil {
			// Applied, durability unknown: see failure.go.
			return fmt.Errorf("storage: sync of epoch %d: %w", epoch, s.fail(err))
		}
	}
	if len(ingest) > 0 {
		if err := s.applyIngest(ingest, pendingIngestKey); err != nil {
			// Committed, not yet ingested: a reopen redoes it.
			return fmt.Errorf("storage: ingest of epoch %d: %w", epoch, s.fail(err))
		}
	}
	s.epoch.Store(epoch)
	s.epochChanged()
	return nil
}

// epochBatch returns the Pebble batch to commit: the largest non-empty
// batch when it has room for the others (they are applied to it, and the
// largest, which in a bulk epoch holds nearly everything, is not copied),
// else a new batch sized for all of them; owned says the caller must close
// it (it is not one of batches).
//
// The batches are applied out of order, which is only correct because
// their keys are disjoint: each actor writes the state of the vnodes it
// owns, and a vnode has one owner at a time (I4).
func (s *Store) epochBatch(batches []*WriteBatch) (b *pebble.Batch, owned bool, err error) {
	var live []*pebble.Batch
	big, size := -1, 0
	for _, w := range batches {
		if w == nil {
			continue
		}
		if w.s != s {
			return nil, false, errors.New("storage: write batch of another store")
		}
		if w.b == nil {
			return nil, false, fmt.Errorf("storage: commit of a closed write batch: %w", ErrClosed)
		}
		if !w.b.Empty() {
			if big < 0 || w.b.Len() > live[big].Len() {
				big = len(live)
			}
			live, size = append(live, w.b), size+w.b.Len()
		}
	}
	if len(live) == 0 {
		return s.db.NewBatch(), true, nil
	}
	if invariants {
		checkDisjoint(live)
	}
	if len(live) == 1 {
		return live[0], false, nil
	}
	// Room for the others and the epoch records: applying them must not
	// grow (copy) the largest batch.
	if cap(live[big].Repr()) >= size+256 {
		b = live[big]
	} else {
		b, owned, big = s.db.NewBatchWithSize(size+256), true, -1
	}
	for i, wb := range live {
		if i == big {
			continue
		}
		if err := b.Apply(wb, nil); err != nil {
			if owned {
				_ = b.Close()
			}
			return nil, false, fmt.Errorf("storage: merge write batches: %w", err)
		}
	}
	return b, owned, nil
}

func closeAll(batches []*WriteBatch) {
	for _, w := range batches {
		if w != nil {
			_ = w.Close()
		}
	}
}
