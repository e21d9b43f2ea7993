package storage

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/streamdb/streamdb/internal/types"
)

// KeyRange is a set of a table's rows chosen by their leading pk columns:
// those whose first len(Eq) pk columns equal Eq and, when Lower or Upper
// is set, whose next pk column lies within them (a NULL lies within no
// bound). Values are of the pk columns' types; none of Eq is NULL.
type KeyRange struct {
	Eq           []types.Datum
	Lower, Upper *KeyBound
}

// KeyBound is one end of a KeyRange.
type KeyBound struct {
	Value     types.Datum // not NULL
	Inclusive bool
}

// bounded reports whether the range bounds the pk column after Eq.
func (kr *KeyRange) bounded() bool { return kr.Lower != nil || kr.Upper != nil }

// ScanRange iterates over the rows of kr: within one vnode, in pk order,
// when Eq holds every DistKey column; else vnode by vnode, reading each
// vnode's key range (in pk order within a vnode).
func (t *Table) ScanRange(r Reader, kr KeyRange) Iterator {
	if len(kr.Eq) > len(t.PK) || kr.bounded() && len(kr.Eq) >= len(t.PK) {
		return errIter{fmt.Errorf("%w: table %d: key range over %d pk columns", ErrBadLayout, t.ID, len(t.PK))}
	}
	vnodes, err := t.rangeVnodes(kr.Eq)
	if err != nil {
		return errIter{err}
	}
	return t.scanRange(r, kr, vnodes)
}

// ScanRangeIn is ScanRange within the given vnodes only (in their order),
// as an actor reads the part of a table it owns; kr.Eq holds no DistKey
// column's value.
func (t *Table) ScanRangeIn(r Reader, kr KeyRange, vnodes []uint16) Iterator {
	if len(kr.Eq) > len(t.PK) || kr.bounded() && len(kr.Eq) >= len(t.PK) {
		return errIter{fmt.Errorf("%w: table %d: key range over %d pk columns", ErrBadLayout, t.ID, len(t.PK))}
	}
	return t.scanRange(r, kr, slices.Clone(vnodes))
}

// DeleteRangeIn stages in w the deletion of every row of kr within the
// given vnodes, without reading them: one Pebble range deletion per
// vnode. kr.Eq holds no DistKey column's value. A range deletion
// covers the batch's own earlier writes too; writes ingested with the
// epoch (an Ingest) may commit after it, out of its reach.
func (t *Table) DeleteRangeIn(w *WriteBatch, kr KeyRange, vnodes []uint16) error {
	if len(kr.Eq) > len(t.PK) || kr.bounded() && len(kr.Eq) >= len(t.PK) {
		return fmt.Errorf("%w: table %d: key range over %d pk columns", ErrBadLayout, t.ID, len(t.PK))
	}
	if w.s.hasBlocks(t.ID) {
		// Range deletions would uncover block rows; only user tables,
		// which no range deletion touches, get blocks.
		return fmt.Errorf("%w: table %d: range deletion in a table with blocks", ErrBadLayout, t.ID)
	}
	for _, v := range vnodes {
		lower, upper, empty, err := t.rangeBounds(v, kr)
		if err != nil {
			return err
		}
		if empty {
			continue
		}
		if err := w.deleteRange(lower, upper); err != nil {
			return fmt.Errorf("storage: table %d range deletion: %w", t.ID, err)
		}
	}
	return nil
}

func (t *Table) scanRange(r Reader, kr KeyRange, vnodes []uint16) Iterator {
	lower := appendTablePrefix(nil, t.ID)
	it, err := t.newKV(r, lower, prefixEnd(lower))
	if errors.Is(err, ErrClosed) || errors.Is(err, ErrWriteOnly) {
		return errIter{err}
	}
	if err != nil {
		return errIter{fmt.Errorf("storage: table %d range scan: %w", t.ID, err)}
	}
	return &rangeIter{t: t, kr: kr, it: it, vnodes: vnodes}
}

