package jsonb

import (
	"strings"
)

// typeRank is the order of PostgreSQL's JsonbValue types (enum jbvType),
// which orders values of different types: null < string < number <
// boolean < array < object.
func typeRank(k Kind) int {
	switch k {
	case Null:
		return 0
	case String:
		return 1
	case Number:
		return 2
	case Bool:
		return 3
	case Array:
		return 0x10
	}
	return 0x11
}

func sign(b bool) int {
	if b {
		return 1
	}
	return -1
}

// Compare orders jsonb values as PostgreSQL's jsonb btree operator class
// does (compareJsonbContainers), returning -1, 0 or 1:
//
//   - Object > Array > Boolean > Number > String > Null;
//   - an object with more pairs sorts after one with fewer; objects with
//     as many pairs compare pair by pair in their stored key order (shorter
//     keys first), key then value;
//   - an array with more elements sorts after one with fewer; arrays of
//     one length compare element by element;
//   - numbers compare numerically (1 = 1.0), strings bytewise (the C
//     collation), false < true.
//
// At the top level a scalar is, as in PostgreSQL, a one-element "raw
// scalar" array: it sorts after the empty array [] (so [] < null, "for
// historical reasons") and before every non-empty array.
func Compare(a, b Value) int {
	aObj, bObj := a.kind == Object, b.kind == Object
	if aObj != bObj {
		return sign(aObj)
	}
	if aObj {
		return compareValues(a, b)
	}
	aRaw, bRaw := a.IsScalar(), b.IsScalar()
	an, bn := 1, 1
	if !aRaw {
		an = len(a.c.vals)
	}
	if !bRaw {
		bn = len(b.c.vals)
	}
	res := 0
	if aRaw != bRaw {
		res = sign(bRaw)
	}
	if an != bn {
		res = sign(an > bn)
	}
	if res != 0 {
		return res
	}
	if aRaw {
		return compareValues(a, b)
	}
	return compareElems(a.c.vals, b.c.vals)
}

// Equal reports whether Compare(a, b) == 0: the same structure, numbers
// equal numerically, strings and keys byte for byte.
func Equal(a, b Value) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case Null, Bool, String, Number:
		return scalarEqual(a, b)
	case Array:
		if len(a.c.vals) != len(b.c.vals) {
			return false
		}
		for i := range a.c.vals {
			if !Equal(a.c.vals[i], b.c.vals[i]) {
				return false
			}
		}
		return true
	}
	if len(a.c.keys) != len(b.c.keys) {
		return false
	}
	for i, k := range a.c.keys {
		if k != b.c.keys[i] || !Equal(a.c.vals[i], b.c.vals[i]) {
			return false
		}
	}
	return true
}

// compareValues compares two values met at the same place of two token
// streams (nested members, or two top-level objects or scalars).
func compareValues(a, b Value) int {
	if a.kind != b.kind {
		return sign(typeRank(a.kind) > typeRank(b.kind))
	}
	switch a.kind {
	case Null:
		return 0
	case Bool:
		if a.b == b.b {
			return 0
		}
		return sign(a.b)
	case String:
		return strings.Compare(a.s, b.s)
	case Number:
		return compareNumText(a.s, b.s)
	case Array:
		if len(a.c.vals) != len(b.c.vals) {
			return sign(len(a.c.vals) > len(b.c.vals))
		}
		return compareElems(a.c.vals, b.c.vals)
	}
	if len(a.c.keys) != len(b.c.keys) {
		return sign(len(a.c.keys) > len(b.c.keys))
	}
	for i, k := range a.c.keys {
		if c := strings.Compare(k, b.c.keys[i]); c != 0 {
			return c
		}
		if c := compareValues(a.c.vals[i], b.c.vals[i]); c != 0 {
			return c
		}
	}
	return 0
}

func compareElems(a, b []Value) int {
	for i := range a {
		if c := compareValues(a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

// Contains reports whether a @> b, with PostgreSQL's rules
// (JsonbDeepContains): an object contains an object whose every pair it
// has, values compared by containment when they are arrays or objects and
// by equality when scalars; an array contains an array each of whose
// elements it has (in any order, duplicates counting once), a scalar
// element equal to one of its own and an array or object element
// contained in one of its own; a top-level array contains a top-level
// scalar it has as an element; a scalar contains only an equal scalar.
// Objects and arrays never contain each other.
func Contains(a, b Value) bool {
	aObj, bObj := a.kind == Object, b.kind == Object
	if aObj != bObj {
		return false
	}
	if aObj {
		return containsObject(a, b)
	}
	if a.IsScalar() {
		if !b.IsScalar() {
			return false
		}
		return scalarEqual(a, b)
	}
	if b.IsScalar() {
		return hasScalar(a.c.vals, b)
	}
	return containsArray(a.c.vals, b.c.vals)
}

// deepContains is containment of two nested containers.
func deepContains(a, b Value) bool {
	if a.kind != b.kind {
		return false
	}
	if a.kind == Object {
		return containsObject(a, b)
	}
	return containsArray(a.c.vals, b.c.vals)
}

func containsObject(a, b Value) bool {
	if len(a.c.keys) < len(b.c.keys) {
		return false
	}
	for i, k := range b.c.keys {
		av, ok := a.Field(k)
		if !ok {
			return false
		}
		bv := b.c.vals[i]
		if av.IsScalar() || bv.IsScalar() {
			if !scalarEqual(av, bv) {
				return false
			}
		} else if !deepContains(av, bv) {
			return false
		}
	}
	return true
}

func containsArray(a, b []Value) bool {
	for _, e := range b {
		if e.IsScalar() {
			if !hasScalar(a, e) {
				return false
			}
			continue
		}
		found := false
		for _, x := range a {
			if !x.IsScalar() && deepContains(x, e) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// hasScalar reports whether elems has a scalar equal to s.
func hasScalar(elems []Value, s Value) bool {
	for _, e := range elems {
		if scalarEqual(e, s) {
			return true
		}
	}
	return false
}

// scalarEqual reports whether a and b are equal scalars (false when either
// is a container).
func scalarEqual(a, b Value) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case Null:
		return true
	case Bool:
		return a.b == b.b
	case String:
		return a.s == b.s
	case Number:
		return a.s == b.s || compareNumText(a.s, b.s) == 0
	}
	return false
}
