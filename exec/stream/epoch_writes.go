package stream

import (
	"bytes"
	"cmp"
	"hash/maphash"
	"slices"

	"github.com/streamdb/streamdb/storage"
)

// epochWrites holds an executor's writes to one state table in the
// current epoch, encoded (keys as the table makes them, values as
// storage.EncodeRow), and hands them to the epoch at the barrier (flush).
// A HashJoin side keeps its writes here (a Materialize that writes
// without reading its table keeps them by vnode, in a tableWrites). The
// writes are also findable by join key (indexed: latest, versions). The
// join reads its state as the committed state (the Store: an actor
// touches no state while its last epoch commits, so the Store holds
// exactly the epochs before this one) overlaid with these writes. Its
// epoch batch is then never read, so Pebble need not index it: an indexed
// batch inserts every write into a skiplist, and the first read copies
// all earlier writes into one; a backfill writes a whole table of join
// state.
//
// At the barrier the writes leave: a few go to the epoch batch, in the
// order they were made; many (a backfill's) are put in key order, vnode
// by vnode (their bytes are laid out by vnode for it: see epochBucket),
// the latest write of each key kept, and written as an sstable ingested
// with the epoch
// (storage.IngestWriter, WriteBatch.AddIngest), which spares the batch's
// copies, the WAL, the memtable and its flush, and the commit during
// which every actor waits. Ingested writes take effect after the rest of
// the epoch's batch; that is right because all of the epoch's writes to
// the table are in the sstable, and no one else writes the vnodes this
// actor owns (I4). (A table's bulk statements also ingest rows into it,
// keys that no other write of the epoch touches.) A reader of the Store
// may see an epoch's batch before its ingests (see storage.Ingest), but
// every reader of a view or table uses a Snapshot, and a join reads its
// own state only.
type epochWrites struct {
	indexed bool // keep heads
	seed    maphash.Seed
	blocks  [][]byte // the records, in blocks never reallocated
	size    int      // bytes of keys and values
	// buckets lay the records out by vnode (see epochBucket); prefix is
	// the first write's key[:vnodeByte], mixed: some key did not start
	// with it.
	buckets [256]epochBucket
	prefix  []byte
	mixed   bool
	// unsorted: some bucket's writes have not come in ascending key
	// order (epochBucket.ascending).
	unsorted bool
	refs     []bucketRef // scratch of eachSortedInBucket
	// ents are the writes, write i at ents[i/entsPerPage][i%entsPerPage]
	// (pages, so that they never move either); n counts them, the first
	// linked of them are in heads, and pend holds the prefix hashes of the
	// others.
	ents   [][]epochWrite
	n      int
	linked int
	pend   []uint64
	pendB  []uint8 // the buckets of the writes of pend
	// heads maps the hash of a join key's prefix (see epochWrite.plen) to
	// the latest write under it; each write links the one before it with
	// the same hash. It is built only once hashed: while every bucket's
	// writes have come in ascending key order (a backfill's, fed by
	// snapshots read in key order), a bucket's linked writes are already
	// a sorted index of them, and a lookup searches it (lowerBound), from
	// where the last one ended: a chunk's keys are looked up in ascending
	// order. Linking a write then costs an append to its bucket's list,
	// where inserting it into heads cost a cache miss (heads is far
	// larger than a cache), for lookups most of which a backfill's key
	// filter or the committed state answers. The first write out of
	// order (or a mixed set) builds heads from the writes so far, for the
	// rest of the epoch.
	heads  headTable
	hashed bool
	// seen, when not nil, holds every join key written through the set
	// since the executor found its table empty (see keyFilter); it
	// outlives epochs.
	seen *keyFilter
	// ingested: the last flush ingested the writes, which reads through
	// the epoch's batch do not see.
	ingested bool
	found    []int32 // scratch of versions
	order    []sortedWrite
}

const entsPerPage = 1 << 13

func (e *epochWrites) ent(i int32) *epochWrite {
	return &e.ents[i/entsPerPage][i%entsPerPage]
}

// epochWrite is one staged write: the key at blocks[block][off:off+klen],
// the value (vlen bytes, -1 for a deletion) after it (both in its record,
// see epochBucket).
type epochWrite struct {
	block int32
	off   int32
	klen  int32
	vlen  int32
	plen  int32 // the key's join key prefix is key[:plen]
	next  int32 // the previous write with the same prefix hash; -1: none
}

