package expr

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// The shape of arrays, as PostgreSQL 15 has it: an array has up to six
// dimensions, each with lower bound 1 (types.ArrayValue), and int[] and
// int[][] are one type. ARRAY[[1,2],[3,4]] (or ARRAY[ARRAY[1,2], ...])
// stacks arrays of one shape; arr[i][j] fetches an element, NULL unless
// there is one subscript per dimension and each is in range; and a
// subscript list with any lo:hi (either bound may be left out) is a slice:
// a plain i in it means 1:i, dimensions it leaves out are taken whole,
// bounds are clamped to the array's, and the result has lower bounds 1
// (empty when any range is). Functions that search or edit elements one
// by one (array_append, array_remove, array_position) take
// one-dimensional arrays only, as in PostgreSQL.

const codeArraySubscript = "2202E" // array_subscript_error

// shapeOf parses the array v of type t.
func shapeOf(v types.Datum, t types.Type) (types.ArrayValue, error) {
	return types.ParseArrayValue(v.(string), t.ElemType())
}

// elems1D returns the elements of the array v of type t, an error with
// code and msg when it has more than one dimension.
func elems1D(v types.Datum, t types.Type, code, msg string) ([]types.Datum, error) {
	a, err := shapeOf(v, t)
	if err != nil {
		return nil, err
	}
	if a.NDims() > 1 {
		return nil, pgerr.New(code, "%s", msg)
	}
	return a.Elems, nil
}

// Array builds ARRAY[e1, e2, ...]: the elements are brought to their
// common type (text when all are untyped literals); elements that are
// arrays are stacked into an array of one more dimension. elem gives the
// element type of an empty ARRAY[] (which needs a cast in Postgres).
func Array(elems []Expr, elem types.Type) (Expr, error) {
	if len(elems) > 0 {
		ts := exprTypes(elems)
		t, err := commonType(ts)
		if err != nil {
			return nil, err
		}
		if t.ID == types.IDUnknown {
			t = types.TText
		}
		elem = t
	}
	if elem.ID == types.IDArray {
		return stackArrays(elems)
	}
	args, err := coerceAll(elems, elem)
	if err != nil {
		return nil, err
	}
	return &call{name: "ARRAY", style: styleFunc, args: args, typ: types.ArrayOf(elem.ID), nonStrict: true,
		fn: func(a []types.Datum) (types.Datum, error) {
			return types.FormatArray(a, elem), nil
		}}, nil
}

// stackArrays builds ARRAY[arr1, arr2, ...] of arrays: their common
// element type, and at run time one shape for all (or all empty).
func stackArrays(elems []Expr) (Expr, error) {
	ets := make([]types.Type, len(elems))
	for i, e := range elems {
		ets[i] = e.Type().ElemType()
	}
	et, err := commonType(ets)
	if err != nil {
		return nil, err
	}
	t := types.ArrayOf(et.ID)
	args, err := coerceAll(elems, t)
	if err != nil {
		return nil, err
	}
	return &call{name: "ARRAY", style: styleFunc, args: args, typ: t, nonStrict: true,
		fn: func(a []types.Datum) (types.Datum, error) { return stack(a, t) }}, nil
}

// stack is the value of ARRAY[...] over the arrays subs of type t.
func stack(subs []types.Datum, t types.Type) (types.Datum, error) {
	mismatch := pgerr.New(codeArraySubscript, "multidimensional arrays must have array expressions with matching dimensions")
	var out types.ArrayValue
	for i, v := range subs {
		if v == nil {
			return nil, mismatch
		}
		a, err := shapeOf(v, t)
		if err != nil {
			return nil, err
		}
		if i > 0 && !slices.Equal(a.Dims, out.Dims[1:]) {
			return nil, mismatch
		}
		if i == 0 {
			out.Dims = append([]int{len(subs)}, a.Dims...)
		}
		out.Elems = append(out.Elems, a.Elems...)
	}
	switch {
	case len(out.Dims) > types.MaxArrayDims:
		return nil, pgerr.New("54000", "number of array dimensions (%d) exceeds the maximum allowed (%d)", len(out.Dims), types.MaxArrayDims)
	case len(out.Dims) == 1: // all empty
		out.Dims = nil
	}
	return types.FormatArrayValue(out, t.ElemType()), nil
}

// SubscriptArg is one subscript of arr[...]: an index (Lo), or a slice
// Lo:Hi whose left-out bounds are nil.
type SubscriptArg struct {
	Lo, Hi Expr
	Slice  bool
}