// rangeVnodes returns the vnodes the rows with leading pk values eq lie
// in: one when eq holds the DistKey columns, else all of them.
func (t *Table) rangeVnodes(eq []types.Datum) ([]uint16, error) {
	for _, c := range t.DistKey {
		if j := t.pkPos(c); j < 0 || j >= len(eq) {
			all := make([]uint16, NumVnodes)
			for v := range all {
				all[v] = uint16(v)
			}
			return all, nil
		}
	}
	v, err := t.pkVnode(eq)
	if err != nil {
		return nil, err
	}
	return []uint16{v}, nil
}

// rangeBounds returns the key bounds of kr within one vnode; empty is
// true when no key lies within them.
func (t *Table) rangeBounds(vnode uint16, kr KeyRange) (lower, upper []byte, empty bool, err error) {
	base, err := t.appendPKKey(nil, vnode, kr.Eq)
	if err != nil {
		return nil, nil, false, err
	}
	upper = prefixEnd(base)
	if !kr.bounded() {
		return base, upper, false, nil
	}
	c := t.PK[len(kr.Eq)]
	typ, err := t.colType(c)
	if err != nil {
		return nil, nil, false, err
	}
	// A NULL is the one byte keyNull, before every value: start past it.
	lower = prefixEnd(append(bytes.Clone(base), keyNull))
	if b := kr.Lower; b != nil {
		if lower, err = AppendKey(bytes.Clone(base), typ, b.Value); err != nil {
			return nil, nil, false, fmt.Errorf("table %d pk column %d: %w", t.ID, c, err)
		}
		if !b.Inclusive {
			// Keys are prefix-free: past every key starting with it.
			lower = prefixEnd(lower)
		}
	}
	if b := kr.Upper; b != nil {
		if upper, err = AppendKey(bytes.Clone(base), typ, b.Value); err != nil {
			return nil, nil, false, fmt.Errorf("table %d pk column %d: %w", t.ID, c, err)
		}
		if b.Inclusive {
			upper = prefixEnd(upper)
		}
	}
	return lower, upper, bytes.Compare(lower, upper) >= 0, nil
}

// rangeIter walks a KeyRange vnode by vnode with one Pebble iterator,
// re-bounded for each vnode.
type rangeIter struct {
	t      *Table
	kr     KeyRange
	it     kvIter   // nil once closed
	vnodes []uint16 // vnodes left to read, the current one first
	inside bool     // the iterator is positioned within vnodes[0]
	row    []types.Datum
	err    error
}

func (i *rangeIter) Next() bool {
	if i.it == nil || i.err != nil {
		return false
	}
	for {
		var ok bool
		if i.inside {
			ok = i.it.Next()
		} else if ok, i.err = i.enterVnode(); i.err != nil {
			return false
		}
		if ok {
			return i.decode()
		}
		if err := i.it.Error(); err != nil {
			i.err = fmt.Errorf("storage: table %d range scan: %w", i.t.ID, err)
			return false
		}
		if i.inside {
			i.inside, i.vnodes = false, i.vnodes[1:]
		}
		if len(i.vnodes) == 0 {
			i.row = i.row[:0]
			return false
		}
	}
}

// enterVnode positions the iterator on the first row of the range in
// vnodes[0]; ok is false when it has none (and the vnode is skipped).
func (i *rangeIter) enterVnode() (ok bool, err error) {
	for len(i.vnodes) > 0 {
		lower, upper, empty, err := i.t.rangeBounds(i.vnodes[0], i.kr)
		if err != nil {
			return false, err
		}
		if !empty {
			i.it.SetBounds(lower, upper)
			i.inside = true
			return i.it.First(), nil
		}
		i.vnodes = i.vnodes[1:]
	}
	return false, nil
}

func (i *rangeIter) decode() bool {
	v, err := i.it.ValueAndErr()
	if err == nil {
		i.row, err = i.t.DecodeRow(v, i.row)
	}
	if err != nil {
		i.err = fmt.Errorf("storage: table %d range scan: %w", i.t.ID, err)
		return false
	}
	return true
}

func (i *rangeIter) Row() []types.Datum { return i.row }

func (i *rangeIter) Err() error { return i.err }

// Close releases the Pebble iterator; closing twice is harmless.
func (i *rangeIter) Close() error {
	if i.it == nil {
		return nil
	}
	err := i.it.Close()
	i.it = nil
	return err
}
