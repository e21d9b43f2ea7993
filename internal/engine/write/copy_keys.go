package write

import (
	"bufio"
	"bytes"
	"cmp"
	"container/heap"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"
)

// keyPrefixLen is the length of the part of a table's storage keys that
// all its keys share ('t' and the table id); see storage/doc.go.
const keyPrefixLen = 5

// keySorter collects the storage keys of a COPY's or INSERT's rows, with
// their line (row) numbers and their encoded values, into sorted runs
// (spilled to a file when full) and merges them back in key order: see
// copy_stage.go. The values are what a bulk ingest writes (bulk.go).
//
// A run groups its keys by bucket as they come (keyBucket: a vnode), each
// bucket with an arena of its own. A table's keys begin with their vnode,
// so a load in primary-key order scatters consecutive rows over every
// vnode: sorting them in one arena and copying them out in key order
// read it at random, a cache miss a key, which was most of the cost of a
// spill. Grouped, a bucket is read front to back, and it is usually in
// key order already, which the sort finds in one pass.
//
// A full run is sorted and written by a goroutine of the sorter's own
// (spillRun) while the caller fills the next one, so that the sort and
// the writes do not hold up parsing: at most one run is in flight, and
// add, finish and close wait for it. Until it is done the goroutine owns
// the file, runs, size and spare; the caller owns cur.
type keySorter struct {
	dir  *tempDir
	cur  *keyRunBuf // the run being filled
	file *os.File
	bw   *bufio.Writer
	runs []keyRun // spilled runs, in the file
	size int64    // bytes written to the file

	// spilling, when not nil, receives the result of the run in flight.
	spilling chan error
	// spare is the last run written, emptied, for its buffers.
	spare *keyRunBuf
}

// keyBuckets is the number of buckets of a run: one per vnode (the two
// key bytes after the table prefix, below storage.NumVnodes in a table's
// keys) and a last one for keys whose two bytes are larger (none of a
// table's; the sort orders them all the same).
const keyBuckets = 257

// bucketOf is the bucket of a key of abbrev abbr.
func bucketOf(abbr uint64) int { return int(min(abbr>>48, keyBuckets-1)) }

// keyRunBuf is a run in memory: its keys and values by bucket, and the
// bytes they hold (arena bytes, and keyEntSize a key).
type keyRunBuf struct {
	buckets [keyBuckets]keyBucket
	bytes   int
}

// keyBucket holds the keys of one bucket of a run, and their values.
type keyBucket struct {
	arena []byte
	ents  []keyEnt
}

// keyEnt is one key, and its value after it, in its bucket's arena.
type keyEnt struct {
	// abbr and abbr2 are the first 16 key bytes after the table prefix,
	// big endian, zero padded: they order keys of different abbrevs, and
	// keys of up to keyPrefixLen+16 bytes (a vnode and a bigint pk) are
	// equal exactly when their abbrevs and lengths are, so sorting them
	// never reads the arena.
	abbr, abbr2 uint64
	off         uint32
	n           uint32 // key length
	vn          uint32 // value length
	line        int64
}

// keyEntSize is the memory a run counts for a keyEnt: its size, and as
// much again for the slack of the growing slices that hold it.
const keyEntSize = 2 * 40

// keyRun is a sorted run in the file, with where each of its buckets
// starts, so that a merge can read one range of buckets of every run
// (parts).
type keyRun struct {
	off, size int64
	starts    []bucketStart // in bucket order
}

// bucketStart is the file offset of a run's first key in bucket.
type bucketStart struct {
	bucket uint16
	off    int64
}

func newKeySorter(dir *tempDir) *keySorter { return &keySorter{dir: dir, cur: &keyRunBuf{}} }

