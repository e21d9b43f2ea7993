package expr

import (
	"math"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// Small functions of PostgreSQL 15 that RisingWave's and PostgreSQL's own
// tests use: bit_length, quote_nullable, num_nulls, num_nonnulls,
// isfinite, scale, min_scale, trim_scale, width_bucket, array_fill and
// trim_array.

func init() {
	register(overloads(fn1(tText, tInt4, func(a []types.Datum) (types.Datum, error) {
		return int64(8 * len(a[0].(string))), nil
	}), fn1(types.IDBytea, tInt4, func(a []types.Datum) (types.Datum, error) {
		return int64(8 * len(a[0].(string))), nil
	})), "bit_length")
	register(func(name string, args []Expr) (Expr, error) {
		if len(args) != 1 {
			return nil, functionError(name, exprTypes(args), resolveNone)
		}
		x := args[0]
		if x.Type().ID == types.IDUnknown {
			x, _ = coerce(x, types.TText)
		}
		t := x.Type()
		return &call{name: name, style: styleFunc, args: []Expr{x}, typ: types.TText, nonStrict: true,
			fn: func(a []types.Datum) (types.Datum, error) {
				if a[0] == nil {
					return "NULL", nil
				}
				return quoteLiteral([]types.Datum{types.Format(a[0], t)})
			}}, nil
	}, "quote_nullable")
	register(numNulls, "num_nulls", "num_nonnulls")
	finite := func(a []types.Datum) (types.Datum, error) {
		switch v := a[0].(type) {
		case types.Date:
			return v != types.Date(math.MaxInt32) && v != types.Date(math.MinInt32), nil
		case types.Timestamp:
			return v != types.Timestamp(math.MaxInt64) && v != types.Timestamp(math.MinInt64), nil
		}
		return true, nil
	}
	register(overloads(fn1(tDate, tBool, finite), fn1(tTS, tBool, finite), fn1(tTSTZ, tBool, finite),
		fn1(tIvl, tBool, finite)), "isfinite")
	register(overloads(fn1(tNum, tInt4, numericScale)), "scale")
	register(overloads(fn1(tNum, tInt4, numericMinScale)), "min_scale")
	register(overloads(fn1(tNum, tNum, numericTrimScale)), "trim_scale")
	register(widthBucket, "width_bucket")
	register(arrayFill, "array_fill")
	register(trimArray, "trim_array")
}

// numNulls builds num_nulls(...) and num_nonnulls(...): how many of the
// arguments, of any types, are (not) NULL.
func numNulls(name string, args []Expr) (Expr, error) {
	if len(args) == 0 {
		return nil, functionError(name, nil, resolveNone)
	}
	return &call{name: name, style: styleFunc, args: args, typ: types.TInt32, nonStrict: true,
		fn: func(a []types.Datum) (types.Datum, error) {
			n := int64(0)
			for _, v := range a {
				if (v == nil) == (name == "num_nulls") {
					n++
				}
			}
			return n, nil
		}}, nil
}

// numericScale is scale(x): the digits after the point as x is written
// (NULL for NaN and the infinities).
func numericScale(a []types.Datum) (types.Datum, error) {
	d := a[0].(*apd.Decimal)
	if d.Form != apd.Finite {
		return nil, nil
	}
	return int64(max(-d.Exponent, 0)), nil
}

// numericMinScale is min_scale(x): the fewest digits after the point
// that represent x exactly.
func numericMinScale(a []types.Datum) (types.Datum, error) {
	d := a[0].(*apd.Decimal)
	if d.Form != apd.Finite {
		return nil, nil
	}
	_, frac, _ := strings.Cut(trimmedNumeric(d), ".")
	return int64(len(frac)), nil
}

// numericTrimScale is trim_scale(x): x without trailing zeros after the
// point.
func numericTrimScale(a []types.Datum) (types.Datum, error) {
	d := a[0].(*apd.Decimal)
	if d.Form != apd.Finite {
		return d, nil
	}
	return types.ParseNumeric(trimmedNumeric(d), types.TNumeric)
}

// trimmedNumeric is the text of x without trailing zeros after the point.
func trimmedNumeric(d *apd.Decimal) string {
	s := types.FormatNumeric(d)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// widthBucket builds width_bucket(x, lo, hi, n) of double precision or
// numeric: the bucket of x among n equal buckets from lo to hi (0 below,
// n+1 at or above).
func widthBucket(name string, args []Expr) (Expr, error) {
	if len(args) != 4 {
		return nil, functionError(name, exprTypes(args), resolveNone)
	}
	t, err := commonType(exprTypes(args[:3]))
	if err != nil || !t.IsNumeric() {
		return nil, functionError(name, exprTypes(args), resolveNone)
	}
	if t.ID != types.IDNumeric {
		t = types.TFloat64
	}
	vals, err := coerceAll(args[:3], t)
	if err != nil {
		return nil, err
	}
	n, err := coerce(args[3], types.TInt32)
	if err != nil {
		return nil, functionError(name, exprTypes(args), resolveNone)
	}
	return &call{name: name, style: styleFunc, args: append(vals, n), typ: types.TInt32,
		fn: func(a []types.Datum) (types.Datum, error) {
			f := make([]float64, 3)
			for i := range f {
				if d, ok := a[i].(*apd.Decimal); ok {
					if d.Form == apd.NaN {
						return nil, pgerr.New("2201G", "operand, lower bound, and upper bound cannot be NaN")
					}
					f[i], _ = d.Float64()
					if d.Form == apd.Infinite && d.Negative {
						f[i] = math.Inf(-1)
					} else if d.Form == apd.Infinite {
						f[i] = math.Inf(1)
					}
				} else {
					f[i] = a[i].(float64)
				}
			}
			return bucketOf(f[0], f[1], f[2], a[3].(int64))
		}}, nil
}

func bucketOf(x, lo, hi float64, n int64) (types.Datum, error) {
	switch {
	case n <= 0:
		return nil, pgerr.New("2201G", "count must be greater than zero")
	case math.IsNaN(x) || math.IsNaN(lo) || math.IsNaN(hi):
		return nil, pgerr.New("2201G", "operand, lower bound, and upper bound cannot be NaN")
	case math.IsInf(lo, 0) || math.IsInf(hi, 0):
		return nil, pgerr.New("2201G", "lower and upper bounds must be finite")
	case lo == hi:
		return nil, pgerr.New("2201G", "lower bound cannot equal upper bound")
	}
	if lo < hi {
		switch {
		case x < lo:
			return int64(0), nil
		case x >= hi:
			return n + 1, nil
		}
		return int64(float64(n)*((x-lo)/(hi-lo))) + 1, nil
	}
	switch {
	case x > lo:
		return int64(0), nil
	case x <= hi:
		return n + 1, nil
	}
	return int64(float64(n)*((lo-x)/(lo-hi))) + 1, nil
}

// arrayFill builds array_fill(value, dims int[]): an array of the shape
// dims with every element value.
func arrayFill(name string, args []Expr) (Expr, error) {
	if len(args) != 2 && len(args) != 3 || isArray(args[0]) || args[0].Type().ID == types.IDUnknown {
		return nil, functionError(name, exprTypes(args), resolveNone)
	}
	bounds, err := coerceAll(args[1:], types.ArrayOf(types.IDInt32))
	if err != nil {
		return nil, functionError(name, exprTypes(args), resolveNone)
	}
	et := args[0].Type()
	return &call{name: name, style: styleFunc, args: append([]Expr{args[0]}, bounds...), typ: types.ArrayOf(et.ID), nonStrict: true,
		fn: func(a []types.Datum) (types.Datum, error) {
			if a[1] == nil || len(a) == 3 && a[2] == nil {
				return nil, pgerr.New(pgerr.NullValueNotAllowed, "dimension array or low bound array cannot be null")
			}
			if len(a) == 3 {
				if err := defaultLowerBounds(a[2].(string)); err != nil {
					return nil, err
				}
			}
			ds, err := types.ParseArray(a[1].(string), types.TInt32)
			if err != nil {
				return nil, err
			}
			if len(ds) > types.MaxArrayDims {
				return nil, pgerr.New("54000", "number of array dimensions (%d) exceeds the maximum allowed (%d)", len(ds), types.MaxArrayDims)
			}
			out := types.ArrayValue{}
			size := 1
			for _, d := range ds {
				if d == nil {
					return nil, pgerr.New(pgerr.NullValueNotAllowed, "dimension values cannot be null")
				}
				n := int(d.(int64))
				if n <= 0 {
					return types.FormatArray(nil, et), nil
				}
				if size *= n; size > 1<<24 {
					return nil, pgerr.New("54000", "array size exceeds the maximum allowed (%d)", 1<<24)
				}
				out.Dims = append(out.Dims, n)
			}
			if len(out.Dims) == 0 {
				return types.FormatArray(nil, et), nil
			}
			out.Elems = make([]types.Datum, size)
			for i := range out.Elems {
				out.Elems[i] = a[0]
			}
			return types.FormatArrayValue(out, et), nil
		}}, nil
}

// defaultLowerBounds checks array_fill's lower bounds: streamdb's arrays
// start at 1.
func defaultLowerBounds(s string) error {
	lbs, err := types.ParseArray(s, types.TInt32)
	if err != nil {
		return err
	}
	for _, lb := range lbs {
		if lb == nil {
			return pgerr.New(pgerr.NullValueNotAllowed, "dimension values cannot be null")
		}
		if lb.(int64) != 1 {
			return pgerr.New(pgerr.FeatureNotSupported, "array lower bounds other than 1 are not supported")
		}
	}
	return nil
}

// trimArray builds trim_array(arr, n): arr without its last n elements
// (rows, for an array of several dimensions).
func trimArray(name string, args []Expr) (Expr, error) {
	if err := arrayArg(name, args, 2); err != nil {
		return nil, err
	}
	t := args[0].Type()
	n, err := coerce(args[1], types.TInt32)
	if err != nil {
		return nil, functionError(name, exprTypes(args), resolveNone)
	}
	return &call{name: name, style: styleFunc, args: []Expr{args[0], n}, typ: t,
		fn: func(a []types.Datum) (types.Datum, error) {
			arr, err := shapeOf(a[0], t)
			if err != nil {
				return nil, err
			}
			k := a[1].(int64)
			first := 0
			if arr.NDims() > 0 {
				first = arr.Dims[0]
			}
			if k < 0 || k > int64(first) {
				return nil, pgerr.New(codeArraySubscript, "number of elements to trim must be between 0 and %d", first)
			}
			if k == int64(first) {
				return types.FormatArray(nil, t.ElemType()), nil
			}
			row := len(arr.Elems) / first
			arr.Dims[0] -= int(k)
			arr.Elems = arr.Elems[:arr.Dims[0]*row]
			return types.FormatArrayValue(arr, t.ElemType()), nil
		}}, nil
}