// sortedWrite orders writes by key: pfx packs the key's bytes at the
// positions where the keys differ (sortPositions), a shortcut for most
// comparisons.
type sortedWrite struct {
	pfx uint64
	i   int32
}

const (
	epochBlockSize = 1 << 20
	// tableIDPrefixLen is the bytes a state table's keys all share: the
	// namespace byte and the table id.
	tableIDPrefixLen = 5
)

// epochIngestBytes is the size of an epoch's writes to one table from
// which they are ingested as an sstable rather than batched.
var epochIngestBytes = 1 << 20 // a variable for tests

// jobIngestBytes is epochIngestBytes at a creating job's own barrier.
// Batched writes go through the WAL and the memtable, and a commit of the
// running graph that comes after a job's checkpoint in Pebble's commit
// pipeline waits until they are applied: a join backfill's checkpoints
// held 2-4 MB of batched state (each table's share under
// epochIngestBytes), and writes into unrelated tables waited 15-40 ms
// behind them. Ingested, they skip both (issue 16). But an ingest costs
// a file and its syncs (the staged sstable, the ingest, the records),
// where a job's batch is written without one: at 16 KiB a GROUP BY
// backfill's view rows (tens of KB per checkpoint) were ingested at every
// checkpoint, and writes waited behind those syncs (streamdb bench
// isolation, 3M rows, four run pairs: insert p99 under an adaptive
// backfill 3.6-4.7 ms at 256 KiB vs 5.4-8.3 ms at 16 KiB).
var jobIngestBytes = 256 << 10

// newEpochWrites returns an empty set; indexed ones can be read back
// (latest, versions).
func newEpochWrites(indexed bool) *epochWrites {
	return &epochWrites{indexed: indexed, seed: maphash.MakeSeed()}
}

func (e *epochWrites) bytesOf(w *epochWrite) []byte {
	b := e.blocks[w.block]
	return b[w.off : int(w.off)+int(w.klen)+max(0, int(w.vlen))]
}

func (e *epochWrites) key(i int32) []byte {
	w := e.ent(i)
	return e.bytesOf(w)[:w.klen]
}

// value returns the value of write i, nil for a deletion.
func (e *epochWrites) value(i int32) []byte {
	w := e.ent(i)
	if w.vlen < 0 {
		return nil
	}
	return e.bytesOf(w)[w.klen:]
}

// put stages key = val (del: the deletion of key); in an indexed set
// key[:plen] is its join key prefix (storage.Table.AppendPrefixKey of the
// row's join key).
//
// The write is findable (latest, versions) once link has run.
func (e *epochWrites) put(key []byte, plen int, val []byte, del bool) {
	b := e.bucketOf(key)
	if e.indexed {
		e.pend = append(e.pend, e.hash(key[:plen]))
		e.pendB = append(e.pendB, uint8(b))
	}
	vlen := int32(len(val))
	if del {
		vlen, val = -1, nil
	}
	if e.n%entsPerPage == 0 && e.n/entsPerPage == len(e.ents) {
		e.ents = append(e.ents, make([]epochWrite, entsPerPage))
	}
	bi, off := e.appendRecord(b, key, val, vlen)
	*e.ent(int32(e.n)) = epochWrite{block: bi, off: off, klen: int32(len(key)), vlen: vlen, plen: int32(plen), next: -1}
	e.size += len(key) + len(val)
	e.n++
}

// hash hashes a join key prefix for the head table.
func (e *epochWrites) hash(prefix []byte) uint64 { return maphash.Bytes(e.seed, prefix) }

// link makes the writes put since the last call findable, each the
// newest of its chain (and adds their keys to seen). The head table is far larger than a CPU cache:
// the slots of all of them are read first, so that their cache misses
// overlap, then linked.
func (e *epochWrites) link() {
	if e.seen != nil {
		e.seen.touchLast(e.pend)
		for _, h := range e.pend {
			e.seen.add(h)
		}
	}
	if !e.hashed && (e.mixed || e.unsorted) {
		e.hashed = true
		e.heads.rebuild(e, e.linked)
	}
	if !e.hashed {
		for _, b := range e.pendB {
			bk := &e.buckets[b]
			bk.linked = append(bk.linked, int32(e.linked))
			e.linked++
		}
		e.pend, e.pendB = e.pend[:0], e.pendB[:0]
		return
	}
	e.heads.touch(e.pend)
	for _, h := range e.pend {
		i := int32(e.linked)
		s := e.heads.slot(h)
		fresh := s.head == 0
		e.ent(i).next, s.head = s.head-1, i+1
		e.linked++
		if fresh {
			e.heads.added(e)
		}
	}
	e.pend, e.pendB = e.pend[:0], e.pendB[:0]
}