func (k *keySorter) add(key, value []byte, line int64) error {
	n := len(key) + len(value)
	a, a2 := abbrev(key)
	b := &k.cur.buckets[bucketOf(a)]
	if k.cur.bytes+n+keyEntSize > copyKeyRunBytes || len(b.arena)+n > 1<<32-1 {
		if err := k.spill(); err != nil {
			return err
		}
		b = &k.cur.buckets[bucketOf(a)]
	}
	off := len(b.arena)
	if len(b.arena)+n > cap(b.arena) {
		// Double (append grows large slices by a quarter, copying
		// the arena many times over as a run fills).
		b.arena = slices.Grow(b.arena, max(n, cap(b.arena), 256))
	}
	if len(b.ents) == cap(b.ents) {
		b.ents = slices.Grow(b.ents, max(len(b.ents), 8))
	}
	b.arena = append(append(b.arena, key...), value...)
	b.ents = append(b.ents, keyEnt{abbr: a, abbr2: a2, off: uint32(off), n: uint32(len(key)), vn: uint32(len(value)), line: line})
	k.cur.bytes += n + keyEntSize
	return nil
}

// abbrevLen is how many key bytes after the table prefix abbrev covers.
const abbrevLen = 16

// abbrev is a key's sort prefix: comparing two abbrevs orders their keys
// unless they are equal.
func abbrev(key []byte) (uint64, uint64) {
	var b [abbrevLen]byte
	if len(key) > keyPrefixLen {
		copy(b[:], key[keyPrefixLen:])
	}
	return binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])
}

func (b *keyBucket) key(e keyEnt) []byte { return b.arena[e.off : e.off+e.n] }

func (b *keyBucket) value(e keyEnt) []byte { return b.arena[e.off+e.n : e.off+e.n+e.vn] }

// sort orders the bucket's keys by key, then line. Keys added in order
// (a load in pk order) are found sorted in one pass.
func (b *keyBucket) sort() {
	slices.SortFunc(b.ents, func(x, y keyEnt) int {
		if x.abbr != y.abbr {
			return cmp.Compare(x.abbr, y.abbr)
		}
		if x.abbr2 != y.abbr2 {
			return cmp.Compare(x.abbr2, y.abbr2)
		}
		if x.n > keyPrefixLen+abbrevLen || y.n > keyPrefixLen+abbrevLen {
			if c := bytes.Compare(b.key(x), b.key(y)); c != 0 {
				return c
			}
		} else if x.n != y.n {
			return cmp.Compare(x.n, y.n) // zero padding: the shorter is a prefix
		}
		return cmp.Compare(x.line, y.line)
	})
}

// spill hands the run being filled to a goroutine that sorts it and
// writes it to the file (spillRun), once the run before is written; the
// caller goes on with the buffers of an earlier run.
func (k *keySorter) spill() error {
	if k.cur.bytes == 0 {
		return nil
	}
	if err := k.wait(); err != nil {
		return err
	}
	if k.file == nil {
		f, err := k.dir.create("keys")
		if err != nil {
			return err
		}
		k.file, k.bw = f, bufio.NewWriterSize(f, spillBufferSize)
	}
	run := k.cur
	k.cur, k.spare = k.spare, nil
	if k.cur == nil {
		k.cur = &keyRunBuf{}
	}
	done := make(chan error, 1)
	k.spilling = done
	go func() { done <- k.spillRun(run) }()
	return nil
}

// wait waits for the run in flight, if any, and returns its error.
func (k *keySorter) wait() error {
	if k.spilling == nil {
		return nil
	}
	err := <-k.spilling
	k.spilling = nil
	return err
}

// spillRun sorts run and appends it to the file; it runs on the sorter's
// spill goroutine, and leaves run, emptied, as the spare.
func (k *keySorter) spillRun(run *keyRunBuf) error {
	out := keyRun{off: k.size}
	var hdr [3 * binary.MaxVarintLen64]byte
	for i := range run.buckets {
		b := &run.buckets[i]
		if len(b.ents) == 0 {
			continue
		}
		b.sort()
		out.starts = append(out.starts, bucketStart{bucket: uint16(i), off: k.size})
		for _, e := range b.ents {
			n := binary.PutUvarint(hdr[:], uint64(e.n))
			n += binary.PutVarint(hdr[n:], e.line)
			n += binary.PutUvarint(hdr[n:], uint64(e.vn))
			if _, err := k.bw.Write(hdr[:n]); err != nil {
				return fmt.Errorf("streamdb: COPY: writing staged keys: %w", err)
			}
			if _, err := k.bw.Write(b.arena[e.off : e.off+e.n+e.vn]); err != nil {
				return fmt.Errorf("streamdb: COPY: writing staged keys: %w", err)
			}
			k.size += int64(n) + int64(e.n) + int64(e.vn)
		}
		b.arena, b.ents = b.arena[:0], b.ents[:0]
	}
	out.size = k.size - out.off
	k.runs = append(k.runs, out)
	run.bytes = 0
	k.spare = run
	return nil
}

