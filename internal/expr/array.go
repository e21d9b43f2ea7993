package expr

import (
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// Arrays: a value is the canonical text form of an array (see
// internal/types), so equality is string equality and the functions here
// parse it when they need the elements. Subscripts, slices, the
// constructor and the functions of an array's shape are in
// array_shape.go.

func isArray(e Expr) bool { return e.Type().ID == types.IDArray }

// elemsOf parses an array value of type t.
func elemsOf(v types.Datum, t types.Type) ([]types.Datum, error) {
	return types.ParseArray(v.(string), t.ElemType())
}

// arrayBinary builds the operators on arrays: || (concatenation, or
// appending / prepending an element) and the comparisons. ok is false when
// neither operand is an array.
func arrayBinary(op string, l, r Expr) (Expr, bool, error) {
	if !isArray(l) && !isArray(r) {
		return nil, false, nil
	}
	if op == "||" {
		e, err := arrayConcat(l, r)
		return e, true, err
	}
	if op == "@>" || op == "<@" || op == "&&" {
		e, err := arrayContains(op, l, r)
		return e, true, err
	}
	switch op {
	case "=", "<>", "<", "<=", ">", ">=":
	default:
		return nil, false, nil
	}
	l, r, err := sameArrayType(l, r)
	if err != nil {
		return nil, true, operatorError(op, []types.Type{l.Type(), r.Type()}, resolveNone)
	}
	return &call{name: op, style: styleInfix, args: []Expr{l, r}, typ: types.TBool,
		fn: comparison(op, l.Type())}, true, nil
}

// sameArrayType brings an untyped literal operand to the other's array
// type; two arrays must have the same element type.
func sameArrayType(l, r Expr) (Expr, Expr, error) {
	var err error
	switch {
	case !isArray(l):
		l, err = coerce(l, r.Type())
	case !isArray(r):
		r, err = coerce(r, l.Type())
	case l.Type().Elem != r.Type().Elem:
		err = pgerr.New(pgerr.DatatypeMismatch, "array types differ")
	}
	return l, r, err
}

// arrayConcat builds array || array, array || element and element ||
// array.
func arrayConcat(l, r Expr) (Expr, error) {
	if isArray(l) && isArray(r) {
		l, r, err := sameArrayType(l, r)
		if err != nil {
			return nil, operatorError("||", []types.Type{l.Type(), r.Type()}, resolveNone)
		}
		return arrayCat(l, r), nil
	}
	if c, ok := l.(*Const); ok && c.Typ.ID == types.IDUnknown {
		l, err := coerce(l, r.Type())
		if err != nil {
			return nil, err
		}
		return arrayCat(l, r), nil
	}
	if c, ok := r.(*Const); ok && c.Typ.ID == types.IDUnknown {
		r, err := coerce(r, l.Type())
		if err != nil {
			return nil, err
		}
		return arrayCat(l, r), nil
	}
	return arrayAppend(l, r)
}

func arrayCat(l, r Expr) Expr {
	t := l.Type()
	return &call{name: "||", style: styleInfix, args: []Expr{l, r}, typ: t, nonStrict: true,
		fn: func(a []types.Datum) (types.Datum, error) {
			switch {
			case a[0] == nil:
				return a[1], nil
			case a[1] == nil:
				return a[0], nil
			}
			return concatArrays(a[0].(string), a[1].(string), t.ElemType())
		}}
}

// arrayAppend builds array || element or element || array.
func arrayAppend(l, r Expr) (Expr, error) {
	arr, el, prepend := l, r, false
	if !isArray(l) {
		arr, el, prepend = r, l, true
	}
	t := arr.Type()
	elType := el.Type()
	el, err := coerce(el, t.ElemType())
	if err != nil {
		if elType.ID != types.IDUnknown {
			// No anycompatible || anycompatiblearray, nor text ||
			// anynonarray, applies.
			return nil, operatorError("||", []types.Type{l.Type(), r.Type()}, resolveNone)
		}
		return nil, err
	}
	args := []Expr{arr, el}
	return &call{name: "||", style: styleFunc, args: args, typ: t, nonStrict: true,
		fn: func(a []types.Datum) (types.Datum, error) {
			var elems []types.Datum
			if a[0] != nil {
				var err error
				if elems, err = elems1D(a[0], t, pgerr.DataException, "argument must be empty or one-dimensional array"); err != nil {
					return nil, err
				}
			}
			if prepend {
				elems = append([]types.Datum{a[1]}, elems...)
			} else {
				elems = append(elems, a[1])
			}
			return types.FormatArray(elems, t.ElemType()), nil
		}}, nil
}

// AnyAll builds x op ANY (arr) (all=false) or x op ALL (arr): op compares
// x with each element; the result is three-valued as in Postgres.
func AnyAll(op string, x, arr Expr, all bool) (Expr, error) {
	t := arr.Type()
	if t.ID != types.IDArray {
		if c, ok := arr.(*Const); ok && c.Typ.ID == types.IDUnknown && x.Type().ID != types.IDUnknown {
			var err error
			if arr, err = coerce(arr, types.ArrayOf(x.Type().ID)); err != nil {
				return nil, err
			}
			t = arr.Type()
		} else {
			return nil, pgerr.New(pgerr.WrongObjectType, "op ANY/ALL (array) requires array on right side")
		}
	}
	if c, err := coerce(x, t.ElemType()); err == nil {
		x = c // else the operator may still take both types (int2 = int4)
	}
	cmp, err := binary(op, NewColumn(0, x.Type(), "x"), NewColumn(1, t.ElemType(), "elem"))
	if err != nil {
		return nil, err
	}
	if cmp.Type().ID != types.IDBool {
		return nil, pgerr.New(pgerr.DatatypeMismatch, "op ANY/ALL (array) requires operator to yield boolean")
	}
	name := op + " ANY"
	if all {
		name = op + " ALL"
	}
	return &call{name: name, style: styleFunc, args: []Expr{x, arr}, typ: types.TBool, nonStrict: true,
		fn: func(a []types.Datum) (types.Datum, error) { return anyAll(cmp, a[0], a[1], t, all) }}, nil
}

// anyAll folds the comparisons of x with the elements of arr.
func anyAll(cmp Expr, x, arr types.Datum, t types.Type, all bool) (types.Datum, error) {
	if arr == nil {
		return nil, nil
	}
	elems, err := elemsOf(arr, t)
	if err != nil {
		return nil, err
	}
	sawNull := false
	for _, e := range elems {
		v, err := cmp.Eval([]types.Datum{x, e})
		if err != nil {
			return nil, err
		}
		switch {
		case v == nil:
			sawNull = true
		case v.(bool) != all:
			return !all, nil
		}
	}
	if sawNull {
		return nil, nil
	}
	return all, nil
}

func init() {
	register(arrayToString, "array_to_string")
	register(arrayDim, "array_upper", "array_lower", "array_length")
	register(cardinality, "cardinality")
	register(arrayDims, "array_dims", "array_ndims")
	register(arrayReplace, "array_replace")
	register(stringToArray, "string_to_array")
	register(arrayRemove, "array_remove")
}

// arrayArg checks that args[0] is an array.
func arrayArg(name string, args []Expr, n ...int) error {
	ok := false
	for _, k := range n {
		ok = ok || len(args) == k
	}
	if !ok || !isArray(args[0]) {
		return functionError(name, exprTypes(args), resolveNone)
	}
	return nil
}

// arrayToString builds array_to_string(arr, sep[, null]).
func arrayToString(name string, args []Expr) (Expr, error) {
	if err := arrayArg(name, args, 2, 3); err != nil {
		return nil, err
	}
	t := args[0].Type()
	rest, err := coerceAll(args[1:], types.TText)
	if err != nil {
		return nil, err
	}
	return &call{name: name, style: styleFunc, args: append([]Expr{args[0]}, rest...), typ: types.TText,
		nonStrict: true, fn: arrayToStringIn(t, nil)}, nil
}

// arrayToStringIn is array_to_string over an array of type t, elements
// printed in time zone z.
func arrayToStringIn(t types.Type, z *types.Zone) evalFn {
	return func(a []types.Datum) (types.Datum, error) {
		if a[0] == nil || a[1] == nil {
			return nil, nil
		}
		elems, err := elemsOf(a[0], t)
		if err != nil {
			return nil, err
		}
		var parts []string
		for _, e := range elems {
			switch {
			case e != nil:
				parts = append(parts, types.FormatIn(e, t.ElemType(), z))
			case len(a) == 3 && a[2] != nil:
				parts = append(parts, a[2].(string))
			}
		}
		return strings.Join(parts, a[1].(string)), nil
	}
}

// stringToArray builds string_to_array(s, sep [, null]): s split at each
// sep (into characters when sep is NULL), the parts equal to null NULL.
func stringToArray(name string, args []Expr) (Expr, error) {
	if len(args) != 2 && len(args) != 3 {
		return nil, functionError(name, exprTypes(args), resolveNone)
	}
	coerced, err := coerceAll(args, types.TText)
	if err != nil {
		return nil, err
	}
	return &call{name: name, style: styleFunc, args: coerced, typ: types.ArrayOf(types.IDText), nonStrict: true,
		fn: func(a []types.Datum) (types.Datum, error) {
			if a[0] == nil {
				return nil, nil
			}
			s := a[0].(string)
			var parts []string
			switch {
			case s == "":
			case a[1] == nil:
				parts = strings.Split(s, "")
			case a[1].(string) == "":
				parts = []string{s}
			default:
				parts = strings.Split(s, a[1].(string))
			}
			elems := make([]types.Datum, len(parts))
			for i, p := range parts {
				if len(a) < 3 || a[2] == nil || p != a[2].(string) {
					elems[i] = p
				}
			}
			return types.FormatArray(elems, types.TText), nil
		}}, nil
}

// arrayRemove builds array_remove(arr, x): arr without the elements equal
// to x (NULL removes the NULLs).
func arrayRemove(name string, args []Expr) (Expr, error) {
	if err := arrayArg(name, args, 2); err != nil {
		return nil, err
	}
	t := args[0].Type()
	x, err := coerce(args[1], t.ElemType())
	if err != nil {
		return nil, functionError(name, exprTypes(args), resolveNone)
	}
	return &call{name: name, style: styleFunc, args: []Expr{args[0], x}, typ: t, nonStrict: true,
		fn: func(a []types.Datum) (types.Datum, error) {
			if a[0] == nil {
				return nil, nil
			}
			elems, err := elems1D(a[0], t, pgerr.FeatureNotSupported, "removing elements from multidimensional arrays is not supported")
			if err != nil {
				return nil, err
			}
			kept := elems[:0]
			for _, e := range elems {
				if (e == nil) != (a[1] == nil) || (e != nil && compare(e, a[1], t.ElemType()) != 0) {
					kept = append(kept, e)
				}
			}
			return types.FormatArray(kept, t.ElemType()), nil
		}}, nil
}

// ArrayFromValues renders values of type elem as an array value, for
// ARRAY(subquery) and array_agg.
func ArrayFromValues(vals []types.Datum, elem types.Type) types.Datum {
	return types.FormatArray(vals, elem)
}

// arrayContains builds a @> b (every element of b is in a), a <@ b and
// a && b (a common element), as PostgreSQL: duplicates do not matter and
// a NULL element matches nothing.
func arrayContains(op string, l, r Expr) (Expr, error) {
	l, r, err := sameArrayType(l, r)
	if err != nil || !isArray(l) || !isArray(r) {
		return nil, operatorError(op, []types.Type{l.Type(), r.Type()}, resolveNone)
	}
	t := l.Type()
	return &call{name: op, style: styleInfix, args: []Expr{l, r}, typ: types.TBool,
		fn: func(a []types.Datum) (types.Datum, error) {
			x, err := elemsOf(a[0], t)
			if err != nil {
				return nil, err
			}
			y, err := elemsOf(a[1], t)
			if err != nil {
				return nil, err
			}
			if op == "<@" {
				x, y = y, x
			}
			has := func(set []types.Datum, v types.Datum) bool {
				for _, e := range set {
					if e != nil && compare(e, v, t.ElemType()) == 0 {
						return true
					}
				}
				return false
			}
			if op == "&&" {
				for _, v := range y {
					if v != nil && has(x, v) {
						return true, nil
					}
				}
				return false, nil
			}
			for _, v := range y {
				if v == nil || !has(x, v) {
					return false, nil
				}
			}
			return true, nil
		}}, nil
}
