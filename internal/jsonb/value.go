package jsonb

import (
	"github.com/cockroachdb/apd/v3"
)

// Kind is the JSON type of a Value.
type Kind uint8

// The kinds of JSON values. The order of the constants is not jsonb's sort
// order (see Compare).
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// String returns the kind's name as jsonb_typeof prints it.
func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "boolean"
	case Number:
		return "number"
	case String:
		return "string"
	case Array:
		return "array"
	case Object:
		return "object"
	}
	return "invalid"
}

// Value is a JSON value in jsonb's normal form: object keys sorted as
// PostgreSQL stores them (shorter keys first, then bytewise) without
// duplicates, numbers in PostgreSQL numeric's output form. A Value is
// immutable and safe to share; the zero Value is JSON null.
type Value struct {
	kind Kind
	b    bool       // Bool
	s    string     // String: the text; Number: numeric's canonical text
	c    *container // Array and Object
}

// container holds the members of an array (vals) or an object (keys and
// vals in the normal order, keys unique).
type container struct {
	keys []string
	vals []Value
}

// NullValue returns JSON null.
func NullValue() Value { return Value{} }

// FromBool returns JSON true or false.
func FromBool(b bool) Value { return Value{kind: Bool, b: b} }

// FromString returns the JSON string s. s should be valid UTF-8 without NUL
// bytes, as PostgreSQL text is.
func FromString(s string) Value { return Value{kind: String, s: s} }

// FromNumber returns the JSON number d, printed as PostgreSQL numeric
// prints it (its exponent is its display scale: 1.50 stays 1.50, 1E+2
// prints 100, -0 prints 0). NaN and ±Infinity are not JSON numbers: like
// to_jsonb, FromNumber turns them into the strings "NaN", "Infinity" and
// "-Infinity". d is not retained.
func FromNumber(d *apd.Decimal) Value {
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return FromString("NaN")
	case apd.Infinite:
		if d.Negative {
			return FromString("-Infinity")
		}
		return FromString("Infinity")
	}
	return Value{kind: Number, s: decimalText(d)}
}

// FromInt returns the JSON number i.
func FromInt(i int64) Value {
	return Value{kind: Number, s: formatInt(i)}
}

// FromNumberText returns the value to_jsonb gives a number whose output
// text is s (a float's or numeric's text form): the JSON number when s is a
// valid JSON number (read as numeric reads it, so 1e+100 becomes 1 and 100
// zeros and -0 becomes 0), the JSON string s otherwise (NaN, Infinity). The
// error is numeric's 22003 for a number numeric cannot hold.
func FromNumberText(s string) (Value, error) {
	if !IsValidNumber(s) {
		return FromString(s), nil
	}
	t, err := canonicalNumber(s)
	if err != nil {
		return Value{}, err
	}
	return Value{kind: Number, s: t}, nil
}

// NewArray returns the JSON array of elems (copied).
func NewArray(elems []Value) Value {
	vals := make([]Value, len(elems))
	copy(vals, elems)
	return Value{kind: Array, c: &container{vals: vals}}
}

// NewObject returns the JSON object of the pairs keys[i]: vals[i],
// normalized as Parse normalizes objects: keys sorted (shorter first, then
// bytewise), and of duplicate keys the last one wins. It panics if the
// slices' lengths differ. The slices are not retained.
func NewObject(keys []string, vals []Value) Value {
	if len(keys) != len(vals) {
		panic("jsonb: NewObject with different numbers of keys and values")
	}
	k := make([]string, len(keys))
	v := make([]Value, len(vals))
	copy(k, keys)
	copy(v, vals)
	k, v = normalizeObject(k, v)
	return Value{kind: Object, c: &container{keys: k, vals: v}}
}

// newArray and newObject wrap slices the caller gives up (the object's
// already normalized).
func newArray(vals []Value) Value { return Value{kind: Array, c: &container{vals: vals}} }

func newObject(keys []string, vals []Value) Value {
	return Value{kind: Object, c: &container{keys: keys, vals: vals}}
}

// Kind returns v's JSON type.
func (v Value) Kind() Kind { return v.kind }

// IsNull reports whether v is JSON null.
func (v Value) IsNull() bool { return v.kind == Null }

// IsScalar reports whether v is neither an array nor an object.
func (v Value) IsScalar() bool { return v.kind < Array }

// Bool returns v's boolean; ok is false when v is not a boolean.
func (v Value) Bool() (b bool, ok bool) { return v.b, v.kind == Bool }

// Str returns v's string; ok is false when v is not a string.
func (v Value) Str() (s string, ok bool) {
	if v.kind != String {
		return "", false
	}
	return v.s, true
}

// Num returns v's number as a new Decimal whose exponent is its display
// scale (1.50 is 150E-2); ok is false when v is not a number.
func (v Value) Num() (d *apd.Decimal, ok bool) {
	if v.kind != Number {
		return nil, false
	}
	d, _, err := apd.NewFromString(v.s)
	if err != nil {
		panic("jsonb: bad number text " + v.s)
	}
	return d, true
}

// NumText returns the text of v's number as PostgreSQL numeric prints it;
// ok is false when v is not a number.
func (v Value) NumText() (string, bool) {
	if v.kind != Number {
		return "", false
	}
	return v.s, true
}

// Text returns what ->> and #>> give for v: a string's text unquoted, the
// output text of a number, boolean, array or object; ok is false (SQL NULL)
// for JSON null.
func (v Value) Text() (string, bool) {
	switch v.kind {
	case Null:
		return "", false
	case String:
		return v.s, true
	}
	return v.String(), true
}

// Len returns the number of elements of an array or pairs of an object, 0
// for a scalar.
func (v Value) Len() int {
	if v.c == nil {
		return 0
	}
	return len(v.c.vals)
}

// Typeof returns jsonb_typeof(v): object, array, string, number, boolean or
// null.
func (v Value) Typeof() string { return v.kind.String() }
