package jsonb

import (
	"math"
	"sort"

	"github.com/streamdb/streamdb/internal/pgerr"
)

func invalidParam(format string, args ...any) *pgerr.Error {
	return pgerr.New(pgerr.InvalidParameterValue, format, args...)
}

// Field returns v -> key: the value of key in an object; ok is false (SQL
// NULL) when v is not an object or has no such key.
func (v Value) Field(key string) (Value, bool) {
	if v.kind != Object {
		return Value{}, false
	}
	keys := v.c.keys
	i := sort.Search(len(keys), func(i int) bool { return compareKeys(keys[i], key) >= 0 })
	if i < len(keys) && keys[i] == key {
		return v.c.vals[i], true
	}
	return Value{}, false
}

// Elem returns v -> i: the i-th element (from 0) of an array, counting
// from the end when i is negative (-1 is the last); ok is false (SQL NULL)
// out of range or when v is an object. As in PostgreSQL 15 a scalar acts
// as a one-element array: '"a"'::jsonb -> 0 is "a".
func (v Value) Elem(i int) (Value, bool) {
	switch v.kind {
	case Object:
		return Value{}, false
	case Array:
		return elemAt(v.c.vals, int64(i))
	}
	if i == 0 || i == -1 {
		return v, true
	}
	return Value{}, false
}

func elemAt(vals []Value, i int64) (Value, bool) {
	n := int64(len(vals))
	if i < 0 {
		if i < -n { // not -i > n, which overflows for math.MinInt64
			return Value{}, false
		}
		i += n
	}
	if i >= n {
		return Value{}, false
	}
	return vals[i], true
}

// Path returns v #> path: each step a key of an object or an element
// index (integer text, negative from the end) of an array. ok is false
// (SQL NULL) when a step does not exist, when an array step is not an
// integer, or when a step meets a scalar. An empty path gives v itself.
// (The caller gives SQL NULL for a path with a NULL element.)
func (v Value) Path(path []string) (Value, bool) {
	cur := v
	for _, p := range path {
		switch cur.kind {
		case Object:
			var ok bool
			if cur, ok = cur.Field(p); !ok {
				return Value{}, false
			}
		case Array:
			i, ok := strToInt(p)
			if !ok || i == math.MinInt32 {
				return Value{}, false
			}
			if cur, ok = elemAt(cur.c.vals, i); !ok {
				return Value{}, false
			}
		default:
			return Value{}, false
		}
	}
	return cur, true
}

// strToInt reads s as PostgreSQL's strtoint(s, &end, 10) does when the
// whole string must be used: optional leading white space, an optional
// sign, decimal digits, an int32 value.
func strToInt(s string) (int64, bool) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if i == len(s) || !isDigit(s[i]) {
		return 0, false
	}
	var n int64
	for ; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		n = n*10 + int64(s[i]-'0')
		if n > 1<<31 {
			return 0, false
		}
	}
	if neg {
		n = -n
	}
	if n > math.MaxInt32 {
		return 0, false
	}
	return n, true
}

// Exists reports whether v ? key: key is a key of an object, a string
// element of an array, or equal to a string scalar.
func (v Value) Exists(key string) bool {
	switch v.kind {
	case Object:
		_, ok := v.Field(key)
		return ok
	case Array:
		for _, e := range v.c.vals {
			if e.kind == String && e.s == key {
				return true
			}
		}
		return false
	case String:
		return v.s == key
	}
	return false
}

// ExistsAny reports whether v ?| keys: whether any of keys exists in v.
// The caller leaves out NULL elements, as PostgreSQL ignores them.
func ExistsAny(v Value, keys []string) bool {
	for _, k := range keys {
		if v.Exists(k) {
			return true
		}
	}
	return false
}

// ExistsAll reports whether v ?& keys: whether all of keys exist in v
// (true for no keys). The caller leaves out NULL elements.
func ExistsAll(v Value, keys []string) bool {
	for _, k := range keys {
		if !v.Exists(k) {
			return false
		}
	}
	return true
}

// members returns the elements of an array, or a scalar as its only
// element.
func (v Value) members() []Value {
	if v.IsScalar() {
		return []Value{v}
	}
	return v.c.vals
}

// Concat returns a || b: two objects merge (b's value wins for a key in
// both); otherwise the result is an array of a's elements (or a itself
// when it is a scalar or an object) followed by b's (likewise).
func Concat(a, b Value) Value {
	if a.kind == Object && b.kind == Object {
		if len(a.c.keys) == 0 {
			return b
		}
		if len(b.c.keys) == 0 {
			return a
		}
		return mergeObjects(a.c, b.c)
	}
	var left, right []Value
	if a.kind == Object {
		left = []Value{a}
	} else {
		left = a.members()
	}
	if b.kind == Object {
		right = []Value{b}
	} else {
		right = b.members()
	}
	if a.kind == Array && len(right) == 0 {
		return a
	}
	if b.kind == Array && len(left) == 0 {
		return b
	}
	vals := make([]Value, 0, len(left)+len(right))
	vals = append(vals, left...)
	vals = append(vals, right...)
	return newArray(vals)
}

// mergeObjects merges two objects' sorted pairs, b's winning.
func mergeObjects(a, b *container) Value {
	keys := make([]string, 0, len(a.keys)+len(b.keys))
	vals := make([]Value, 0, len(a.keys)+len(b.keys))
	i, j := 0, 0
	for i < len(a.keys) || j < len(b.keys) {
		c := 0
		switch {
		case i == len(a.keys):
			c = 1
		case j == len(b.keys):
			c = -1
		default:
			c = compareKeys(a.keys[i], b.keys[j])
		}
		switch {
		case c < 0:
			keys, vals = append(keys, a.keys[i]), append(vals, a.vals[i])
			i++
		case c > 0:
			keys, vals = append(keys, b.keys[j]), append(vals, b.vals[j])
			j++
		default:
			keys, vals = append(keys, b.keys[j]), append(vals, b.vals[j])
			i++
			j++
		}
	}
	return newObject(keys, vals)
}

