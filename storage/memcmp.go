package storage

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/streamdb/streamdb/internal/jsonb"
	"github.com/streamdb/streamdb/internal/types"
)

// Markers that open every encoded key column. NULL sorts before any value.
const (
	keyNull    byte = 0x00
	keyPresent byte = 0x01
	// keyOther opens the key of a Datum of no SQL type AppendDatumKey
	// knows; stored keys never hold it.
	keyOther byte = 0x02
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
// that compare equal encode equal (0 and -0; numeric 1.0 and 1.00;
// interval '1 mon' and '30 days'; jsonb 1 and 1.0; bpchar 'a' and 'a  ',
// keyed without trailing blanks; numeric[] '{1.5}' and
// '{1.50}': arrays are keyed by their elements, see memcmp_array.go), which makes this encoding the key of
// everything that groups, joins or dedupes values: state tables, vnodes,
// and the in-memory keys of the executors (AppendDatumKey).
func AppendKey(buf []byte, t types.Type, d types.Datum) ([]byte, error) {
	if d == nil {
		return append(buf, keyNull), nil
	}
	switch t.ID {
	case types.IDBool:
		if v, ok := d.(bool); ok {
			return appendBoolKey(buf, v), nil
		}
	case types.IDInt16, types.IDInt32, types.IDInt64, types.IDTime, types.IDTimeTZ:
		if v, ok := d.(int64); ok {
			return appendIntKey(buf, v), nil
		}
	case types.IDFloat32, types.IDFloat64:
		if v, ok := d.(float64); ok {
			return appendFloatKey(buf, v), nil
		}
	case types.IDNumeric:
		if v, ok := d.(*types.Decimal); ok && v != nil {
			return appendNumericKey(append(buf, keyPresent), v), nil
		}
	case types.IDText, types.IDVarchar, types.IDUnknown, types.IDJSON, types.IDBytea, types.IDUUID, types.IDInet, types.IDCidr:
		if v, ok := d.(string); ok {
			return appendStringKey(append(buf, keyPresent), v), nil
		}
	case types.IDBpchar:
		if v, ok := d.(string); ok {
			return appendStringKey(append(buf, keyPresent), types.BpcharTrim(v)), nil
		}
	case types.IDArray:
		if v, ok := d.(string); ok {
			b, err := appendArrayKey(append(buf, keyPresent), t, v)
			if err != nil {
				return buf, err
			}
			return b, nil
		}
	case types.IDJSONB:
		if v, ok := d.(string); ok {
			return appendJSONBKey(buf, v)
		}
	}
	return appendTimeKey(buf, t, d)
}

// appendTimeKey is AppendKey of the date and time types.
func appendTimeKey(buf []byte, t types.Type, d types.Datum) ([]byte, error) {
	switch t.ID {
	case types.IDDate:
		if v, ok := d.(types.Date); ok {
			return appendDateKey(buf, v), nil
		}
	case types.IDTimestamp, types.IDTimestampTZ:
		if v, ok := d.(types.Timestamp); ok {
			return appendTimestampKey(buf, v), nil
		}
	case types.IDInterval:
		if v, ok := d.(types.Interval); ok {
			return appendIntervalKey(append(buf, keyPresent), v), nil
		}
	}
	return buf, errDatumType(t, d)
}

// AppendDatumKey appends the key encoding of d chosen by d's Go type:
// what AppendKey appends for any type t whose Datums d's Go type
// represents (the integer widths, text and varchar, timestamp and
// timestamptz share one). It keys the executors' hash tables (groups,
// join keys, DISTINCT and IN sets), whose columns each hold one type, so
// that they group and match exactly as the state tables do. A Datum of
// another Go type (none exists; a safeguard) is keyed by its printed form
// after a marker stored keys never hold.
func AppendDatumKey(buf []byte, d types.Datum) []byte {
	// The commonest kinds first, in a switch small enough to stay cheap
	// (a type switch over every kind costs twice as much per key).
	switch v := d.(type) {
	case int64:
		return appendIntKey(buf, v)
	case string:
		return appendStringKey(append(buf, keyPresent), v)
	case nil:
		return append(buf, keyNull)
	}
	return appendOtherDatumKey(buf, d)
}

// AppendDatumKeyOf is AppendDatumKey for a value of type t: the same
// bytes, but for jsonb and arrays, whose strings do not key them (1 and
// 1.0 are equal jsonb values, '{1.5}' and '{1.50}' equal numeric[] ones,
// and arrays order by their elements): they are keyed by value, as
// AppendKey does. Executors that key values of any type use it, not
// AppendDatumKey.
func AppendDatumKeyOf(buf []byte, t types.Type, d types.Datum) []byte {
	switch t.ID {
	case types.IDJSONB:
		if s, ok := d.(string); ok {
			if b, err := appendJSONBKey(buf, s); err == nil {
				return b
			}
		}
	case types.IDArray:
		if s, ok := d.(string); ok {
			if b, err := appendArrayKey(append(buf, keyPresent), t, s); err == nil {
				return b
			}
		}
	case types.IDBpchar:
		if s, ok := d.(string); ok {
			return appendStringKey(append(buf, keyPresent), types.BpcharTrim(s))
		}
	}
	return AppendDatumKey(buf, d)
}

// appendJSONBKey appends the key of a jsonb value (its text): jsonb's sort
// key, whose order is jsonb's and in which equal values (1, 1.0) are
// equal.
func appendJSONBKey(buf []byte, s string) ([]byte, error) {
	j, err := jsonb.Parse(s)
	if err != nil {
		return nil, err
	}
	return j.AppendSortKey(append(buf, keyPresent)), nil
}

// appendOtherDatumKey is AppendDatumKey of the other kinds.
func appendOtherDatumKey(buf []byte, d types.Datum) []byte {
	switch v := d.(type) {
	case *types.Decimal:
		if v == nil {
			return append(buf, keyNull)
		}
		return appendNumericKey(append(buf, keyPresent), v)
	case float64:
		return appendFloatKey(buf, v)
	case bool:
		return appendBoolKey(buf, v)
	case types.Date:
		return appendDateKey(buf, v)
	case types.Timestamp:
		return appendTimestampKey(buf, v)
	case types.Interval:
		return appendIntervalKey(append(buf, keyPresent), v)
	}
	return appendStringKey(append(buf, keyOther), fmt.Sprint(d))
}

// The key encodings of non-NULL values, marker included.

func appendBoolKey(buf []byte, v bool) []byte { return append(buf, keyPresent, boolByte(v)) }

// appendIntKey appends the key encoding of a non-NULL int16, int32 or
// int64 value.
func appendIntKey(buf []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(append(buf, keyPresent), uint64(v)^signBit)
}

func appendFloatKey(buf []byte, v float64) []byte {
	return binary.BigEndian.AppendUint64(append(buf, keyPresent), floatKey(v))
}

func appendDateKey(buf []byte, v types.Date) []byte {
	return binary.BigEndian.AppendUint32(append(buf, keyPresent), uint32(v)^(1<<31))
}

func appendTimestampKey(buf []byte, v types.Timestamp) []byte {
	return binary.BigEndian.AppendUint64(append(buf, keyPresent), uint64(v)^signBit)
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
	case types.IDInt16, types.IDInt32, types.IDInt64, types.IDTime, types.IDTimeTZ:
		u, rest, err := decodeKeyUint64(buf)
		return int64(u ^ signBit), rest, err
	case types.IDFloat32, types.IDFloat64:
		u, rest, err := decodeKeyUint64(buf)
		return floatFromKey(u), rest, err
	case types.IDNumeric:
		return decodeNumericKey(buf)
	case types.IDText, types.IDVarchar, types.IDUnknown, types.IDJSON, types.IDBytea, types.IDUUID, types.IDInet, types.IDCidr:
		return decodeStringKey(buf)
	case types.IDBpchar:
		// The key drops trailing blanks; a character(n) gets them back.
		s, rest, err := decodeStringKey(buf)
		if err != nil {
			return nil, nil, err
		}
		padded, _ := types.CheckBpchar(s.(string), t, true)
		return padded, rest, nil
	case types.IDArray:
		return decodeArrayKey(buf, t)
	case types.IDJSONB:
		// Numbers come back canonical (1.0 as 1), as numerics do.
		j, rest, err := jsonb.DecodeSortKey(buf)
		if err != nil {
			return nil, nil, errCorrupt("jsonb key", err.Error())
		}
		return j.String(), rest, nil
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
		i := strings.IndexByte(s, strEscape)
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