// lowerBound returns the position in bk.linked of the first write whose
// key is at or after key (len(bk.linked): none), while the set is not
// hashed (bk.linked is then in key order). It starts from where the last
// lookup ended when that lies below key (lookups come in ascending
// order), and gallops: a miss past the bucket's last key costs one
// comparison, a hit near the last one a few.
func (e *epochWrites) lowerBound(bk *epochBucket, key []byte) int {
	idx := bk.linked
	n := len(idx)
	if n == 0 || bytes.Compare(e.key(idx[n-1]), key) < 0 {
		return n
	}
	lo := min(bk.cur, n-1)
	if lo > 0 && bytes.Compare(e.key(idx[lo-1]), key) >= 0 {
		lo = 0
	}
	// Every write before lo is below key; find hi > lo with idx[hi] at
	// or after key (n - 1 is).
	hi, step := lo, 1
	for bytes.Compare(e.key(idx[hi]), key) < 0 {
		lo = hi + 1
		hi = min(lo+step, n-1)
		step *= 2
	}
	i, _ := slices.BinarySearchFunc(idx[lo:hi+1], key, func(w int32, k []byte) int {
		return bytes.Compare(e.key(w), k)
	})
	bk.cur = lo + i
	return lo + i
}

// sortedBucket returns the bucket that holds key's writes while the set
// is not hashed; nil when none can.
func (e *epochWrites) sortedBucket(key []byte) *epochBucket {
	if len(key) <= vnodeByte || e.n == 0 || !bytes.Equal(e.prefix, key[:vnodeByte]) {
		return nil
	}
	return &e.buckets[key[vnodeByte]]
}

// latest returns the latest write of exactly key, a whole key that is its
// own prefix (the join key covers the pk); ok is false when there is none.
func (e *epochWrites) latest(key []byte) (i int32, ok bool) {
	return e.latestHashed(key, e.hash(key))
}