// DeleteKey returns v - key: an object without key, or an array without
// its string elements equal to key. A scalar is an error.
func (v Value) DeleteKey(key string) (Value, error) {
	return v.DeleteKeys([]string{key})
}

// DeleteKeys returns v - keys: an object without any of keys, or an array
// without its string elements equal to one of them. A scalar is an error.
// The caller leaves out NULL elements, as PostgreSQL ignores them.
func (v Value) DeleteKeys(keys []string) (Value, error) {
	if v.IsScalar() {
		return Value{}, invalidParam("cannot delete from scalar")
	}
	if len(v.c.vals) == 0 || len(keys) == 0 {
		return v, nil
	}
	has := func(s string) bool {
		for _, k := range keys {
			if k == s {
				return true
			}
		}
		return false
	}
	if v.kind == Object {
		var nk []string
		var nv []Value
		for i, k := range v.c.keys {
			if has(k) {
				if nk == nil {
					nk = append(make([]string, 0, len(v.c.keys)-1), v.c.keys[:i]...)
					nv = append(make([]Value, 0, len(v.c.keys)-1), v.c.vals[:i]...)
				}
				continue
			}
			if nk != nil {
				nk, nv = append(nk, k), append(nv, v.c.vals[i])
			}
		}
		if nk == nil {
			return v, nil
		}
		return newObject(nk, nv), nil
	}
	var nv []Value
	for i, e := range v.c.vals {
		if e.kind == String && has(e.s) {
			if nv == nil {
				nv = append(make([]Value, 0, len(v.c.vals)-1), v.c.vals[:i]...)
			}
			continue
		}
		if nv != nil {
			nv = append(nv, e)
		}
	}
	if nv == nil {
		return v, nil
	}
	return newArray(nv), nil
}

// DeleteIndex returns v - i: an array without its i-th element (negative i
// counts from the end; out of range leaves the array unchanged). An object
// or a scalar is an error.
func (v Value) DeleteIndex(i int) (Value, error) {
	if v.IsScalar() {
		return Value{}, invalidParam("cannot delete from scalar")
	}
	if v.kind == Object {
		return Value{}, invalidParam("cannot delete from object using integer index")
	}
	n := int64(len(v.c.vals))
	idx := int64(i)
	if idx < 0 {
		if idx < -n { // not -idx > n, which overflows for math.MinInt64
			idx = n
		} else {
			idx += n
		}
	}
	if idx >= n {
		return v, nil
	}
	vals := make([]Value, 0, n-1)
	vals = append(vals, v.c.vals[:idx]...)
	vals = append(vals, v.c.vals[idx+1:]...)
	return newArray(vals), nil
}

// StripNulls returns jsonb_strip_nulls(v): v without the object pairs whose
// value is null, at any depth. Nulls in arrays stay.
func (v Value) StripNulls() Value {
	switch v.kind {
	case Array:
		vals := make([]Value, len(v.c.vals))
		for i, e := range v.c.vals {
			vals[i] = e.StripNulls()
		}
		return newArray(vals)
	case Object:
		keys := make([]string, 0, len(v.c.keys))
		vals := make([]Value, 0, len(v.c.keys))
		for i, e := range v.c.vals {
			if e.kind == Null {
				continue
			}
			keys = append(keys, v.c.keys[i])
			vals = append(vals, e.StripNulls())
		}
		return newObject(keys, vals)
	}
	return v
}

// ArrayLength returns jsonb_array_length(v).
func (v Value) ArrayLength() (int, error) {
	switch v.kind {
	case Array:
		return len(v.c.vals), nil
	case Object:
		return 0, invalidParam("cannot get array length of a non-array")
	}
	return 0, invalidParam("cannot get array length of a scalar")
}

// Keys returns jsonb_object_keys(v): an object's keys in stored order.
func (v Value) Keys() ([]string, error) {
	switch v.kind {
	case Object:
		return append([]string(nil), v.c.keys...), nil
	case Array:
		return nil, invalidParam("cannot call jsonb_object_keys on an array")
	}
	return nil, invalidParam("cannot call jsonb_object_keys on a scalar")
}

// Each returns jsonb_each(v): an object's keys and values in stored order.
func (v Value) Each() ([]string, []Value, error) {
	if v.kind != Object {
		return nil, nil, invalidParam("cannot call jsonb_each on a non-object")
	}
	return append([]string(nil), v.c.keys...), append([]Value(nil), v.c.vals...), nil
}

// EachText returns jsonb_each_text(v): an object's keys and its values as
// text (Value.Text; valid[i] is false for a JSON null, which gives SQL
// NULL).
func (v Value) EachText() (keys []string, texts []string, valid []bool, err error) {
	if v.kind != Object {
		return nil, nil, nil, invalidParam("cannot call jsonb_each_text on a non-object")
	}
	texts = make([]string, len(v.c.vals))
	valid = make([]bool, len(v.c.vals))
	for i, e := range v.c.vals {
		texts[i], valid[i] = e.Text()
	}
	return append([]string(nil), v.c.keys...), texts, valid, nil
}

// Elements returns jsonb_array_elements(v) (and, through Value.Text,
// jsonb_array_elements_text): an array's elements.
func (v Value) Elements() ([]Value, error) {
	switch v.kind {
	case Array:
		return append([]Value(nil), v.c.vals...), nil
	case Object:
		return nil, invalidParam("cannot extract elements from an object")
	}
	return nil, invalidParam("cannot extract elements from a scalar")
}
