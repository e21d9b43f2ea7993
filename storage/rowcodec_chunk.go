package storage

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// RowDecoder decodes values written by EncodeRow for one column layout
// straight into chunk builders: the row DecodeRow followed by
// chunk.Builder.Append would add, without making a Datum of each value.
// Integer, float, timestamp and string columns go to their Arrow builder
// directly, through a decoding step chosen once per column; other types
// take the Datum path. It is what a snapshot scan decodes rows with.
type RowDecoder struct {
	ts   []types.Type
	read []bool // the columns decoded (nil: all); others are skipped, NULL
	// table, when not nil, pads the rows stored with fewer columns
	// with its missing values (Table.NewRowDecoder).
	table  *Table
	padBuf []byte
	kinds  []valueKind
	// The typed column builders of the chunk.Builder last appended to
	// (a Builder keeps its column builders across Build).
	bound *chunk.Builder
	cols  []array.Builder
	i64   []*array.Int64Builder
	i32   []*array.Int32Builder
	i16   []*array.Int16Builder
	// Batch decoding (rowcodec_batch.go), bound to batchBound.
	batchBound *chunk.Builder
	staged     []stagedCol
	batchRows  int // rows staged in the batch
	batchRoom  int // rows the batch has room for
	// varintsOnly: every column is staged as a varint without a range
	// check (integers, timestamps), so a row with every column stored
	// and none NULL takes stageRow's one-step loop.
	varintsOnly bool
	batchNulls  bool // a staged column has a NULL in the batch
	// Flush's buffers for narrowing staged values.
	scratch32   []int32
	scratch16   []int16
	scratchDate []arrow.Date32
}

// valueKind is how a RowDecoder decodes a column's values.
type valueKind uint8

const (
	kindOther valueKind = iota // appendColumnValue: floats, timestamps, strings, Datums
	kindInt64
	kindInt32
	kindInt16
	kindSkip // not read: the value's bytes are skipped, NULL appended
)

// NewRowDecoder returns a decoder of rows of types ts.
func NewRowDecoder(ts []types.Type) *RowDecoder {
	return &RowDecoder{ts: ts}
}

// NewRowDecoderReading returns a decoder of rows of types ts that
// decodes only the columns with read[i] set (nil: all): the others are
// appended as NULL, their bytes skipped (see rowcodec_skip.go).
func NewRowDecoderReading(ts []types.Type, read []bool) *RowDecoder {
	return &RowDecoder{ts: ts, read: read}
}

// bind resolves the decoding step of each column for builder b.
func (d *RowDecoder) bind(b *chunk.Builder) {
	cols := b.Columns()
	d.bound, d.cols = b, cols
	n := len(d.ts)
	d.kinds = make([]valueKind, n)
	d.i64, d.i32, d.i16 = make([]*array.Int64Builder, n), make([]*array.Int32Builder, n), make([]*array.Int16Builder, n)
	for i, t := range d.ts {
		if d.read != nil && !d.read[i] {
			d.kinds[i] = kindSkip
			continue
		}
		switch f := cols[i].(type) {
		case *array.Int64Builder:
			if storedAsInt(t) {
				d.kinds[i], d.i64[i] = kindInt64, f
				continue
			}
		case *array.Int32Builder:
			if storedAsInt(t) {
				d.kinds[i], d.i32[i] = kindInt32, f
				continue
			}
		case *array.Int16Builder:
			if storedAsInt(t) {
				d.kinds[i], d.i16[i] = kindInt16, f
				continue
			}
		}
		d.kinds[i] = kindOther
	}
}

// Append decodes buf into b as a row with operation op. On error the row
// is left half appended: b must be discarded.
func (d *RowDecoder) Append(b *chunk.Builder, op chunk.Op, buf []byte) error {
	if d.table != nil {
		var err error
		if buf, err = d.fit(buf); err != nil {
			return err
		}
	}
	if b != d.bound {
		d.bind(b)
	} else if b.Len() == 0 {
		b.Columns() // makes room for the chunk's rows
	}
	var n uint64
	if len(buf) > 0 && buf[0] < 0x80 {
		n, buf = uint64(buf[0]), buf[1:]
	} else {
		var k int
		if n, k = binary.Uvarint(buf); k <= 0 {
			return errCorrupt("row", "bad column count")
		}
		buf = buf[k:]
	}
	if n > uint64(len(d.ts)) {
		return errCorrupt("row", "bad column count")
	}
	nulls := (int(n) + 7) / 8
	if len(buf) < nulls {
		return errCorrupt("row", "short null bitmap")
	}
	bitmap, buf := buf[:nulls], buf[nulls:]
	for i, kind := range d.kinds {
		if i >= int(n) || bitmap[i/8]&(1<<(i%8)) != 0 {
			d.cols[i].AppendNull()
			continue
		}
		var err error
		switch kind {
		case kindInt64, kindInt32, kindInt16:
			u, k := uvarint(buf)
			if k <= 0 {
				return fmt.Errorf("column %d: %w", i, errCorrupt("integer value", "bad varint"))
			}
			buf = buf[k:]
			v := int64(u>>1) ^ -int64(u&1) // zigzag
			switch kind {
			case kindInt64:
				appendInt64(d.i64[i], v)
			case kindInt32:
				appendInt32(d.i32[i], int32(v))
			default:
				d.i16[i].Append(int16(v))
			}
		case kindSkip:
			d.cols[i].AppendNull()
			buf, err = skipValue(buf, d.ts[i])
		default:
			buf, err = appendColumnValue(d.cols[i], d.ts[i], buf)
		}
		if err != nil {
			return fmt.Errorf("column %d: %w", i, err)
		}
	}
	if len(buf) != 0 {
		return errCorrupt("row", "trailing bytes")
	}
	b.AppendedRow(op)
	return nil
}

