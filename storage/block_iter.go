package storage

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// kvIter is what the readers of a table's rows use of a Pebble iterator:
// *pebble.Iterator for a table without blocks, *mergeIter for one with
// (block_keys.go). Keys are row keys and values row encodings either way.
type kvIter interface {
	First() bool
	Last() bool
	Next() bool
	Prev() bool
	SeekGE(key []byte) bool
	SeekLT(key []byte) bool
	SeekPrefixGE(key []byte) bool
	SetBounds(lower, upper []byte)
	Key() []byte
	ValueAndErr() ([]byte, error)
	Error() error
	Close() error
}

// newKV returns an iterator over the rows of t with keys in [lower,
// upper) as r sees them: a plain Pebble iterator, or the merge of the
// table's blocks and rows when it has blocks. The check follows the
// iterator's creation, so an iterator that can see a block merges.
func (t *Table) newKV(r Reader, lower, upper []byte) (kvIter, error) {
	pr, err := r.reader()
	if err != nil {
		return nil, err
	}
	it, err := pr.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return nil, err
	}
	if !r.owner().hasBlocks(t.ID) {
		return it, nil
	}
	return t.newMerge(it, lower, upper)
}

// newMerge returns the merge of it (over [lower, upper)), the table's
// rows, and the blocks of the same view.
func (t *Table) newMerge(it *pebble.Iterator, lower, upper []byte) (*mergeIter, error) {
	tp := appendTablePrefix(nil, t.ID)
	bi, err := it.Clone(pebble.CloneOptions{IterOptions: &pebble.IterOptions{LowerBound: tp, UpperBound: prefixEnd(tp)}})
	if err != nil {
		_ = it.Close()
		return nil, err
	}
	return &mergeIter{ov: it, bl: &blockRows{t: t, it: bi}, table: tp, lo: lower, hi: upper, vnode: -1}, nil
}

// blockRows presents the rows of a table's blocks with keys in [lo, hi)
// (nil: unbounded) one at a time, as row keys and row encodings, over
// one Pebble iterator of the table's whole key range (it steps over the
// row keys between vnodes' blocks with one seek per vnode).
type blockRows struct {
	t      *Table
	it     *pebble.Iterator
	lo, hi []byte
	blk    block
	r      int // the current row of blk
	ok     bool
	// first and last are the keys of the block's first and last rows:
	// what bounds checks and the merge compare while a whole block lies
	// on one side, so that a row's key is made only when needed.
	firstKey, lastKey []byte
	key               []byte // the current row's key, when keyOK
	keyOK             bool
	val               []byte // its encoding, when valOK
	valOK             bool
	probe             []byte // scratch for keys of rows other than the current
	err               error
}

// load parses the block the iterator is on.
func (b *blockRows) load() bool {
	v, err := b.it.ValueAndErr()
	if err == nil {
		err = parseBlock(&b.blk, v, b.t.Types, b.t.Missing)
	}
	if err == nil {
		b.firstKey, err = b.rowKey(b.firstKey[:0], 0)
	}
	if err == nil {
		b.lastKey, err = b.rowKey(b.lastKey[:0], b.blk.rows-1)
	}
	if err != nil {
		b.err = fmt.Errorf("storage: table %d block %x: %w", b.t.ID, b.it.Key(), err)
		return false
	}
	return true
}

// curKey returns the current row's key.
func (b *blockRows) curKey() []byte {
	if !b.keyOK {
		var err error
		if b.key, err = b.rowKey(b.key[:0], b.r); err != nil {
			// The block's first and last keys were made: a row between
			// them fails only if the block is corrupt.
			b.err = fmt.Errorf("storage: table %d block: %w", b.t.ID, err)
		}
		b.keyOK = true
	}
	return b.key
}

// rowKey appends the key of row r of the current block to buf.
func (b *blockRows) rowKey(buf []byte, r int) ([]byte, error) {
	buf = append(buf, b.it.Key()[:tableKeyPrefixLen]...)
	return b.blk.appendKey(buf, b.t, r)
}

// setRow makes row r of the current block the current row.
func (b *blockRows) setRow(r int) bool {
	b.r, b.ok, b.valOK, b.keyOK = r, true, false, false
	return true
}

func (b *blockRows) stop() bool {
	b.ok = false
	return false
}