// latestHashed is latest of a key whose hash is h.
func (e *epochWrites) latestHashed(key []byte, h uint64) (i int32, ok bool) {
	if e.linked == 0 {
		return -1, false
	}
	if !e.hashed {
		bk := e.sortedBucket(key)
		if bk == nil {
			return -1, false
		}
		if p := e.lowerBound(bk, key); p < len(bk.linked) && bytes.Equal(e.key(bk.linked[p]), key) {
			return bk.linked[p], true
		}
		return -1, false
	}
	for i = e.heads.find(h); i >= 0; i = e.ent(i).next {
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
	if e.linked == 0 {
		return nil
	}
	if !e.hashed {
		return e.sortedVersions(prefix)
	}
	for i := e.heads.find(e.hash(prefix)); i >= 0; i = e.ent(i).next {
		if int(e.ent(i).plen) == len(prefix) && bytes.HasPrefix(e.key(i), prefix) {
			e.found = append(e.found, i)
		}
	}
	// Latest first within a key: the chain runs newest to oldest, and the
	// sort is stable.
	slices.SortStableFunc(e.found, func(a, b int32) int { return bytes.Compare(e.key(a), e.key(b)) })
	e.found = slices.CompactFunc(e.found, func(a, b int32) bool { return bytes.Equal(e.key(a), e.key(b)) })
	return e.found
}

// sortedVersions is versions while the set is not hashed: the writes
// under prefix are a run of their bucket's, one per key.
func (e *epochWrites) sortedVersions(prefix []byte) []int32 {
	bk := e.sortedBucket(prefix)
	if bk == nil {
		return nil
	}
	for _, i := range bk.linked[e.lowerBound(bk, prefix):] {
		k := e.key(i)
		if !bytes.HasPrefix(k, prefix) {
			break
		}
		if int(e.ent(i).plen) == len(prefix) {
			e.found = append(e.found, i)
		}
	}
	return e.found
}

// flush hands the writes to the epoch (see epochWrites) and empties the
// set.
func (e *epochWrites) flush(st *storage.Store, w *storage.WriteBatch, job bool) error {
	e.ingested = false
	if e.n == 0 {
		return nil
	}
	if e.seen != nil {
		for _, h := range e.pend { // written since the last link
			e.seen.add(h)
		}
	}
	var err error
	if e.size >= epochIngestBytes || job && e.size >= jobIngestBytes {
		e.ingested = true
		err = e.ingest(st, w)
	} else {
		err = e.batch(w)
	}
	e.reset()
	return err
}

// batch writes the writes to w in the order they were made.
func (e *epochWrites) batch(w *storage.WriteBatch) error {
	for i := range e.n {
		var err error
		if v := e.value(int32(i)); v == nil {
			err = w.Delete(e.key(int32(i)))
		} else {
			err = w.Set(e.key(int32(i)), v)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// ingest writes the latest write of each key, in key order, to an
// sstable ingested with w's epoch (eachSorted).
func (e *epochWrites) ingest(st *storage.Store, w *storage.WriteBatch) error {
	iw, err := st.NewIngestWriter()
	if err != nil {
		return err
	}
	add := func(key, val []byte, del bool) error {
		if del {
			return iw.Delete(key)
		}
		return iw.Add(key, val)
	}
	if err := e.eachSorted(add); err != nil {
		iw.Abort()
		return err
	}
	in, err := iw.Finish()
	if err != nil || in == nil {
		return err
	}
	if err := w.AddIngest(in); err != nil {
		in.Discard()
		return err
	}
	return nil
}

// sorted returns the latest write of each key, in key order: the flush
// order of a mixed set (see epochBucket).
//
// The writes are first distributed by the first byte that differs
// between keys (a counting sort, stable: a vnode's rows of a view keyed
// by row id come in key order), and each part, a fraction of the epoch's
// tens of megabytes, is sorted on its own, closer to the cache.
func (e *epochWrites) sorted() []sortedWrite {
	pos := e.sortPositions()
	pfxOf := func(i int) uint64 {
		k := e.key(int32(i))
		var pfx uint64
		for _, j := range pos {
			pfx = pfx<<8 | uint64(k[j])
		}
		return pfx << (8 * (8 - len(pos)))
	}
	var counts [257]int
	for i := range e.n {
		counts[pfxOf(i)>>56+1]++
	}
	for d := 1; d < len(counts); d++ {
		counts[d] += counts[d-1]
	}
	parts := counts // where each part starts, once the writes are placed
	e.order = slices.Grow(e.order[:0], e.n)[:e.n]
	for i := range e.n {
		pfx := pfxOf(i)
		d := pfx >> 56
		e.order[counts[d]] = sortedWrite{pfx: pfx, i: int32(i)}
		counts[d]++
	}
	for d := range 256 {
		// By key, and the latest write of a key first.
		slices.SortFunc(e.order[parts[d]:parts[d+1]], func(a, b sortedWrite) int {
			if c := cmp.Compare(a.pfx, b.pfx); c != 0 {
				return c
			}
			if c := bytes.Compare(e.key(a.i), e.key(b.i)); c != 0 {
				return c
			}
			return cmp.Compare(b.i, a.i)
		})
	}
	return slices.CompactFunc(e.order, func(a, b sortedWrite) bool {
		return a.pfx == b.pfx && bytes.Equal(e.key(a.i), e.key(b.i))
	})
}

// sortPositionsScanned bounds the key bytes sortPositions looks at.
const sortPositionsScanned = 48

// sortPositions returns the first (at most 8) byte positions at which the
// keys differ, all below the shortest key's length: the keys agree at
// every other position before the last of them, so the bytes at these
// positions, packed into sortedWrite.pfx, order any two keys as the keys
// do unless the packed bytes are equal. Keys of one table share their
// first bytes (the table id, and in a view keyed by a hidden row id the
// high bytes of the id), so the bytes that follow them would tie often.
func (e *epochWrites) sortPositions() []int {
	if e.n == 0 {
		return nil
	}
	first := e.key(0)
	limit := min(len(first), sortPositionsScanned)
	var diff [sortPositionsScanned]byte
	for i := 1; i < e.n; i++ {
		k := e.key(int32(i))
		limit = min(limit, len(k))
		for j := tableIDPrefixLen; j < limit; j++ {
			diff[j] |= k[j] ^ first[j]
		}
	}
	var pos []int
	for j := tableIDPrefixLen; j < limit && len(pos) < 8; j++ {
		if diff[j] != 0 {
			pos = append(pos, j)
		}
	}
	return pos
}

// reset empties the set. It keeps about a megabyte of its buffers: an
// idle executor should not hold a backfill's worth of memory, and one
// that writes as much every epoch allocates what it needs again.
func (e *epochWrites) reset() {
	e.resetBuckets()
	const keepPages = 2
	if len(e.ents) > keepPages {
		clear(e.ents[keepPages:])
		e.ents, e.order = e.ents[:keepPages], nil
	}
	e.n, e.size, e.linked, e.pend, e.pendB = 0, 0, 0, e.pend[:0], e.pendB[:0]
	e.heads.reset()
	e.hashed = false
}

// headTable is a hash table from a 64-bit hash to the index + 1 of a
// write (0: no entry): open addressing, linear probing, at most half
// full, so most lookups read one slot (a Go map reads a group's control
// word, then a slot). A slot keeps 32 bits of the hash besides those its
// position gives: two hashes that share them share a slot, whose chain
// then holds the writes of both (readers check the keys).
type headTable struct {
	slots []headSlot // a power of two of them
	n     int
	last  int // n at the last reset: the next table is sized for it
	sink  int32
}

type headSlot struct {
	tag  uint32 // the hash's high bits
	head int32
}

const minHeadSlots = 1 << 12

// slot returns the slot of h, an empty one (head 0) when h has none;
// added must follow the filling of an empty one.
func (t *headTable) slot(h uint64) *headSlot {
	if len(t.slots) == 0 {
		n := minHeadSlots
		for n < 4*t.last {
			n *= 2
		}
		t.slots = make([]headSlot, n)
	}
	mask, tag := uint64(len(t.slots)-1), uint32(h>>32)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.head == 0 {
			s.tag = tag
			return s
		}
		if s.tag == tag {
			return s
		}
	}
}

// added counts an empty slot filled, growing the table past half full,
// fourfold (each growth rehashes every write so far). A slot's position
// in the larger table needs hash bits the slot does not keep: the chains
// are rebuilt from the writes' keys, oldest write first, so that each
// chain runs newest to oldest again.
func (t *headTable) added(e *epochWrites) {
	t.n++
	if 2*t.n < len(t.slots) {
		return
	}
	t.slots, t.n = make([]headSlot, 4*len(t.slots)), 0
	t.chain(e, e.linked)
}

// rebuild fills an empty table (sized for them) with the first n writes
// of e, when e stops being sorted (see epochWrites.heads).
func (t *headTable) rebuild(e *epochWrites, n int) {
	size := minHeadSlots
	for size < 4*max(n, t.last) {
		size *= 2
	}
	t.slots, t.n = make([]headSlot, size), 0
	t.chain(e, n)
}

// chain links the first n writes of e into the table, oldest first, so
// that each chain runs newest to oldest.
func (t *headTable) chain(e *epochWrites, n int) {
	var hs [256]uint64
	for start := int32(0); start < int32(n); start += int32(len(hs)) {
		end := min(start+int32(len(hs)), int32(n))
		for i := start; i < end; i++ {
			w := e.ent(i)
			hs[i-start] = e.hash(e.key(i)[:w.plen])
		}
		t.touch(hs[:end-start])
		for i := start; i < end; i++ {
			s := t.slot(hs[i-start])
			if s.head == 0 {
				t.n++
			}
			w := e.ent(i)
			w.next, s.head = s.head-1, i+1
		}
	}
}

// touch reads the slots of hs (see epochWrites.link).
func (t *headTable) touch(hs []uint64) {
	if len(t.slots) == 0 {
		return
	}
	mask := uint64(len(t.slots) - 1)
	var sum int32
	for _, h := range hs {
		sum += t.slots[h&mask].head
	}
	t.sink = sum
}

// find returns the write index stored for h; -1: none.
func (t *headTable) find(h uint64) int32 {
	if len(t.slots) == 0 {
		return -1
	}
	mask, tag := uint64(len(t.slots)-1), uint32(h>>32)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.head == 0 {
			return -1
		}
		if s.tag == tag {
			return s.head - 1
		}
	}
}

// reset empties the table, keeping its slots unless they are many.
func (t *headTable) reset() {
	if len(t.slots) > 1<<16 {
		t.slots = nil
	} else {
		clear(t.slots)
	}
	t.n, t.last = 0, t.n
}
