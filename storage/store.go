package storage

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Options configure a Store. The zero value is valid; EnsureDefaults fills
// the zero fields.
type Options struct {
	// InMemory keeps everything in Pebble's memory VFS (dir is ignored).
	InMemory bool
	// NoSync skips fsync on commit (tests, benchmarks). Never the default.
	NoSync bool
	// MemTableSize is Pebble's memtable size in bytes (0: 64 MiB).
	MemTableSize uint64
	// CacheSize is the size of Pebble's block cache in bytes, not counting
	// the memtables (0: 128 MiB). Pebble reserves each memtable's size in
	// its cache, so the cache it gets is this plus two memtables.
	CacheSize int64
}

const (
	defaultMemTableSize = 64 << 20
	defaultCacheSize    = 128 << 20
)

// EnsureDefaults fills zero fields with their defaults.
func (o *Options) EnsureDefaults() {
	if o.MemTableSize == 0 {
		o.MemTableSize = defaultMemTableSize
	}
	if o.CacheSize == 0 {
		o.CacheSize = defaultCacheSize
	}
}

// Store is the Pebble database under one data directory.
type Store struct {
	db        *pebble.DB
	writeOpts *pebble.WriteOptions
	closed    atomic.Bool
	// failure, once set, is why the store takes no more writes.
	failure atomic.Pointer[storeFailure]

	// commitMu serializes CommitEpoch and guards epoch updates.
	commitMu sync.Mutex
	epoch    atomic.Uint64
	// epochCh is closed, and replaced, when epoch changes or the store
	// closes (EpochChanged); guarded by epochMu.
	epochMu sync.Mutex
	epochCh chan struct{}

	// snapMu guards snaps, the open snapshots (closed by Close if leaked).
	snapMu sync.Mutex
	snaps  map[*Snapshot]struct{}
	// visMu is held (write) by a CommitEpoch with ingests from its batch's
	// commit until its files are in, so that no snapshot sees one without
	// the other; Snapshot holds it (read) while it takes one.
	visMu sync.RWMutex
	// jobIngests numbers the pending-ingest records of job checkpoints.
	jobIngests atomic.Uint64

	fs        vfs.FS
	dir       string
	popts     *pebble.Options
	ingestSeq atomic.Uint64 // names staged ingest files (ingest.go)
	// ingestDirSynced: the staging directory exists durably.
	ingestDirSynced atomic.Bool
	// churnFlush is when noteChurn last asked for a flush (unix nanos).
	churnFlush atomic.Int64
	// blocks are the tables that may hold columnar blocks (block_keys.go).
	blocks blockTables
}

// Open opens (creating if needed) the store in dir; dir ":memory:" or ""
// means in memory.
func Open(dir string, opts Options) (*Store, error) {
	if opts.InMemory || dir == "" || dir == ":memory:" {
		return open("", opts, vfs.NewMem())
	}
	return open(dir, opts, vfs.Default)
}

// open opens the store in dir of fs (dir "" for the root of a memory FS).
func open(dir string, opts Options, fs vfs.FS) (*Store, error) {
	opts.EnsureDefaults()
	if dir != "" {
		if err := fs.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("storage: create %s: %w", dir, err)
		}
	}
	// Pebble charges the memtables (the mutable one and one flushing)
	// to the block cache: a cache no bigger than them keeps no block at
	// all, and every point read then reads its index and filter blocks
	// from the file (BenchmarkGetMiss: 36 µs a read with the 128 MiB
	// cache fully reserved by two 64 MiB memtables).
	cache := pebble.NewCache(opts.CacheSize + 2*int64(opts.MemTableSize))
	defer cache.Unref() // the DB holds its own reference
	popts := pebbleOptions(opts, fs, cache)
	db, err := pebble.Open(dir, popts)
	if err != nil {
		return nil, fmt.Errorf("storage: open %q: %w", dir, err)
	}
	s := &Store{db: db, writeOpts: pebble.Sync, snaps: map[*Snapshot]struct{}{}, fs: fs, dir: dir, popts: popts}
	if opts.NoSync {
		s.writeOpts = pebble.NoSync
	}
	if err := s.loadEpoch(); err != nil {
		return nil, errors.Join(err, db.Close())
	}
	if err := s.loadBlockTables(); err != nil {
		return nil, errors.Join(err, db.Close())
	}
	if err := s.recoverIngest(); err != nil {
		return nil, errors.Join(err, db.Close())
	}
	return s, nil
}