// searchGE returns the first row of the current block with a key at
// least k (rows when none).
func (b *blockRows) searchGE(k []byte) (int, bool) {
	lo, hi := 0, b.blk.rows
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		var err error
		if b.probe, err = b.rowKey(b.probe[:0], m); err != nil {
			b.err = fmt.Errorf("storage: table %d block: %w", b.t.ID, err)
			return 0, false
		}
		if bytes.Compare(b.probe, k) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, true
}

// skipFwd moves the iterator from a row key forward to the next block.
func (b *blockRows) skipFwd(ok bool) bool {
	for ok && !isBlockKey(b.it.Key()) {
		k := b.it.Key()
		if len(k) < tableKeyPrefixLen {
			ok = b.it.Next()
			continue
		}
		ok = b.it.SeekGE(append(append(b.probe[:0], k[:tableKeyPrefixLen]...), blockMarker))
	}
	return ok
}

// skipBack moves the iterator from a row key back to the block before.
func (b *blockRows) skipBack(ok bool) bool {
	for ok && !isBlockKey(b.it.Key()) {
		k := b.it.Key()
		if len(k) < tableKeyPrefixLen {
			ok = b.it.Prev()
			continue
		}
		ok = b.it.SeekLT(append(b.probe[:0], k[:tableKeyPrefixLen]...))
	}
	return ok
}

// checkFwd bounds the row reached going forward by hi.
func (b *blockRows) checkFwd() bool {
	if b.hi != nil && bytes.Compare(b.lastKey, b.hi) >= 0 && bytes.Compare(b.curKey(), b.hi) >= 0 {
		return b.stop()
	}
	return b.err == nil || b.stop()
}

// checkBack bounds the row reached going backward by lo.
func (b *blockRows) checkBack() bool {
	if b.lo != nil && bytes.Compare(b.firstKey, b.lo) < 0 && bytes.Compare(b.curKey(), b.lo) < 0 {
		return b.stop()
	}
	return b.err == nil || b.stop()
}

// before reports whether the current row's key is before k in direction
// dir (1: less, -1: greater), and equal whether it equals k.
func (b *blockRows) before(k []byte, dir int8) (before, equal bool) {
	if dir > 0 && bytes.Compare(b.lastKey, k) < 0 || dir < 0 && bytes.Compare(b.firstKey, k) > 0 {
		return true, false
	}
	c := bytes.Compare(b.curKey(), k) * int(dir)
	return c < 0, c == 0
}

// seekGE moves to the first row with a key at least k (and lo).
func (b *blockRows) seekGE(k []byte) bool {
	b.ok = false
	if b.err != nil {
		return false
	}
	if b.lo != nil && (k == nil || bytes.Compare(k, b.lo) < 0) {
		k = b.lo
	}
	if k == nil {
		return b.first()
	}
	bk := appendBlockKey(nil, k)
	// The block that may hold k: the last with a first key at most k.
	ok := b.it.SeekLT(append(bk, 0))
	if ok && isBlockKey(b.it.Key()) && len(k) >= tableKeyPrefixLen && bytes.Equal(b.it.Key()[:tableKeyPrefixLen], k[:tableKeyPrefixLen]) {
		if !b.load() {
			return false
		}
		r, found := b.searchGE(k)
		if !found {
			return false
		}
		if r < b.blk.rows {
			return b.setRow(r) && b.checkFwd()
		}
		ok = b.it.Next()
	} else {
		ok = b.it.SeekGE(bk)
	}
	return b.enterFwd(ok)
}

// enterFwd moves from where the iterator is (ok: on a key) to the first
// row of the next block.
func (b *blockRows) enterFwd(ok bool) bool {
	if ok = b.skipFwd(ok); !ok {
		b.err = b.it.Error()
		return false
	}
	if !b.load() {
		return false
	}
	return b.setRow(0) && b.checkFwd()
}

// enterBack moves from where the iterator is to the last row of the
// block before.
func (b *blockRows) enterBack(ok bool) bool {
	if ok = b.skipBack(ok); !ok {
		b.err = b.it.Error()
		return false
	}
	if !b.load() {
		return false
	}
	return b.setRow(b.blk.rows-1) && b.checkBack()
}

func (b *blockRows) first() bool {
	b.ok = false
	if b.lo != nil {
		return b.seekGE(b.lo)
	}
	return b.enterFwd(b.it.First())
}

