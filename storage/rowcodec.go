package storage

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/internal/types"
)

// Row values are compact and exact, not ordered:
//
//	uvarint(ncols) | null bitmap (ceil(ncols/8) bytes, bit i set = NULL) |
//	the non-NULL columns in order
//
// per type: bool 1 byte; integers, dates and timestamps a zigzag varint;
// floats the 8 IEEE bytes little-endian (NaN payloads and -0 survive);
// text a uvarint length and the bytes; intervals three zigzag varints
// (months, days, micros); numeric its binary form
// (types.AppendNumericBinary: a header byte (form | negative<<2), a
// zigzag varint exponent and a uvarint-length big-endian coefficient), so
// the scale survives (1.50 stays 1.50), and chunks hold the same bytes. A row stored with fewer columns
// than the reader's types decodes with the missing tail as NULL, so adding
// a nullable column needs no rewrite.

// EncodeRow appends the value encoding of row (Datums of types ts).
func EncodeRow(buf []byte, ts []types.Type, row []types.Datum) ([]byte, error) {
	if len(row) != len(ts) {
		return buf, fmt.Errorf("%w: row has %d columns, want %d", ErrBadLayout, len(row), len(ts))
	}
	buf = binary.AppendUvarint(buf, uint64(len(row)))
	start := len(buf)
	buf = append(buf, make([]byte, (len(row)+7)/8)...)
	for i, d := range row {
		if d == nil {
			buf[start+i/8] |= 1 << (i % 8)
			continue
		}
		var err error
		if buf, err = appendValue(buf, ts[i], d); err != nil {
			return buf, fmt.Errorf("column %d: %w", i, err)
		}
	}
	return buf, nil
}

func appendValue(buf []byte, t types.Type, d types.Datum) ([]byte, error) {
	switch v := d.(type) {
	case bool:
		if t.ID == types.IDBool {
			return append(buf, boolByte(v)), nil
		}
	case int64:
		if storedAsInt(t) {
			return binary.AppendVarint(buf, v), nil
		}
	case float64:
		if t.IsFloat() {
			return binary.LittleEndian.AppendUint64(buf, math.Float64bits(v)), nil
		}
	case string:
		if storedAsString(t) {
			return append(binary.AppendUvarint(buf, uint64(len(v))), v...), nil
		}
	case *apd.Decimal:
		if t.ID == types.IDNumeric && v != nil {
			return appendNumericValue(buf, v), nil
		}
	}
	return appendTimeValue(buf, t, d)
}

func appendTimeValue(buf []byte, t types.Type, d types.Datum) ([]byte, error) {
	switch v := d.(type) {
	case types.Date:
		if t.ID == types.IDDate {
			return binary.AppendVarint(buf, int64(v)), nil
		}
	case types.Timestamp:
		if t.ID == types.IDTimestamp || t.ID == types.IDTimestampTZ {
			return binary.AppendVarint(buf, int64(v)), nil
		}
	case types.Interval:
		if t.ID == types.IDInterval {
			buf = binary.AppendVarint(buf, int64(v.Months))
			buf = binary.AppendVarint(buf, int64(v.Days))
			return binary.AppendVarint(buf, v.Micros), nil
		}
	}
	return buf, errDatumType(t, d)
}

func appendNumericValue(buf []byte, v *apd.Decimal) []byte {
	return types.AppendNumericBinary(buf, v)
}

// DecodeRow decodes a value written by EncodeRow into dst (grown or
// reallocated to len(ts)) and returns it. Strings and numerics are freshly
// allocated; nothing returned aliases buf.
func DecodeRow(buf []byte, ts []types.Type, dst []types.Datum) ([]types.Datum, error) {
	return decodeRow(buf, ts, nil, dst)
}

// resizeRow returns dst with length n and every entry nil.
func resizeRow(dst []types.Datum, n int) []types.Datum {
	if cap(dst) < n {
		return make([]types.Datum, n)
	}
	dst = dst[:n]
	clear(dst)
	return dst
}

