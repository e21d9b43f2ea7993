package expr

import (
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// array_append, array_prepend, array_cat (the || operator by name),
// array_position and array_positions.

func init() {
	register(func(name string, args []Expr) (Expr, error) {
		if len(args) != 2 || !isArray(args[0]) || isArray(args[1]) {
			return nil, functionError(name, exprTypes(args), resolveNone)
		}
		return renamed(arrayAppend(args[0], args[1]))(name)
	}, "array_append")
	register(func(name string, args []Expr) (Expr, error) {
		if len(args) != 2 || isArray(args[0]) || !isArray(args[1]) {
			return nil, functionError(name, exprTypes(args), resolveNone)
		}
		return renamed(arrayAppend(args[0], args[1]))(name)
	}, "array_prepend")
	register(func(name string, args []Expr) (Expr, error) {
		if len(args) != 2 || !isArray(args[0]) && !isArray(args[1]) {
			return nil, functionError(name, exprTypes(args), resolveNone)
		}
		l, r, err := sameArrayType(args[0], args[1])
		if err != nil || !isArray(l) || !isArray(r) {
			return nil, functionError(name, exprTypes(args), resolveNone)
		}
		return renamed(arrayCat(l, r), nil)(name)
	}, "array_cat")
	register(arrayPosition(false), "array_position")
	register(arrayPosition(true), "array_positions")
}

// renamed gives a built call the function's name.
func renamed(e Expr, err error) func(name string) (Expr, error) {
	return func(name string) (Expr, error) {
		if err != nil {
			return nil, err
		}
		c, ok := e.(*call)
		if !ok {
			return e, nil
		}
		n := *c
		n.name, n.style = name, styleFunc
		return &n, nil
	}
}

// arrayPosition builds array_position(arr, x [, start]), the 1-based
// index of the first element not distinct from x (NULL when none), or
// array_positions(arr, x), every such index as an int[].
func arrayPosition(all bool) funcBuilder {
	return func(name string, args []Expr) (Expr, error) {
		n := len(args)
		if n < 2 || n > 3 || all && n == 3 || !isArray(args[0]) {
			return nil, functionError(name, exprTypes(args), resolveNone)
		}
		t := args[0].Type()
		x, err := coerce(args[1], t.ElemType())
		if err != nil {
			return nil, functionError(name, exprTypes(args), resolveNone)
		}
		cargs := []Expr{args[0], x}
		if n == 3 {
			start, err := coerce(args[2], types.TInt32)
			if err != nil {
				return nil, functionError(name, exprTypes(args), resolveNone)
			}
			cargs = append(cargs, start)
		}
		typ := types.TInt32
		if all {
			typ = types.ArrayOf(types.IDInt32)
		}
		return &call{name: name, style: styleFunc, args: cargs, typ: typ, nonStrict: true,
			fn: func(a []types.Datum) (types.Datum, error) {
				if a[0] == nil {
					return nil, nil
				}
				from := int64(1)
				if len(a) == 3 {
					if a[2] == nil {
						return nil, pgerr.New(pgerr.NullValueNotAllowed, "initial position must not be null")
					}
					from = a[2].(int64)
				}
				elems, err := elems1D(a[0], t, pgerr.FeatureNotSupported, "searching for elements in multidimensional arrays is not supported")
				if err != nil {
					return nil, err
				}
				var found []types.Datum
				for i := max(from, 1); i <= int64(len(elems)); i++ {
					e := elems[i-1]
					if (e == nil) != (a[1] == nil) || e != nil && compare(e, a[1], t.ElemType()) != 0 {
						continue
					}
					if !all {
						return i, nil
					}
					found = append(found, i)
				}
				if all {
					return types.FormatArray(found, types.TInt32), nil
				}
				return nil, nil
			}}, nil
	}
}
