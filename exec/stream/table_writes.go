package stream

import (
	"bytes"
	"encoding/binary"
	"slices"

	"github.com/streamdb/streamdb/storage"
)

// tableWrites holds the writes a Materialize makes to its table in the
// current epoch without reading it (Trusted, or a view's in release
// builds), encoded (keys as storage.Table makes them, values as
// storage.EncodeRow), and hands them to the epoch at the barrier (flush)
// the way epochWrites does for a join side: a few in the epoch's batch,
// many (a backfill's, a fast source's) as an sstable ingested with the
// epoch, which needs them in key order with the latest write of each key.
// Unlike a join side's, these writes are never read back, so they are
// kept in the order that makes that flush cheap.
//
// A table's keys are its prefix, the vnode, then the pk. The writes
// arrive in the stream's order, vnodes interleaved, but within one vnode
// the keys of a view keyed by a hidden row id (or by any stream key that
// grows) come ascending. So each write is appended to its vnode's bucket
// (one append stream per vnode, sequential memory), and the bucket notes
// whether its keys are still strictly ascending. At the barrier the
// buckets are visited in vnode order: an ascending bucket goes out as it
// is, with no sort and reading memory in sequence (an epoch-wide sort
// followed by reading tens of megabytes in key order, which is random
// order in memory, cost a cache miss per key); any other bucket is sorted
// on its own, a vnode's share of the epoch close to the cache, stably,
// and the latest write of each key is kept.
//
// The bucket is the key's byte at vnodeByte (the low byte of the vnode:
// vnodes are below 256), which orders the buckets as the keys when every
// key shares its bytes before it. A key that does not (it never happens:
// one table's keys share them) marks the set mixed, and the flush then
// sorts all the writes together. The same key always lands in the same
// bucket, so a bucket's order is the writes' order for each key.
type tableWrites struct {
	buckets [256]writeBucket
	// prefix is the first write's key[:vnodeByte]; mixed: some key did
	// not start with it.
	prefix []byte
	mixed  bool
	n      int // writes
	size   int // bytes of keys and values
	refs   []writeRef
	kept   int // bytes the buckets keep across a reset
}

// writeBucket is one vnode's writes, each a record
//
//	uvarint key length | uvarint value length + 1 (0: a deletion) | key | value
//
// in buf; last is the offset of the last record's key, ascending whether
// the keys so far are strictly ascending.
type writeBucket struct {
	buf       []byte
	n         int
	last      int
	lastLen   int
	ascending bool
	hint      int // the bytes of the last epoch's writes: buf's next capacity
}

// writeRef locates a record: its bucket and its offset there.
type writeRef struct {
	bucket uint8
	off    int32
}

// vnodeByte is the position of the byte that picks a write's bucket: the
// low byte of the vnode after the table prefix (storage's table keys).
const vnodeByte = tableIDPrefixLen + 1

// tableWritesKeep bounds the bytes of bucket buffers kept from one epoch
// to the next (an idle executor should not hold a backfill's worth).
const tableWritesKeep = 1 << 20

// maxBucketHint caps the capacity a bucket asks for at its first write.
const maxBucketHint = 4 << 20

// put stages key = val (del: the deletion of key).
func (t *tableWrites) put(key, val []byte, del bool) {
	bi := t.bucketOf(key)
	b := &t.buckets[bi]
	if b.buf == nil && b.hint > 0 {
		b.buf = make([]byte, 0, b.hint)
	}
	if b.n == 0 {
		b.ascending = true
	}
	vfield := uint64(len(val)) + 1
	if del {
		vfield, val = 0, nil
	}
	b.buf = binary.AppendUvarint(b.buf, uint64(len(key)))
	b.buf = binary.AppendUvarint(b.buf, vfield)
	off := len(b.buf)
	b.buf = append(append(b.buf, key...), val...)
	if b.ascending && b.n > 0 && bytes.Compare(b.buf[b.last:b.last+b.lastLen], key) >= 0 {
		b.ascending = false
	}
	b.last, b.lastLen = off, len(key)
	b.n++
	t.n++
	t.size += len(key) + len(val)
}

// bucketOf returns the bucket of key, marking the set mixed when key
// does not share the first write's prefix.
func (t *tableWrites) bucketOf(key []byte) int {
	if len(key) <= vnodeByte {
		t.mixed = true
		return 0
	}
	if t.n == 0 {
		t.prefix = append(t.prefix[:0], key[:vnodeByte]...)
	} else if !t.mixed && !bytes.Equal(t.prefix, key[:vnodeByte]) {
		t.mixed = true
	}
	return int(key[vnodeByte])
}

// record reads the record at off of bucket b.
func (t *tableWrites) record(b int, off int32) (key, val []byte, del bool) {
	buf := t.buckets[b].buf[off:]
	klen, k := binary.Uvarint(buf)
	vfield, k2 := binary.Uvarint(buf[k:])
	buf = buf[k+k2:]
	key = buf[:klen:klen]
	if vfield == 0 {
		return key, nil, true
	}
	return key, buf[klen : klen+vfield-1 : klen+vfield-1], false
}

