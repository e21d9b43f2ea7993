package stream

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"
)

// A join side's writes are read back during the epoch by write index
// (epochWrites.ents: latest, versions), but leave at the barrier in key
// order, and an epoch of a backfill holds tens of megabytes of them. Kept
// in one stream in the order made, the flush read them in key order,
// which is random order in memory: a cache miss per key, and about a
// fifth of a join backfill's CPU went to the flush.
//
// So the bytes of the writes are laid out by vnode, the way tableWrites
// keeps a view's (see its comment): each write's record goes to its
// vnode's bucket, a chain of blocks of its own, and the bucket notes
// whether its keys have so far come strictly ascending (a join side fed
// by a snapshot read in key order: every bucket). The records describe
// themselves,
//
//	uvarint key length | uvarint value length + 1 (0: a deletion) | key | value
//
// so that the flush walks a bucket's blocks in sequence without touching
// the write index (ents, 24 bytes a write in the order made, which read
// in bucket order would cost a miss per key again). At the barrier the
// buckets go out in vnode order: an ascending one as it is, any other
// sorted on its own, a vnode's share of the epoch close to the cache,
// with the latest write of each key kept. An entry of ents still locates
// its write's key and value (block, off past the header), so reads
// during the epoch are as before.
//
// The bucket is the key's byte at vnodeByte, which orders the buckets as
// the keys when every key shares its bytes before it (one table's keys
// do). A key that does not marks the set mixed, and the flush then sorts
// all the writes together (epochWrites.sorted). The same key always lands
// in the same bucket, and a bucket's blocks lie in epochWrites.blocks in
// the order it filled them (blocks are only appended, and a reset keeps
// at most the first block of each bucket, placed first), so the position
// of a record (block, offset) orders a bucket's writes as they were made.
type epochBucket struct {
	blocks    []int32 // indices into epochWrites.blocks, in the order filled
	n         int
	ascending bool
	// the last write's key: blocks[lastBlock][lastOff:lastOff+lastLen]
	lastBlock, lastOff, lastLen int32
	next                        int // the capacity of the bucket's next block
	bytes                       int // the bytes of its records this epoch
	// linked are the indexes of the bucket's linked writes, in the
	// order made (in key order while the set is sorted, see
	// epochWrites.hashed); cur is where the last lookup in it ended
	// (see epochWrites.lowerBound).
	linked []int32
	cur    int
}

const (
	// minBucketBlock is the capacity of a bucket's first block in an
	// epoch after one in which it was written little; each further block
	// doubles, up to epochBlockSize.
	minBucketBlock = 4 << 10
	// epochWritesKeep bounds the bytes of blocks kept from one epoch to
	// the next (an idle executor should not hold a backfill's worth).
	epochWritesKeep = 1 << 20
)

// bucketRef locates a record of a bucket being sorted: pfx packs the
// key's 8 bytes after the bucket byte (zero-padded, a shortcut for most
// comparisons: the keys of a bucket agree before them), off is the
// record's start in block blk.
type bucketRef struct {
	pfx uint64
	blk int32
	off int32
}

// bucketOf returns the bucket of key, marking the set mixed when key
// does not share the first write's bytes before vnodeByte.
func (e *epochWrites) bucketOf(key []byte) int {
	if len(key) <= vnodeByte {
		e.mixed = true
		return 0
	}
	if e.n == 0 {
		e.prefix = append(e.prefix[:0], key[:vnodeByte]...)
	} else if !e.mixed && !bytes.Equal(e.prefix, key[:vnodeByte]) {
		e.mixed = true
	}
	return int(key[vnodeByte])
}

// appendRecord appends the record of key = val (vlen -1: a deletion) to
// bucket (bucketOf(key)) and returns where its key starts.
func (e *epochWrites) appendRecord(bucket int, key, val []byte, vlen int32) (blk, off int32) {
	bk := &e.buckets[bucket]
	vfield := uint64(vlen + 1)
	need := uvarintLen(uint64(len(key))) + uvarintLen(vfield) + len(key) + len(val)
	blk = e.bucketBlock(bk, need)
	b := binary.AppendUvarint(e.blocks[blk], uint64(len(key)))
	b = binary.AppendUvarint(b, vfield)
	off = int32(len(b))
	e.blocks[blk] = append(append(b, key...), val...)
	if bk.n == 0 {
		bk.ascending = true
	} else if bk.ascending {
		last := e.blocks[bk.lastBlock][bk.lastOff : bk.lastOff+bk.lastLen]
		bk.ascending = bytes.Compare(last, key) < 0
		e.unsorted = e.unsorted || !bk.ascending
	}
	bk.lastBlock, bk.lastOff, bk.lastLen = blk, off, int32(len(key))
	bk.n++
	bk.bytes += need
	return blk, off
}

// bucketBlock returns the index of bk's block with room for n more bytes,
// starting one when its last has none.
func (e *epochWrites) bucketBlock(bk *epochBucket, n int) int32 {
	if k := len(bk.blocks); k > 0 {
		if i := bk.blocks[k-1]; len(e.blocks[i])+n <= cap(e.blocks[i]) {
			return i
		}
	}
	size := max(bk.next, minBucketBlock)
	bk.next = min(2*size, epochBlockSize)
	e.blocks = append(e.blocks, make([]byte, 0, max(size, n)))
	i := int32(len(e.blocks) - 1)
	bk.blocks = append(bk.blocks, i)
	return i
}