func decodeValue(buf []byte, t types.Type) (types.Datum, []byte, error) {
	switch {
	case t.ID == types.IDBool:
		if len(buf) < 1 || buf[0] > 1 {
			return nil, nil, errCorrupt("bool value", "bad byte")
		}
		return buf[0] == 1, buf[1:], nil
	case storedAsInt(t):
		return decodeVarint(buf, func(v int64) types.Datum { return v })
	case t.IsFloat():
		if len(buf) < 8 {
			return nil, nil, errCorrupt("float value", "short")
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(buf)), buf[8:], nil
	case storedAsString(t):
		b, rest, err := decodeBytes(buf)
		return string(b), rest, err
	case t.ID == types.IDNumeric:
		return decodeNumericValue(buf)
	}
	return decodeTimeValue(buf, t)
}

func decodeTimeValue(buf []byte, t types.Type) (types.Datum, []byte, error) {
	switch t.ID {
	case types.IDDate:
		v, k := binary.Varint(buf)
		if k <= 0 || v < math.MinInt32 || v > math.MaxInt32 {
			return nil, nil, errCorrupt("date value", "bad varint")
		}
		return types.Date(v), buf[k:], nil
	case types.IDTimestamp, types.IDTimestampTZ:
		return decodeVarint(buf, func(v int64) types.Datum { return types.Timestamp(v) })
	case types.IDInterval:
		return decodeIntervalValue(buf)
	}
	return nil, nil, fmt.Errorf("%w: no value encoding for type %s", ErrBadLayout, t)
}

func decodeVarint(buf []byte, box func(int64) types.Datum) (types.Datum, []byte, error) {
	v, k := binary.Varint(buf)
	if k <= 0 {
		return nil, nil, errCorrupt("integer value", "bad varint")
	}
	return box(v), buf[k:], nil
}

func decodeBytes(buf []byte) ([]byte, []byte, error) {
	n, k := binary.Uvarint(buf)
	if k <= 0 || n > uint64(len(buf)-k) {
		return nil, nil, errCorrupt("bytes value", "bad length")
	}
	end := k + int(n)
	return buf[k:end], buf[end:], nil
}

func decodeIntervalValue(buf []byte) (types.Datum, []byte, error) {
	var f [3]int64
	for i := range f {
		v, k := binary.Varint(buf)
		if k <= 0 {
			return nil, nil, errCorrupt("interval value", "bad varint")
		}
		f[i], buf = v, buf[k:]
	}
	if f[0] != int64(int32(f[0])) || f[1] != int64(int32(f[1])) {
		return nil, nil, errCorrupt("interval value", "field out of range")
	}
	return types.Interval{Months: int32(f[0]), Days: int32(f[1]), Micros: f[2]}, buf, nil
}

func decodeNumericValue(buf []byte) (types.Datum, []byte, error) {
	d := new(apd.Decimal)
	rest, err := types.DecodeNumericBinary(d, buf)
	if err != nil {
		return nil, nil, errCorrupt("numeric value", "bad encoding")
	}
	return d, rest, nil
}

// storedAsString reports whether values of t are stored as strings: text,
// varchar, unknown (an untyped string literal that reached state),
// arrays, json and jsonb.
func storedAsString(t types.Type) bool { return t.StoredAsText() }

// storedAsInt reports whether values of t are int64 Datums stored as
// integers: smallint, integer, bigint, time (microseconds since
// midnight) and timetz (packed, see types.PackTimeTZ).
func storedAsInt(t types.Type) bool {
	return t.IsInteger() || t.ID == types.IDTime || t.ID == types.IDTimeTZ
}

// keyedAsString reports whether values of t key as their strings, byte
// for byte: not jsonb and arrays (keyed by value), nor bpchar (keyed
// without its trailing blanks).
func keyedAsString(t types.Type) bool {
	return storedAsString(t) && t.ID != types.IDJSONB && t.ID != types.IDArray && t.ID != types.IDBpchar
}
