package storage

import (
	"errors"
	"fmt"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// ChunkScan walks the rows of ScanVnode, but decodes a row only when asked:
// straight into a chunk builder, a row at a time (AppendTo) or a batch of
// rows at a time (AppendRows, the faster), or, for the last row appended,
// as Datums (LastRow). It is the snapshot read of a backfill, which copies
// rows into chunks and needs the Datums of one row per chunk (its
// position).
type ChunkScan struct {
	t   *Table
	dec *RowDecoder
	it  kvIter // nil once closed or failed to open
	// merge is it when the table has blocks: AppendRows then appends a
	// block's rows a column at a time where no row key falls among them.
	merge   *mergeIter
	blocks  *blockAppender
	started bool
	ended   bool // the iterator stepped past the last row
	lastAt  lastPos
	last    []byte // the value of the row last appended, when lastAt is lastCopied
	row     []types.Datum
	err     error
}

// lastPos is where LastRow finds the value of the row last appended.
// AppendRows copies no value: every row it steps on is appended, so the
// last one appended is the iterator's current row, or, once the
// iterator has stepped past the end, the last row within its bounds.
type lastPos uint8

const (
	lastNone   lastPos = iota // no row appended yet
	lastCopied                // s.last
	lastAtIter                // the iterator's current row
	lastAtEnd                 // the last row within the iterator's bounds
)

// ScanVnodeChunks returns a ChunkScan of the rows ScanVnode(r, vnode,
// after) would return.
func (t *Table) ScanVnodeChunks(r Reader, vnode uint16, after []types.Datum) *ChunkScan {
	s := &ChunkScan{t: t, dec: t.NewRowDecoder(nil)}
	lower, upper, err := t.vnodeBounds(vnode, after)
	if err != nil {
		s.err = err
		return s
	}
	it, err := t.newKV(r, lower, upper)
	if err != nil {
		if !errors.Is(err, ErrClosed) && !errors.Is(err, ErrWriteOnly) {
			err = fmt.Errorf("storage: table %d scan: %w", t.ID, err)
		}
		s.err = err
		return s
	}
	s.it = it
	s.merge, _ = it.(*mergeIter)
	return s
}

// Reading makes the scan decode only the columns with read[i] set (nil:
// all), appending NULL for the others; call it before the first
// AppendTo. LastRow still decodes every column.
func (s *ChunkScan) Reading(read []bool) *ChunkScan {
	s.dec = s.t.NewRowDecoder(read)
	return s
}

// Decoding makes the scan decode rows with d, a decoder of rows of the
// table's types (NewRowDecoder or NewRowDecoderReading), instead of its
// own; call it before the first AppendTo or AppendRows. A caller reading
// vnode after vnode passes one decoder to each scan: it keeps its bound
// builders and batch buffers from one vnode to the next. A decoder serves
// one scan at a time.
func (s *ChunkScan) Decoding(d *RowDecoder) *ChunkScan {
	s.dec = d
	return s
}

// Next advances to the next row; it returns false at the end or on error
// (see Err).
func (s *ChunkScan) Next() bool {
	if s.it == nil || s.err != nil || s.ended {
		return false
	}
	if s.lastAt == lastAtIter {
		// Stepping off the row last appended, which the next row may not
		// replace: keep its value.
		v, err := s.it.ValueAndErr()
		if err != nil {
			s.err = fmt.Errorf("storage: table %d scan: %w", s.t.ID, err)
			return false
		}
		s.last, s.lastAt = append(s.last[:0], v...), lastCopied
	}
	return s.step()
}

// step moves the iterator to the next row; false at the end or on error.
func (s *ChunkScan) step() bool {
	var ok bool
	if !s.started {
		s.started, ok = true, s.it.First()
	} else {
		ok = s.it.Next()
	}
	if !ok {
		s.err = s.it.Error()
		s.ended = s.err == nil
	}
	return ok
}

// AppendTo appends the current row to b with operation op. On error b is
// left with a half-appended row and must be discarded.
func (s *ChunkScan) AppendTo(b *chunk.Builder, op chunk.Op) error {
	v, err := s.it.ValueAndErr()
	if err == nil {
		err = s.dec.Append(b, op, v)
		s.lastAt = lastAtIter
	}
	if err != nil {
		s.err = fmt.Errorf("storage: table %d scan: %w", s.t.ID, err)
	}
	return s.err
}

// AppendRows appends the scan's next rows to b with operation op, until b
// holds max rows or the scan ends, and returns how many it appended; the
// scan has ended (see Err) when b holds fewer than max rows and the
// error is nil. It is Next and AppendTo row by row, in one batch: the
// fixed-width columns are decoded into plain slices and handed to b's
// column builders at once (rowcodec_batch.go), and no row's value is
// copied. On error b holds part of the batch and must be discarded. The
// current row (a Next not yet followed by AppendTo) is appended first.
func (s *ChunkScan) AppendRows(b *chunk.Builder, op chunk.Op, max int) (int, error) {
	if s.it == nil || s.err != nil || s.ended || b.Len() >= max {
		return 0, s.err
	}
	d, room := s.dec, max-b.Len()
	d.beginBatch(b, room)
	// ran counts the rows appended block-wise (appendBlockRun).
	ran := 0
	// A row Next stepped on but not appended yet comes first.
	pending := s.started && !s.ended && s.lastAt != lastAtIter
	for ran+d.batchRows < room {
		if !pending && !s.step() {
			if s.err != nil {
				return ran + d.batchRows, s.err
			}
			if ran+d.batchRows > 0 || s.lastAt == lastAtIter {
				s.lastAt = lastAtEnd
			}
			break
		}
		pending = false
		if s.merge != nil {
			n, err := s.appendBlockRun(b, op, room-ran)
			if err != nil {
				return ran, err
			}
			if n > 0 {
				ran += n
				continue
			}
		}
		v, err := s.it.ValueAndErr()
		if err == nil {
			err = d.stageRow(v)
		}
		if err != nil {
			s.err = fmt.Errorf("storage: table %d scan: %w", s.t.ID, err)
			return ran + d.batchRows, s.err
		}
		s.lastAt = lastAtIter
	}
	n := ran + d.batchRows
	d.flush(b, op)
	return n, nil
}

// appendBlockRun appends the rows of the current block from the current
// row on, at most room rows counting those staged, when no row key falls
// among them (mergeIter.blockRun), straight to b's columns; the rows
// staged so far are flushed first, so that rows keep their order, and a
// batch is begun again for the room left. It returns how many rows it
// appended, staged ones included (0: the current row must be staged).
func (s *ChunkScan) appendBlockRun(b *chunk.Builder, op chunk.Op, room int) (int, error) {
	d := s.dec
	blk, from, to, ok := s.merge.blockRun(room - d.batchRows)
	if !ok {
		return 0, nil
	}
	staged := d.batchRows
	d.flush(b, op)
	if s.blocks == nil {
		s.blocks = &blockAppender{ts: s.t.Types, read: d.read}
	}
	if err := s.blocks.appendRows(b, op, blk, from, to); err != nil {
		s.err = fmt.Errorf("storage: table %d scan: %w", s.t.ID, err)
		return 0, s.err
	}
	s.merge.ranRows(to)
	s.lastAt = lastAtIter
	n := staged + to - from
	d.beginBatch(b, room-n)
	return n, nil
}

// LastRow decodes the row last appended by AppendTo or AppendRows (nil if
// none); valid until the next call to LastRow.
func (s *ChunkScan) LastRow() ([]types.Datum, error) {
	var v []byte
	switch s.lastAt {
	case lastNone:
		return nil, s.err
	case lastCopied:
		v = s.last
	case lastAtIter, lastAtEnd:
		if s.lastAt == lastAtEnd {
			// The scan stepped past the row last appended: it is the
			// last row within the bounds (once per vnode, not per row).
			if !s.it.Last() {
				if err := s.it.Error(); err != nil {
					s.err = fmt.Errorf("storage: table %d scan: %w", s.t.ID, err)
				} else {
					s.err = fmt.Errorf("storage: table %d scan: %w", s.t.ID, errCorrupt("scan", "last row vanished"))
				}
				return nil, s.err
			}
		}
		var err error
		if v, err = s.it.ValueAndErr(); err != nil {
			s.err = fmt.Errorf("storage: table %d scan: %w", s.t.ID, err)
			return nil, s.err
		}
		if s.lastAt == lastAtEnd {
			s.last, s.lastAt = append(s.last[:0], v...), lastCopied
		}
	}
	var err error
	if s.row, err = s.t.DecodeRow(v, s.row); err != nil {
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
