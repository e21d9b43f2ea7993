package storage

import (
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// TableSize is how much state one table id holds: its live keys, their
// logical size, and Pebble's estimate of the disk space they take.
type TableSize struct {
	// Keys counts the table's live keys.
	Keys int64
	// Bytes is the sum of the live keys' lengths and their values'
	// lengths, as stored (a key counts its 't' | id | vnode prefix):
	// exact, and the same however Pebble lays the keys out.
	Bytes int64
	// DiskBytes is Pebble's estimate of the bytes of the sstables that
	// hold the table's key range (db.EstimateDiskUsage): a file wholly in
	// the range counts whole, one that overlaps it the data blocks that
	// do. Keys still in the memtable (and its WAL) count nothing, and
	// deleted keys not yet compacted away still do.
	DiskBytes int64
}

// TableSizes measures the tables ids as r sees them (Bytes and Keys; a
// Snapshot gives one consistent view of them all); DiskBytes is estimated
// from the store's current files. It reads every live key of the tables,
// so its cost grows with their state.
func TableSizes(r Reader, ids []uint32) ([]TableSize, error) {
	pr, err := r.reader()
	if err != nil {
		return nil, err
	}
	sizes := make([]TableSize, len(ids))
	for i, id := range ids {
		if sizes[i], err = tableSize(pr, r.owner(), id); err != nil {
			return nil, fmt.Errorf("storage: measuring table %d: %w", id, err)
		}
	}
	return sizes, nil
}

// tableSize measures one table id: its live keys through pr, its disk
// estimate from s.
func tableSize(pr pebble.Reader, s *Store, id uint32) (TableSize, error) {
	lower := appendTablePrefix(nil, id)
	upper := prefixEnd(lower)
	size, err := countKeys(pr, lower, upper)
	if err != nil {
		return TableSize{}, err
	}
	if s.closed.Load() {
		return TableSize{}, ErrClosed
	}
	disk, err := s.db.EstimateDiskUsage(lower, upper)
	if err != nil {
		return TableSize{}, err
	}
	size.DiskBytes = int64(disk)
	return size, nil
}

// countKeys counts the live keys in [lower, upper) and their bytes,
// without reading values kept apart from their keys (their length is
// known without them).
func countKeys(pr pebble.Reader, lower, upper []byte) (TableSize, error) {
	it, err := pr.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return TableSize{}, err
	}
	var size TableSize
	for ok := it.First(); ok; ok = it.Next() {
		v := it.LazyValue()
		size.Keys++
		size.Bytes += int64(len(it.Key()) + v.Len())
	}
	if err := it.Error(); err != nil {
		_ = it.Close()
		return TableSize{}, err
	}
	return size, it.Close()
}