// finish sorts the keys left in memory (the last run) and flushes the file.
func (k *keySorter) finish() error {
	if err := k.wait(); err != nil {
		return err
	}
	for i := range k.cur.buckets {
		k.cur.buckets[i].sort()
	}
	if k.bw != nil {
		if err := k.bw.Flush(); err != nil {
			return fmt.Errorf("streamdb: COPY: writing staged keys: %w", err)
		}
	}
	return nil
}

// close waits for the run in flight, if any (its owner then removes the
// file).
func (k *keySorter) close() { _ = k.wait() }

// keyCursor walks one sorted run.
type keyCursor interface {
	// next advances; false at the end (or on error: see err).
	next() bool
	key() []byte
	value() []byte
	line() int64
	err() error
}

// merge returns a cursor over all runs, in key then line order.
func (k *keySorter) merge() keyCursor { return k.mergeRange(0, keyBuckets) }

// mergeRange returns a cursor over the keys of buckets [lo, hi) of all
// runs, in key then line order. Cursors of disjoint ranges may be used
// by different goroutines at once (they read the file with ReadAt), once
// finish has returned.
func (k *keySorter) mergeRange(lo, hi int) keyCursor {
	m := &keyMerge{}
	for _, r := range k.runs {
		from, to := r.bucketOffset(lo), r.bucketOffset(hi)
		if from < to {
			m.add(&fileRun{rd: bufio.NewReaderSize(io.NewSectionReader(k.file, from, to-from), 64<<10)})
		}
	}
	m.add(&memRun{run: k.cur, b: lo, i: -1, end: hi})
	heap.Init(m)
	return m
}

// bucketOffset is the file offset of the run's first key in a bucket at
// or after b (the run's end if there is none).
func (r keyRun) bucketOffset(b int) int64 {
	i, _ := slices.BinarySearchFunc(r.starts, b, func(s bucketStart, b int) int { return cmp.Compare(int(s.bucket), b) })
	if i == len(r.starts) {
		return r.off + r.size
	}
	return r.starts[i].off
}

// parts splits the buckets into at most n ranges [bounds[i],
// bounds[i+1]) holding about as many key bytes each, and none empty. All
// keys of a bucket (equal keys among them) fall in one range.
func (k *keySorter) parts(n int) (bounds []int) {
	var sizes [keyBuckets]int64
	var total int64
	for _, r := range k.runs {
		for i, s := range r.starts {
			end := r.off + r.size
			if i+1 < len(r.starts) {
				end = r.starts[i+1].off
			}
			sizes[s.bucket] += end - s.off
			total += end - s.off
		}
	}
	for i, b := range k.cur.buckets {
		size := int64(len(b.arena) + 3*len(b.ents))
		sizes[i] += size
		total += size
	}
	bounds = append(bounds, 0)
	var acc int64
	for b, size := range sizes {
		if size > 0 && acc > 0 && acc >= total*int64(len(bounds))/int64(n) {
			bounds = append(bounds, b)
		}
		acc += size
	}
	return append(bounds, keyBuckets)
}

// memRun is the run still in memory, from entry i+1 of bucket b to the
// end of bucket end-1.
type memRun struct {
	run       *keyRunBuf
	b, i, end int
}

func (r *memRun) next() bool {
	r.i++
	for r.b < r.end && r.i >= len(r.run.buckets[r.b].ents) {
		r.b, r.i = r.b+1, 0
	}
	return r.b < r.end
}

func (r *memRun) key() []byte {
	b := &r.run.buckets[r.b]
	return b.key(b.ents[r.i])
}

func (r *memRun) value() []byte {
	b := &r.run.buckets[r.b]
	return b.value(b.ents[r.i])
}

func (r *memRun) line() int64 { return r.run.buckets[r.b].ents[r.i].line }
func (r *memRun) err() error  { return nil }

