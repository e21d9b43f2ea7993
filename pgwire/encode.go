package pgwire

import (
	"fmt"
	"math/big"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/streamdb/streamdb/internal/pgcopy"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// Format codes.
const (
	textFormat   int16 = 0
	binaryFormat int16 = 1
)

// rowDescription describes cols; formats holds one code per column (nil:
// all text).
func rowDescription(cols []Column, formats []int16) *pgproto3.RowDescription {
	fields := make([]pgproto3.FieldDescription, len(cols))
	for i, col := range cols {
		fields[i] = pgproto3.FieldDescription{
			Name:         []byte(col.Name),
			DataTypeOID:  col.Type.OID(),
			DataTypeSize: typeSize(col.Type),
			TypeModifier: typeModifier(col.Type),
		}
		if formats != nil {
			fields[i].Format = formats[i]
		}
	}
	return &pgproto3.RowDescription{Fields: fields}
}

// typeSize is pg_type.typlen: the fixed size, or -1 for varlena types.
func typeSize(t types.Type) int16 {
	switch t.ID {
	case types.IDBool:
		return 1
	case types.IDInt16:
		return 2
	case types.IDInt32, types.IDFloat32, types.IDDate:
		return 4
	case types.IDInt64, types.IDFloat64, types.IDTimestamp, types.IDTimestampTZ, types.IDTime:
		return 8
	case types.IDUUID:
		return 16
	case types.IDTimeTZ:
		return 12
	case types.IDInterval:
		return 16
	case types.IDUnknown:
		return -2
	}
	return -1
}

// typeModifier is the atttypmod Postgres reports for t (-1: none).
func typeModifier(t types.Type) int32 { return t.Typmod() }

// resultFormats expands the result format codes of a Bind to one per
// column (nil when all are text).
func resultFormats(codes []int16, ncols int) ([]int16, error) {
	for _, f := range codes {
		if f != textFormat && f != binaryFormat {
			return nil, pgerr.New(pgerr.ProtocolViolation, "unsupported format code: %d", f)
		}
	}
	switch len(codes) {
	case 0:
		return nil, nil
	case 1:
		out := make([]int16, ncols)
		for i := range out {
			out[i] = codes[0]
		}
		return out, nil
	case ncols:
		return codes, nil
	}
	return nil, pgerr.New(pgerr.ProtocolViolation, "bind message has %d result formats but query has %d columns", len(codes), ncols)
}

// encodeRow appends the wire form of each value of row to a fresh slice of
// values, in the given per-column formats (nil: text).
func (c *conn) encodeRow(row []types.Datum, cols []Column, formats []int16) ([][]byte, int, error) {
	if len(row) != len(cols) {
		return nil, 0, pgerr.New(pgerr.Internal, "row has %d values but the result has %d columns", len(row), len(cols))
	}
	values := make([][]byte, len(row))
	size := 0
	for i, d := range row {
		if d == nil {
			continue
		}
		format := textFormat
		if formats != nil {
			format = formats[i]
		}
		v, err := c.encodeValue(d, cols[i].Type, format)
		if err != nil {
			return nil, 0, fmt.Errorf("pgwire: encoding column %q: %w", cols[i].Name, err)
		}
		values[i] = v
		size += len(v) + 4
	}
	return values, size, nil
}

// encodeValue returns the wire form of the non-NULL d of type t.
func (c *conn) encodeValue(d types.Datum, t types.Type, format int16) ([]byte, error) {
	if format == textFormat || t.ID == types.IDUnknown || t.ID == types.IDJSON {
		return []byte(types.FormatIn(d, t, c.zone())), nil
	}
	if b, ok := pgcopy.AppendBinaryExt(nil, d, t); ok {
		return b, nil
	}
	switch t.ID {
	case types.IDJSONB:
		return append([]byte{1}, d.(string)...), nil // version 1, then the text
	case types.IDBytea:
		return []byte(d.(string)), nil // the raw bytes
	case types.IDVoid:
		return []byte{}, nil // void_send sends nothing
	}
	v, err := pgValue(d, t)
	if err != nil {
		return nil, err
	}
	return c.types().Encode(t.OID(), binaryFormat, v, nil)
}

// pgValue converts a Datum to the value pgtype's codec for t encodes.
func pgValue(d types.Datum, t types.Type) (any, error) {
	switch t.ID {
	case types.IDArray:
		return arrayValue(d, t)
	case types.IDBytea:
		s, _ := d.(string)
		return []byte(s), nil // an array element: bytea's codec takes bytes
	}
	var v any
	switch x := d.(type) {
	case bool, int64, float64, string:
		v = x
	case *types.Decimal:
		v = decimalToNumeric(x)
	case types.Date:
		v = pgtype.Date{Time: time.Unix(int64(x)*86400, 0).UTC(), Valid: true}
	case types.Timestamp:
		v = timestampValue(x, t)
	case types.Interval:
		v = pgtype.Interval{Months: x.Months, Days: x.Days, Microseconds: x.Micros, Valid: true}
	default:
		return nil, fmt.Errorf("pgwire: cannot encode %T as %s", d, t)
	}
	return v, nil
}

func timestampValue(ts types.Timestamp, t types.Type) any {
	tm := time.UnixMicro(int64(ts)).UTC()
	if t.ID == types.IDTimestampTZ {
		return pgtype.Timestamptz{Time: tm, Valid: true}
	}
	return pgtype.Timestamp{Time: tm, Valid: true}
}

// decimalToNumeric converts an apd decimal to pgtype's numeric.
func decimalToNumeric(d *types.Decimal) pgtype.Numeric {
	switch d.Form {
	case apd.Infinite:
		if d.Negative {
			return pgtype.Numeric{InfinityModifier: pgtype.NegativeInfinity, Valid: true}
		}
		return pgtype.Numeric{InfinityModifier: pgtype.Infinity, Valid: true}
	case apd.Finite:
	default:
		return pgtype.Numeric{NaN: true, Valid: true}
	}
	n := new(big.Int).Set(d.Coeff.MathBigInt())
	if d.Negative {
		n.Neg(n)
	}
	return pgtype.Numeric{Int: n, Exp: d.Exponent, Valid: true}
}
