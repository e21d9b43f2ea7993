package types

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/internal/jsonb"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// The object identifier types (oid and the reg* aliases) exist for the
// system catalogs (pg_catalog, information_schema) and the functions over
// them; tables cannot store them. Arrays, json and jsonb are kept as
// their text.
//
//	type            Datum Go type   Arrow type
//	oid, reg*       int64           Int64 (the OID, 0 .. 2^32-1)
//	T[]             string          String (the canonical text form, {a,"b c",NULL})
//	json            string          String (the input text, validated)
//	jsonb           string          String (the normal form jsonb prints)
//	bytea           string          String (the raw bytes; see bytea.go)
//
// A reg* value is an OID that prints as the name of the object it
// identifies; turning names into OIDs and back needs the catalog, so the
// casts between reg* types and text are the catalog's (see the root
// package), not this package's: Parse and Format here read and write the
// bare number.
//
// An array Datum is always in canonical form (what Postgres's array_out
// prints), so two arrays of one type are equal exactly when their strings
// are. Arrays have up to six dimensions (array.go), each with the
// default lower bound 1.

// ArrayOf returns the type of arrays of elem (of any number of
// dimensions, as in Postgres, where int[] and int[][] are one type).
func ArrayOf(elem ID) Type { return Type{ID: IDArray, Elem: elem} }

// ElemType returns the element type of an array type.
func (t Type) ElemType() Type { return Type{ID: t.Elem} }

// StoredAsText reports whether values of t are Go strings kept as their
// text (text, varchar, unknown (an untyped literal), arrays, json and
// jsonb) or, for bytea, as their raw bytes: the strings storage keeps and
// keys as they are.
func (t Type) StoredAsText() bool {
	switch t.ID {
	case IDText, IDVarchar, IDUnknown, IDArray, IDJSON, IDJSONB, IDBytea, IDVoid, IDUUID, IDBpchar, IDInet, IDCidr:
		return true
	}
	return false
}

// IsRawBytes reports whether t's Datums are strings of bytes that are
// not the value's text: bytea (its bytes), uuid (16 bytes), inet and
// cidr (see inet.go). Only Parse and Format see their text.
func (t Type) IsRawBytes() bool {
	return t.ID == IDBytea || t.ID == IDUUID || t.ID == IDInet || t.ID == IDCidr
}

// IsOID reports whether t is oid or one of the reg* types.
func (t Type) IsOID() bool { return t.ID >= IDOid && t.ID <= IDRegrole }

// IsReg reports whether t is one of the reg* types.
func (t Type) IsReg() bool { return t.ID > IDOid && t.ID <= IDRegrole }

// extString names the types String's switch does not.
func (t Type) extString() string {
	switch t.ID {
	case IDOid:
		return "oid"
	case IDRegclass:
		return "regclass"
	case IDRegtype:
		return "regtype"
	case IDRegnamespace:
		return "regnamespace"
	case IDRegproc:
		return "regproc"
	case IDRegrole:
		return "regrole"
	case IDJSON:
		return "json"
	case IDJSONB:
		return "jsonb"
	case IDBytea:
		return "bytea"
	case IDVoid:
		return "void"
	case IDUUID:
		return "uuid"
	case IDInet:
		return "inet"
	case IDCidr:
		return "cidr"
	case IDTime:
		if t.Precision > 0 {
			return fmt.Sprintf("time(%d) without time zone", t.Precision-1)
		}
		return "time without time zone"
	case IDBpchar:
		if t.Width > 0 {
			return fmt.Sprintf("character(%d)", t.Width)
		}
		return "bpchar"
	case IDTimeTZ:
		if t.Precision > 0 {
			return fmt.Sprintf("time(%d) with time zone", t.Precision-1)
		}
		return "time with time zone"
	case IDArray:
		if t.Vector {
			return vectorNames[t.Elem]
		}
		return t.ElemType().String() + "[]"
	}
	return fmt.Sprintf("type(%d)", t.ID)
}

// arrayOIDs maps element types to the OIDs of their array types.
var arrayOIDs = map[ID]uint32{
	IDBool: 1000, IDInt16: 1005, IDInt32: 1007, IDInt64: 1016, IDFloat32: 1021,
	IDFloat64: 1022, IDNumeric: 1231, IDText: 1009, IDVarchar: 1015, IDDate: 1182,
	IDTimestamp: 1115, IDTimestampTZ: 1185, IDInterval: 1187, IDOid: 1028,
	IDRegclass: 2210, IDRegtype: 2211, IDRegnamespace: 4090, IDRegproc: 1008, IDRegrole: 4097,
	IDJSON: 199, IDJSONB: 3807, IDBytea: 1001, IDUUID: 2951, IDTime: 1183, IDBpchar: 1014, IDTimeTZ: 1270, IDInet: 1041, IDCidr: 651,
}

// extOID gives the OIDs OID's switch does not.
func (t Type) extOID() uint32 {
	switch t.ID {
	case IDOid:
		return 26
	case IDRegclass:
		return 2205
	case IDRegtype:
		return 2206
	case IDRegnamespace:
		return 4089
	case IDRegproc:
		return 24
	case IDRegrole:
		return 4096
	case IDJSON:
		return 114
	case IDJSONB:
		return 3802
	case IDBytea:
		return 17
	case IDVoid:
		return 2278
	case IDUUID:
		return 2950
	case IDTime:
		return 1083
	case IDBpchar:
		return 1042
	case IDTimeTZ:
		return 1266
	case IDInet:
		return 869
	case IDCidr:
		return 650
	case IDArray:
		if t.Vector {
			return vectorOIDs[t.Elem]
		}
		if oid, ok := arrayOIDs[t.Elem]; ok {
			return oid
		}
	}
	return 705 // unknown
}