// each calls f with every write of bucket b, in the order made.
func (t *tableWrites) each(b int, f func(key, val []byte, del bool) error) error {
	buf := t.buckets[b].buf
	for len(buf) > 0 {
		klen, k := binary.Uvarint(buf)
		vfield, k2 := binary.Uvarint(buf[k:])
		buf = buf[k+k2:]
		key := buf[:klen:klen]
		var err error
		if vfield == 0 {
			err = f(key, nil, true)
			buf = buf[klen:]
		} else {
			end := klen + vfield - 1
			err = f(key, buf[klen:end:end], false)
			buf = buf[end:]
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// flush hands the writes to the epoch and empties the set: to w's batch
// when they are few, else as an ingested sstable (the thresholds of
// epochWrites.flush, job: at a creating job's barrier).
func (t *tableWrites) flush(st *storage.Store, w *storage.WriteBatch, job bool) error {
	if t.n == 0 {
		return nil
	}
	var err error
	if t.size >= epochIngestBytes || job && t.size >= jobIngestBytes {
		err = t.ingest(st, w)
	} else {
		err = t.batch(w)
	}
	t.reset()
	return err
}

// batch writes the writes to w, bucket by bucket, each in the order made.
func (t *tableWrites) batch(w *storage.WriteBatch) error {
	set := func(key, val []byte, del bool) error {
		if del {
			return w.Delete(key)
		}
		return w.Set(key, val)
	}
	for b := range t.buckets {
		if err := t.each(b, set); err != nil {
			return err
		}
	}
	return nil
}

// ingest writes the latest write of each key, in key order, to an
// sstable ingested with w's epoch.
func (t *tableWrites) ingest(st *storage.Store, w *storage.WriteBatch) error {
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
	if err := t.sorted(add); err != nil {
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

// sorted calls f with the latest write of each key, in key order.
func (t *tableWrites) sorted(f func(key, val []byte, del bool) error) error {
	if t.mixed {
		t.refs = t.refs[:0]
		for b := range t.buckets {
			t.refs = t.appendRefs(t.refs, b)
		}
		return t.emitSorted(t.refs, f)
	}
	for b := range t.buckets {
		bk := &t.buckets[b]
		if bk.n == 0 {
			continue
		}
		var err error
		if bk.ascending {
			err = t.each(b, f)
		} else {
			t.refs = t.appendRefs(t.refs[:0], b)
			err = t.emitSorted(t.refs, f)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// appendRefs appends a reference to each record of bucket b, in the order
// made.
func (t *tableWrites) appendRefs(refs []writeRef, b int) []writeRef {
	buf := t.buckets[b].buf
	for off := 0; off < len(buf); {
		refs = append(refs, writeRef{bucket: uint8(b), off: int32(off)})
		klen, k := binary.Uvarint(buf[off:])
		vfield, k2 := binary.Uvarint(buf[off+k:])
		off += k + k2 + int(klen)
		if vfield > 0 {
			off += int(vfield - 1)
		}
	}
	return refs
}

// emitSorted sorts refs by key, stably (a key's writes stay in the order
// made), and calls f with the last write of each key.
func (t *tableWrites) emitSorted(refs []writeRef, f func(key, val []byte, del bool) error) error {
	keyOf := func(r writeRef) []byte {
		k, _, _ := t.record(int(r.bucket), r.off)
		return k
	}
	slices.SortStableFunc(refs, func(a, b writeRef) int { return bytes.Compare(keyOf(a), keyOf(b)) })
	for i, r := range refs {
		if i+1 < len(refs) && bytes.Equal(keyOf(r), keyOf(refs[i+1])) {
			continue // a later write of the key follows
		}
		if err := f(t.record(int(r.bucket), r.off)); err != nil {
			return err
		}
	}
	return nil
}

// reset empties the set. Each bucket remembers its size as the capacity
// to allocate next epoch (a fast source writes about as much every
// epoch, and a buffer that grows by doubling copies itself); buffers are
// kept, up to tableWritesKeep bytes in all, only when small.
func (t *tableWrites) reset() {
	t.kept = 0
	for i := range t.buckets {
		b := &t.buckets[i]
		if b.n == 0 && b.buf == nil {
			continue
		}
		b.hint = min(len(b.buf)+len(b.buf)/8, maxBucketHint)
		if c := cap(b.buf); c > 0 && t.kept+c <= tableWritesKeep && b.n > 0 {
			t.kept += c
			b.buf = b.buf[:0]
		} else {
			b.buf = nil
		}
		b.n, b.last, b.lastLen, b.ascending = 0, 0, 0, false
	}
	if cap(t.refs) > 1<<16 {
		t.refs = nil
	}
	t.mixed, t.n, t.size = false, 0, 0
}
