package storage

// This file is the storage API other layers code against. The bodies here
// are placeholders until the implementation lands.

import (
	"errors"

	"github.com/streamdb/streamdb/internal/types"
)

var errTODO = errors.New("storage: not implemented yet")

// NumVnodes is the number of virtual nodes rows are hashed to.
const NumVnodes = 256

// Options configure a Store. The zero value is valid.
type Options struct {
	// InMemory keeps everything in Pebble's memory VFS (dir is ignored).
	InMemory bool
	// NoSync skips fsync on commit (tests, benchmarks). Never the default.
	NoSync bool
}

// Store is the Pebble database under one data directory.
type Store struct{ _ int }

// Open opens (creating if needed) the store in dir; dir ":memory:" or ""
// means in memory.
func Open(dir string, opts Options) (*Store, error) { return nil, errTODO }

// Close closes the store.
func (s *Store) Close() error { return errTODO }

// Reader is something state can be read from: the store's committed state,
// a Snapshot, or a WriteBatch (committed state plus the batch).
type Reader interface{ reader() }

// Snapshot is a consistent, read-only view of committed state.
type Snapshot struct{ _ int }

// Snapshot returns a view of the currently committed state; Close it.
func (s *Store) Snapshot() *Snapshot { return nil }

// Close releases the snapshot.
func (s *Snapshot) Close() error { return errTODO }

// WriteBatch stages the state writes of one actor for one epoch. Reads
// through it see committed state plus its own writes. Not safe for
// concurrent use.
type WriteBatch struct{ _ int }

// NewWriteBatch returns an empty batch.
func (s *Store) NewWriteBatch() *WriteBatch { return nil }

// CommitEpoch atomically applies batches (nil entries ignored) and records
// epoch as committed, in one synced Pebble batch. The batches are closed.
func (s *Store) CommitEpoch(epoch uint64, batches []*WriteBatch) error { return errTODO }

// CommittedEpoch returns the last committed epoch (0 for a new store).
func (s *Store) CommittedEpoch() uint64 { return 0 }

// PutMeta durably stores a metadata value (catalog entries, id counters).
func (s *Store) PutMeta(key string, value []byte) error { return errTODO }

// GetMeta reads a metadata value; ok is false when absent.
func (s *Store) GetMeta(key string) (value []byte, ok bool, err error) { return nil, false, errTODO }

// DeleteMeta durably deletes a metadata value.
func (s *Store) DeleteMeta(key string) error { return errTODO }

// ScanMeta returns every metadata key/value whose key starts with prefix,
// in key order.
func (s *Store) ScanMeta(prefix string) (keys []string, values [][]byte, err error) {
	return nil, nil, errTODO
}

// DropTable durably deletes all state of table id.
func (s *Store) DropTable(id uint32) error { return errTODO }

// Table is the layout of one state table: rows of Types, unique on and
// ordered by the PK columns (each ascending, NULLs first), spread over
// vnodes by the hash of the DistKey columns (a subset of PK). Keys are
// tableID | vnode | memcomparable(pk); values encode the whole row.
type Table struct {
	ID      uint32
	Types   []types.Type
	PK      []int
	DistKey []int
}

// Vnode returns the vnode of row (a full row of t).
func (t *Table) Vnode(row []types.Datum) uint16 { return 0 }

// Insert stages row (inserting or overwriting the row with its pk).
func (t *Table) Insert(w *WriteBatch, row []types.Datum) error { return errTODO }

// Delete stages the deletion of the row with row's pk.
func (t *Table) Delete(w *WriteBatch, row []types.Datum) error { return errTODO }

// Get returns the row whose pk columns equal pk (len(pk) == len(PK)).
func (t *Table) Get(r Reader, pk []types.Datum) (row []types.Datum, ok bool, err error) {
	return nil, false, errTODO
}

// Iterator walks rows in key order.
type Iterator interface {
	// Next advances; it returns false at the end or on error (see Err).
	Next() bool
	// Row is the current row; valid until the next call to Next.
	Row() []types.Datum
	Err() error
	Close() error
}

// Scan iterates over every row of the table (vnode by vnode, pk order
// within a vnode).
func (t *Table) Scan(r Reader) Iterator { return nil }

// ScanPrefix iterates, in pk order, over the rows whose first len(prefix)
// pk columns equal prefix. The prefix must cover the DistKey columns (which
// must then be the leading PK columns), so the rows share one vnode. With
// reverse it walks from the largest key down.
func (t *Table) ScanPrefix(r Reader, prefix []types.Datum, reverse bool) Iterator { return nil }

// ScanVnode iterates in pk order over the rows of one vnode whose pk is
// greater than after (all rows of the vnode when after is nil).
func (t *Table) ScanVnode(r Reader, vnode uint16, after []types.Datum) Iterator { return nil }

func (*Snapshot) reader()   {}
func (*WriteBatch) reader() {}
func (*Store) reader()      {}
