package pgcopy

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// Epoch offsets between PostgreSQL's binary date/time forms (from
// 2000-01-01) and ours (from 1970-01-01).
const (
	pgEpochDays   = 10957
	pgEpochMicros = pgEpochDays * 86400 * 1_000_000
)

// Decoder turns fields of COPY data into Datums of their columns' types.
// Not safe for concurrent use.
type Decoder struct {
	binary bool
	types  []types.Type
	m      *pgtype.Map // numeric's binary codec, made on first use
	zone   *types.Zone
}

// NewDecoder returns a decoder of fields in format f for columns of types ts.
func NewDecoder(f Format, ts []types.Type) *Decoder {
	return &Decoder{binary: f == Binary, types: ts}
}

// InZone makes d read text timestamptz values without an offset in time
// zone z (nil: UTC); it returns d.
func (d *Decoder) InZone(z *types.Zone) *Decoder {
	d.zone = z
	return d
}

// Decode returns the value of column i from its non-NULL field.
func (d *Decoder) Decode(i int, field []byte) (types.Datum, error) {
	t := d.types[i]
	if d.binary {
		return d.decodeBinary(field, t)
	}
	switch t.ID {
	case types.IDText, types.IDUnknown:
		return string(field), nil
	case types.IDVarchar:
		return types.CheckVarchar(string(field), t, false)
	case types.IDBpchar:
		return types.CheckBpchar(string(field), t, false)
	case types.IDInt16, types.IDInt32, types.IDInt64:
		if n, ok := plainInt(field); ok && types.IntFits(n, t) {
			return n, nil
		}
	}
	// The parsers keep nothing of their input (errors copy it), so the
	// field's bytes need no copy.
	return types.ParseIn(unsafeString(field), t, d.zone)
}

// DecodeInt returns, without boxing it in a Datum, the value of column
// i, an integer column, from its non-NULL field, when the field is in the
// common form (binary, or text as plainInt reads) and the value fits the
// column; ok false otherwise, and the caller then uses Decode, which
// reads the rest and makes the errors.
func (d *Decoder) DecodeInt(i int, field []byte) (n int64, ok bool) {
	t := d.types[i]
	if !t.IsInteger() {
		return 0, false
	}
	if d.binary {
		return binaryInt(field, t)
	}
	if n, ok = plainInt(field); ok && types.IntFits(n, t) {
		return n, true
	}
	return 0, false
}

