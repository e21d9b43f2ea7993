package expr

import (
	"math"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// The trigonometric and hyperbolic functions of double precision, as
// PostgreSQL 15's float.c has them: pi(), degrees, radians, the functions
// in radians (sin ... atan2), in degrees (sind ... atan2d: exact at 0,
// 30, 45, 60 and 90 degrees, by the same reductions to the first quadrant
// PostgreSQL uses), and sinh ... atanh. An argument outside a function's
// domain is 22003 "input is out of range", not NaN.

func registerTrig() {
	one := func(f func(float64) (float64, error), names ...string) {
		register(overloads(fn1(tFloat8, tFloat8, func(a []types.Datum) (types.Datum, error) {
			return f(a[0].(float64))
		})), names...)
	}
	two := func(f func(y, x float64) float64, name string) {
		register(overloads(fn2(tFloat8, tFloat8, tFloat8, func(a []types.Datum) (types.Datum, error) {
			return f(a[0].(float64), a[1].(float64)), nil
		})), name)
	}
	register(func(name string, args []Expr) (Expr, error) {
		if len(args) != 0 {
			return nil, functionError(name, exprTypes(args), resolveNone)
		}
		return NewConst(math.Pi, types.TFloat64), nil
	}, "pi")
	one(func(x float64) (float64, error) { return checkFloat1(x*(180/math.Pi), x) }, "degrees")
	one(func(x float64) (float64, error) { return checkFloat1(x*radiansPerDegree, x) }, "radians")
	one(finite(math.Sin), "sin")
	one(finite(math.Cos), "cos")
	one(finite(math.Tan), "tan")
	one(finite(func(x float64) float64 { return 1 / math.Tan(x) }), "cot")
	one(unitDomain(math.Asin), "asin")
	one(unitDomain(math.Acos), "acos")
	one(func(x float64) (float64, error) { return math.Atan(x), nil }, "atan")
	two(math.Atan2, "atan2")
	one(finite(sind), "sind")
	one(finite(cosd), "cosd")
	one(finite(tand), "tand")
	one(finite(cotd), "cotd")
	one(unitDomain(asind), "asind")
	one(unitDomain(acosd), "acosd")
	one(func(x float64) (float64, error) { return math.Atan(x) / atan1 * 45, nil }, "atand")
	two(func(y, x float64) float64 { return math.Atan2(y, x) / atan1 * 45 }, "atan2d")
	one(func(x float64) (float64, error) { return math.Sinh(x), nil }, "sinh")
	one(func(x float64) (float64, error) { return math.Cosh(x), nil }, "cosh")
	one(func(x float64) (float64, error) { return math.Tanh(x), nil }, "tanh")
	one(func(x float64) (float64, error) { return math.Asinh(x), nil }, "asinh")
	one(func(x float64) (float64, error) {
		if x < 1 {
			return 0, errInputRange
		}
		return math.Acosh(x), nil
	}, "acosh")
	one(func(x float64) (float64, error) {
		if x < -1 || x > 1 {
			return 0, errInputRange
		}
		return math.Atanh(x), nil
	}, "atanh")
}

var errInputRange = pgerr.New(pgerr.NumericOutOfRange, "input is out of range")

// finite is f of an argument that must not be infinite (NaN gives NaN).
func finite(f func(float64) float64) func(float64) (float64, error) {
	return func(x float64) (float64, error) {
		if math.IsInf(x, 0) {
			return 0, errInputRange
		}
		return f(x), nil
	}
}

// unitDomain is f of an argument in [-1, 1] (NaN gives NaN).
func unitDomain(f func(float64) float64) func(float64) (float64, error) {
	return func(x float64) (float64, error) {
		if x < -1 || x > 1 {
			return 0, errInputRange
		}
		return f(x), nil
	}
}

// checkFloat1 fails a result that overflowed from a finite argument.
func checkFloat1(r, x float64) (float64, error) {
	if math.IsInf(r, 0) && !math.IsInf(x, 0) {
		return 0, errFloatOverflow
	}
	return r, nil
}

// The constants of PostgreSQL's degree functions, computed as it does at
// run time (a constant expression would round differently).
var (
	radiansPerDegree = 0.0174532925199432957692
	sin30            = math.Sin(30 * radiansPerDegree)
	oneMinusCos60    = 1 - math.Cos(60*radiansPerDegree)
	asin05           = math.Asin(0.5)
	acos05           = math.Acos(0.5)
	atan1            = math.Atan(1)
	tan45            = sindQ1(45) / cosdQ1(45)
	cot45            = cosdQ1(45) / sindQ1(45)
)

func sind0to30(x float64) float64 { return math.Sin(x*radiansPerDegree) / sin30 / 2 }

func cosd0to60(x float64) float64 {
	return 1 - (1-math.Cos(x*radiansPerDegree))/oneMinusCos60/2
}

func sindQ1(x float64) float64 {
	if x <= 30 {
		return sind0to30(x)
	}
	return cosd0to60(90 - x)
}

func cosdQ1(x float64) float64 {
	if x <= 60 {
		return cosd0to60(x)
	}
	return sind0to30(90 - x)
}

func sind(x float64) float64 {
	if math.IsNaN(x) {
		return x
	}
	x = math.Mod(x, 360)
	sign := 1.0
	if x < 0 {
		x, sign = -x, -sign
	}
	if x > 180 {
		x, sign = x-180, -sign
	}
	if x > 90 {
		x = 180 - x
	}
	return sign * sindQ1(x)
}

func cosd(x float64) float64 {
	if math.IsNaN(x) {
		return x
	}
	x = math.Abs(math.Mod(x, 360))
	if x > 180 {
		x = 360 - x
	}
	sign := 1.0
	if x > 90 {
		x, sign = 180-x, -sign
	}
	return sign * cosdQ1(x)
}

// firstQuadrant reduces x (degrees) for tand and cotd.
func firstQuadrant(x float64) (float64, float64) {
	x = math.Mod(x, 360)
	sign := 1.0
	if x < 0 {
		x, sign = -x, -sign
	}
	if x > 180 {
		x, sign = 360-x, -sign
	}
	if x > 90 {
		x, sign = 180-x, -sign
	}
	return x, sign
}

func tand(x float64) float64 {
	if math.IsNaN(x) {
		return x
	}
	x, sign := firstQuadrant(x)
	return noNegZero(sign * (sindQ1(x) / cosdQ1(x) / tan45))
}

func cotd(x float64) float64 {
	if math.IsNaN(x) {
		return x
	}
	x, sign := firstQuadrant(x)
	return noNegZero(sign * (cosdQ1(x) / sindQ1(x) / cot45))
}

func asindQ1(x float64) float64 {
	if x <= 0.5 {
		return math.Asin(x) / asin05 * 30
	}
	return 90 - math.Acos(x)/acos05*60
}

func acosdQ1(x float64) float64 {
	if x <= 0.5 {
		return 90 - math.Asin(x)/asin05*30
	}
	return math.Acos(x) / acos05 * 60
}

func asind(x float64) float64 {
	if x >= 0 {
		return asindQ1(x)
	}
	return -asindQ1(-x)
}

func acosd(x float64) float64 {
	if x >= 0 {
		return acosdQ1(x)
	}
	return 90 + asindQ1(-x)
}

// noNegZero is r, with -0 made 0, as tand and cotd print it.
func noNegZero(r float64) float64 {
	if r == 0 {
		return 0
	}
	return r
}
