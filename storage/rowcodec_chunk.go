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

// AppendRow decodes a value written by EncodeRow straight into b (a
// builder for columns of types ts) as a row with operation op: the row
// DecodeRow followed by b.Append(op, row) would add, without making a
// Datum of each value (fixed-width values and strings go to their Arrow
// builder directly; other types take the Datum path). On error the row is
// left half appended: b must be discarded.
func AppendRow(b *chunk.Builder, op chunk.Op, buf []byte, ts []types.Type) error {
	n, k := binary.Uvarint(buf)
	if k <= 0 || n > uint64(len(ts)) {
		return errCorrupt("row", "bad column count")
	}
	buf = buf[k:]
	nulls := (int(n) + 7) / 8
	if len(buf) < nulls {
		return errCorrupt("row", "short null bitmap")
	}
	bitmap, buf := buf[:nulls], buf[nulls:]
	cols := b.Columns()
	for i := range ts {
		fb := cols[i]
		if i >= int(n) || bitmap[i/8]&(1<<(i%8)) != 0 {
			fb.AppendNull()
			continue
		}
		var err error
		if buf, err = appendColumnValue(fb, ts[i], buf); err != nil {
			return fmt.Errorf("column %d: %w", i, err)
		}
	}
	if len(buf) != 0 {
		return errCorrupt("row", "trailing bytes")
	}
	b.AppendedRow(op)
	return nil
}

// appendColumnValue decodes one non-NULL value of type t from buf into fb
// and returns the rest of buf.
func appendColumnValue(fb array.Builder, t types.Type, buf []byte) ([]byte, error) {
	switch f := fb.(type) {
	case *array.Int64Builder:
		if t.IsInteger() {
			v, rest, err := decodeInt(buf)
			f.Append(v)
			return rest, err
		}
	case *array.Int32Builder:
		if t.IsInteger() {
			v, rest, err := decodeInt(buf)
			f.Append(int32(v))
			return rest, err
		}
	case *array.Int16Builder:
		if t.IsInteger() {
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