// Subscript builds arr[s1][s2]...: an element (NULL when out of range,
// or when the subscripts are fewer or more than the dimensions; indexes
// count from 0 in an int2vector or oidvector), or, when any subscript is
// a slice, an array.
func Subscript(arr Expr, subs []SubscriptArg) (Expr, error) {
	t := arr.Type()
	if t.ID != types.IDArray {
		return nil, pgerr.New(pgerr.DatatypeMismatch,
			"cannot subscript type %s because it does not support subscripting", t)
	}
	if len(subs) > types.MaxArrayDims {
		return nil, pgerr.New("54000", "number of array dimensions (%d) exceeds the maximum allowed (%d)", len(subs), types.MaxArrayDims)
	}
	args := []Expr{arr}
	slice := false
	for _, s := range subs {
		slice = slice || s.Slice
		for _, b := range []Expr{s.Lo, s.Hi} {
			if b == nil {
				continue
			}
			c, err := coerce(b, types.TInt32)
			if err != nil {
				return nil, pgerr.New(pgerr.DatatypeMismatch, "array subscript must have type integer")
			}
			args = append(args, c)
		}
	}
	plan := subscriptPlan{subs: subs, vector: t.Vector}
	if slice {
		rt := types.ArrayOf(t.Elem)
		return &call{name: "slice", style: styleFunc, args: args, typ: rt, nonStrict: true,
			fn: func(a []types.Datum) (types.Datum, error) { return plan.slice(a, t) }}, nil
	}
	return &call{name: "subscript", style: styleFunc, args: args, typ: t.ElemType(),
		fn: func(a []types.Datum) (types.Datum, error) { return plan.element(a, t) }}, nil
}

// subscriptPlan reads a Subscript call's arguments: the array, then each
// subscript's bounds that were given.
type subscriptPlan struct {
	subs   []SubscriptArg
	vector bool
}

// bounds returns each subscript's range, lo and hi, 0 where left out (a
// plain index i is 1:i in a slice, i:i else); ok is false when a given
// bound is NULL.
func (p subscriptPlan) bounds(a []types.Datum) (lo, hi []int64, ok bool) {
	k := 1
	next := func(e Expr) (int64, bool) {
		if e == nil {
			return 0, true
		}
		v := a[k]
		k++
		if v == nil {
			return 0, false
		}
		n := v.(int64)
		if p.vector {
			n++
		}
		return n, true
	}
	for _, s := range p.subs {
		l, okL := next(s.Lo)
		h, okH := next(s.Hi)
		if !okL || !okH {
			return nil, nil, false
		}
		if !s.Slice {
			h = l
		}
		lo, hi = append(lo, l), append(hi, h)
	}
	return lo, hi, true
}

// element is arr[i][j]...
func (p subscriptPlan) element(a []types.Datum, t types.Type) (types.Datum, error) {
	arr, err := shapeOf(a[0], t)
	if err != nil {
		return nil, err
	}
	idx, _, ok := p.bounds(a)
	if !ok || len(idx) != arr.NDims() {
		return nil, nil
	}
	off := 0
	for d, i := range idx {
		if i < 1 || i > int64(arr.Dims[d]) {
			return nil, nil
		}
		off = off*arr.Dims[d] + int(i-1)
	}
	return arr.Elems[off], nil
}

// slice is arr[lo:hi]...
func (p subscriptPlan) slice(a []types.Datum, t types.Type) (types.Datum, error) {
	if a[0] == nil {
		return nil, nil
	}
	lo, hi, ok := p.bounds(a)
	if !ok {
		return nil, nil
	}
	arr, err := shapeOf(a[0], t)
	if err != nil {
		return nil, err
	}
	empty := types.FormatArray(nil, t.ElemType())
	if arr.NDims() == 0 || len(lo) > arr.NDims() {
		return empty, nil
	}
	from, to := make([]int, arr.NDims()), make([]int, arr.NDims())
	for d, n := range arr.Dims {
		from[d], to[d] = 1, n
		if d < len(lo) {
			p.clamp(d, lo[d], hi[d], n, &from[d], &to[d])
		}
		if from[d] > to[d] {
			return empty, nil
		}
	}
	return types.FormatArrayValue(subArray(arr, from, to), t.ElemType()), nil
}

// clamp narrows [*from, *to] (the whole of a dimension of n) to
// subscript d's bounds lo:hi; a plain index i is 1:i.
func (p subscriptPlan) clamp(d int, lo, hi int64, n int, from, to *int) {
	s := p.subs[d]
	if s.Slice && s.Lo != nil {
		*from = int(max(lo, 1))
	}
	if !s.Slice || s.Hi != nil {
		*to = int(min(hi, int64(n)))
	}
}

// subArray is the part of arr from[d]..to[d] (1-based, in range) in each
// dimension d.
func subArray(arr types.ArrayValue, from, to []int) types.ArrayValue {
	out := types.ArrayValue{Dims: make([]int, len(from))}
	for d := range from {
		out.Dims[d] = to[d] - from[d] + 1
	}
	idx := append([]int(nil), from...)
	for {
		off := 0
		for d, i := range idx {
			off = off*arr.Dims[d] + i - 1
		}
		out.Elems = append(out.Elems, arr.Elems[off])
		d := len(idx) - 1
		for ; d >= 0; d-- {
			if idx[d] < to[d] {
				idx[d]++
				break
			}
			idx[d] = from[d]
		}
		if d < 0 {
			return out
		}
	}
}