// uvarintLen is the length of x as a uvarint.
func uvarintLen(x uint64) int {
	n := 1
	for ; x >= 0x80; x >>= 7 {
		n++
	}
	return n
}

// record reads the record at off of block blk; end is where the next
// starts.
func (e *epochWrites) record(blk int32, off int) (key, val []byte, del bool, end int) {
	buf := e.blocks[blk]
	klen, k := binary.Uvarint(buf[off:])
	vfield, k2 := binary.Uvarint(buf[off+k:])
	start := off + k + k2
	end = start + int(klen)
	key = buf[start:end:end]
	if vfield == 0 {
		return key, nil, true, end
	}
	vend := end + int(vfield-1)
	return key, buf[end:vend:vend], false, vend
}

// eachSorted calls f with the latest write of each key, in key order:
// the buckets in vnode order (see epochBucket).
func (e *epochWrites) eachSorted(f func(key, val []byte, del bool) error) error {
	if e.mixed {
		for _, s := range e.sorted() {
			v := e.value(s.i)
			if err := f(e.key(s.i), v, v == nil); err != nil {
				return err
			}
		}
		return nil
	}
	for b := range e.buckets {
		bk := &e.buckets[b]
		var err error
		switch {
		case bk.n == 0:
		case bk.ascending:
			err = e.eachInBucket(bk, f)
		default:
			err = e.eachSortedInBucket(bk, f)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// eachInBucket calls f with every write of bk, in the order made.
func (e *epochWrites) eachInBucket(bk *epochBucket, f func(key, val []byte, del bool) error) error {
	for _, blk := range bk.blocks {
		for off := 0; off < len(e.blocks[blk]); {
			key, val, del, end := e.record(blk, off)
			if err := f(key, val, del); err != nil {
				return err
			}
			off = end
		}
	}
	return nil
}

// eachSortedInBucket sorts bk's writes by key, the latest write of a key
// first, and calls f with the latest write of each key.
func (e *epochWrites) eachSortedInBucket(bk *epochBucket, f func(key, val []byte, del bool) error) error {
	refs := e.refs[:0]
	for _, blk := range bk.blocks {
		for off := 0; off < len(e.blocks[blk]); {
			key, _, _, end := e.record(blk, off)
			var p [8]byte
			if len(key) > vnodeByte+1 {
				copy(p[:], key[vnodeByte+1:])
			}
			refs = append(refs, bucketRef{pfx: binary.BigEndian.Uint64(p[:]), blk: blk, off: int32(off)})
			off = end
		}
	}
	e.refs = refs
	keyOf := func(r bucketRef) []byte {
		k, _, _, _ := e.record(r.blk, int(r.off))
		return k
	}
	slices.SortFunc(refs, func(a, b bucketRef) int {
		if c := cmp.Compare(a.pfx, b.pfx); c != 0 {
			return c
		}
		if c := bytes.Compare(keyOf(a), keyOf(b)); c != 0 {
			return c
		}
		// The latest first: a later record lies in a later block, or
		// further into the same one.
		if c := cmp.Compare(b.blk, a.blk); c != 0 {
			return c
		}
		return cmp.Compare(b.off, a.off)
	})
	for i, r := range refs {
		if i > 0 && r.pfx == refs[i-1].pfx && bytes.Equal(keyOf(r), keyOf(refs[i-1])) {
			continue // an older write of the key
		}
		key, val, del, _ := e.record(r.blk, int(r.off))
		if err := f(key, val, del); err != nil {
			return err
		}
	}
	return nil
}

// resetBuckets empties the buckets, keeping the first block of each
// (placed first in blocks, see epochBucket) while they come to at most
// epochWritesKeep bytes. Each bucket's next block is sized for what it
// was written this epoch: a backfill writes about as much every epoch,
// and a chain of doubling blocks would start small again.
func (e *epochWrites) resetBuckets() {
	kept := 0
	var blocks [][]byte
	for i := range e.buckets {
		bk := &e.buckets[i]
		if len(bk.blocks) == 0 {
			continue
		}
		first := e.blocks[bk.blocks[0]]
		bk.next = min(bk.bytes+bk.bytes/8, epochBlockSize)
		bk.blocks = bk.blocks[:0]
		if cap(first)+kept <= epochWritesKeep {
			kept += cap(first)
			bk.blocks = append(bk.blocks, int32(len(blocks)))
			blocks = append(blocks, first[:0])
		}
		bk.n, bk.ascending, bk.bytes = 0, false, 0
		bk.lastBlock, bk.lastOff, bk.lastLen = 0, 0, 0
		bk.linked, bk.cur = bk.linked[:0], 0
		if cap(bk.linked) > epochWritesKeep/256/4 {
			bk.linked = nil
		}
	}
	clear(e.blocks)
	e.blocks = append(e.blocks[:0], blocks...)
	if cap(e.refs) > 1<<16 {
		e.refs = nil
	}
	e.mixed, e.unsorted = false, false
}
