package stream

import (
	"bytes"
	"slices"

	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// joinProbe looks up, for a chunk of one side (or a batch of them, see
// HashJoin.gather), the other side's stored rows of every join key in
// the chunk with one iterator, the keys in ascending order (a point scan
// per row would make, seek and close an iterator each time); point
// lookups step the iterator from one key to a near next one
// (storage.PrefixProbe.GetAscending) instead of seeking. The other side's table does not change while a
// chunk of this side is applied (rows are written to this side's table;
// the other side's degree changes wait in its dirty map until the
// barrier), so rows fetched at the start of the chunk are those a scan at
// each row would find. What a row then sees of them (dirty degrees, Cond)
// is decided when it is applied, in chunk order.
//
// The rows fetched up front are bounded (joinProbeBudget); the keys past
// the budget are scanned through the same iterator when their row is
// applied.
type joinProbe struct {
	side *joinSide // the side probed (the other side of the chunk)
	// point: the join key is the probed table's whole pk (the side's
	// stream key lies within it), so a key has at most one row, found by
	// a point lookup (storage.PrefixProbe.GetAscending).
	point  bool
	pp     *storage.PrefixProbe
	keyBuf []byte
	keys   [][]byte // per unique key, its encoding (sub-slices of keyBuf)
	rowKey []int    // per chunk row, index in keys; -1: NULL key
	order  []int    // indexes in keys, ascending by key
	rows   [][][]types.Datum
	// slab holds the fetched rows' values (rows[u] are sub-slices; a
	// slab outgrown stays behind them). It is reused by the next chunk:
	// nothing may keep a fetched row past the chunk.
	slab   []types.Datum
	dec    []types.Datum // scratch of staged rows' decoding
	hashes []uint64      // per key, its hash in the probed side's epochWrites
	done   []bool        // rows[u] holds the key's rows
	// absent: per key, the probed side's keyFilter rules it out (no
	// rows); set by prefetch while the side has a filter (the filter
	// takes the probed side's keys only at its own chunks, so it holds
	// for the whole chunk).
	absent []bool
	uniq   keySet
	starts []int // per key, where it starts in keyBuf
}

// keyAt returns key u while keyBuf is filled (the keys are in keyBuf in
// order, each ending where the next starts).
func (p *joinProbe) keyAt(u int) []byte {
	k := p.keyBefore(u, len(p.keyBuf))
	return k[:len(k):len(k)]
}

// keyBefore is keyAt while key u is followed by the bytes from end on.
func (p *joinProbe) keyBefore(u, end int) []byte {
	if u+1 < len(p.starts) {
		end = p.starts[u+1]
	}
	return p.keyBuf[p.starts[u]:end]
}

// keySet numbers the distinct keys of a chunk by their hashes: open
// addressing with linear probing, at most half full (a Go map of the
// keys as strings cost as much as the lookups of a backfill's probes:
// a string made and hashed per row).
type keySet struct {
	slots []int32 // key number + 1; 0: empty
	mask  uint64
}

// reset empties the set for up to n keys.
func (s *keySet) reset(n int) {
	size := 64
	for size < 2*n {
		size *= 2
	}
	if len(s.slots) < size || len(s.slots) > 4*size && size >= 1<<12 {
		s.slots = make([]int32, size)
	} else {
		s.slots = s.slots[:size]
		clear(s.slots)
	}
	s.mask = uint64(size - 1)
}

// number returns the number of key k (hashed h, written to keyBuf at
// start), a new one (fresh) when the chunk has not had k before.
func (p *joinProbe) number(k []byte, h uint64, start int) (u int, fresh bool) {
	s := &p.uniq
	for i := h & s.mask; ; i = (i + 1) & s.mask {
		v := s.slots[i]
		if v == 0 {
			u := len(p.starts)
			s.slots[i] = int32(u + 1)
			return u, true
		}
		if u := int(v - 1); p.hashes[u] == h && bytes.Equal(k, p.keyBefore(u, start)) {
			return u, false
		}
	}
}

// joinProbeBudget bounds the stored rows a joinProbe fetches ahead.
var joinProbeBudget = 1 << 14 // a variable for tests

// reset prepares the probe for a chunk of rows probing side other, whose
// committed state r holds (the epoch's writes are other.epoch); keyOf returns a row's join key (ok false: NULL, no match).
func (p *joinProbe) reset(other *joinSide, r storage.Reader, rows [][]types.Datum,
	keyOf func([]types.Datum) ([]types.Datum, bool)) error {
	p.side = other
	p.point = len(other.keys) == len(other.table.PK)
	p.keyBuf, p.keys, p.rowKey, p.starts = p.keyBuf[:0], p.keys[:0], p.rowKey[:0], p.starts[:0]
	p.hashes = p.hashes[:0]
	clear(p.slab)
	p.slab = p.slab[:0]
	p.uniq.reset(len(rows))
	last := -1 // the previous row's key
	for _, row := range rows {
		key, ok := keyOf(row)
		if !ok {
			p.rowKey = append(p.rowKey, -1)
			continue
		}
		start := len(p.keyBuf)
		var err error
		if p.keyBuf, err = other.table.AppendPrefixKey(p.keyBuf, key); err != nil {
			return wrapJoinErr("scan matches", err)
		}
		k := p.keyBuf[start:]
		// An update that keeps its key repeats it in the next row.
		if last >= 0 && bytes.Equal(k, p.keyBefore(last, start)) {
			p.keyBuf = p.keyBuf[:start]
			p.rowKey = append(p.rowKey, last)
			continue
		}
		h := other.epoch.hash(k)
		u, fresh := p.number(k, h, start)
		if fresh {
			p.starts = append(p.starts, start)
			p.hashes = append(p.hashes, h)
		} else {
			p.keyBuf = p.keyBuf[:start]
		}
		p.rowKey = append(p.rowKey, u)
		last = u
	}
	// keyBuf may have moved while it grew: slice the keys once it is done.
	for u := range p.starts {
		p.keys = append(p.keys, p.keyAt(u))
	}
	n := len(p.keys)
	p.rows = slices.Grow(p.rows[:0], n)[:n]
	p.done = slices.Grow(p.done[:0], n)[:n]
	for u := range n {
		p.rows[u], p.done[u] = p.rows[u][:0], false
	}
	if n == 0 {
		return nil
	}
	pp, err := other.table.NewPrefixProbe(r)
	if err != nil {
		return wrapJoinErr("scan matches", err)
	}
	p.pp = pp
	return p.prefetch()
}

// prefetch fetches the rows of the keys in ascending key order, until the
// budget is spent.
func (p *joinProbe) prefetch() error {
	p.order = p.order[:0]
	for u := range p.keys {
		p.order = append(p.order, u)
	}
	slices.SortFunc(p.order, func(a, b int) int { return bytes.Compare(p.keys[a], p.keys[b]) })
	ep := p.side.epoch
	// Look the keys up all at once (see keyFilter.absent).
	if ep.seen != nil {
		p.absent = slices.Grow(p.absent[:0], len(p.hashes))[:len(p.hashes)]
		ep.seen.absent(p.hashes, p.absent)
	}
	if p.point && ep.linked > 0 && ep.hashed {
		ep.heads.touch(p.hashes)
	}
	fetched := 0
	for _, u := range p.order {
		if fetched >= joinProbeBudget {
			break
		}
		if err := p.fetch(u); err != nil {
			return err
		}
		fetched += len(p.rows[u])
	}
	return nil
}

// fetch fetches the rows of key u: the committed rows, as the epoch's
// writes (the side's epochWrites) left them.
func (p *joinProbe) fetch(u int) error {
	if p.side.epoch.seen != nil && p.absent[u] {
		p.done[u] = true // never written: no rows
		return nil
	}
	var err error
	if p.point {
		err = p.fetchPoint(u)
	} else {
		err = p.fetchPrefix(u)
	}
	p.done[u] = true
	return wrapJoinErr("scan matches", err)
}

// keep adds row to the rows of key u.
func (p *joinProbe) keep(u int, row []types.Datum) {
	start := len(p.slab)
	p.slab = append(p.slab, row...)
	p.rows[u] = append(p.rows[u], p.slab[start:len(p.slab):len(p.slab)])
}

// keepStaged adds the row of staged write i (none for a deletion).
func (p *joinProbe) keepStaged(u int, i int32) error {
	v := p.side.epoch.value(i)
	if v == nil {
		return nil
	}
	var err error
	if p.dec, err = storage.DecodeRow(v, p.side.table.Types, p.dec); err != nil {
		return err
	}
	p.keep(u, p.dec)
	return nil
}

func (p *joinProbe) fetchPoint(u int) error {
	if ep := p.side.epoch; ep.linked > 0 {
		if i, ok := ep.latestHashed(p.keys[u], p.hashes[u]); ok {
			return p.keepStaged(u, i)
		}
	}
	// Decode the row straight into the slab (keep's copy of a row
	// decoded elsewhere cost as much as the decoding).
	n := len(p.side.table.Types)
	start := len(p.slab)
	p.slab = slices.Grow(p.slab, n)
	row, found, err := p.pp.GetAscendingInto(p.keys[u], p.slab[start:start:start+n])
	if err != nil || !found {
		return err
	}
	if len(row) != n || n == 0 || &row[0] != &p.slab[:start+1][start] {
		p.keep(u, row) // decoded elsewhere (DecodeRow had no room)
		return nil
	}
	p.slab = p.slab[:start+n]
	p.rows[u] = append(p.rows[u], p.slab[start:start+n:start+n])
	return nil
}

// fetchPrefix merges the committed rows of key u with the epoch's latest
// writes under it, in key order: a write replaces (or deletes) the
// committed row of its key.
func (p *joinProbe) fetchPrefix(u int) error {
	ep := p.side.epoch
	staged := ep.versions(p.keys[u])
	err := p.pp.ScanKeys(p.keys[u], func(key []byte, row []types.Datum) error {
		for len(staged) > 0 && bytes.Compare(ep.key(staged[0]), key) < 0 {
			if err := p.keepStaged(u, staged[0]); err != nil {
				return err
			}
			staged = staged[1:]
		}
		if len(staged) > 0 && bytes.Equal(ep.key(staged[0]), key) {
			err := p.keepStaged(u, staged[0])
			staged = staged[1:]
			return err
		}
		p.keep(u, row)
		return nil
	})
	for ; err == nil && len(staged) > 0; staged = staged[1:] {
		err = p.keepStaged(u, staged[0])
	}
	return err
}

// stored returns the stored rows (as fetched, before dirty degrees) that
// share the join key of row i of the chunk; nil for a NULL key.
func (p *joinProbe) stored(i int) ([][]types.Datum, error) {
	u := p.rowKey[i]
	if u < 0 {
		return nil, nil
	}
	if !p.done[u] {
		if err := p.fetch(u); err != nil {
			return nil, err
		}
	}
	return p.rows[u], nil
}

// key returns the probed side's prefix key of the join key of row i of
// the chunk; nil for a NULL key.
func (p *joinProbe) key(i int) []byte {
	if u := p.rowKey[i]; u >= 0 {
		return p.keys[u]
	}
	return nil
}

// close releases the iterator and the fetched rows.
func (p *joinProbe) close() error {
	clear(p.rows)
	if p.pp == nil {
		return nil
	}
	err := p.pp.Close()
	p.pp = nil
	return err
}
