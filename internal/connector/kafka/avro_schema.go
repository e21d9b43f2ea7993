package kafka

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hamba/avro/v2"

	"github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// parseAvroSchema parses a schema's JSON text. Each parse gets its own
// cache of named types: hamba/avro's default cache is global, and two
// topics (or two versions of one) may define different records of the
// same name.
func parseAvroSchema(text string) (avro.Schema, error) {
	s, err := avro.ParseWithCache(text, "", &avro.SchemaCache{})
	if err != nil {
		return nil, fmt.Errorf("kafka: a schema that does not parse as Avro: %w", err)
	}
	return s, nil
}

// nonNull returns the type of a nullable union ["null", T] or [T,
// "null"], T, and true; any other schema as it is, and false.
func nonNull(s avro.Schema) (avro.Schema, bool) {
	u, ok := s.(*avro.UnionSchema)
	if !ok || !u.Nullable() {
		return s, false
	}
	for _, t := range u.Types() {
		if t.Type() != avro.Null {
			return t, true
		}
	}
	return s, false
}

func logicalOf(s avro.Schema) avro.LogicalType {
	if l, ok := s.(avro.LogicalTypeSchema); ok && l.Logical() != nil {
		return l.Logical().Type()
	}
	return ""
}

// AvroColumns maps a record schema's fields to columns, as RisingWave's
// table maps Avro types (avroType). A schema that is not a record, or a
// field of a type with no column type, is an error naming the field.
func AvroColumns(s avro.Schema) ([]connector.Column, error) {
	rec, ok := s.(*avro.RecordSchema)
	if !ok {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "an Avro value schema of type %s is not supported: a source's schema is a record", s.Type())
	}
	cols := make([]connector.Column, 0, len(rec.Fields()))
	for _, f := range rec.Fields() {
		t, err := avroType(f.Type())
		if err != nil {
			return nil, fieldError(f.Name(), err)
		}
		cols = append(cols, connector.Column{Name: f.Name(), Type: t})
	}
	return cols, nil
}

// avroTypeError is a field type with no column type.
type avroTypeError struct {
	code, msg string
}

func (e *avroTypeError) Error() string { return e.msg }

func fieldError(name string, err error) error {
	code := pgerr.FeatureNotSupported
	var te *avroTypeError
	if errors.As(err, &te) {
		code = te.code
	}
	e := pgerr.New(code, "Avro field %q: %v", name, err)
	if code == pgerr.DatatypeMismatch {
		e.Hint = "A column holds a nullable union [\"null\", T] of one type T; other unions have no column type."
	}
	return e
}