// arrayDim builds array_upper / array_lower / array_length(arr, dim):
// NULL for a dimension the array lacks.
func arrayDim(name string, args []Expr) (Expr, error) {
	if err := arrayArg(name, args, 2); err != nil {
		return nil, err
	}
	t := args[0].Type()
	dim, err := coerce(args[1], types.TInt32)
	if err != nil {
		return nil, functionError(name, exprTypes(args), resolveNone)
	}
	return &call{name: name, style: styleFunc, args: []Expr{args[0], dim}, typ: types.TInt32,
		fn: func(a []types.Datum) (types.Datum, error) {
			arr, err := shapeOf(a[0], t)
			d := a[1].(int64)
			if err != nil || d < 1 || d > int64(arr.NDims()) {
				return nil, err
			}
			if name == "array_lower" {
				return int64(1), nil
			}
			return int64(arr.Dims[d-1]), nil
		}}, nil
}

// cardinality builds cardinality(arr): the number of elements.
func cardinality(name string, args []Expr) (Expr, error) {
	if err := arrayArg(name, args, 1); err != nil {
		return nil, err
	}
	t := args[0].Type()
	return &call{name: name, style: styleFunc, args: args, typ: types.TInt32,
		fn: func(a []types.Datum) (types.Datum, error) {
			elems, err := elemsOf(a[0], t)
			return int64(len(elems)), err
		}}, nil
}

// arrayDims builds array_dims(arr), its bounds as text ("[1:2][1:3]"),
// and array_ndims(arr); both NULL for an empty array.
func arrayDims(name string, args []Expr) (Expr, error) {
	if err := arrayArg(name, args, 1); err != nil {
		return nil, err
	}
	t := args[0].Type()
	typ := types.TText
	if name == "array_ndims" {
		typ = types.TInt32
	}
	return &call{name: name, style: styleFunc, args: args, typ: typ,
		fn: func(a []types.Datum) (types.Datum, error) {
			arr, err := shapeOf(a[0], t)
			if err != nil || arr.NDims() == 0 {
				return nil, err
			}
			if name == "array_ndims" {
				return int64(arr.NDims()), nil
			}
			var b strings.Builder
			for _, n := range arr.Dims {
				fmt.Fprintf(&b, "[1:%d]", n)
			}
			return b.String(), nil
		}}, nil
}

// concatArrays is x || y over arrays of elements elem, as array_cat: two
// arrays of one shape but the first dimension join along it, and an
// array joins one of one dimension less as an extra row.
func concatArrays(x, y string, elem types.Type) (types.Datum, error) {
	a, err := types.ParseArrayValue(x, elem)
	if err != nil {
		return nil, err
	}
	b, err := types.ParseArrayValue(y, elem)
	if err != nil {
		return nil, err
	}
	switch {
	case a.NDims() == 0:
		return y, nil
	case b.NDims() == 0:
		return x, nil
	}
	dims, err := catDims(a.Dims, b.Dims)
	if err != nil {
		return nil, err
	}
	out := types.ArrayValue{Dims: dims, Elems: append(append([]types.Datum(nil), a.Elems...), b.Elems...)}
	return types.FormatArrayValue(out, elem), nil
}

// catDims is the shape of the concatenation of arrays of shapes a and b.
func catDims(a, b []int) ([]int, error) {
	incompatible := func(detail string) error {
		e := pgerr.New(codeArraySubscript, "cannot concatenate incompatible arrays")
		e.Detail = detail
		return e
	}
	switch {
	case len(a) == len(b):
		if !slices.Equal(a[1:], b[1:]) {
			return nil, incompatible("Arrays with differing element dimensions are not compatible for concatenation.")
		}
		return append([]int{a[0] + b[0]}, a[1:]...), nil
	case len(a) == len(b)+1:
		if !slices.Equal(a[1:], b) {
			return nil, incompatible("Arrays with differing dimensions are not compatible for concatenation.")
		}
		return append([]int{a[0] + 1}, a[1:]...), nil
	case len(b) == len(a)+1:
		if !slices.Equal(b[1:], a) {
			return nil, incompatible("Arrays with differing dimensions are not compatible for concatenation.")
		}
		return append([]int{b[0] + 1}, b[1:]...), nil
	}
	return nil, incompatible(fmt.Sprintf("Arrays of %d and %d dimensions are not compatible for concatenation.", len(a), len(b)))
}

// arrayReplace builds array_replace(arr, from, to): arr, of any shape,
// with each element not distinct from from replaced by to.
func arrayReplace(name string, args []Expr) (Expr, error) {
	if err := arrayArg(name, args, 3); err != nil {
		return nil, err
	}
	t := args[0].Type()
	vals, err := coerceAll(args[1:], t.ElemType())
	if err != nil {
		return nil, functionError(name, exprTypes(args), resolveNone)
	}
	return &call{name: name, style: styleFunc, args: append([]Expr{args[0]}, vals...), typ: t, nonStrict: true,
		fn: func(a []types.Datum) (types.Datum, error) {
			if a[0] == nil {
				return nil, nil
			}
			arr, err := shapeOf(a[0], t)
			if err != nil {
				return nil, err
			}
			for i, e := range arr.Elems {
				if (e == nil) == (a[1] == nil) && (e == nil || compare(e, a[1], t.ElemType()) == 0) {
					arr.Elems[i] = a[2]
				}
			}
			return types.FormatArrayValue(arr, t.ElemType()), nil
		}}, nil
}
