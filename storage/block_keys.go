package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
)

// Where blocks live, and how a table's rows read once it has some.
//
// A vnode of a table is one key range, 't' | table | vnode, holding two
// sub-ranges (invariant I4: a vnode's state is one contiguous range):
//
//	't' | table | vnode | memcmp(pk)              a row (one per key)
//	't' | table | vnode | 0xFF | memcmp(first pk)  a block (block.go)
//
// Every encoded key column opens with keyNull or keyPresent, so no row
// key has blockMarker after its vnode, and a vnode's blocks sort after
// its rows. Blocks are written only by a bulk load into a table that
// holds no key at all (so only new rows go in blocks, and blocks never
// overlap); every later write is a row key, the "overlay": a row that
// replaces the block row of its pk, or a tombstone (the one-byte value
// tombstoneValue, never a row's encoding) that hides it. Deleting a key
// of a table with blocks therefore writes a tombstone, not a Pebble
// deletion (WriteBatch.delete, IngestWriter.Delete): a deletion would
// uncover the block row.
//
// Readers of such a table (mergeIter, block_iter.go) merge each vnode's
// blocks with its rows in key order, the overlay winning, tombstones
// dropped: they see exactly the rows the one-row-per-key layout would
// hold. A store knows which tables have blocks (Store.hasBlocks): the
// set is recorded in the meta keys blockTablePrefix, written in the
// commit that ingests a table's first blocks, and loaded at Open; a
// table not in it (every table of a data directory from before blocks)
// is read exactly as before. The in-memory mark is set as soon as a
// block is staged, before it can be committed, so that a reader that
// sees a block always knows to merge (a discarded ingest leaves the
// mark: readers then merge a table with no block, which is correct).
//
// Overlay rows are never folded back into blocks (yet): a table keeps
// its overlay, and its tombstones, until it is dropped.

// blockMarker follows the vnode in a block's key.
const blockMarker byte = 0xFF

// tombstoneValue is the value of a row key that hides a block's row.
var tombstoneValue = []byte{0xFF}

// isTombstone reports whether v, a row key's value, is a tombstone: a
// row's encoding (EncodeRow) never is the byte 0xFF alone (an
// unterminated column count).
func isTombstone(v []byte) bool { return len(v) == 1 && v[0] == 0xFF }

// isBlockKey reports whether key, a key of a table, is a block's.
func isBlockKey(key []byte) bool {
	return len(key) > tableKeyPrefixLen && key[tableKeyPrefixLen] == blockMarker
}

// appendBlockKey appends the block-space key of rowKey ('t' | table |
// vnode | memcmp(pk...)): 't' | table | vnode | 0xFF | memcmp(pk...).
// A rowKey shorter than a vnode prefix is appended as is.
func appendBlockKey(buf, rowKey []byte) []byte {
	if len(rowKey) < tableKeyPrefixLen {
		return append(buf, rowKey...)
	}
	buf = append(buf, rowKey[:tableKeyPrefixLen]...)
	buf = append(buf, blockMarker)
	return append(buf, rowKey[tableKeyPrefixLen:]...)
}

// tableOfKey returns the table id of a table key (ok false for other
// keys).
func tableOfKey(key []byte) (uint32, bool) {
	if len(key) < tableKeyPrefixLen || key[0] != tablePrefix {
		return 0, false
	}
	return binary.BigEndian.Uint32(key[1:5]), true
}

// blockTablePrefix begins the meta keys naming the tables with blocks
// (blockTableKey).
const blockTablePrefix = reservedMetaPrefix + "block_tables/"

func blockTableKey(id uint32) []byte {
	return binary.BigEndian.AppendUint32(metaKey(blockTablePrefix), id)
}

// blockTables is the set of tables with blocks (copy on write).
type blockTables struct {
	mu  sync.Mutex // serializes changes
	set atomic.Pointer[map[uint32]struct{}]
}

// hasBlocks reports whether table id may have blocks.
func (s *Store) hasBlocks(id uint32) bool {
	m := s.blocks.set.Load()
	if m == nil {
		return false
	}
	_, ok := (*m)[id]
	return ok
}

// HasBlocks reports whether table id may hold columnar blocks (a bulk
// load into it, while empty, staged some).
func (s *Store) HasBlocks(id uint32) bool { return s.hasBlocks(id) }

// markBlocks records, in memory, that table id may have blocks.
func (s *Store) markBlocks(id uint32) {
	if s.hasBlocks(id) {
		return
	}
	s.blocks.mu.Lock()
	defer s.blocks.mu.Unlock()
	next := map[uint32]struct{}{id: {}}
	if m := s.blocks.set.Load(); m != nil {
		for k := range *m {
			next[k] = struct{}{}
		}
	}
	s.blocks.set.Store(&next)
}

// loadBlockTables reads the tables with blocks at Open.
func (s *Store) loadBlockTables() error {
	lower := metaKey(blockTablePrefix)
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: prefixEnd(lower)})
	if err != nil {
		return fmt.Errorf("storage: tables with blocks: %w", err)
	}
	for ok := it.First(); ok; ok = it.Next() {
		k := it.Key()[len(lower):]
		if len(k) != 4 {
			_ = it.Close()
			return errCorrupt("block table record", "bad key")
		}
		s.markBlocks(binary.BigEndian.Uint32(k))
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return fmt.Errorf("storage: tables with blocks: %w", err)
	}
	return nil
}

// recordBlockTables writes into b, a commit's batch, the records of the
// tables the ingests of batches stage blocks for.
func recordBlockTables(b *pebble.Batch, batches []*WriteBatch) error {
	for _, w := range batches {
		if w == nil {
			continue
		}
		for _, in := range w.ingests {
			for _, id := range in.blockTables {
				if err := b.Set(blockTableKey(id), nil, nil); err != nil {
					return fmt.Errorf("storage: block table record: %w", err)
				}
			}
		}
	}
	return nil
}
