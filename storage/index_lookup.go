package storage

import (
	"errors"
	"fmt"

	"github.com/streamdb/streamdb/internal/types"
)

// IndexLookup reads a table's rows through an index on it: a table (the
// index) whose rows hold some of the table's columns, the table's whole
// pk among them. The rows of the index's key ranges name the table rows
// by pk, which are then fetched from the table by point lookups; or, when
// the reader needs only columns the index holds (Covering), built from
// the index rows alone.
type IndexLookup struct {
	Index, Table *Table
	// Columns[i] is the column of Table that column i of Index holds.
	Columns []int
	// Covering builds the rows from the index alone: the table's columns
	// the index does not hold are NULL.
	Covering bool
}

// ErrIndexMismatch reports an index row whose table row is missing: the
// index and the table disagree, which a consistent snapshot never shows.
var ErrIndexMismatch = errors.New("storage: index row without its table row")

// Scan iterates over the table rows (all of Table's columns) that the
// index rows of ranges name, range by range; the ranges must not overlap.
func (l *IndexLookup) Scan(r Reader, ranges []KeyRange) Iterator {
	pkAt := make([]int, len(l.Table.PK))
	for k, c := range l.Table.PK {
		pkAt[k] = -1
		for i, tc := range l.Columns {
			if tc == c {
				pkAt[k] = i
			}
		}
		if pkAt[k] < 0 && !l.Covering {
			return errIter{fmt.Errorf("%w: index %d lacks pk column %d of table %d", ErrBadLayout, l.Index.ID, c, l.Table.ID)}
		}
	}
	it := &indexIter{l: l, r: r, ranges: ranges, pkAt: pkAt, pk: make([]types.Datum, len(pkAt)),
		row: make([]types.Datum, len(l.Table.Types))}
	if !l.Covering {
		probe, err := l.Table.NewPrefixProbe(r)
		if err != nil {
			return errIter{err}
		}
		it.probe = probe
	}
	return it
}

// indexIter walks the index ranges one after the other.
type indexIter struct {
	l      *IndexLookup
	r      Reader
	ranges []KeyRange
	cur    Iterator // over the index rows of ranges[0]
	probe  *PrefixProbe
	pkAt   []int // index column of each table pk column
	pk     []types.Datum
	key    []byte
	row    []types.Datum
	found  bool
	err    error
	closed bool
}

func (i *indexIter) Next() bool {
	for !i.closed && i.err == nil {
		if i.cur == nil {
			if len(i.ranges) == 0 {
				return false
			}
			i.cur = i.l.Index.ScanRange(i.r, i.ranges[0])
			i.ranges = i.ranges[1:]
		}
		if !i.cur.Next() {
			i.err = i.cur.Err()
			if err := i.cur.Close(); i.err == nil {
				i.err = err
			}
			i.cur = nil
			continue
		}
		if i.err = i.fill(i.cur.Row()); i.err != nil {
			return false
		}
		return true
	}
	return false
}

// fill makes the table row of one index row.
func (i *indexIter) fill(ix []types.Datum) error {
	if i.l.Covering {
		clear(i.row)
		for j, c := range i.l.Columns {
			i.row[c] = ix[j]
		}
		return nil
	}
	for k, j := range i.pkAt {
		i.pk[k] = ix[j]
	}
	var err error
	if i.key, err = i.l.Table.AppendPrefixKey(i.key[:0], i.pk); err != nil {
		return err
	}
	i.found = false
	err = i.probe.Get(i.key, func(row []types.Datum) error {
		i.found = true
		copy(i.row, row)
		return nil
	})
	if err == nil && !i.found {
		err = fmt.Errorf("%w: index %d, table %d, pk %v", ErrIndexMismatch, i.l.Index.ID, i.l.Table.ID, i.pk)
	}
	return err
}

func (i *indexIter) Row() []types.Datum { return i.row }

func (i *indexIter) Err() error { return i.err }

// Close releases the iterators; closing twice is harmless.
func (i *indexIter) Close() error {
	if i.closed {
		return nil
	}
	i.closed = true
	var err error
	if i.cur != nil {
		err = i.cur.Close()
	}
	if i.probe != nil {
		if perr := i.probe.Close(); err == nil {
			err = perr
		}
	}
	return err
}
