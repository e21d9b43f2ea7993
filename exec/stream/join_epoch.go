package stream

import (
	"bytes"
	"hash/maphash"
	"slices"
)

// epochWrites holds one join side's state writes of the current epoch,
// encoded (keys as the side's state table makes them, values as
// storage.EncodeRow), findable by join key.
//
// The join reads its state as the committed state (the Store: an actor
// touches no state while its last epoch commits, so the Store holds
// exactly the epochs before this one) overlaid with these writes. Its
// epoch batch is then never read, so Pebble need not index it: an
// indexed batch inserts every write into a skiplist, and the first read
// copies all earlier writes into one; a backfill writes a whole table of
// join state that way. At the barrier the writes go to the epoch batch in
// the order they were made (flush) and the set is emptied.
type epochWrites struct {
	seed  maphash.Seed
	arena []byte // keys and values
	ents  []epochWrite
	// heads maps the hash of a join key's prefix (see epochWrite.plen) to
	// the latest write under it; each write links the one before it with
	// the same hash.
	heads map[uint64]int32
	found []int32 // scratch of versions
}

// epochWrite is one staged write: the key at arena[off:off+klen], the
// value (vlen bytes, -1 for a deletion) after it.
type epochWrite struct {
	off  int
	klen int32
	vlen int32
	plen int32 // the key's join key prefix is key[:plen]
	next int32 // the previous write with the same prefix hash; -1: none
}

func newEpochWrites() *epochWrites {
	return &epochWrites{seed: maphash.MakeSeed(), heads: map[uint64]int32{}}
}

func (e *epochWrites) key(i int32) []byte {
	w := &e.ents[i]
	return e.arena[w.off : w.off+int(w.klen)]
}

// value returns the value of write i, nil for a deletion.
func (e *epochWrites) value(i int32) []byte {
	w := &e.ents[i]
	if w.vlen < 0 {
		return nil
	}
	start := w.off + int(w.klen)
	return e.arena[start : start+int(w.vlen)]
}

// put stages key = val (val nil: a deletion); key[:plen] is its join key
// prefix (storage.Table.AppendPrefixKey of the row's join key).
func (e *epochWrites) put(key []byte, plen int, val []byte, del bool) {
	h := maphash.Bytes(e.seed, key[:plen])
	next, ok := e.heads[h]
	if !ok {
		next = -1
	}
	vlen := int32(len(val))
	if del {
		vlen = -1
	}
	e.ents = append(e.ents, epochWrite{off: len(e.arena), klen: int32(len(key)), vlen: vlen, plen: int32(plen), next: next})
	e.arena = append(append(e.arena, key...), val...)
	e.heads[h] = int32(len(e.ents) - 1)
}

// latest returns the latest write of exactly key, a whole key that is its
// own prefix (the join key covers the pk); ok is false when there is none.
func (e *epochWrites) latest(key []byte) (i int32, ok bool) {
	if len(e.ents) == 0 {
		return -1, false
	}
	i, ok = e.heads[maphash.Bytes(e.seed, key)]
	for ; ok && i >= 0; i = e.ents[i].next {
		if bytes.Equal(e.key(i), key) {
			return i, true
		}
	}
	return -1, false
}

// versions returns the latest write of each key under prefix, in key
// order (deletions included: they hide committed rows); valid until the
// next call.
func (e *epochWrites) versions(prefix []byte) []int32 {
	e.found = e.found[:0]
	if len(e.ents) == 0 {
		return nil
	}
	i, ok := e.heads[maphash.Bytes(e.seed, prefix)]
	for ; ok && i >= 0; i = e.ents[i].next {
		if int(e.ents[i].plen) == len(prefix) && bytes.HasPrefix(e.key(i), prefix) {
			e.found = append(e.found, i)
		}
	}
	// Latest first within a key: the chain runs newest to oldest, and the
	// sort is stable.
	slices.SortStableFunc(e.found, func(a, b int32) int { return bytes.Compare(e.key(a), e.key(b)) })
	e.found = slices.CompactFunc(e.found, func(a, b int32) bool { return bytes.Equal(e.key(a), e.key(b)) })
	return e.found
}

// empty reports whether nothing is staged.
func (e *epochWrites) empty() bool { return len(e.ents) == 0 }

// flush passes the writes, in the order they were made, to set, and
// empties the set.
func (e *epochWrites) flush(set func(key, val []byte, del bool) error) error {
	for i := range e.ents {
		if err := set(e.key(int32(i)), e.value(int32(i)), e.ents[i].vlen < 0); err != nil {
			return err
		}
	}
	e.reset()
	return nil
}

// reset empties the set, keeping its buffers when they are modest.
func (e *epochWrites) reset() {
	const keep = 16 << 20
	if cap(e.arena) > keep {
		e.arena, e.ents = nil, nil
	}
	e.arena, e.ents = e.arena[:0], e.ents[:0]
	if len(e.heads) > keep/64 {
		e.heads = map[uint64]int32{} // a map never shrinks
	} else {
		clear(e.heads)
	}
}
