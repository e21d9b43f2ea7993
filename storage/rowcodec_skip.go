package storage

import (
	"encoding/binary"
	"fmt"

	"github.com/streamdb/streamdb/internal/types"
)

// Column pruning: a scan whose plan reads only some columns of a row
// (see planner/prune.go) walks over the bytes of the others without
// decoding them into Datums or strings, and leaves them NULL. read[i]
// says whether column i is decoded; a nil read decodes every column.

// skipValue walks past one non-NULL value of type t in buf (as written
// by appendValue) and returns the rest of buf.
func skipValue(buf []byte, t types.Type) ([]byte, error) {
	switch {
	case t.ID == types.IDBool:
		if len(buf) < 1 {
			return nil, errCorrupt("bool value", "short")
		}
		return buf[1:], nil
	case storedAsInt(t), t.ID == types.IDDate, t.ID == types.IDTimestamp, t.ID == types.IDTimestampTZ:
		return skipVarint(buf, "integer value")
	case t.IsFloat():
		if len(buf) < 8 {
			return nil, errCorrupt("float value", "short")
		}
		return buf[8:], nil
	case storedAsString(t):
		_, rest, err := decodeBytes(buf)
		return rest, err
	case t.ID == types.IDNumeric:
		if len(buf) < 1 || buf[0]>>3 != 0 {
			return nil, errCorrupt("numeric value", "bad header")
		}
		rest, err := skipVarint(buf[1:], "numeric value")
		if err != nil {
			return nil, err
		}
		_, rest, err = decodeBytes(rest)
		return rest, err
	case t.ID == types.IDInterval:
		var err error
		for range 3 {
			if buf, err = skipVarint(buf, "interval value"); err != nil {
				return nil, err
			}
		}
		return buf, nil
	}
	_, rest, err := decodeValue(buf, t)
	return rest, err
}

// skipVarint walks past one varint.
func skipVarint(buf []byte, what string) ([]byte, error) {
	for i := 0; i < len(buf) && i < binary.MaxVarintLen64; i++ {
		if buf[i] < 0x80 {
			return buf[i+1:], nil
		}
	}
	return nil, errCorrupt(what, "bad varint")
}

// DecodeRowReading is DecodeRow decoding only the columns with read[i]
// set (nil: all); the others are left nil (NULL), their bytes skipped.
func DecodeRowReading(buf []byte, ts []types.Type, read []bool, dst []types.Datum) ([]types.Datum, error) {
	return decodeRow(buf, ts, read, dst)
}

// decodeRow is DecodeRowReading.
func decodeRow(buf []byte, ts []types.Type, read []bool, dst []types.Datum) ([]types.Datum, error) {
	n, k := binary.Uvarint(buf)
	if k <= 0 || n > uint64(len(ts)) {
		return dst, errCorrupt("row", "bad column count")
	}
	buf = buf[k:]
	nulls := (int(n) + 7) / 8
	if len(buf) < nulls {
		return dst, errCorrupt("row", "short null bitmap")
	}
	bitmap, buf := buf[:nulls], buf[nulls:]
	dst = resizeRow(dst, len(ts))
	for i := 0; i < int(n); i++ {
		if bitmap[i/8]&(1<<(i%8)) != 0 {
			continue
		}
		var err error
		if read != nil && !read[i] {
			buf, err = skipValue(buf, ts[i])
		} else {
			dst[i], buf, err = decodeValue(buf, ts[i])
		}
		if err != nil {
			return dst, fmt.Errorf("column %d: %w", i, err)
		}
	}
	if len(buf) != 0 {
		return dst, errCorrupt("row", "trailing bytes")
	}
	return dst, nil
}