// uvarint is binary.Uvarint with the values of up to four bytes (below
// 2^28: the integers of most rows) decoded inline; longer ones, and
// errors (n <= 0), are binary.Uvarint's.
func uvarint(buf []byte) (uint64, int) {
	if len(buf) >= 4 {
		x := uint64(buf[0])
		if x < 0x80 {
			return x, 1
		}
		x &= 0x7f
		b := uint64(buf[1])
		if b < 0x80 {
			return x | b<<7, 2
		}
		x |= (b & 0x7f) << 7
		b = uint64(buf[2])
		if b < 0x80 {
			return x | b<<14, 3
		}
		x |= (b & 0x7f) << 14
		if b = uint64(buf[3]); b < 0x80 {
			return x | b<<21, 4
		}
	}
	return binary.Uvarint(buf)
}

// appendInt64 is f.Append(v) without its growth check while the builder
// has room (a chunk builder reserves a chunk's rows at its first).
func appendInt64(f *array.Int64Builder, v int64) {
	if f.Len() < f.Cap() {
		f.UnsafeAppend(v)
		return
	}
	f.Append(v)
}

// appendInt32 is appendInt64 for an int32 column.
func appendInt32(f *array.Int32Builder, v int32) {
	if f.Len() < f.Cap() {
		f.UnsafeAppend(v)
		return
	}
	f.Append(v)
}

// appendColumnValue decodes one non-NULL value of type t from buf into fb
// and returns the rest of buf.
func appendColumnValue(fb array.Builder, t types.Type, buf []byte) ([]byte, error) {
	switch f := fb.(type) {
	case *array.Int64Builder:
		if storedAsInt(t) {
			v, rest, err := decodeInt(buf)
			f.Append(v)
			return rest, err
		}
	case *array.Int32Builder:
		if storedAsInt(t) {
			v, rest, err := decodeInt(buf)
			f.Append(int32(v))
			return rest, err
		}
	case *array.Int16Builder:
		if storedAsInt(t) {
			v, rest, err := decodeInt(buf)
			f.Append(int16(v))
			return rest, err
		}
	case *array.Float64Builder:
		if t.IsFloat() && len(buf) >= 8 {
			f.Append(math.Float64frombits(binary.LittleEndian.Uint64(buf)))
			return buf[8:], nil
		}
	case *array.TimestampBuilder:
		if t.ID == types.IDTimestamp || t.ID == types.IDTimestampTZ {
			v, rest, err := decodeInt(buf)
			f.Append(arrow.Timestamp(v))
			return rest, err
		}
	case *array.BinaryBuilder:
		if t.ID == types.IDNumeric {
			return appendNumericColumnValue(f, buf)
		}
	case *array.StringBuilder:
		if storedAsString(t) {
			s, rest, err := decodeBytes(buf)
			if err == nil {
				f.BinaryBuilder.Append(s)
			}
			return rest, err
		}
	}
	d, rest, err := decodeValue(buf, t)
	if err != nil {
		return nil, err
	}
	chunk.AppendDatum(fb, d)
	return rest, nil
}

func decodeInt(buf []byte) (int64, []byte, error) {
	v, k := binary.Varint(buf)
	if k <= 0 {
		return 0, nil, errCorrupt("integer value", "bad varint")
	}
	return v, buf[k:], nil
}

// appendNumericColumnValue copies a numeric value into a numeric column:
// both hold the binary form (types.AppendNumericBinary), so no Decimal is
// made of a plain value.
func appendNumericColumnValue(f *array.BinaryBuilder, buf []byte) ([]byte, error) {
	rest, err := chunk.AppendNumericBinary(f, buf)
	if err != nil {
		return nil, errCorrupt("numeric value", "bad encoding")
	}
	return rest, nil
}
