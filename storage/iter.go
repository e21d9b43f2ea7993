package storage

import (
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// Iterator walks rows in key order.
type Iterator interface {
	// Next advances; it returns false at the end or on error (see Err).
	Next() bool
	// Row is the current row; valid until the next call to Next.
	Row() []types.Datum
	Err() error
	Close() error
}

// ColumnIterator is an Iterator that can skip the columns its reader
// does not read, and decode rows straight into a chunk builder; the
// iterators of Table's scans are ColumnIterators.
type ColumnIterator interface {
	Iterator
	// ReadColumns, called before the first Next, makes the iterator
	// decode only the columns with read[i] set (nil: all): the others
	// are NULL, their bytes skipped. With chunked, Next decodes nothing:
	// the caller appends each row with AppendTo (Row still works).
	ReadColumns(read []bool, chunked bool)
	// AppendTo appends the current row to b with operation op. On error
	// b is left with a half-appended row and must be discarded.
	AppendTo(b *chunk.Builder, op chunk.Op) error
}

// Scan iterates over every row of the table (vnode by vnode, pk order
// within a vnode).
func (t *Table) Scan(r Reader) Iterator {
	lower := appendTablePrefix(nil, t.ID)
	return t.newIter(r, lower, prefixEnd(lower), false)
}

// ScanPrefix iterates, in pk order, over the rows whose first len(prefix)
// pk columns equal prefix. The prefix must cover the DistKey columns (which
// must then be the leading PK columns), so the rows share one vnode. With
// reverse it walks from the largest key down.
func (t *Table) ScanPrefix(r Reader, prefix []types.Datum, reverse bool) Iterator {
	vnode, err := t.pkVnode(prefix)
	if err != nil {
		return errIter{err}
	}
	lower, err := t.appendPKKey(nil, vnode, prefix)
	if err != nil {
		return errIter{err}
	}
	return t.newIter(r, lower, prefixEnd(lower), reverse)
}

// ScanPrefixFrom iterates over the rows of ScanPrefix(prefix) from a
// point: forward over those whose pk is at least from, or with reverse
// backward (from the largest down) over those whose pk is less than
// from. from starts with prefix and may be a longer prefix of the pk or a
// whole pk; a row whose pk starts with from counts as at least from.
func (t *Table) ScanPrefixFrom(r Reader, prefix, from []types.Datum, reverse bool) Iterator {
	vnode, err := t.pkVnode(prefix)
	if err != nil {
		return errIter{err}
	}
	base, err := t.appendPKKey(nil, vnode, prefix)
	if err != nil {
		return errIter{err}
	}
	at, err := t.appendPKKey(nil, vnode, from)
	if err != nil {
		return errIter{err}
	}
	if reverse {
		return t.newIter(r, base, at, true)
	}
	return t.newIter(r, at, prefixEnd(base), false)
}

// ScanVnode iterates in pk order over the rows of one vnode whose pk is
// greater than after (all rows of the vnode when after is empty). after
// may also be a prefix of the PK columns: the scan then starts after every
// row beginning with it.
func (t *Table) ScanVnode(r Reader, vnode uint16, after []types.Datum) Iterator {
	lower, upper, err := t.vnodeBounds(vnode, after)
	if err != nil {
		return errIter{err}
	}
	return t.newIter(r, lower, upper, false)
}

// vnodeBounds returns the key bounds of ScanVnode(vnode, after).
func (t *Table) vnodeBounds(vnode uint16, after []types.Datum) (lower, upper []byte, err error) {
	if vnode >= NumVnodes {
		return nil, nil, fmt.Errorf("%w: vnode %d out of range", ErrBadLayout, vnode)
	}
	vnodeKey := appendVnodePrefix(nil, t.ID, vnode)
	upper = prefixEnd(vnodeKey)
	if len(after) == 0 {
		return vnodeKey, upper, nil
	}
	afterKey, err := t.appendPKKey(nil, vnode, after)
	if err != nil {
		return nil, nil, err
	}
	// Keys are prefix-free, so the first key past every key that starts
	// with afterKey is the first pk greater than after.
	return prefixEnd(afterKey), upper, nil
}

func (t *Table) newIter(r Reader, lower, upper []byte, reverse bool) Iterator {
	it, err := t.newKV(r, lower, upper)
	if errors.Is(err, ErrClosed) || errors.Is(err, ErrWriteOnly) {
		return errIter{err}
	}
	if err != nil {
		return errIter{fmt.Errorf("storage: table %d scan: %w", t.ID, err)}
	}
	return &tableIter{it: it, table: t, reverse: reverse, store: r.owner()}
}

// tableIter decodes rows from one bounded iterator (a Pebble iterator,
// or the merge of a table's rows and blocks), reusing its row slice
// between calls to Next.
type tableIter struct {
	it      kvIter // nil once closed
	table   *Table
	reverse bool
	started bool
	row     []types.Datum
	err     error
	store   *Store
	rows    int // rows returned
	// read are the columns decoded (nil: all); lazy: Next decodes
	// nothing, AppendTo and Row decode the current row (ReadColumns).
	read    []bool
	lazy    bool
	decoded bool
	dec     *RowDecoder
}

// ReadColumns implements ColumnIterator.
func (i *tableIter) ReadColumns(read []bool, chunked bool) {
	i.read, i.lazy = read, chunked
	if chunked {
		i.dec = i.table.NewRowDecoder(read)
	}
}

// AppendTo implements ColumnIterator.
func (i *tableIter) AppendTo(b *chunk.Builder, op chunk.Op) error {
	if i.dec == nil {
		i.dec = i.table.NewRowDecoder(i.read)
	}
	v, err := i.it.ValueAndErr()
	if err == nil {
		err = i.dec.Append(b, op, v)
	}
	if err != nil {
		i.err = fmt.Errorf("storage: table %d scan: %w", i.table.ID, err)
	}
	return i.err
}

func (i *tableIter) Next() bool {
	if i.it == nil || i.err != nil {
		return false
	}
	if !i.advance() {
		i.row, i.decoded = i.row[:0], true
		i.err = i.it.Error()
		return false
	}
	i.rows++
	if i.lazy {
		i.decoded = false
		return true
	}
	return i.decode()
}

// decode decodes the current row into i.row.
func (i *tableIter) decode() bool {
	v, err := i.it.ValueAndErr()
	if err == nil {
		i.row, err = i.table.decodeRowReading(v, i.read, i.row)
	}
	if err != nil {
		i.err = fmt.Errorf("storage: table %d scan: %w", i.table.ID, err)
		return false
	}
	i.decoded = true
	return true
}

// advance positions the Pebble iterator on the next key in scan order.
func (i *tableIter) advance() bool {
	if !i.started {
		i.started = true
		if i.reverse {
			return i.it.Last()
		}
		return i.it.First()
	}
	if i.reverse {
		return i.it.Prev()
	}
	return i.it.Next()
}

// Row implements Iterator. Lazily (ReadColumns chunked), a row that does
// not decode is returned partial, and Next then stops with the error.
func (i *tableIter) Row() []types.Datum {
	if i.lazy && !i.decoded && i.it != nil && i.err == nil {
		i.decode()
	}
	return i.row
}

func (i *tableIter) Err() error { return i.err }

// Close releases the Pebble iterator; closing twice is harmless.
func (i *tableIter) Close() error {
	if i.it == nil {
		return nil
	}
	if pi, ok := i.it.(*pebble.Iterator); ok {
		if st := pi.Stats(); st.InternalStats.PointCount > uint64(churnRatio*i.rows+churnSlack) {
			i.store.noteChurn()
		}
	}
	err := i.it.Close()
	i.it = nil
	return err
}

// errIter is an Iterator that failed before it started.
type errIter struct{ err error }

func (e errIter) Next() bool         { return false }
func (e errIter) Row() []types.Datum { return nil }
func (e errIter) Err() error         { return e.err }
func (e errIter) Close() error       { return nil }