// dataBlockSize is the size of Pebble's data blocks.
const dataBlockSize = 32 << 10

// pebbleOptions tunes Pebble: a larger memtable and block cache than its
// 4 MiB and 8 MiB defaults,
// bloom filters on every level (Table.Get and state lookups are point
// reads, many of them misses), 32 KiB data blocks instead of 4 KiB (as
// CockroachDB uses: backfill scans read whole tables, and a 1M-row
// GROUP BY backfill was 20% faster, with no change in single-row insert
// latency), quiet logging; Pebble's defaults otherwise.
func pebbleOptions(opts Options, fs vfs.FS, cache *pebble.Cache) *pebble.Options {
	popts := &pebble.Options{
		FS:                 fs,
		Cache:              cache,
		MemTableSize:       opts.MemTableSize,
		FormatMajorVersion: pebble.FormatNewest,
		Logger:             quietLogger{},
	}
	popts.Levels[0].FilterPolicy = bloom.FilterPolicy(10) // inherited by lower levels
	for i := range popts.Levels {
		popts.Levels[i].BlockSize = dataBlockSize
	}
	// Filled here, as Open would, so that ingest.go writes sstables with
	// the options Pebble's own use.
	popts.EnsureDefaults()
	return popts
}

// Close closes the store. Iterators must be closed first (Pebble reports
// leaked iterators as an error). Snapshots still open are closed here and
// reported as ErrLeaked; write batches need no closing for Close (an
// abandoned batch only holds memory). Close must not run concurrently with
// other methods; a second Close returns ErrClosed.
func (s *Store) Close() error {
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	if s.closed.Swap(true) {
		return ErrClosed
	}
	leaked := s.closeSnapshots()
	s.epochChanged()
	err := s.db.Close()
	if leaked > 0 {
		err = errors.Join(fmt.Errorf("%w: %d left open", ErrLeaked, leaked), err)
	}
	return err
}

// EpochChanged returns a channel that is closed at the next commit of an
// epoch after the call, or when the store closes. A reader waiting for new
// commits (a subscription cursor's FETCH with a timeout) takes the channel
// first, then reads what is committed, then waits on it: no commit falls
// in between.
func (s *Store) EpochChanged() <-chan struct{} {
	s.epochMu.Lock()
	defer s.epochMu.Unlock()
	if s.epochCh == nil {
		s.epochCh = make(chan struct{})
	}
	return s.epochCh
}

// epochChanged wakes the waiters of EpochChanged.
func (s *Store) epochChanged() {
	s.epochMu.Lock()
	defer s.epochMu.Unlock()
	if s.epochCh != nil {
		close(s.epochCh)
		s.epochCh = nil
	}
}

// closeSnapshots closes every open snapshot and returns how many there were.
func (s *Store) closeSnapshots() int {
	s.snapMu.Lock()
	defer s.snapMu.Unlock()
	n := len(s.snaps)
	for snap := range s.snaps {
		_ = snap.snap.Close()
		snap.snap = nil
	}
	clear(s.snaps)
	return n
}

// Reader is something state can be read from: the store's committed state,
// a Snapshot, or a WriteBatch (committed state plus the batch).
type Reader interface {
	// reader returns the Pebble reader, or ErrClosed.
	reader() (pebble.Reader, error)
	// owner returns the store read.
	owner() *Store
}

func (s *Store) owner() *Store { return s }

func (s *Store) reader() (pebble.Reader, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	return s.db, nil
}

// DropTable durably deletes all state of table id.
func (s *Store) DropTable(id uint32) error {
	if err := s.writable(); err != nil {
		return err
	}
	start := appendTablePrefix(nil, id)
	if err := s.guard(func() error { return s.db.DeleteRange(start, prefixEnd(start), s.writeOpts) }); err != nil {
		return fmt.Errorf("storage: drop table %d: %w", id, err)
	}
	return nil
}
