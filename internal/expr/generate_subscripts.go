package expr

import "github.com/streamdb/streamdb/internal/types"

// bindGenerateSubscripts binds generate_subscripts(arr, dim [, reverse]):
// the subscripts of dimension dim of arr, lowest first (highest first
// when reverse), as int; no rows when arr lacks the dimension (or any
// argument is NULL).
func bindGenerateSubscripts(args []Expr) (*SetFunc, error) {
	const name = "generate_subscripts"
	if len(args) < 2 || len(args) > 3 || args[0].Type().ID != types.IDArray {
		return nil, functionError(name, exprTypes(args), resolveNone)
	}
	t := args[0].Type()
	coerced := []Expr{args[0]}
	for i, want := range []types.Type{types.TInt32, types.TBool}[:len(args)-1] {
		c, err := coerce(args[1+i], want)
		if err != nil {
			return nil, functionError(name, exprTypes(args), resolveNone)
		}
		coerced = append(coerced, c)
	}
	fn := func(a []types.Datum) ([][]types.Datum, error) {
		arr, err := shapeOf(a[0], t)
		d := a[1].(int64)
		if err != nil || d < 1 || d > int64(arr.NDims()) {
			return nil, err
		}
		n := arr.Dims[d-1]
		reverse := len(a) > 2 && a[2].(bool)
		rows := make([][]types.Datum, n)
		for i := range n {
			v := int64(i + 1)
			if reverse {
				v = int64(n - i)
			}
			rows[i] = []types.Datum{v}
		}
		return rows, nil
	}
	return &SetFunc{Name: name, Args: coerced, Cols: one(types.TInt32), Fn: strictSet(fn)}, nil
}
