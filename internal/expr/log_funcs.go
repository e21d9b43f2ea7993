package expr

import (
	"math"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// exp, ln, log, log10 and cbrt, of double precision and of numeric, as
// PostgreSQL 15 has them. A numeric result has PostgreSQL's scale: at
// least 16 significant digits, estimated from the result's decimal weight
// (numeric_exp, numeric_ln and log_var), and no less than the inputs'
// scales; it is computed with guard digits and rounded half away from
// zero, as round_var does.

const codeInvalidLog = "2201E" // invalid_argument_for_logarithm

func registerLogs() {
	register(overloads(fn1(tFloat8, tFloat8, floatExp), fn1(tNum, tNum, numericExp)), "exp")
	register(overloads(fn1(tFloat8, tFloat8, floatLog(math.Log)), fn1(tNum, tNum, numericLn)), "ln")
	register(overloads(fn1(tFloat8, tFloat8, floatLog(math.Log10)), fn1(tNum, tNum, numericLog10),
		fn2(tNum, tNum, tNum, numericLog)), "log")
	register(overloads(fn1(tFloat8, tFloat8, floatLog(math.Log10)), fn1(tNum, tNum, numericLog10)), "log10")
	register(overloads(fn1(tFloat8, tFloat8, floatFn(math.Cbrt))), "cbrt")
}

func floatExp(a []types.Datum) (types.Datum, error) {
	x := a[0].(float64)
	r := math.Exp(x)
	switch {
	case math.IsInf(r, 1) && !math.IsInf(x, 1):
		return nil, errFloatOverflow
	case r == 0 && !math.IsInf(x, -1):
		return nil, errFloatUnderflow
	}
	return r, nil
}

// floatLog is ln or log10 of a positive double precision.
func floatLog(f func(float64) float64) evalFn {
	return func(a []types.Datum) (types.Datum, error) {
		x := a[0].(float64)
		switch {
		case x == 0:
			return nil, pgerr.New(codeInvalidLog, "cannot take logarithm of zero")
		case x < 0:
			return nil, pgerr.New(codeInvalidLog, "cannot take logarithm of a negative number")
		}
		return f(x), nil
	}
}

// lnArgument checks the argument of a numeric logarithm; done is true
// with the result for NaN and Infinity.
func lnArgument(x *apd.Decimal) (r types.Datum, done bool, err error) {
	switch {
	case x.Form == apd.NaN:
		return x, true, nil
	case x.IsZero():
		return nil, true, pgerr.New(codeInvalidLog, "cannot take logarithm of zero")
	case x.Negative:
		return nil, true, pgerr.New(codeInvalidLog, "cannot take logarithm of a negative number")
	case x.Form == apd.Infinite:
		return x, true, nil
	}
	return nil, false, nil
}

func numericLn(a []types.Datum) (types.Datum, error) {
	x := a[0].(*apd.Decimal)
	if r, done, err := lnArgument(x); done {
		return r, err
	}
	rscale := logScale(minSigDigits-estimateLnDweight(x), types.NumericScale(x))
	return lnTo(x, rscale)
}

func numericLog10(a []types.Datum) (types.Datum, error) {
	return numericLog([]types.Datum{apd.New(10, 0), a[0]})
}

// numericLog is log(base, x), as log_var: ln(x) / ln(base).
func numericLog(a []types.Datum) (types.Datum, error) {
	b, x := a[0].(*apd.Decimal), a[1].(*apd.Decimal)
	for _, v := range []*apd.Decimal{b, x} {
		if r, done, err := lnArgument(v); done && err != nil {
			return r, err
		}
	}
	if b.Form != apd.Finite || x.Form != apd.Finite {
		return numericLogSpecial(b, x), nil
	}
	dweight := estimateLnDweight(x) - estimateLnDweight(b)
	rscale := logScale(minSigDigits-dweight, max(types.NumericScale(b), types.NumericScale(x)))
	ctx := lnContext(x, rscale)
	lnB, lnX := new(apd.Decimal), new(apd.Decimal)
	if _, err := ctx.Ln(lnB, b); err != nil {
		return nil, err
	}
	if _, err := ctx.Ln(lnX, x); err != nil {
		return nil, err
	}
	if lnB.IsZero() {
		return nil, pgerr.New(pgerr.DivisionByZero, "division by zero")
	}
	r := new(apd.Decimal)
	if _, err := ctx.Quo(r, lnX, lnB); err != nil {
		return nil, err
	}
	return types.RoundNumeric(r, rscale), nil
}

// numericLogSpecial is log(b, x) when either is NaN or Infinity.
func numericLogSpecial(b, x *apd.Decimal) *apd.Decimal {
	switch {
	case b.Form == apd.NaN || x.Form == apd.NaN || b.Form == apd.Infinite && x.Form == apd.Infinite:
		return &apd.Decimal{Form: apd.NaN}
	case x.Form == apd.Infinite:
		return x
	}
	return apd.New(0, 0) // log(Infinity, finite)
}

// logScale clamps a result scale to the display scales, no less than
// the inputs' scale.
func logScale(rscale, inScale int) int {
	return min(max(rscale, inScale, 0), maxDisplayScale)
}

// lnContext has the precision to compute a logarithm of x to rscale
// digits after the point, with guard digits.
func lnContext(x *apd.Decimal, rscale int) *apd.Context {
	return apd.BaseContext.WithPrecision(uint32(rscale + max(estimateLnDweight(x), 0) + 20))
}

func lnTo(x *apd.Decimal, rscale int) (types.Datum, error) {
	r := new(apd.Decimal)
	if _, err := lnContext(x, rscale).Ln(r, x); err != nil {
		return nil, err
	}
	return types.RoundNumeric(r, rscale), nil
}

// numericExp is exp(x) of numeric (numeric_exp).
func numericExp(a []types.Datum) (types.Datum, error) {
	x := a[0].(*apd.Decimal)
	switch {
	case x.Form == apd.NaN:
		return x, nil
	case x.Form == apd.Infinite && x.Negative:
		return apd.New(0, 0), nil
	case x.Form == apd.Infinite:
		return x, nil
	}
	val := numericToFloat(x) * 0.434294481903252
	val = min(max(val, -2000), 2000)
	if val > 131072 {
		return nil, errNumericOverflow
	}
	rscale := logScale(minSigDigits-int(val), types.NumericScale(x))
	ctx := apd.BaseContext.WithPrecision(uint32(rscale + max(int(val), 0) + 20))
	r := new(apd.Decimal)
	if _, err := ctx.Exp(r, x); err != nil {
		return nil, errNumericOverflow
	}
	return types.RoundNumeric(r, rscale), nil
}

// estimateLnDweight is PostgreSQL's estimate_ln_dweight: the decimal
// weight of ln(x) for a positive finite x.
func estimateLnDweight(x *apd.Decimal) int {
	if x.Negative || x.IsZero() {
		return 0
	}
	if x.Cmp(apd.New(9, -1)) >= 0 && x.Cmp(apd.New(11, -1)) <= 0 {
		y := new(apd.Decimal)
		apd.BaseContext.WithPrecision(uint32(x.NumDigits())+2).Sub(y, x, apd.New(1, 0))
		if y.IsZero() {
			return 0
		}
		y.Abs(y)
		w, first := nbaseLead(y)
		return w*decDigits + int(math.Log10(float64(first)))
	}
	w, digits, more := nbaseLead2(x)
	dweight := w * decDigits
	if more {
		dweight -= decDigits
	}
	ln := math.Log(float64(digits)) + float64(dweight)*2.302585092994046
	return int(math.Log10(math.Abs(ln)))
}

// nbaseLead2 returns the weight of x in base 10000 and its first base
// 10000 digit, or its first two as one number when it has more than one
// (more), as PostgreSQL's estimate_ln_dweight reads them.
func nbaseLead2(x *apd.Decimal) (weight, digits int, more bool) {
	coeff := strings.TrimRight(x.Coeff.String(), "0")
	trailing := len(x.Coeff.String()) - len(coeff)
	adj := int(x.Exponent) + trailing + len(coeff) - 1
	weight = int(floorDivInt(int64(adj), decDigits))
	n := adj - weight*decDigits + 1
	digitAt := func(i int) int {
		if i < len(coeff) {
			return int(coeff[i] - '0')
		}
		return 0
	}
	for i := 0; i < n; i++ {
		digits = digits*10 + digitAt(i)
	}
	if len(coeff) <= n {
		return weight, digits, false
	}
	for i := n; i < n+decDigits; i++ {
		digits = digits*10 + digitAt(i)
	}
	return weight, digits, true
}
