package pgwire

import (
	"fmt"

	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/streamdb/streamdb/internal/pgcopy"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// typeForOID maps a client-given parameter type OID to a type; OID 0 (and
// unknown, 705) leave the type to the Session.
func typeForOID(oid uint32) (types.Type, error) {
	if oid == 0 || oid == types.TUnknown.OID() {
		return types.TUnknown, nil
	}
	for id := types.IDBool; id <= types.IDInterval; id++ {
		if t := (types.Type{ID: id}); t.OID() == oid {
			return t, nil
		}
	}
	switch oid {
	case types.TJSON.OID():
		return types.TJSON, nil
	case types.TJSONB.OID():
		return types.TJSONB, nil
	case types.TBytea.OID():
		return types.TBytea, nil
	}
	if t, ok := types.TypeByOID(oid); ok && t.ID == types.IDArray && !t.Vector && !t.ElemType().IsOID() {
		return t, nil
	}
	return types.Type{}, pgerr.New(pgerr.UndefinedObject, "type with OID %d is not supported", oid)
}

// paramOID is the OID a parameter is described with: an unresolved
// parameter is text, as an unknown-typed literal would be.
func paramOID(t types.Type) uint32 {
	if t.ID == types.IDUnknown {
		return types.TText.OID()
	}
	return t.OID()
}

// paramFormat returns the format code of parameter i of n from the codes
// of a Bind message.
func paramFormat(codes []int16, i int) int16 {
	switch len(codes) {
	case 0:
		return textFormat
	case 1:
		return codes[0]
	}
	return codes[i]
}

// decodeParams turns the values of a Bind message into Datums.
func (c *conn) decodeParams(formats []int16, values [][]byte, ptypes []types.Type) ([]types.Datum, error) {
	if len(formats) > 1 && len(formats) != len(values) {
		return nil, pgerr.New(pgerr.ProtocolViolation, "bind message has %d parameter formats but %d parameters", len(formats), len(values))
	}
	args := make([]types.Datum, len(values))
	for i, v := range values {
		if v == nil {
			continue
		}
		d, err := c.decodeParam(paramFormat(formats, i), v, ptypes[i])
		if err != nil {
			return nil, err
		}
		args[i] = d
	}
	return args, nil
}

func (c *conn) decodeParam(format int16, v []byte, t types.Type) (types.Datum, error) {
	switch {
	case format == textFormat && t.ID == types.IDUnknown:
		return string(v), nil
	case format == textFormat:
		return types.ParseIn(string(v), t, c.zone())
	case format == binaryFormat && t.ID == types.IDUnknown:
		return string(v), nil // described as text, whose binary form is its text
	case format == binaryFormat:
		d, err := c.decodeBinary(v, t)
		if err != nil {
			return nil, pgerr.Wrap(err, "22P03", "incorrect binary data format in bind parameter")
		}
		return d, nil
	}
	return nil, pgerr.New(pgerr.ProtocolViolation, "unsupported format code: %d", format)
}

// decodeBinary decodes a binary parameter value of type t with pgtype.
func (c *conn) decodeBinary(v []byte, t types.Type) (types.Datum, error) {
	scan := func(dst any) error { return c.types().Scan(t.OID(), binaryFormat, v, dst) }
	if d, ok, err := pgcopy.DecodeBinaryExt(v, t); ok {
		return d, err
	}
	switch t.ID {
	case types.IDArray:
		return pgcopy.DecodeBinaryArray(v, t, func(e []byte) (types.Datum, error) { return c.decodeBinary(e, t.ElemType()) })
	case types.IDBool:
		return scanDatum[bool](scan)
	case types.IDInt16, types.IDInt32, types.IDInt64:
		return scanDatum[int64](scan)
	case types.IDFloat32, types.IDFloat64:
		return scanDatum[float64](scan)
	case types.IDText, types.IDVarchar:
		return scanDatum[string](scan)
	case types.IDBytea:
		return string(v), nil // the raw bytes
	case types.IDJSON:
		return types.Parse(string(v), t)
	case types.IDJSONB:
		// A version byte (1), then the text.
		if len(v) == 0 || v[0] != 1 {
			return nil, fmt.Errorf("unsupported jsonb version number")
		}
		return types.Parse(string(v[1:]), t)
	case types.IDNumeric:
		var n pgtype.Numeric
		if err := scan(&n); err != nil {
			return nil, err
		}
		return numericToDecimal(n), nil
	case types.IDDate:
		return decodeDate(scan)
	case types.IDTimestamp, types.IDTimestampTZ:
		return decodeTimestamp(scan, t)
	case types.IDInterval:
		var iv pgtype.Interval
		if err := scan(&iv); err != nil {
			return nil, err
		}
		return types.Interval{Months: iv.Months, Days: iv.Days, Micros: iv.Microseconds}, nil
	}
	return nil, fmt.Errorf("no binary decoder for %s", t)
}

// scanDatum scans into a T and returns it as a Datum.
func scanDatum[T any](scan func(any) error) (types.Datum, error) {
	var v T
	if err := scan(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func decodeDate(scan func(any) error) (types.Datum, error) {
	var d pgtype.Date
	if err := scan(&d); err != nil {
		return nil, err
	}
	if d.InfinityModifier != pgtype.Finite {
		return nil, fmt.Errorf("infinite dates are not supported")
	}
	return types.Date(d.Time.Unix() / 86400), nil
}

func decodeTimestamp(scan func(any) error, t types.Type) (types.Datum, error) {
	if t.ID == types.IDTimestampTZ {
		var ts pgtype.Timestamptz
		if err := scan(&ts); err != nil {
			return nil, err
		}
		if ts.InfinityModifier != pgtype.Finite {
			return nil, fmt.Errorf("infinite timestamps are not supported")
		}
		return types.Timestamp(ts.Time.UnixMicro()), nil
	}
	var ts pgtype.Timestamp
	if err := scan(&ts); err != nil {
		return nil, err
	}
	if ts.InfinityModifier != pgtype.Finite {
		return nil, fmt.Errorf("infinite timestamps are not supported")
	}
	return types.Timestamp(ts.Time.UnixMicro()), nil
}

// numericToDecimal converts pgtype's numeric to an apd decimal.
func numericToDecimal(n pgtype.Numeric) *types.Decimal {
	switch {
	case n.NaN:
		return &apd.Decimal{Form: apd.NaN}
	case n.InfinityModifier == pgtype.Infinity:
		return &apd.Decimal{Form: apd.Infinite}
	case n.InfinityModifier == pgtype.NegativeInfinity:
		return &apd.Decimal{Form: apd.Infinite, Negative: true}
	}
	if n.Int == nil {
		return apd.New(0, 0)
	}
	return apd.NewWithBigInt(new(apd.BigInt).SetMathBigInt(n.Int), n.Exp)
}
