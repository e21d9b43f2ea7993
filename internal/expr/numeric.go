package expr

import (
	"math"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// Postgres numeric constants (numeric.c).
const (
	minSigDigits    = 16   // NUMERIC_MIN_SIG_DIGITS
	maxDisplayScale = 1000 // NUMERIC_MAX_DISPLAY_SCALE
	decDigits       = 4    // DEC_DIGITS: decimal digits per NBASE digit
)

// exactCtx does exact addition, subtraction and multiplication.
var exactCtx = apd.BaseContext

// numericArith returns numeric operator op, with Postgres's result scales:
// the larger input scale for + - %, their sum for *, and select_div_scale
// for /.
func numericArith(op string) evalFn {
	return func(a []types.Datum) (types.Datum, error) {
		x, y := a[0].(*apd.Decimal), a[1].(*apd.Decimal)
		if x.Form != apd.Finite || y.Form != apd.Finite {
			return numericSpecial(op, x, y)
		}
		r := new(apd.Decimal)
		switch op {
		case "+":
			_, _ = exactCtx.Add(r, x, y)
		case "-":
			_, _ = exactCtx.Sub(r, x, y)
		case "*":
			_, _ = exactCtx.Mul(r, x, y)
		case "/":
			if y.IsZero() {
				return nil, errDivByZero
			}
			return divRound(x, y, divScale(x, y)), nil
		case "%":
			if y.IsZero() {
				return nil, errDivByZero
			}
			return numericMod(x, y), nil
		}
		return types.NormalizeNumeric(r), nil
	}
}

// numericSpecial computes op when an input is NaN or infinite, following
// IEEE float semantics as Postgres 14+ does for numeric infinities.
func numericSpecial(op string, x, y *apd.Decimal) (types.Datum, error) {
	fx, fy := numericToFloat(x), numericToFloat(y)
	var r float64
	switch op {
	case "+":
		r = fx + fy
	case "-":
		r = fx - fy
	case "*":
		r = fx * fy
	case "/":
		if fy == 0 && !math.IsNaN(fx) {
			return nil, errDivByZero
		}
		r = fx / fy
	case "%":
		if fy == 0 && !math.IsNaN(fx) {
			return nil, errDivByZero
		}
		if math.IsInf(fy, 0) && y.Form == apd.Infinite && x.Form == apd.Finite {
			return x, nil
		}
		r = math.NaN()
	}
	return floatToSpecialNumeric(r), nil
}

func floatToSpecialNumeric(f float64) *apd.Decimal {
	switch {
	case math.IsNaN(f):
		return &apd.Decimal{Form: apd.NaN}
	case math.IsInf(f, 0):
		return &apd.Decimal{Form: apd.Infinite, Negative: f < 0}
	}
	return apd.New(0, 0)
}

// nbaseLead returns the weight (power of 10000) and leading base-10000
// digit of a finite numeric, as Postgres stores it; 0, 0 for zero.
func nbaseLead(d *apd.Decimal) (weight int, first int) {
	if d.IsZero() {
		return 0, 0
	}
	coeff := d.Coeff.String()
	adj := int(d.Exponent) + len(coeff) - 1
	weight = int(floorDivInt(int64(adj), decDigits))
	n := adj - weight*decDigits + 1
	for i := 0; i < n; i++ {
		first *= 10
		if i < len(coeff) {
			first += int(coeff[i] - '0')
		}
	}
	return weight, first
}

// divScale is Postgres's select_div_scale: enough scale for 16
// significant digits, and no less than either input's scale.
func divScale(x, y *apd.Decimal) int {
	w1, f1 := nbaseLead(x)
	w2, f2 := nbaseLead(y)
	qweight := w1 - w2
	if f1 <= f2 {
		qweight--
	}
	rscale := minSigDigits - qweight*decDigits
	rscale = max(rscale, types.NumericScale(x), types.NumericScale(y), 0)
	return min(rscale, maxDisplayScale)
}

// divRound returns x / y rounded half away from zero to scale digits.
func divRound(x, y *apd.Decimal, scale int) *apd.Decimal {
	num := new(apd.BigInt).Set(&x.Coeff)
	den := new(apd.BigInt).Set(&y.Coeff)
	shift := int64(x.Exponent) - int64(y.Exponent) + int64(scale)
	if shift >= 0 {
		num.Mul(num, pow10(shift))
	} else {
		den.Mul(den, pow10(-shift))
	}
	q, rem := new(apd.BigInt), new(apd.BigInt)
	q.QuoRem(num, den, rem)
	rem.Mul(rem, apd.NewBigInt(2))
	if rem.Cmp(den) >= 0 {
		q.Add(q, apd.NewBigInt(1))
	}
	r := apd.NewWithBigInt(q, int32(-scale))
	r.Negative = x.Negative != y.Negative
	return types.NormalizeNumeric(r)
}

// numericMod is x - trunc(x/y)*y, exactly, with the sign of x.
func numericMod(x, y *apd.Decimal) *apd.Decimal {
	e := min(x.Exponent, y.Exponent)
	a := new(apd.BigInt).Mul(&x.Coeff, pow10(int64(x.Exponent-e)))
	b := new(apd.BigInt).Mul(&y.Coeff, pow10(int64(y.Exponent-e)))
	r := apd.NewWithBigInt(new(apd.BigInt).Rem(a, b), e)
	r.Negative = x.Negative
	return types.NormalizeNumeric(r)
}

func pow10(n int64) *apd.BigInt {
	return new(apd.BigInt).Exp(apd.NewBigInt(10), apd.NewBigInt(n), nil)
}

func floorDivInt(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// numericNeg returns -d.
func numericNeg(v types.Datum) types.Datum {
	d := v.(*apd.Decimal)
	if d.Form == apd.NaN {
		return d
	}
	r := new(apd.Decimal).Neg(d)
	return types.NormalizeNumeric(r)
}

// log10Abs estimates log10(|d|) of a finite non-zero numeric.
func log10Abs(d *apd.Decimal) float64 {
	coeff := d.Coeff.String()
	lead := coeff
	if len(lead) > 17 {
		lead = lead[:17]
	}
	f := 0.0
	for _, c := range lead {
		f = f*10 + float64(c-'0')
	}
	return math.Log10(f) + float64(int(d.Exponent)+len(coeff)-len(lead))
}

var errNumericOverflow = pgerr.New(pgerr.NumericOutOfRange, "value overflows numeric format")

// numericPow is numeric ^ numeric (power_var): the result has at least 16
// significant digits and no less scale than either input.
func numericPow(a []types.Datum) (types.Datum, error) {
	x, y := a[0].(*apd.Decimal), a[1].(*apd.Decimal)
	if x.Form != apd.Finite || y.Form != apd.Finite {
		return floatToNumericOrSpecial(math.Pow(numericToFloat(x), numericToFloat(y)), x, y), nil
	}
	isInt := isIntegral(y)
	switch {
	case x.IsZero() && y.Negative:
		return nil, pgerr.New(codeInvalidPower, "zero raised to a negative power is undefined")
	case x.Negative && !isInt:
		return nil, pgerr.New(codeInvalidPower, "a negative number raised to a non-integer power yields a complex result")
	case y.IsZero():
		return types.RoundNumeric(apd.New(1, 0), powScale(0, x, y)), nil
	case x.IsZero():
		return types.RoundNumeric(apd.New(0, 0), powScale(0, x, y)), nil
	}
	f := numericToFloat(y) * log10Abs(x)
	if f > 131072 {
		return nil, errNumericOverflow
	}
	rscale := powScale(f, x, y)
	if isInt && math.Abs(numericToFloat(y)) <= math.MaxInt32 {
		// PostgreSQL 15's power_var takes an integer exponent's scale
		// from the base alone (16 later releases take the
		// result's weight into account, as for other exponents).
		rscale = min(max(minSigDigits, types.NumericScale(x)), maxDisplayScale)
		if f+1 < float64(-rscale) {
			return types.RoundNumeric(apd.New(0, 0), rscale), nil
		}
	}
	if f+1 < -maxDisplayScale {
		return types.RoundNumeric(apd.New(0, 0), maxDisplayScale), nil
	}
	ctx := apd.BaseContext.WithPrecision(uint32(max(f, 0)) + uint32(rscale) + 20)
	r := new(apd.Decimal)
	if _, err := ctx.Pow(r, x, y); err != nil {
		return nil, errNumericOverflow
	}
	return types.RoundNumeric(r, rscale), nil
}

// powScale is the result scale of x ^ y whose decimal weight is about f.
func powScale(f float64, x, y *apd.Decimal) int {
	rscale := minSigDigits - int(f)
	rscale = max(rscale, types.NumericScale(x), types.NumericScale(y), 0)
	return min(rscale, maxDisplayScale)
}

func floatToNumericOrSpecial(f float64, x, y *apd.Decimal) *apd.Decimal {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return floatToSpecialNumeric(f)
	}
	d, err := toNumeric(f, types.TFloat64)
	if err != nil {
		return &apd.Decimal{Form: apd.NaN}
	}
	return d
}

// isIntegral reports whether a finite numeric has no fractional part.
func isIntegral(d *apd.Decimal) bool {
	if d.Exponent >= 0 || d.IsZero() {
		return true
	}
	s := d.Coeff.String()
	frac := int(-d.Exponent)
	if frac >= len(s) {
		return false
	}
	return strings.Trim(s[len(s)-frac:], "0") == ""
}

// numericSqrt is sqrt(numeric) (sqrt_var's scale: 16 significant digits,
// no less than the input's scale).
func numericSqrt(a []types.Datum) (types.Datum, error) {
	x := a[0].(*apd.Decimal)
	if x.Form == apd.NaN || (x.Form == apd.Infinite && !x.Negative) {
		return x, nil
	}
	if x.Negative && !x.IsZero() {
		return nil, pgerr.New(codeInvalidPower, "cannot take square root of a negative number")
	}
	w, _ := nbaseLead(x)
	if x.IsZero() {
		w = 0
	}
	sweight := (w+1)*decDigits/2 - 1
	rscale := min(max(minSigDigits-sweight, types.NumericScale(x), 0), maxDisplayScale)
	ctx := apd.BaseContext.WithPrecision(uint32(max(sweight, 0)) + uint32(rscale) + 20)
	r := new(apd.Decimal)
	_, _ = ctx.Sqrt(r, x)
	return types.RoundNumeric(r, rscale), nil
}

// compareNumeric orders numerics by value: -Infinity < finite < Infinity
// < NaN, and 1.0 equals 1.00.
func compareNumeric(x, y *apd.Decimal) int {
	rx, ry := specialRank(x), specialRank(y)
	if rx != ry || rx != 1 {
		return cmpInt(int64(rx), int64(ry))
	}
	return x.Cmp(y)
}

func specialRank(d *apd.Decimal) int {
	switch d.Form {
	case apd.Finite:
		return 1
	case apd.Infinite:
		if d.Negative {
			return 0
		}
		return 2
	}
	return 3
}
