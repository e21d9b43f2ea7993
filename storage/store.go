package storage

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
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
}

const defaultMemTableSize = 64 << 20

// EnsureDefaults fills zero fields with their defaults.
func (o *Options) EnsureDefaults() {
	if o.MemTableSize == 0 {
		o.MemTableSize = defaultMemTableSize
	}
}

// Store is the Pebble database under one data directory.
type Store struct {
	db        *pebble.DB
	writeOpts *pebble.WriteOptions
	closed    atomic.Bool

	// commitMu serializes CommitEpoch and guards epoch updates.
	commitMu sync.Mutex
	epoch    atomic.Uint64

	// snapMu guards snaps, the open snapshots (closed by Close if leaked).
	snapMu sync.Mutex
	snaps  map[*Snapshot]struct{}
}

// Open opens (creating if needed) the store in dir; dir ":memory:" or ""
// means in memory.
func Open(dir string, opts Options) (*Store, error) {
	opts.EnsureDefaults()
	popts := &pebble.Options{
		MemTableSize:       opts.MemTableSize,
		FormatMajorVersion: pebble.FormatNewest,
	}
	if opts.InMemory || dir == "" || dir == ":memory:" {
		popts.FS, dir = vfs.NewMem(), ""
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("storage: create %s: %w", dir, err)
	}
	db, err := pebble.Open(dir, popts)
	if err != nil {
		return nil, fmt.Errorf("storage: open %q: %w", dir, err)
	}
	s := &Store{db: db, writeOpts: pebble.Sync, snaps: map[*Snapshot]struct{}{}}
	if opts.NoSync {
		s.writeOpts = pebble.NoSync
	}
	if err := s.loadEpoch(); err != nil {
		return nil, errors.Join(err, db.Close())
	}
	return s, nil
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
	err := s.db.Close()
	if leaked > 0 {
		err = errors.Join(fmt.Errorf("%w: %d left open", ErrLeaked, leaked), err)
	}
	return err
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
}

func (s *Store) reader() (pebble.Reader, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	return s.db, nil
}

// DropTable durably deletes all state of table id.
func (s *Store) DropTable(id uint32) error {
	if s.closed.Load() {
		return ErrClosed
	}
	start := appendTablePrefix(nil, id)
	if err := s.db.DeleteRange(start, prefixEnd(start), s.writeOpts); err != nil {
		return fmt.Errorf("storage: drop table %d: %w", id, err)
	}
	return nil
}
