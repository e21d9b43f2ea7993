package types

import (
	"fmt"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// ID names a SQL type.
type ID uint8

// The SQL types streamdb supports.
const (
	IDUnknown ID = iota // untyped NULL or string literal awaiting coercion
	IDBool
	IDInt16
	IDInt32
	IDInt64
	IDFloat32
	IDFloat64
	IDNumeric
	IDText
	IDVarchar
	IDDate
	IDTimestamp
	IDTimestampTZ
	IDInterval
	// The types below exist in expressions and system catalogs only
	// (see pgtypes.go); tables cannot store them.
	IDOid
	IDRegclass
	IDRegtype
	IDRegnamespace
	IDRegproc
	IDRegrole
	IDArray // a one-dimensional array of Elem
	// json keeps its input text (validated); jsonb its normal form
	// (package jsonb): both are strings, storable in tables.
	IDJSON
	IDJSONB
	// bytea is a string of raw bytes (see bytea.go), storable in tables.
	IDBytea
	// void is the result type of functions that return nothing
	// (pg_sleep): its one value is the empty string, which prints as
	// nothing, as Postgres's void_out does. Expressions only.
	IDVoid
	// uuid is its 16 raw bytes as a string (uuid.go), storable.
	IDUUID
	// time [without time zone] is microseconds since midnight as an
	// int64, 0 to 24:00:00 inclusive (timeofday.go), storable.
	IDTime
	// character(n) (bpchar) is a string blank-padded to its Width, as
	// Postgres stores it (bpchar.go), storable.
	IDBpchar
	// time with time zone packs its time and zone in an int64
	// (timetz.go), storable.
	IDTimeTZ
	// inet and cidr are strings of bytes ordered as their values
	// (inet.go), storable.
	IDInet
	IDCidr

	// IDLast is the last type ID: new types go before it.
	IDLast = IDCidr
)

// Type is a SQL type with its modifiers.
type Type struct {
	ID ID
	// Width is the maximum length of a varchar and the length of a
	// character(n) (0: unlimited, a bare bpchar).
	Width int
	// Precision and Scale of a numeric (0, 0: unconstrained). For time
	// and timetz, Precision is p+1 of time(p) (0: no precision given, 6
	// digits).
	Precision, Scale int
	// Elem is the element type of an array.
	Elem ID `json:",omitempty"`
	// Vector marks an array of the system catalogs' int2vector or
	// oidvector type (see vector.go).
	Vector bool `json:",omitempty"`
}

// Convenience values for unmodified types.
var (
	TUnknown     = Type{ID: IDUnknown}
	TBool        = Type{ID: IDBool}
	TInt16       = Type{ID: IDInt16}
	TInt32       = Type{ID: IDInt32}
	TInt64       = Type{ID: IDInt64}
	TFloat32     = Type{ID: IDFloat32}
	TFloat64     = Type{ID: IDFloat64}
	TNumeric     = Type{ID: IDNumeric}
	TText        = Type{ID: IDText}
	TVarchar     = Type{ID: IDVarchar}
	TDate        = Type{ID: IDDate}
	TTimestamp   = Type{ID: IDTimestamp}
	TTimestampTZ = Type{ID: IDTimestampTZ}
	TInterval    = Type{ID: IDInterval}
	TJSON        = Type{ID: IDJSON}
	TJSONB       = Type{ID: IDJSONB}
	TBytea       = Type{ID: IDBytea}
	TVoid        = Type{ID: IDVoid}
	TUUID        = Type{ID: IDUUID}
	TTime        = Type{ID: IDTime}
	TBpchar      = Type{ID: IDBpchar}
	TTimeTZ      = Type{ID: IDTimeTZ}
	TInet        = Type{ID: IDInet}
	TCidr        = Type{ID: IDCidr}
)

// Datum is one SQL value; see the package comment for its Go types.
type Datum = any

// Date is a date as days since 1970-01-01.
type Date int32

// Timestamp is microseconds since 1970-01-01 00:00:00 UTC. For timestamp
// without time zone it is the wall-clock reading taken as UTC.
type Timestamp int64

// Interval is a Postgres interval: months, days and microseconds are kept
// apart, as Postgres does, because their lengths vary.
type Interval struct {
	Months int32
	Days   int32
	Micros int64
}

// Decimal is the Datum type of numeric values.
type Decimal = apd.Decimal

// IsInteger reports whether t is smallint, integer or bigint.
func (t Type) IsInteger() bool { return t.ID == IDInt16 || t.ID == IDInt32 || t.ID == IDInt64 }

// IsFloat reports whether t is real or double precision.
func (t Type) IsFloat() bool { return t.ID == IDFloat32 || t.ID == IDFloat64 }

// IsNumeric reports whether t is any number type.
func (t Type) IsNumeric() bool { return t.IsInteger() || t.IsFloat() || t.ID == IDNumeric }

// IsString reports whether t is text or varchar.
func (t Type) IsString() bool { return t.ID == IDText || t.ID == IDVarchar }

// String returns the Postgres name of the type, as format_type prints it.
func (t Type) String() string {
	switch t.ID {
	case IDUnknown:
		return "unknown"
	case IDBool:
		return "boolean"
	case IDInt16:
		return "smallint"
	case IDInt32:
		return "integer"
	case IDInt64:
		return "bigint"
	case IDFloat32:
		return "real"
	case IDFloat64:
		return "double precision"
	case IDNumeric:
		if t.Precision > 0 {
			return fmt.Sprintf("numeric(%d,%d)", t.Precision, t.Scale)
		}
		return "numeric"
	case IDText:
		return "text"
	case IDVarchar:
		if t.Width > 0 {
			return fmt.Sprintf("character varying(%d)", t.Width)
		}
		return "character varying"
	case IDDate:
		return "date"
	case IDTimestamp:
		return "timestamp without time zone"
	case IDTimestampTZ:
		return "timestamp with time zone"
	case IDInterval:
		return "interval"
	}
	return t.extString()
}

// OID returns the Postgres type OID of t, for the wire protocol and catalogs.
func (t Type) OID() uint32 {
	switch t.ID {
	case IDBool:
		return 16
	case IDInt16:
		return 21
	case IDInt32:
		return 23
	case IDInt64:
		return 20
	case IDFloat32:
		return 700
	case IDFloat64:
		return 701
	case IDNumeric:
		return 1700
	case IDText:
		return 25
	case IDVarchar:
		return 1043
	case IDDate:
		return 1082
	case IDTimestamp:
		return 1114
	case IDTimestampTZ:
		return 1184
	case IDInterval:
		return 1186
	}
	return t.extOID()
}

// ByName maps a Postgres type name, as written in DDL or a cast (lower case,
// modifiers stripped), to its type ID. ok is false for a type streamdb lacks.
func ByName(name string) (ID, bool) {
	switch strings.ToLower(strings.Join(strings.Fields(name), " ")) {
	case "bool", "boolean":
		return IDBool, true
	case "smallint", "int2":
		return IDInt16, true
	case "int", "integer", "int4":
		return IDInt32, true
	case "bigint", "int8":
		return IDInt64, true
	case "real", "float4":
		return IDFloat32, true
	case "double precision", "float8", "double", "float":
		return IDFloat64, true
	case "numeric", "decimal":
		return IDNumeric, true
	case "text", "string":
		return IDText, true
	case "varchar", "character varying", "char varying":
		return IDVarchar, true
	case "date":
		return IDDate, true
	case "timestamp", "timestamp without time zone":
		return IDTimestamp, true
	case "timestamptz", "timestamp with time zone":
		return IDTimestampTZ, true
	case "interval":
		return IDInterval, true
	case "json":
		return IDJSON, true
	case "jsonb":
		return IDJSONB, true
	case "bytea":
		return IDBytea, true
	case "uuid":
		return IDUUID, true
	case "inet":
		return IDInet, true
	case "cidr":
		return IDCidr, true
	case "time", "time without time zone":
		return IDTime, true
	case "timetz", "time with time zone":
		return IDTimeTZ, true
	case "bpchar", "char", "character":
		return IDBpchar, true
	}
	return IDUnknown, false
}
