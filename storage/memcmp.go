package storage

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/streamdb/streamdb/internal/types"
)

// Markers that open every encoded key column. NULL sorts before any value.
const (
	keyNull    byte = 0x00
	keyPresent byte = 0x01
)

// String escaping: a 0x00 byte in the text becomes 0x00 0xFF and the text
// ends with 0x00 0x01, so an encoded string is never a prefix of another
// and "ab" < "ab\x00" < "abc" holds for the encodings too.
const (
	strEscape     byte = 0x00
	strEscapedNul byte = 0xFF
	strTerminator byte = 0x01
)

const signBit = uint64(1) << 63

// AppendKey appends the memcomparable encoding of d, a Datum of type t
// (nil is NULL), to buf. For two Datums a and b of one type,
// bytes.Compare of their encodings agrees with SQL ordering (NULLs first);
// encodings are prefix-free, so a row's columns can be concatenated. Values
// that compare equal encode equal (0 and -0; numeric 1.0 and 1.00).
func AppendKey(buf []byte, t types.Type, d types.Datum) ([]byte, error) {
	if d == nil {
		return append(buf, keyNull), nil
	}
	buf = append(buf, keyPresent)
	switch t.ID {
	case types.IDBool:
		v, ok := d.(bool)
		if !ok {
			return buf, errDatumType(t, d)
		}
		return append(buf, boolByte(v)), nil
	case types.IDInt16, types.IDInt32, types.IDInt64:
		v, ok := d.(int64)
		if !ok {
			return buf, errDatumType(t, d)
		}
		return binary.BigEndian.AppendUint64(buf, uint64(v)^signBit), nil
	case types.IDFloat32, types.IDFloat64:
		v, ok := d.(float64)
		if !ok {
			return buf, errDatumType(t, d)
		}
		return binary.BigEndian.AppendUint64(buf, floatKey(v)), nil
	case types.IDNumeric:
		v, ok := d.(*types.Decimal)
		if !ok || v == nil {
			return buf, errDatumType(t, d)
		}
		return appendNumericKey(buf, v), nil
	case types.IDText, types.IDVarchar, types.IDUnknown:
		v, ok := d.(string)
		if !ok {
			return buf, errDatumType(t, d)
		}
		return appendStringKey(buf, v), nil
	}
	return appendTimeKey(buf, t, d)
}

// appendIntKey appends the key encoding of a non-NULL int16, int32 or
// int64 value: AppendKey(buf, t, v) without boxing v.
func appendIntKey(buf []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(append(buf, keyPresent), uint64(v)^signBit)
}

// appendTimeKey encodes the date and time types.
func appendTimeKey(buf []byte, t types.Type, d types.Datum) ([]byte, error) {
	switch t.ID {
	case types.IDDate:
		v, ok := d.(types.Date)
		if !ok {
			return buf, errDatumType(t, d)
		}
		return binary.BigEndian.AppendUint32(buf, uint32(v)^(1<<31)), nil
	case types.IDTimestamp, types.IDTimestampTZ:
		v, ok := d.(types.Timestamp)
		if !ok {
			return buf, errDatumType(t, d)
		}
		return binary.BigEndian.AppendUint64(buf, uint64(v)^signBit), nil
	case types.IDInterval:
		v, ok := d.(types.Interval)
		if !ok {
			return buf, errDatumType(t, d)
		}
		return appendIntervalKey(buf, v), nil
	}
	return buf, errDatumType(t, d)
}

// DecodeKey decodes one column encoded by AppendKey and returns the rest of
// buf. Numeric values come back normalized (1.50 decodes as 1.5): the key
// keeps a numeric's value, not its scale; rows keep it (see EncodeRow).
func DecodeKey(buf []byte, t types.Type) (types.Datum, []byte, error) {
	if len(buf) == 0 {
		return nil, nil, errCorrupt("key column", "empty")
	}
	switch buf[0] {
	case keyNull:
		return nil, buf[1:], nil
	case keyPresent:
	default:
		return nil, nil, errCorrupt("key column", "bad marker")
	}
	buf = buf[1:]
	switch t.ID {
	case types.IDBool:
		if len(buf) < 1 || buf[0] > 1 {
			return nil, nil, errCorrupt("bool key", "bad byte")
		}
		return buf[0] == 1, buf[1:], nil
	case types.IDInt16, types.IDInt32, types.IDInt64:
		u, rest, err := decodeKeyUint64(buf)
		return int64(u ^ signBit), rest, err
	case types.IDFloat32, types.IDFloat64:
		u, rest, err := decodeKeyUint64(buf)
		return floatFromKey(u), rest, err
	case types.IDNumeric:
		return decodeNumericKey(buf)
	case types.IDText, types.IDVarchar, types.IDUnknown:
		return decodeStringKey(buf)
	}
	return decodeTimeKey(buf, t)
}

func decodeTimeKey(buf []byte, t types.Type) (types.Datum, []byte, error) {
	switch t.ID {
	case types.IDDate:
		if len(buf) < 4 {
			return nil, nil, errCorrupt("date key", "short")
		}
		return types.Date(int32(binary.BigEndian.Uint32(buf) ^ (1 << 31))), buf[4:], nil
	case types.IDTimestamp, types.IDTimestampTZ:
		u, rest, err := decodeKeyUint64(buf)
		return types.Timestamp(int64(u ^ signBit)), rest, err
	case types.IDInterval:
		return decodeIntervalKey(buf)
	}
	return nil, nil, fmt.Errorf("storage: no key encoding for type %s", t)
}

func decodeKeyUint64(buf []byte) (uint64, []byte, error) {
	if len(buf) < 8 {
		return 0, nil, errCorrupt("key column", "short")
	}
	return binary.BigEndian.Uint64(buf), buf[8:], nil
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// floatKey maps a float64 to a uint64 whose unsigned order is the float
// order of Postgres: -Inf < ... < -0 = 0 < ... < +Inf < NaN (all NaNs equal).
func floatKey(f float64) uint64 {
	if f != f {
		return math.MaxUint64
	}
	if f == 0 {
		f = 0 // fold -0 into +0
	}
	b := math.Float64bits(f)
	if b&signBit != 0 {
		return ^b
	}
	return b | signBit
}

func floatFromKey(u uint64) float64 {
	if u == math.MaxUint64 {
		return math.NaN()
	}
	if u&signBit != 0 {
		return math.Float64frombits(u &^ signBit)
	}
	return math.Float64frombits(^u)
}

func appendStringKey(buf []byte, s string) []byte {
	for {
		i := indexNul(s)
		if i < 0 {
			break
		}
		buf = append(buf, s[:i]...)
		buf = append(buf, strEscape, strEscapedNul)
		s = s[i+1:]
	}
	buf = append(buf, s...)
	return append(buf, strEscape, strTerminator)
}

func indexNul(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return i
		}
	}
	return -1
}

func decodeStringKey(buf []byte) (types.Datum, []byte, error) {
	var out []byte
	for {
		i := bytes.IndexByte(buf, strEscape)
		if i < 0 || i+1 >= len(buf) {
			return nil, nil, errCorrupt("string key", "unterminated")
		}
		out = append(out, buf[:i]...)
		switch buf[i+1] {
		case strTerminator:
			return string(out), buf[i+2:], nil
		case strEscapedNul:
			out = append(out, 0)
			buf = buf[i+2:]
		default:
			return nil, nil, errCorrupt("string key", "bad escape")
		}
	}
}