func (b *blockRows) last() bool {
	b.ok = false
	if b.hi != nil {
		return b.seekLT(b.hi)
	}
	return b.enterBack(b.it.Last())
}

// seekLT moves to the last row with a key less than k (and hi).
func (b *blockRows) seekLT(k []byte) bool {
	b.ok = false
	if b.err != nil {
		return false
	}
	if b.hi != nil && (k == nil || bytes.Compare(k, b.hi) > 0) {
		k = b.hi
	}
	if k == nil {
		return b.last()
	}
	// The last block whose first key is less than k.
	ok := b.skipBack(b.it.SeekLT(appendBlockKey(nil, k)))
	if !ok {
		b.err = b.it.Error()
		return false
	}
	if !b.load() {
		return false
	}
	r, found := b.searchGE(k)
	if !found {
		return false
	}
	if r == 0 {
		return b.enterBack(b.it.Prev())
	}
	return b.setRow(r-1) && b.checkBack()
}

func (b *blockRows) next() bool {
	if !b.ok {
		return false
	}
	if b.r+1 < b.blk.rows {
		return b.setRow(b.r+1) && b.checkFwd()
	}
	b.ok = false
	return b.enterFwd(b.it.Next())
}

func (b *blockRows) prev() bool {
	if !b.ok {
		return false
	}
	if b.r > 0 {
		return b.setRow(b.r-1) && b.checkBack()
	}
	b.ok = false
	return b.enterBack(b.it.Prev())
}

// value returns the current row's encoding (valid until the next move).
func (b *blockRows) value() []byte {
	if !b.valOK {
		b.val, b.valOK = b.blk.appendRow(b.val[:0], b.r), true
	}
	return b.val
}

// mergeIter merges a table's rows (the overlay, ov) with its blocks (bl)
// in key order: where both hold a key the row wins, and a tombstone row
// hides the key. It implements kvIter.
//
// It works a vnode at a time: both iterators are bounded to the vnode
// it is in (ov to its rows, bl to its blocks), and a move past the
// vnode's last row goes on in the next vnode (the one before, going
// backward). Unbounded, a row iterator would step over the blocks of
// every vnode between two rows, and a seek into a vnode without rows
// after the key (every KeyProbe.Has of a table loaded as blocks) would
// walk the whole table. Changing direction re-seeks.
type mergeIter struct {
	ov     *pebble.Iterator // nil once closed
	bl     *blockRows
	table  []byte // 't' | table
	lo, hi []byte // the caller's bounds (nil: the table's)
	vnode  int    // the vnode the iterators are bounded to (-1: none)
	ovNone bool   // the vnode has no room for rows within lo, hi
	oOK    bool
	dir    int8 // 1 forward, -1 backward, 0 unpositioned
	cur    int8 // curNone, curRow, curBlock
	err    error
	seek   []byte
}

const (
	curNone int8 = iota
	curRow
	curBlock
)

// vnodeOf returns the vnode whose key range holds key (-1 before the
// table's first, NumVnodes past its last).
func (m *mergeIter) vnodeOf(key []byte) int {
	if c := bytes.Compare(key, m.table); c < 0 {
		if !bytes.HasPrefix(m.table, key) {
			return -1
		}
		return 0
	}
	if !bytes.HasPrefix(key, m.table) {
		return NumVnodes
	}
	// A key shorter than a vnode prefix (prefixEnd cuts its carry) is
	// where the vnode its zero-padding names begins.
	var vn [2]byte
	copy(vn[:], key[len(m.table):])
	return int(binary.BigEndian.Uint16(vn[:]))
}

// lastBelow returns the vnode holding the greatest keys less than key.
func (m *mergeIter) lastBelow(key []byte) int {
	v := m.vnodeOf(key)
	if v >= 0 && bytes.HasPrefix(key, m.table) && len(key) <= tableKeyPrefixLen {
		return min(v, NumVnodes) - 1 // key is where vnode v begins
	}
	return min(v, NumVnodes-1)
}

// inBounds reports whether vnode v may hold keys within lo, hi.
func (m *mergeIter) inBounds(v int) bool {
	if v < 0 || v >= NumVnodes {
		return false
	}
	if m.lo != nil && m.vnodeOf(m.lo) > v {
		return false
	}
	return m.hi == nil || m.lastBelow(m.hi) >= v
}

