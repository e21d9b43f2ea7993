package storage

import (
	"fmt"

	"github.com/cockroachdb/pebble/v2"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// ChunkScan walks the rows of ScanVnode, but decodes a row only when asked:
// straight into a chunk builder (AppendTo), or, for the last row appended,
// as Datums (LastRow). It is the snapshot read of a backfill, which copies
// rows into chunks and needs the Datums of one row per chunk (its
// position).
type ChunkScan struct {
	t       *Table
	dec     *RowDecoder
	it      *pebble.Iterator // nil once closed or failed to open
	started bool
	last    []byte // the value of the row last appended
	row     []types.Datum
	err     error
}

// ScanVnodeChunks returns a ChunkScan of the rows ScanVnode(r, vnode,
// after) would return.
func (t *Table) ScanVnodeChunks(r Reader, vnode uint16, after []types.Datum) *ChunkScan {
	s := &ChunkScan{t: t, dec: NewRowDecoder(t.Types)}
	lower, upper, err := t.vnodeBounds(vnode, after)
	if err != nil {
		s.err = err
		return s
	}
	pr, err := r.reader()
	if err != nil {
		s.err = err
		return s
	}
	if s.it, err = pr.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper}); err != nil {
		s.err = fmt.Errorf("storage: table %d scan: %w", t.ID, err)
	}
	return s
}

// Reading makes the scan decode only the columns with read[i] set (nil:
// all), appending NULL for the others; call it before the first
// AppendTo. LastRow still decodes every column.
func (s *ChunkScan) Reading(read []bool) *ChunkScan {
	s.dec = NewRowDecoderReading(s.t.Types, read)
	return s
}

// Next advances to the next row; it returns false at the end or on error
// (see Err).
func (s *ChunkScan) Next() bool {
	if s.it == nil || s.err != nil {
		return false
	}
	var ok bool
	if !s.started {
		s.started, ok = true, s.it.First()
	} else {
		ok = s.it.Next()
	}
	if !ok {
		s.err = s.it.Error()
	}
	return ok
}

// AppendTo appends the current row to b with operation op. On error b is
// left with a half-appended row and must be discarded.
func (s *ChunkScan) AppendTo(b *chunk.Builder, op chunk.Op) error {
	v, err := s.it.ValueAndErr()
	if err == nil {
		err = s.dec.Append(b, op, v)
		s.last = append(s.last[:0], v...)
	}
	if err != nil {
		s.err = fmt.Errorf("storage: table %d scan: %w", s.t.ID, err)
	}
	return s.err
}

// LastRow decodes the row last appended by AppendTo (nil if none); valid
// until the next call to LastRow.
func (s *ChunkScan) LastRow() ([]types.Datum, error) {
	if s.last == nil {
		return nil, s.err
	}
	var err error
	if s.row, err = DecodeRow(s.last, s.t.Types, s.row); err != nil {
		s.err = fmt.Errorf("storage: table %d scan: %w", s.t.ID, err)
	}
	return s.row, s.err
}

// Err returns the error that ended the scan, if any.
func (s *ChunkScan) Err() error { return s.err }

// Close releases the scan; closing twice is harmless.
func (s *ChunkScan) Close() error {
	if s.it == nil {
		return nil
	}
	err := s.it.Close()
	s.it = nil
	return err
}
