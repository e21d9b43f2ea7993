package expr

import (
	"math"
	"math/rand/v2"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// registerMath adds the numeric functions.
func registerMath() {
	register(overloads(
		fn1(tInt2, tInt2, absInt(types.TInt16)), fn1(tInt4, tInt4, absInt(types.TInt32)),
		fn1(tInt8, tInt8, absInt(types.TInt64)), fn1(tFloat4, tFloat4, floatFn(math.Abs)),
		fn1(tFloat8, tFloat8, floatFn(math.Abs)), fn1(tNum, tNum, numericAbs),
	), "abs")
	register(overloads(fn1(tFloat8, tFloat8, floatFn(math.RoundToEven)), fn1(tNum, tNum, numericRoundTo(types.RoundNumeric)),
		fn2(tNum, tInt4, tNum, numericRoundTo(types.RoundNumeric))), "round")
	register(overloads(fn1(tFloat8, tFloat8, floatFn(math.Trunc)), fn1(tNum, tNum, numericRoundTo(types.TruncNumeric)),
		fn2(tNum, tInt4, tNum, numericRoundTo(types.TruncNumeric))), "trunc")
	register(overloads(fn1(tFloat8, tFloat8, floatFn(math.Floor)), fn1(tNum, tNum, numericToward(apd.RoundFloor))), "floor")
	register(overloads(fn1(tFloat8, tFloat8, floatFn(math.Ceil)), fn1(tNum, tNum, numericToward(apd.RoundCeiling))), "ceil", "ceiling")
	register(overloads(fn1(tFloat8, tFloat8, floatFn(floatSign)), fn1(tNum, tNum, numericSign)), "sign")
	register(overloads(fn1(tFloat8, tFloat8, floatSqrt), fn1(tNum, tNum, numericSqrt)), "sqrt")
	register(overloads(fn2(tFloat8, tFloat8, tFloat8, floatPow), fn2(tNum, tNum, tNum, numericPow)), "power", "pow")
	register(overloads(
		fn2(tInt2, tInt2, tInt2, intArith("%", types.TInt16)), fn2(tInt4, tInt4, tInt4, intArith("%", types.TInt32)),
		fn2(tInt8, tInt8, tInt8, intArith("%", types.TInt64)), fn2(tNum, tNum, tNum, numericArith("%")),
	), "mod")
	register(func(name string, args []Expr) (Expr, error) {
		if len(args) != 0 {
			return nil, functionError(name, exprTypes(args), resolveNone)
		}
		return &call{name: name, typ: types.TFloat64, fn: func([]types.Datum) (types.Datum, error) {
			return rand.Float64(), nil
		}}, nil
	}, "random")
}

func floatFn(f func(float64) float64) evalFn {
	return func(a []types.Datum) (types.Datum, error) { return f(a[0].(float64)), nil }
}

func floatSign(f float64) float64 {
	switch {
	case f > 0:
		return 1
	case f < 0:
		return -1
	}
	return 0
}

func floatSqrt(a []types.Datum) (types.Datum, error) {
	f := a[0].(float64)
	if f < 0 {
		return nil, pgerr.New(codeInvalidPower, "cannot take square root of a negative number")
	}
	return math.Sqrt(f), nil
}

func absInt(t types.Type) evalFn {
	return func(a []types.Datum) (types.Datum, error) {
		x := a[0].(int64)
		if x >= 0 {
			return x, nil
		}
		return negate(t)(a)
	}
}

func numericAbs(a []types.Datum) (types.Datum, error) {
	d := a[0].(*apd.Decimal)
	if !d.Negative {
		return d, nil
	}
	return new(apd.Decimal).Abs(d), nil
}

// numericRoundTo rounds (or truncates) to the given scale, 0 by default.
func numericRoundTo(f func(*apd.Decimal, int) *apd.Decimal) evalFn {
	return func(a []types.Datum) (types.Datum, error) {
		scale := int64(0)
		if len(a) > 1 {
			scale = min(max(a[1].(int64), -maxDisplayScale), maxDisplayScale)
		}
		return f(a[0].(*apd.Decimal), int(scale)), nil
	}
}

// numericToward rounds to an integer toward -inf (floor) or +inf (ceil).
// numericToward is floor (apd.RoundFloor) or ceil (apd.RoundCeiling) of
// a numeric: its integer part (truncated toward zero, which apd's
// Quantize does right for any magnitude; rounding up it did not: it made
// ceil(0.01) 0), moved by one toward the rounding's side when a fraction
// was cut off on that side.
func numericToward(mode apd.Rounder) evalFn {
	return func(a []types.Datum) (types.Datum, error) {
		d := a[0].(*apd.Decimal)
		if d.Form != apd.Finite {
			return d, nil
		}
		r := new(apd.Decimal)
		ctx := apd.Context{Precision: uint32(d.NumDigits()+max(int64(d.Exponent), 0)) + 2, Rounding: apd.RoundDown,
			MaxExponent: apd.MaxExponent, MinExponent: apd.MinExponent}
		if _, err := ctx.Quantize(r, d, 0); err != nil {
			return nil, err
		}
		step := int64(0)
		switch c := d.Cmp(r); {
		case mode == apd.RoundCeiling && c > 0:
			step = 1
		case mode == apd.RoundFloor && c < 0:
			step = -1
		}
		if step != 0 {
			if _, err := ctx.Add(r, r, apd.New(step, 0)); err != nil {
				return nil, err
			}
		}
		return types.NormalizeNumeric(r), nil
	}
}

func numericSign(a []types.Datum) (types.Datum, error) {
	d := a[0].(*apd.Decimal)
	if d.Form == apd.NaN {
		return d, nil
	}
	return apd.New(int64(d.Sign()), 0), nil
}