// enter bounds both iterators to vnode v.
func (m *mergeIter) enter(v int) {
	m.vnode = v
	start := binary.BigEndian.AppendUint16(append([]byte(nil), m.table...), uint16(v))
	end := prefixEnd(start)
	rowsEnd := append(append([]byte(nil), start...), blockMarker)
	lo, hi := start, end
	if m.lo != nil && bytes.Compare(m.lo, lo) > 0 {
		lo = m.lo
	}
	if m.hi != nil && bytes.Compare(m.hi, hi) < 0 {
		hi = m.hi
	}
	ovHi := rowsEnd
	if bytes.Compare(hi, ovHi) < 0 {
		ovHi = hi
	}
	m.ovNone = bytes.Compare(lo, ovHi) >= 0
	if !m.ovNone {
		m.ov.SetBounds(lo, ovHi)
	}
	m.bl.it.SetBounds(rowsEnd, end)
	m.bl.lo, m.bl.hi, m.bl.ok = lo, hi, false
	m.oOK = false
}

// settle picks the current row after a move in direction m.dir within
// the current vnode.
func (m *mergeIter) settle() bool {
	for {
		if m.err = m.ovErr(); m.err != nil {
			m.cur = curNone
			return false
		}
		bOK := m.bl.ok
		if !m.oOK && !bOK {
			m.cur = curNone
			return false
		}
		if m.oOK && bOK {
			before, equal := m.bl.before(m.ov.Key(), m.dir)
			if before {
				m.cur = curBlock
				return true
			}
			if equal {
				// The row replaces (or its tombstone hides) the block's.
				m.stepBlock()
				continue
			}
		} else if bOK {
			m.cur = curBlock
			return true
		}
		v, err := m.ov.ValueAndErr()
		if err != nil {
			m.err, m.cur = err, curNone
			return false
		}
		if isTombstone(v) {
			m.stepRow()
			continue
		}
		m.cur = curRow
		return true
	}
}

func (m *mergeIter) ovErr() error {
	if m.bl.err != nil {
		return m.bl.err
	}
	if !m.oOK && !m.ovNone {
		return m.ov.Error()
	}
	return nil
}

func (m *mergeIter) stepRow() {
	if m.dir > 0 {
		m.oOK = m.ov.Next()
	} else {
		m.oOK = m.ov.Prev()
	}
}

func (m *mergeIter) stepBlock() {
	if m.dir > 0 {
		m.bl.next()
	} else {
		m.bl.prev()
	}
}

// seekIn positions both iterators in vnode v, at key (nil: its first or
// last row in direction m.dir), and settles.
func (m *mergeIter) seekIn(v int, key []byte) bool {
	m.enter(v)
	switch {
	case m.dir > 0 && key == nil:
		m.oOK = !m.ovNone && m.ov.First()
		m.bl.first()
	case m.dir > 0:
		m.oOK = !m.ovNone && m.ov.SeekGE(key)
		m.bl.seekGE(key)
	case key == nil:
		m.oOK = !m.ovNone && m.ov.Last()
		m.bl.last()
	default:
		m.oOK = !m.ovNone && m.ov.SeekLT(key)
		m.bl.seekLT(key)
	}
	return m.settle()
}

// onward settles, and at the end of the current vnode goes on into the
// next ones in direction m.dir.
func (m *mergeIter) onward() bool {
	if m.settle() {
		return true
	}
	for m.err == nil {
		v := m.vnode + int(m.dir)
		if !m.inBounds(v) {
			break
		}
		if m.seekIn(v, nil) {
			return true
		}
	}
	m.cur = curNone
	return false
}

// from positions the iterator at key (nil: the first or last row) in
// direction dir.
func (m *mergeIter) from(dir int8, key []byte) bool {
	m.dir, m.err = dir, nil
	var v int
	switch {
	case dir > 0 && key == nil && m.lo == nil:
		v = 0
	case dir > 0 && key == nil:
		v = m.vnodeOf(m.lo)
	case dir > 0:
		if m.lo != nil && bytes.Compare(key, m.lo) < 0 {
			key = m.lo
		}
		v = m.vnodeOf(key)
	case key == nil && m.hi == nil:
		v = NumVnodes - 1
	case key == nil:
		v = m.lastBelow(m.hi)
	default:
		if m.hi != nil && bytes.Compare(key, m.hi) > 0 {
			key = m.hi
		}
		v = m.lastBelow(key)
	}
	v = max(v, 0)
	if v >= NumVnodes || !m.inBounds(v) {
		m.cur = curNone
		return false
	}
	if m.seekIn(v, key) {
		return true
	}
	return m.onward()
}

