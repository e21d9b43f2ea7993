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
type keySorter struct {
	dir   *tempDir
	arena []byte
	ents  []keyEnt
	file  *os.File
	bw    *bufio.Writer
	runs  []keyRun // spilled runs, in the file
	size  int64    // bytes written to the file

	counts  []int    // sort's bucket counts
	scratch []keyEnt // sort's second buffer
}

// keyEnt is one key, and its value after it, in the arena.
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

// keyEntSize is the memory of a keyEnt, and of its place in the scratch
// of the sort.
const keyEntSize = 2 * 40

// keyRun is a sorted run in the file.
type keyRun struct{ off, size int64 }

func newKeySorter(dir *tempDir) *keySorter { return &keySorter{dir: dir} }

func (k *keySorter) add(key, value []byte, line int64) error {
	n := len(key) + len(value)
	if len(k.arena)+n+keyEntSize*len(k.ents) > copyKeyRunBytes || len(k.arena)+n > 1<<32-1 {
		if err := k.spill(); err != nil {
			return err
		}
	}
	off := len(k.arena)
	if len(k.arena)+n > cap(k.arena) {
		// Double (append grows large slices by a quarter, copying
		// the arena many times over as a run fills).
		k.arena = slices.Grow(k.arena, max(n, cap(k.arena), 4<<10))
	}
	if len(k.ents) == cap(k.ents) {
		k.ents = slices.Grow(k.ents, max(len(k.ents), 64))
	}
	k.arena = append(append(k.arena, key...), value...)
	a, a2 := abbrev(key)
	k.ents = append(k.ents, keyEnt{abbr: a, abbr2: a2, off: uint32(off), n: uint32(len(key)), vn: uint32(len(value)), line: line})
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

func (k *keySorter) key(e keyEnt) []byte { return k.arena[e.off : e.off+e.n] }

func (k *keySorter) value(e keyEnt) []byte { return k.arena[e.off+e.n : e.off+e.n+e.vn] }

// compare orders entries by key, then line.
func (k *keySorter) compare(a, b keyEnt) int {
	if a.abbr != b.abbr {
		return cmp.Compare(a.abbr, b.abbr)
	}
	if a.abbr2 != b.abbr2 {
		return cmp.Compare(a.abbr2, b.abbr2)
	}
	if a.n > keyPrefixLen+abbrevLen || b.n > keyPrefixLen+abbrevLen {
		if c := bytes.Compare(k.key(a), k.key(b)); c != 0 {
			return c
		}
	} else if a.n != b.n {
		return cmp.Compare(a.n, b.n) // zero padding: the shorter is a prefix
	}
	return cmp.Compare(a.line, b.line)
}

// sort orders the buffered keys by key, then line: a counting sort on
// the first two bytes after the table prefix (the vnode), then a sort of
// each bucket. The counting sort is stable, so rows that arrive in key
// order within their vnodes (a load in pk order) leave each bucket
// sorted, which the bucket sort finds in one pass.
func (k *keySorter) sort() {
	const buckets = 1 << 16
	if len(k.ents) < 1024 {
		slices.SortFunc(k.ents, k.compare)
		return
	}
	if k.counts == nil {
		k.counts = make([]int, buckets+1)
	}
	counts := k.counts
	clear(counts)
	for _, e := range k.ents {
		counts[e.abbr>>48+1]++
	}
	for i := 1; i <= buckets; i++ {
		counts[i] += counts[i-1]
	}
	k.scratch = slices.Grow(k.scratch[:0], len(k.ents))[:len(k.ents)]
	for _, e := range k.ents {
		b := e.abbr >> 48
		k.scratch[counts[b]] = e
		counts[b]++
	}
	k.ents, k.scratch = k.scratch, k.ents
	// counts[b] is now the end of bucket b.
	start := 0
	for b := 0; b < buckets; b++ {
		end := counts[b]
		if end-start > 1 {
			slices.SortFunc(k.ents[start:end], k.compare)
		}
		start = end
	}
}

// spill sorts the buffered keys and writes them to the file as a run.
func (k *keySorter) spill() error {
	if len(k.ents) == 0 {
		return nil
	}
	if k.file == nil {
		f, err := k.dir.create("keys")
		if err != nil {
			return err
		}
		k.file, k.bw = f, bufio.NewWriterSize(f, spillBufferSize)
	}
	k.sort()
	run := keyRun{off: k.size}
	var hdr [3 * binary.MaxVarintLen64]byte
	for _, e := range k.ents {
		n := binary.PutUvarint(hdr[:], uint64(e.n))
		n += binary.PutVarint(hdr[n:], e.line)
		n += binary.PutUvarint(hdr[n:], uint64(e.vn))
		if _, err := k.bw.Write(hdr[:n]); err != nil {
			return fmt.Errorf("streamdb: COPY: writing staged keys: %w", err)
		}
		if _, err := k.bw.Write(k.arena[e.off : e.off+e.n+e.vn]); err != nil {
			return fmt.Errorf("streamdb: COPY: writing staged keys: %w", err)
		}
		k.size += int64(n) + int64(e.n) + int64(e.vn)
	}
	run.size = k.size - run.off
	k.runs = append(k.runs, run)
	k.arena, k.ents = k.arena[:0], k.ents[:0]
	return nil
}

// finish sorts the keys left in memory (the last run) and flushes the file.
func (k *keySorter) finish() error {
	k.sort()
	if k.bw != nil {
		if err := k.bw.Flush(); err != nil {
			return fmt.Errorf("streamdb: COPY: writing staged keys: %w", err)
		}
	}
	return nil
}

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
func (k *keySorter) merge() keyCursor {
	m := &keyMerge{}
	for _, r := range k.runs {
		m.add(&fileRun{rd: bufio.NewReaderSize(io.NewSectionReader(k.file, r.off, r.size), 64<<10)})
	}
	m.add(&memRun{k: k, i: -1})
	heap.Init(m)
	return m
}

// memRun is the run still in memory.
type memRun struct {
	k *keySorter
	i int
}

func (r *memRun) next() bool    { r.i++; return r.i < len(r.k.ents) }
func (r *memRun) key() []byte   { return r.k.key(r.k.ents[r.i]) }
func (r *memRun) value() []byte { return r.k.value(r.k.ents[r.i]) }
func (r *memRun) line() int64   { return r.k.ents[r.i].line }
func (r *memRun) err() error    { return nil }

// fileRun reads a spilled run.
type fileRun struct {
	rd  *bufio.Reader
	buf []byte // key then value
	n   int    // key length
	ln  int64
	e   error
}

func (r *fileRun) next() bool {
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