// TypeByOID returns the type with the given Postgres type OID, arrays
// included; ok is false for a type streamdb lacks.
func TypeByOID(oid uint32) (Type, bool) {
	for id := IDBool; id <= IDLast; id++ {
		if id == IDArray || id == IDVoid {
			continue
		}
		if t := (Type{ID: id}); t.OID() == oid {
			return t, true
		}
	}
	for elem, a := range arrayOIDs {
		if a == oid {
			return ArrayOf(elem), true
		}
	}
	return vectorByOID(oid)
}

// ExprTypeByName is ByName extended with the types that exist in
// expressions only: oid, the reg* types, and name (which streamdb
// reads as text).
func ExprTypeByName(name string) (ID, bool) {
	if id, ok := ByName(name); ok {
		return id, true
	}
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "oid":
		return IDOid, true
	case "regclass":
		return IDRegclass, true
	case "regtype":
		return IDRegtype, true
	case "regnamespace":
		return IDRegnamespace, true
	case "regproc":
		return IDRegproc, true
	case "regrole":
		return IDRegrole, true
	case "name":
		return IDText, true
	case "void":
		return IDVoid, true
	}
	return IDUnknown, false
}

// InternalName is the type's pg_type.typname: int4 for integer, _text
// for text[], ...
func (t Type) InternalName() string {
	switch t.ID {
	case IDBool:
		return "bool"
	case IDInt16:
		return "int2"
	case IDInt32:
		return "int4"
	case IDInt64:
		return "int8"
	case IDFloat32:
		return "float4"
	case IDFloat64:
		return "float8"
	case IDVarchar:
		return "varchar"
	case IDTimestamp:
		return "timestamp"
	case IDTimestampTZ:
		return "timestamptz"
	case IDNumeric:
		return "numeric"
	case IDTime:
		return "time"
	case IDTimeTZ:
		return "timetz"
	case IDBpchar:
		return "bpchar"
	case IDArray:
		if t.Vector {
			return t.String()
		}
		return "_" + t.ElemType().InternalName()
	}
	return t.String()
}

// ParseOID reads an oid: an integer from -2^31 to 2^32-1, negative values
// wrapping around as in Postgres.
func ParseOID(s string) (int64, error) {
	v := strings.TrimSpace(s)
	n, err := strconv.ParseInt(v, 10, 64)
	digits := strings.TrimLeft(v, "+-")
	switch {
	case err == nil && n >= -(1<<31) && n < 1<<32:
		return int64(uint32(n)), nil
	case digits != "" && len(v)-len(digits) <= 1 && strings.Trim(digits, "0123456789") == "":
		return 0, rangeError(Type{ID: IDOid}, s)
	}
	return 0, syntaxError(Type{ID: IDOid}, s)
}

// parseExt reads the values of the types parse's switch does not know.
func parseExt(s string, t Type) (Datum, error) {
	switch {
	case t.ID == IDOid:
		return ParseOID(s)
	case t.IsReg():
		n, err := ParseOID(s)
		if err != nil {
			// A name: only the catalog can look it up.
			return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot look up %s %q here", t, s)
		}
		return n, nil
	case t.ID == IDVoid:
		return "", nil // void_in accepts anything
	case t.ID == IDArray && t.Vector:
		return parseVector(s, t)
	case t.ID == IDArray:
		a, err := ParseArrayValue(s, t.ElemType())
		if err != nil {
			return nil, err
		}
		return FormatArrayValue(a, t.ElemType()), nil
	case t.ID == IDJSON:
		if err := jsonb.ValidateJSON(s); err != nil {
			return nil, err
		}
		return strings.Clone(s), nil // s may view a buffer (COPY)
	case t.ID == IDJSONB:
		v, err := jsonb.Parse(s)
		if err != nil {
			return nil, err
		}
		return v.String(), nil
	case t.ID == IDBytea:
		return ParseBytea(s)
	case t.ID == IDUUID:
		return ParseUUID(s)
	case t.ID == IDTime:
		return ParseTime(s, t)
	case t.ID == IDBpchar:
		return CheckBpchar(s, t, false)
	case t.ID == IDTimeTZ:
		return ParseTimeTZ(s, t, nil)
	case t.ID == IDInet, t.ID == IDCidr:
		return ParseInet(s, t.ID == IDCidr)
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot parse values of type %s", t)
}

// Typmod is t's atttypmod as Postgres reports it: the length + 4 of
// varchar(n) and character(n), (precision << 16 | scale) + 4 of
// numeric(p,s), p of time(p); -1 when t has no modifier.
func (t Type) Typmod() int32 {
	switch {
	case (t.ID == IDVarchar || t.ID == IDBpchar) && t.Width > 0:
		return int32(t.Width) + 4
	case t.ID == IDNumeric && t.Precision > 0:
		return int32(t.Precision<<16|t.Scale) + 4
	case (t.ID == IDTime || t.ID == IDTimeTZ) && t.Precision > 0:
		return int32(t.Precision - 1)
	}
	return -1
}
