package expr

import (
	"math"
	"math/bits"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

var errDivByZero = pgerr.New(pgerr.DivisionByZero, "division by zero")

// intArith returns integer operator op for result type t: overflow is
// 22003 "<type> out of range", division truncates toward zero, and division
// or modulo by zero is 22012.
func intArith(op string, t types.Type) evalFn {
	return func(a []types.Datum) (types.Datum, error) {
		x, y := a[0].(int64), a[1].(int64)
		if y == 0 && (op == "/" || op == "%") {
			return nil, errDivByZero
		}
		r, ok := int64Op(op, x, y)
		if !ok || !types.IntFits(r, t) {
			return nil, intRangeError(t)
		}
		return r, nil
	}
}

// int64Op computes x op y, reporting false on int64 overflow.
func int64Op(op string, x, y int64) (int64, bool) {
	switch op {
	case "+":
		r := x + y
		return r, !((x >= 0) == (y >= 0) && (r >= 0) != (x >= 0))
	case "-":
		r := x - y
		return r, !((x >= 0) != (y >= 0) && (r >= 0) != (x >= 0))
	case "*":
		return mulInt64(x, y)
	case "/":
		if y == 0 {
			return 0, true
		}
		if y == -1 {
			return -x, x != math.MinInt64
		}
		return x / y, true
	case "%":
		if y == 0 || y == -1 {
			return 0, true
		}
		return x % y, true
	}
	return 0, false
}

func mulInt64(x, y int64) (int64, bool) {
	neg := (x < 0) != (y < 0)
	hi, lo := bits.Mul64(absU(x), absU(y))
	if hi != 0 {
		return 0, false
	}
	if neg {
		if lo > 1<<63 {
			return 0, false
		}
		return int64(-lo), true
	}
	if lo >= 1<<63 {
		return 0, false
	}
	return int64(lo), true
}

func absU(x int64) uint64 {
	if x < 0 {
		return uint64(-x)
	}
	return uint64(x)
}

// floatArith returns float operator op; real results (t float32) are
// rounded to single precision. Results that overflow to infinity from
// finite inputs, or underflow to zero from non-zero ones in
// multiplication and division, are 22003; division by zero is 22012.
func floatArith(op string, t types.Type) evalFn {
	return func(a []types.Datum) (types.Datum, error) {
		x, y := a[0].(float64), a[1].(float64)
		var r float64
		switch op {
		case "+":
			r = x + y
		case "-":
			r = x - y
		case "*":
			r = x * y
		case "/":
			if y == 0 && !math.IsNaN(x) {
				return nil, errDivByZero
			}
			r = x / y
		}
		if t.ID == types.IDFloat32 {
			r = float64(float32(r))
		}
		switch op {
		case "*":
			// A zero factor makes a true zero (-f * 0), as in float8mul.
			return checkFloat(r, x, y, x != 0 && y != 0)
		case "/":
			return checkFloat(r, x, y, x != 0 && !math.IsInf(y, 0))
		}
		return checkFloat(r, x, y, false)
	}
}

// checkFloat reports overflow (an infinite result of finite inputs) and,
// when underflow is checked (the operation cannot give a true zero from
// its inputs), a zero result.
func checkFloat(r, x, y float64, underflow bool) (types.Datum, error) {
	if math.IsInf(r, 0) && !math.IsInf(x, 0) && !math.IsInf(y, 0) {
		return nil, errFloatOverflow
	}
	if underflow && r == 0 {
		return nil, errFloatUnderflow
	}
	return r, nil
}

// floatPow is float8 ^ float8 (dpow).
func floatPow(a []types.Datum) (types.Datum, error) {
	x, y := a[0].(float64), a[1].(float64)
	if x == 0 && y < 0 {
		return nil, pgerr.New(codeInvalidPower, "zero raised to a negative power is undefined")
	}
	if x < 0 && !math.IsInf(y, 0) && math.Floor(y) != y {
		return nil, pgerr.New(codeInvalidPower, "a negative number raised to a non-integer power yields a complex result")
	}
	r := math.Pow(x, y)
	if math.IsInf(r, 0) && !math.IsInf(x, 0) && !math.IsInf(y, 0) {
		return nil, errFloatOverflow
	}
	if r == 0 && x != 0 && !math.IsInf(y, 0) && !math.IsInf(x, 0) && math.Abs(x) != 1 {
		return nil, errFloatUnderflow
	}
	return r, nil
}

// negate returns unary minus for a number or interval type.
func negate(t types.Type) evalFn {
	return func(a []types.Datum) (types.Datum, error) {
		switch x := a[0].(type) {
		case int64:
			if x == math.MinInt64 || !types.IntFits(-x, t) {
				return nil, intRangeError(t)
			}
			return -x, nil
		case float64:
			return -x, nil
		case types.Interval:
			return negInterval(x)
		}
		return numericNeg(a[0]), nil
	}
}