// avroType is the column type of an Avro type:
//
//	boolean -> boolean, int -> integer, long -> bigint, float -> real,
//	double -> double precision, string and enum -> varchar, bytes and
//	fixed -> bytea, date -> date, timestamp-millis/micros ->
//	timestamptz, local-timestamp-millis/micros -> timestamp, decimal ->
//	numeric, duration -> interval, array of a scalar -> an array of its
//	type, record, map and other arrays -> jsonb (streamdb has no struct
//	or map type), ["null", T] -> T (columns are nullable).
//
// Other unions (42804) and time-millis/micros (0A000: streamdb has no
// time type) are errors.
func avroType(s avro.Schema) (types.Type, error) {
	if u, ok := s.(*avro.UnionSchema); ok {
		t, nullable := nonNull(u)
		if !nullable {
			return types.Type{}, &avroTypeError{pgerr.DatatypeMismatch, fmt.Sprintf("the union %s is not supported", unionNames(u))}
		}
		s = t
	}
	switch logicalOf(s) {
	case avro.Date:
		return types.TDate, nil
	case avro.TimestampMillis, avro.TimestampMicros:
		return types.TTimestampTZ, nil
	case avro.LocalTimestampMillis, avro.LocalTimestampMicros:
		return types.TTimestamp, nil
	case avro.Decimal:
		return types.TNumeric, nil
	case avro.Duration:
		return types.TInterval, nil
	case avro.TimeMillis, avro.TimeMicros:
		return types.Type{}, &avroTypeError{pgerr.FeatureNotSupported, fmt.Sprintf("logical type %s is not supported (streamdb has no time type)", logicalOf(s))}
	}
	switch s.Type() {
	case avro.Boolean:
		return types.TBool, nil
	case avro.Int:
		return types.TInt32, nil
	case avro.Long:
		return types.TInt64, nil
	case avro.Float:
		return types.TFloat32, nil
	case avro.Double:
		return types.TFloat64, nil
	case avro.String, avro.Enum:
		return types.TVarchar, nil
	case avro.Bytes, avro.Fixed:
		return types.TBytea, nil
	case avro.Record, avro.Map:
		return types.TJSONB, nil
	case avro.Ref:
		return avroType(s.(*avro.RefSchema).Schema())
	case avro.Array:
		items, _ := nonNull(s.(*avro.ArraySchema).Items())
		if _, union := items.(*avro.UnionSchema); !union && logicalOf(items) == "" {
			switch items.Type() {
			case avro.Boolean, avro.Int, avro.Long, avro.Float, avro.Double, avro.String, avro.Enum:
				elem, err := avroType(items)
				return types.ArrayOf(elem.ID), err
			}
		}
		return types.TJSONB, nil
	}
	return types.Type{}, &avroTypeError{pgerr.FeatureNotSupported, fmt.Sprintf("Avro type %s is not supported as a column", s.Type())}
}

func unionNames(u *avro.UnionSchema) string {
	names := make([]string, len(u.Types()))
	for i, t := range u.Types() {
		names[i] = string(t.Type())
		if n, ok := t.(avro.NamedSchema); ok {
			names[i] = n.FullName()
		}
	}
	return "[" + strings.Join(names, ", ") + "]"
}

// sinkAvroType is the Avro type of a sink column of type t (nullable:
// a union with null, default null):
//
//	boolean -> boolean, smallint and integer -> int, bigint -> long,
//	real -> float, double -> double, numeric(p, s) -> bytes
//	decimal(p, s), unconstrained numeric -> string (Avro's decimal
//	needs a fixed scale), text and varchar -> string, date -> int date,
//	timestamp -> long local-timestamp-micros, timestamptz -> long
//	timestamp-micros, bytea -> bytes, an array -> an array of its
//	element's type (elements nullable), interval, json and jsonb ->
//	string (their text form).
//
// The source maps each back to the column type it came from, but
// smallint (integer) and unconstrained numeric, interval, json and
// jsonb (varchar).
func sinkAvroType(t types.Type) any {
	switch t.ID {
	case types.IDBool:
		return "boolean"
	case types.IDInt16, types.IDInt32:
		return "int"
	case types.IDInt64:
		return "long"
	case types.IDFloat32:
		return "float"
	case types.IDFloat64:
		return "double"
	case types.IDNumeric:
		if t.Precision > 0 {
			return map[string]any{"type": "bytes", "logicalType": "decimal", "precision": t.Precision, "scale": t.Scale}
		}
	case types.IDDate:
		return map[string]any{"type": "int", "logicalType": "date"}
	case types.IDTimestamp:
		return map[string]any{"type": "long", "logicalType": "local-timestamp-micros"}
	case types.IDTimestampTZ:
		return map[string]any{"type": "long", "logicalType": "timestamp-micros"}
	case types.IDBytea:
		return "bytes"
	case types.IDArray:
		return map[string]any{"type": "array", "items": []any{"null", sinkAvroType(types.Type{ID: t.Elem})}}
	}
	return "string"
}

// avroName makes s a valid Avro name: letters, digits and underscores,
// not starting with a digit.
func avroName(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

// validAvroName reports whether s is a valid Avro field name.
func validAvroName(s string) bool { return s != "" && avroName(s) == s }