// plainInt reads the common form of an integer field, an optional '-'
// and 1 to 18 ASCII digits, without the string and trimming of
// types.ParseInt (a third of COPY's parsing time); ok is false for
// anything else (spaces, '+', longer numbers, bad input), which
// types.ParseIn then reads, with its errors. 18 digits always fit an
// int64, so the result is exactly types.ParseInt's.
func plainInt(b []byte) (n int64, ok bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// unsafeString views b as a string without copying; b must not change
// while the string is in use.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// decodeBinary decodes a value in its type's binary receive form.
func (d *Decoder) decodeBinary(v []byte, t types.Type) (types.Datum, error) {
	if v, ok, err := DecodeBinaryExt(v, t); ok {
		return v, err
	}
	switch t.ID {
	case types.IDArray:
		return DecodeBinaryArray(v, t, func(e []byte) (types.Datum, error) { return d.decodeBinary(e, t.ElemType()) })
	case types.IDBool:
		if len(v) != 1 {
			return nil, errBinary
		}
		return v[0] != 0, nil
	case types.IDInt16, types.IDInt32, types.IDInt64:
		return decodeBinaryInt(v, t)
	case types.IDFloat32:
		if len(v) != 4 {
			return nil, errBinary
		}
		return float64(math.Float32frombits(binary.BigEndian.Uint32(v))), nil
	case types.IDFloat64:
		if len(v) != 8 {
			return nil, errBinary
		}
		return math.Float64frombits(binary.BigEndian.Uint64(v)), nil
	case types.IDText, types.IDVarchar, types.IDUnknown:
		if !utf8.Valid(v) {
			return nil, pgerr.New(pgerr.CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\"")
		}
		if t.ID == types.IDVarchar {
			return types.CheckVarchar(string(v), t, false)
		}
		return string(v), nil
	case types.IDBytea:
		return string(v), nil // the raw bytes
	case types.IDJSON:
		return types.Parse(string(v), t)
	case types.IDJSONB:
		if len(v) == 0 || v[0] != 1 {
			return nil, pgerr.New(pgerr.InvalidBinaryRep, "unsupported jsonb version number %d", firstByte(v))
		}
		return types.Parse(string(v[1:]), t)
	case types.IDNumeric:
		return d.decodeNumeric(v, t)
	case types.IDDate:
		return decodeBinaryDate(v)
	case types.IDTimestamp, types.IDTimestampTZ:
		return decodeBinaryTimestamp(v)
	case types.IDInterval:
		if len(v) != 16 {
			return nil, errBinary
		}
		return types.Interval{Micros: int64(binary.BigEndian.Uint64(v)),
			Days: int32(binary.BigEndian.Uint32(v[8:])), Months: int32(binary.BigEndian.Uint32(v[12:]))}, nil
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "binary COPY of type %s is not supported", t)
}

// errBinary is PostgreSQL's error for a binary value of the wrong size.
var errBinary = pgerr.New(pgerr.InvalidBinaryRep, "incorrect binary data format")

func decodeBinaryInt(v []byte, t types.Type) (types.Datum, error) {
	if n, ok := binaryInt(v, t); ok {
		return n, nil
	}
	return nil, errBinary
}

// binaryInt reads an integer of type t in its binary form; false when v
// is not of its size.
func binaryInt(v []byte, t types.Type) (int64, bool) {
	switch {
	case t.ID == types.IDInt16 && len(v) == 2:
		return int64(int16(binary.BigEndian.Uint16(v))), true
	case t.ID == types.IDInt32 && len(v) == 4:
		return int64(int32(binary.BigEndian.Uint32(v))), true
	case t.ID == types.IDInt64 && len(v) == 8:
		return int64(binary.BigEndian.Uint64(v)), true
	}
	return 0, false
}

func decodeBinaryDate(v []byte) (types.Datum, error) {
	if len(v) != 4 {
		return nil, errBinary
	}
	switch n := int32(binary.BigEndian.Uint32(v)); n {
	case math.MaxInt32:
		return types.DateInfinity, nil
	case math.MinInt32:
		return types.DateNegInfinity, nil
	default:
		d := types.Date(int64(n) + pgEpochDays)
		if !types.DateValid(d) {
			return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range")
		}
		return d, nil
	}
}

func decodeBinaryTimestamp(v []byte) (types.Datum, error) {
	if len(v) != 8 {
		return nil, errBinary
	}
	switch n := int64(binary.BigEndian.Uint64(v)); n {
	case math.MaxInt64:
		return types.TimestampInfinity, nil
	case math.MinInt64:
		return types.TimestampNegInfinity, nil
	default:
		if n > math.MaxInt64-pgEpochMicros {
			return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range")
		}
		ts := types.Timestamp(n + pgEpochMicros)
		if !types.TimestampValid(ts) {
			return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range")
		}
		return ts, nil
	}
}

func (d *Decoder) decodeNumeric(v []byte, t types.Type) (types.Datum, error) {
	if d.m == nil {
		d.m = pgtype.NewMap()
	}
	var n pgtype.Numeric
	if err := d.m.Scan(pgtype.NumericOID, pgtype.BinaryFormatCode, v, &n); err != nil {
		return nil, pgerr.Wrap(err, pgerr.InvalidBinaryRep, "invalid numeric binary data")
	}
	var dec *apd.Decimal
	switch {
	case n.NaN:
		dec = &apd.Decimal{Form: apd.NaN}
	case n.InfinityModifier == pgtype.Infinity:
		dec = &apd.Decimal{Form: apd.Infinite}
	case n.InfinityModifier == pgtype.NegativeInfinity:
		dec = &apd.Decimal{Form: apd.Infinite, Negative: true}
	case n.Int == nil:
		dec = apd.New(0, 0)
	default:
		dec = apd.NewWithBigInt(new(apd.BigInt).SetMathBigInt(n.Int), n.Exp)
	}
	return types.ApplyTypmod(types.NormalizeNumeric(dec), t)
}

// AppendText appends the text output form of the non-NULL d of type t.
func AppendText(buf []byte, d types.Datum, t types.Type) []byte {
	switch v := d.(type) {
	case int64:
		switch t.ID {
		case types.IDTime:
			return types.AppendTime(buf, v)
		case types.IDTimeTZ:
			return append(buf, types.FormatTimeTZ(v)...)
		}
		return strconv.AppendInt(buf, v, 10)
	case string:
		switch t.ID {
		case types.IDBytea:
			return types.AppendBytea(buf, v)
		case types.IDUUID, types.IDInet, types.IDCidr:
			return append(buf, types.Format(v, t)...)
		}
		return append(buf, v...)
	case bool:
		if v {
			return append(buf, 't')
		}
		return append(buf, 'f')
	}
	return append(buf, types.Format(d, t)...)
}

// Encoder appends values in their binary send form. Not safe for
// concurrent use.
type Encoder struct {
	m *pgtype.Map // numeric's binary codec, made on first use
}

// AppendBinary appends the binary form of the non-NULL d of type t.
func (e *Encoder) AppendBinary(buf []byte, d types.Datum, t types.Type) ([]byte, error) {
	if b, ok := AppendBinaryExt(buf, d, t); ok {
		return b, nil
	}
	switch v := d.(type) {
	case bool:
		if v {
			return append(buf, 1), nil
		}
		return append(buf, 0), nil
	case int64:
		switch t.OID() {
		case 21: // smallint
			return binary.BigEndian.AppendUint16(buf, uint16(v)), nil
		case 23, 26: // integer, oid
			return binary.BigEndian.AppendUint32(buf, uint32(v)), nil
		}
		return binary.BigEndian.AppendUint64(buf, uint64(v)), nil
	case float64:
		if t.ID == types.IDFloat32 {
			return binary.BigEndian.AppendUint32(buf, math.Float32bits(float32(v))), nil
		}
		return binary.BigEndian.AppendUint64(buf, math.Float64bits(v)), nil
	case string:
		if t.ID == types.IDJSONB {
			buf = append(buf, 1) // jsonb's version byte
		}
		return append(buf, v...), nil
	case *apd.Decimal:
		return e.appendNumeric(buf, v)
	case types.Date:
		return binary.BigEndian.AppendUint32(buf, uint32(binaryDate(v))), nil
	case types.Timestamp:
		return binary.BigEndian.AppendUint64(buf, uint64(binaryTimestamp(v))), nil
	case types.Interval:
		buf = binary.BigEndian.AppendUint64(buf, uint64(v.Micros))
		buf = binary.BigEndian.AppendUint32(buf, uint32(v.Days))
		return binary.BigEndian.AppendUint32(buf, uint32(v.Months)), nil
	}
	return nil, fmt.Errorf("pgcopy: cannot encode %T as %s", d, t)
}

func binaryDate(d types.Date) int32 {
	switch d {
	case types.DateInfinity:
		return math.MaxInt32
	case types.DateNegInfinity:
		return math.MinInt32
	}
	return int32(int64(d) - pgEpochDays)
}

func binaryTimestamp(ts types.Timestamp) int64 {
	switch ts {
	case types.TimestampInfinity:
		return math.MaxInt64
	case types.TimestampNegInfinity:
		return math.MinInt64
	}
	return int64(ts) - pgEpochMicros
}

func (e *Encoder) appendNumeric(buf []byte, d *apd.Decimal) ([]byte, error) {
	if e.m == nil {
		e.m = pgtype.NewMap()
	}
	if d.Form == apd.Finite && d.Coeff.Sign() == 0 {
		// Zero as PostgreSQL sends it: no digits, weight 0, its scale.
		buf = append(buf, 0, 0, 0, 0, 0, 0) // ndigits, weight, sign
		return binary.BigEndian.AppendUint16(buf, uint16(max(0, -d.Exponent))), nil
	}
	n := pgtype.Numeric{Valid: true}
	switch {
	case d.Form == apd.Infinite && d.Negative:
		n.InfinityModifier = pgtype.NegativeInfinity
	case d.Form == apd.Infinite:
		n.InfinityModifier = pgtype.Infinity
	case d.Form != apd.Finite:
		n.NaN = true
	default:
		n.Int = new(big.Int).Set(d.Coeff.MathBigInt())
		if d.Negative {
			n.Int.Neg(n.Int)
		}
		n.Exp = d.Exponent
	}
	return e.m.Encode(pgtype.NumericOID, pgtype.BinaryFormatCode, n, buf)
}

func firstByte(v []byte) int {
	if len(v) == 0 {
		return 0
	}
	return int(v[0])
}
