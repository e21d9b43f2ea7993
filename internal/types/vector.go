package types

import "strings"

// The vectors of the system catalogs, int2vector and oidvector
// (pg_index.indkey, pg_proc.proargtypes): arrays of int2 or oid, held as
// arrays are (the canonical {a,b} text), whose subscripts start at 0 and
// whose text form is the elements separated by spaces.

// VectorOf returns int2vector (elem IDInt16) or oidvector (IDOid).
func VectorOf(elem ID) Type { return Type{ID: IDArray, Elem: elem, Vector: true} }

// vectorOIDs and vectorNames give the OID and name of each vector type,
// by element type.
var (
	vectorOIDs  = map[ID]uint32{IDInt16: 22, IDOid: 30}
	vectorNames = map[ID]string{IDInt16: "int2vector", IDOid: "oidvector"}
)

// vectorByOID returns the vector type with the given OID.
func vectorByOID(oid uint32) (Type, bool) {
	for elem, o := range vectorOIDs {
		if o == oid {
			return VectorOf(elem), true
		}
	}
	return Type{}, false
}

// formatVector renders a vector held as {a,b} as "a b".
func formatVector(s string) string {
	return strings.ReplaceAll(strings.Trim(s, "{}"), ",", " ")
}

// parseVector reads "a b" (or an array's {a,b}) as a vector of t.
func parseVector(s string, t Type) (Datum, error) {
	if strings.HasPrefix(strings.TrimSpace(s), "{") {
		elems, err := ParseArray(s, t.ElemType())
		if err != nil {
			return nil, err
		}
		return FormatArray(elems, t.ElemType()), nil
	}
	fields := strings.Fields(s)
	elems := make([]Datum, len(fields))
	for i, f := range fields {
		v, err := Parse(f, t.ElemType())
		if err != nil {
			return nil, err
		}
		elems[i] = v
	}
	return FormatArray(elems, t.ElemType()), nil
}
