package storage

import (
	"encoding/binary"
	"fmt"

	"github.com/streamdb/streamdb/internal/types"
)

// Missing values. A column added to a table (ALTER TABLE ... ADD COLUMN)
// is not written into the rows stored before it: those rows keep their
// shorter encoding (EncodeRow records the column count), and a reader
// decodes the columns they lack as the table's Missing values, the
// constant DEFAULT the column had when it was added (PostgreSQL 11's
// "missing value"; NULL without a default). No row is rewritten, so the
// ADD takes no time whatever the table's size.
//
// Every decoder of a table's rows (DecodeRow, RowDecoder) reads a row of
// fewer columns than its types with the tail NULL; a Table with Missing
// values first pads such a row (pad) to the full row the reader expects.
// Only rows older than the ADD take that step.
//
// The other way round, a Table with Prefix reads rows that may hold more
// columns than its Types: the table as a view created before the ADD
// knows it, which reads the columns it was planned with. Such a row is
// cut to its first len(Types) columns.

// pad returns buf, a row encoded by EncodeRow, with the columns it lacks
// (those past its column count, up to len(t.Types)) appended as
// t.Missing holds them, or, with Prefix, cut to len(t.Types) columns; buf
// itself when it fits already. A row it rewrites is appended to
// dst[:0] (dst may be nil).
func (t *Table) pad(dst, buf []byte) ([]byte, error) {
	if len(t.Missing) == 0 && !t.Prefix {
		return buf, nil
	}
	n, k := binary.Uvarint(buf)
	if k <= 0 {
		return nil, errCorrupt("row", "bad column count")
	}
	want := len(t.Types)
	if n > uint64(want) && t.Prefix {
		return t.cut(dst[:0], buf[k:], int(n))
	}
	if n >= uint64(want) || len(t.Missing) == 0 {
		return buf, nil
	}
	oldNulls := (int(n) + 7) / 8
	if len(buf) < k+oldNulls {
		return nil, errCorrupt("row", "short null bitmap")
	}
	out := binary.AppendUvarint(dst[:0], uint64(want))
	start := len(out)
	out = append(out, buf[k:k+oldNulls]...)
	for len(out) < start+(want+7)/8 {
		out = append(out, 0)
	}
	out = append(out, buf[k+oldNulls:]...)
	for i := int(n); i < want; i++ {
		var d types.Datum
		if i < len(t.Missing) {
			d = t.Missing[i]
		}
		if d == nil {
			out[start+i/8] |= 1 << (i % 8)
			continue
		}
		var err error
		if out, err = appendValue(out, t.Types[i], d); err != nil {
			return nil, fmt.Errorf("missing value of column %d: %w", i, err)
		}
	}
	return out, nil
}

// cut appends to dst the row of n columns whose null bitmap and values
// are rest, cut to its first len(t.Types) columns.
func (t *Table) cut(dst, rest []byte, n int) ([]byte, error) {
	want := len(t.Types)
	nulls := (n + 7) / 8
	if len(rest) < nulls {
		return nil, errCorrupt("row", "short null bitmap")
	}
	bitmap, vals := rest[:nulls], rest[nulls:]
	end := vals
	for i := range want {
		if bitmap[i/8]&(1<<(i%8)) != 0 {
			continue
		}
		var err error
		if end, err = skipValue(end, t.Types[i]); err != nil {
			return nil, fmt.Errorf("column %d: %w", i, err)
		}
	}
	out := binary.AppendUvarint(dst, uint64(want))
	out = append(out, bitmap[:(want+7)/8]...)
	if want%8 != 0 {
		out[len(out)-1] &= byte(1)<<(want%8) - 1
	}
	return append(out, vals[:len(vals)-len(end)]...), nil
}

// DecodeRow decodes a row of t (as DecodeRow does for t.Types), the
// columns it was stored without read as t.Missing holds them.
func (t *Table) DecodeRow(buf []byte, dst []types.Datum) ([]types.Datum, error) {
	buf, err := t.pad(nil, buf)
	if err != nil {
		return dst, err
	}
	return DecodeRow(buf, t.Types, dst)
}

// decodeRowReading is DecodeRowReading of a row of t, padded.
func (t *Table) decodeRowReading(buf []byte, read []bool, dst []types.Datum) ([]types.Datum, error) {
	buf, err := t.pad(nil, buf)
	if err != nil {
		return dst, err
	}
	return decodeRow(buf, t.Types, read, dst)
}

// NewRowDecoder returns a decoder of t's rows (see NewRowDecoderReading)
// that reads the columns a row was stored without as t.Missing holds
// them.
func (t *Table) NewRowDecoder(read []bool) *RowDecoder {
	d := NewRowDecoderReading(t.Types, read)
	if t.Prefix || t.readsMissing(read) {
		d.table = t
	}
	return d
}

// readsMissing reports whether a reader of the columns read (nil: all)
// reads a column with a missing value: a row without it must be padded.
// Otherwise a short row decodes as it is (its missing tail NULL, as the
// columns not read are).
func (t *Table) readsMissing(read []bool) bool {
	for i, d := range t.Missing {
		if d != nil && (read == nil || i < len(read) && read[i]) {
			return true
		}
	}
	return false
}

// fit is pad for the rows the decoder reads, into its scratch buffer: the
// values are copied into the builders before the next row.
func (d *RowDecoder) fit(buf []byte) ([]byte, error) {
	out, err := d.table.pad(d.padBuf, buf)
	if err == nil && len(out) > 0 && len(buf) > 0 && &out[0] != &buf[0] {
		d.padBuf = out[:0]
	}
	return out, err
}