// fileRun reads a spilled run.
type fileRun struct {
	rd  *bufio.Reader
	buf []byte // key then value
	n   int    // key length
	ln  int64
	e   error
}

func (r *fileRun) next() bool {
	// The header from the read buffer in one go (ReadUvarint reads a
	// byte at a time); the entry's end, a short or bad header, from
	// nextSlow.
	hdr, _ := r.rd.Peek(3 * binary.MaxVarintLen64)
	n, k1 := binary.Uvarint(hdr)
	if k1 <= 0 {
		return r.nextSlow()
	}
	ln, k2 := binary.Varint(hdr[k1:])
	if k2 <= 0 {
		return r.nextSlow()
	}
	vn, k3 := binary.Uvarint(hdr[k1+k2:])
	if k3 <= 0 {
		return r.nextSlow()
	}
	if _, err := r.rd.Discard(k1 + k2 + k3); err != nil {
		r.e = fmt.Errorf("streamdb: COPY: reading staged keys: %w", err)
		return false
	}
	r.n, r.ln = int(n), ln
	r.buf = slices.Grow(r.buf[:0], int(n+vn))[:n+vn]
	if _, err := io.ReadFull(r.rd, r.buf); err != nil {
		r.e = fmt.Errorf("streamdb: COPY: reading staged keys: %w", err)
		return false
	}
	return true
}

// nextSlow is next reading the header a byte at a time: at the end of
// the run, and where the header is cut short.
func (r *fileRun) nextSlow() bool {
	n, err := binary.ReadUvarint(r.rd)
	if err == io.EOF {
		return false
	}
	var vn uint64
	if err == nil {
		r.ln, err = binary.ReadVarint(r.rd)
	}
	if err == nil {
		vn, err = binary.ReadUvarint(r.rd)
	}
	if err == nil {
		r.n = int(n)
		r.buf = slices.Grow(r.buf[:0], int(n+vn))[:n+vn]
		_, err = io.ReadFull(r.rd, r.buf)
	}
	if err != nil {
		r.e = fmt.Errorf("streamdb: COPY: reading staged keys: %w", err)
		return false
	}
	return true
}

func (r *fileRun) key() []byte   { return r.buf[:r.n] }
func (r *fileRun) value() []byte { return r.buf[r.n:] }
func (r *fileRun) line() int64   { return r.ln }
func (r *fileRun) err() error    { return r.e }

// keyMerge merges runs with a heap of their cursors, each positioned on
// its current key.
type keyMerge struct {
	runs    []keyCursor
	cur     keyCursor
	started bool
	e       error
}

func (m *keyMerge) add(c keyCursor) {
	if c.next() {
		m.runs = append(m.runs, c)
	} else if err := c.err(); err != nil && m.e == nil {
		m.e = err
	}
}

// heap.Interface over the runs.
func (m *keyMerge) Len() int { return len(m.runs) }
func (m *keyMerge) Less(i, j int) bool {
	a, b := m.runs[i], m.runs[j]
	if c := bytes.Compare(a.key(), b.key()); c != 0 {
		return c < 0
	}
	return a.line() < b.line()
}
func (m *keyMerge) Swap(i, j int) { m.runs[i], m.runs[j] = m.runs[j], m.runs[i] }
func (m *keyMerge) Push(x any)    { m.runs = append(m.runs, x.(keyCursor)) }
func (m *keyMerge) Pop() any {
	x := m.runs[len(m.runs)-1]
	m.runs = m.runs[:len(m.runs)-1]
	return x
}

func (m *keyMerge) next() bool {
	if m.e != nil {
		return false
	}
	if m.started {
		// Advance the run whose key was returned last (the heap's top).
		if m.runs[0].next() {
			heap.Fix(m, 0)
		} else {
			if err := m.runs[0].err(); err != nil {
				m.e = err
				return false
			}
			heap.Pop(m)
		}
	}
	m.started = true
	return len(m.runs) > 0
}

func (m *keyMerge) key() []byte   { return m.runs[0].key() }
func (m *keyMerge) value() []byte { return m.runs[0].value() }
func (m *keyMerge) line() int64   { return m.runs[0].line() }
func (m *keyMerge) err() error    { return m.e }