// First implements kvIter.
func (m *mergeIter) First() bool { return m.from(1, nil) }

// Last implements kvIter.
func (m *mergeIter) Last() bool { return m.from(-1, nil) }

// SeekGE implements kvIter.
func (m *mergeIter) SeekGE(key []byte) bool { return m.from(1, key) }

// SeekPrefixGE implements kvIter: SeekGE (callers check the key found).
func (m *mergeIter) SeekPrefixGE(key []byte) bool { return m.SeekGE(key) }

// SeekLT implements kvIter.
func (m *mergeIter) SeekLT(key []byte) bool { return m.from(-1, key) }

// Next implements kvIter.
func (m *mergeIter) Next() bool {
	switch {
	case m.cur == curNone:
		if m.dir < 0 && m.err == nil {
			return m.First()
		}
		return false
	case m.dir < 0:
		m.seek = append(append(m.seek[:0], m.Key()...), 0)
		return m.SeekGE(m.seek)
	case m.cur == curRow:
		m.stepRow()
	default:
		m.stepBlock()
	}
	return m.onward()
}

// Prev implements kvIter.
func (m *mergeIter) Prev() bool {
	switch {
	case m.cur == curNone:
		if m.dir > 0 && m.err == nil {
			return m.Last()
		}
		return false
	case m.dir > 0:
		m.seek = append(m.seek[:0], m.Key()...)
		return m.SeekLT(m.seek)
	case m.cur == curRow:
		m.stepRow()
	default:
		m.stepBlock()
	}
	return m.onward()
}

// SetBounds implements kvIter; the iterator is left unpositioned.
func (m *mergeIter) SetBounds(lower, upper []byte) {
	m.lo, m.hi = lower, upper
	m.cur, m.dir, m.oOK, m.bl.ok, m.vnode = curNone, 0, false, false, -1
}

// Key implements kvIter.
func (m *mergeIter) Key() []byte {
	switch m.cur {
	case curRow:
		return m.ov.Key()
	case curBlock:
		return m.bl.curKey()
	}
	return nil
}

// ValueAndErr implements kvIter.
func (m *mergeIter) ValueAndErr() ([]byte, error) {
	switch m.cur {
	case curRow:
		return m.ov.ValueAndErr()
	case curBlock:
		return m.bl.value(), nil
	}
	return nil, nil
}

// Error implements kvIter.
func (m *mergeIter) Error() error {
	if m.err != nil {
		return m.err
	}
	if m.bl.err != nil {
		return m.bl.err
	}
	return m.ov.Error()
}

// Close implements kvIter; closing twice is harmless.
func (m *mergeIter) Close() error {
	if m.ov == nil {
		return nil
	}
	err := m.ov.Close()
	if berr := m.bl.it.Close(); err == nil {
		err = berr
	}
	m.ov = nil
	return err
}

// blockRun returns the rows of the current block from the current row
// on, at most max, when they can be appended as they are: the current
// row is a block's, and no row key (nor hi) falls at or before the last
// of them. ok is false otherwise. After appending them the caller calls
// ranRows(to).
func (m *mergeIter) blockRun(max int) (b *block, from, to int, ok bool) {
	if m.cur != curBlock || m.dir <= 0 || max <= 0 {
		return nil, 0, 0, false
	}
	bl := m.bl
	from, to = bl.r, min(bl.blk.rows, bl.r+max)
	if to == bl.blk.rows {
		bl.probe = append(bl.probe[:0], bl.lastKey...)
	} else {
		var err error
		if bl.probe, err = bl.rowKey(bl.probe[:0], to-1); err != nil {
			return nil, 0, 0, false
		}
	}
	if m.hi != nil && bytes.Compare(bl.probe, m.hi) >= 0 {
		return nil, 0, 0, false
	}
	if m.oOK && bytes.Compare(m.ov.Key(), bl.probe) <= 0 {
		return nil, 0, 0, false
	}
	return &bl.blk, from, to, true
}

// ranRows makes row to-1 of the current block, the last of a blockRun
// appended, the current row.
func (m *mergeIter) ranRows(to int) {
	m.bl.setRow(to - 1)
}
