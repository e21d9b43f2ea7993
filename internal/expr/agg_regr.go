package expr

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/types"
)

// The regression family (corr, covar_pop, covar_samp, regr_avgx,
// regr_avgy, regr_intercept, regr_r2, regr_slope, regr_sxx, regr_sxy,
// regr_syy, and regr_count) aggregates pairs (Y, X) of double precision.
// An aggregate call has one argument column, so the binder packs the two
// arguments into one value with RegrPair, and RegrState reads them back.

// regrPairType is the type of RegrPair's value: float8[] [Y, X].
var regrPairType = types.ArrayOf(types.IDFloat64)

// regrByName maps the names of the regression family to their kinds.
var regrByName = func() map[string]AggKind {
	m := map[string]AggKind{}
	for k := AggCorr; k <= AggRegrSYY; k++ {
		m[k.String()] = k
	}
	return m
}()

// RegrPair is the argument of aggregate name (of the regression family)
// over y and x: the float8[] [Y, X], NULL when either is NULL, so that
// the aggregate skips the row as PostgreSQL's strict transition function
// does. y and x are cast to double precision, PostgreSQL's only
// signature; another type is "function name(...) does not exist".
func RegrPair(name string, y, x Expr) (Expr, error) {
	args := []Expr{y, x}
	for i, a := range args {
		if !implicitCast(a.Type().ID, types.IDFloat64) {
			return nil, functionError(name, []types.Type{y.Type(), x.Type()}, resolveNone)
		}
		c, err := coerce(a, types.TFloat64)
		if err != nil {
			return nil, err
		}
		args[i] = c
	}
	return &call{name: "regr_pair", style: styleFunc, args: args, typ: regrPairType,
		fn: func(v []types.Datum) (types.Datum, error) {
			return types.FormatArray(v, types.TFloat64), nil
		}}, nil
}

// regrResultType is the type of k(pair): regr_pair's float8[] only.
func regrResultType(k AggKind, arg types.Type) (types.Type, error) {
	if arg != regrPairType {
		return types.Type{}, functionError(k.String(), []types.Type{arg}, resolveNone)
	}
	return types.TFloat64, nil
}

// The special inputs a RegrState counts, per variable.
const (
	regrNaN = iota
	regrPosInf
	regrNegInf
	regrSpecialKinds
)

// RegrState is the retractable state of the regression family: how many
// pairs (N), the exact sums of the finite Ys and of the finite Xs (Sy,
// Sx), of their squares (Syy, Sxx), and of the products of the pairs
// where both are finite (Sxy), and how many Xs (SpecialX) and Ys
// (SpecialY) are NaN, Infinity or -Infinity. A float counts as the
// decimal it prints as. Being exact, a retraction restores the previous
// state, so a view and its query compute the same values; a nil sum is 0.
type RegrState struct {
	N                     int64
	Sx, Sy, Sxx, Syy, Sxy *apd.Decimal
	SpecialX, SpecialY    [regrSpecialKinds]int64
}

// Accumulate adds (retract false) or removes one non-NULL pair v, a
// RegrPair value.
func (st *RegrState) Accumulate(v types.Datum, retract bool) error {
	y, x, err := regrPairValues(v)
	if err != nil {
		return err
	}
	delta := int64(1)
	if retract {
		delta = -1
	}
	dy, err := regrInput(y, &st.SpecialY, delta)
	if err != nil {
		return err
	}
	dx, err := regrInput(x, &st.SpecialX, delta)
	if err != nil {
		return err
	}
	st.N += delta
	if st.N == 0 {
		*st = RegrState{} // exactly the state of no input
		return nil
	}
	if dy != nil {
		if err := regrAdd(&st.Sy, &st.Syy, dy, dy, retract); err != nil {
			return err
		}
	}
	if dx != nil {
		if err := regrAdd(&st.Sx, &st.Sxx, dx, dx, retract); err != nil {
			return err
		}
	}
	if dx != nil && dy != nil {
		return regrAdd(nil, &st.Sxy, dx, dy, retract)
	}
	return nil
}

// regrPairValues reads a RegrPair value.
func regrPairValues(v types.Datum) (y, x float64, err error) {
	s, ok := v.(string)
	if !ok {
		return 0, 0, fmt.Errorf("expr: regression aggregate of %T, not a pair", v)
	}
	vals, err := types.ParseArray(s, types.TFloat64)
	if err != nil {
		return 0, 0, err
	}
	if len(vals) != 2 {
		return 0, 0, fmt.Errorf("expr: regression aggregate of %q, not a pair", s)
	}
	y, ok1 := vals[0].(float64)
	x, ok2 := vals[1].(float64)
	if !ok1 || !ok2 {
		return 0, 0, fmt.Errorf("expr: regression aggregate of %q, not a pair", s)
	}
	return y, x, nil
}

// regrInput is f as an exact decimal, or nil for NaN and infinities,
// which it counts in special instead.
func regrInput(f float64, special *[regrSpecialKinds]int64, delta int64) (*apd.Decimal, error) {
	switch {
	case math.IsNaN(f):
		special[regrNaN] += delta
	case math.IsInf(f, 1):
		special[regrPosInf] += delta
	case math.IsInf(f, -1):
		special[regrNegInf] += delta
	default:
		d := new(apd.Decimal)
		_, err := d.SetFloat64(f)
		return d, err
	}
	return nil, nil
}

// regrAdd adds a to *sum (when sum is not nil) and a*b to *prod, or
// subtracts them, exactly; the results are reduced (no trailing zeros),
// so that equal states have equal decimals.
func regrAdd(sum, prod **apd.Decimal, a, b *apd.Decimal, retract bool) error {
	op := varCtx.Add
	if retract {
		op = varCtx.Sub
	}
	if sum != nil {
		r, err := regrOp(op, *sum, a)
		if err != nil {
			return err
		}
		*sum = r
	}
	var ab apd.Decimal
	if _, err := varCtx.Mul(&ab, a, b); err != nil {
		return err
	}
	r, err := regrOp(op, *prod, &ab)
	if err != nil {
		return err
	}
	*prod = r
	return nil
}

// regrOp is op(acc, d) reduced, acc nil counting as 0.
func regrOp(op func(d, x, y *apd.Decimal) (apd.Condition, error), acc, d *apd.Decimal) (*apd.Decimal, error) {
	r := new(apd.Decimal)
	if acc == nil {
		acc = r // 0
	}
	if _, err := op(r, acc, d); err != nil {
		return nil, err
	}
	r.Reduce(r)
	return r, nil
}

// Result is the value of aggregate k (of the regression family but
// regr_count) over the state: PostgreSQL's final function (float8_corr,
// float8_covar_pop, float8_regr_slope, ...) applied, in double precision
// as PostgreSQL does, to the state's N, Sx, Sy and Youngs-Cramer sums
// Sxx = sum((x - avg(x))^2), Syy, Sxy, each the exact value rounded once
// where PostgreSQL accumulates rounding errors (its results may differ
// in the last bits). A NaN or infinite input makes the sums it enters
// NaN, and Sx or Sy the float sum of the inputs, as in PostgreSQL. So
// the result is NULL over no pair (and one, for covar_samp); NULL for
// corr when Sxx or Syy is 0, for regr_r2, regr_slope and regr_intercept
// when Sxx is 0 (a vertical line); regr_r2 is 1 when Syy is 0 (a
// horizontal line); and an intermediate product past double precision's
// range is infinite or 0, as PostgreSQL's.
func (st *RegrState) Result(k AggKind) (types.Datum, error) {
	if st.N == 0 || k == AggCovarSamp && st.N == 1 {
		return nil, nil
	}
	s, err := st.floatSums()
	if err != nil {
		return nil, err
	}
	n := float64(st.N)
	switch k {
	case AggRegrSXX:
		return s.xx, nil
	case AggRegrSYY:
		return s.yy, nil
	case AggRegrSXY:
		return s.xy, nil
	case AggRegrAvgX:
		return s.x / n, nil
	case AggRegrAvgY:
		return s.y / n, nil
	case AggCovarPop:
		return s.xy / n, nil
	case AggCovarSamp:
		return s.xy / (n - 1), nil
	}
	// Per the SQL standard, NULL for a vertical line (and for corr a
	// horizontal one).
	if s.xx == 0 || k == AggCorr && s.yy == 0 {
		return nil, nil
	}
	switch k {
	case AggCorr:
		return s.xy / math.Sqrt(s.xx*s.yy), nil
	case AggRegrR2:
		if s.yy == 0 {
			return float64(1), nil
		}
		return (s.xy * s.xy) / (s.xx * s.yy), nil
	case AggRegrSlope:
		return s.xy / s.xx, nil
	case AggRegrIntercept:
		return (s.y - s.x*s.xy/s.xx) / n, nil
	}
	return nil, fmt.Errorf("expr: %s is not of the regression family", k)
}

// regrFloats are PostgreSQL's transition values of the regression
// family (but N): Sx, Sy, Sxx, Syy, Sxy.
type regrFloats struct{ x, y, xx, yy, xy float64 }

// floatSums computes the state's regrFloats.
func (st *RegrState) floatSums() (regrFloats, error) {
	nan := math.NaN()
	s := regrFloats{x: specialSum(&st.SpecialX), y: specialSum(&st.SpecialY), xx: nan, yy: nan, xy: nan}
	xSpecial, ySpecial := hasSpecial(&st.SpecialX), hasSpecial(&st.SpecialY)
	n := apd.New(st.N, 0)
	var err error
	if !xSpecial {
		if s.x, err = regrFloat(orZero(st.Sx), decimalOne); err == nil {
			s.xx, err = centered(st.Sxx, st.Sx, st.Sx, n)
		}
	}
	if !ySpecial && err == nil {
		if s.y, err = regrFloat(orZero(st.Sy), decimalOne); err == nil {
			s.yy, err = centered(st.Syy, st.Sy, st.Sy, n)
		}
	}
	if !xSpecial && !ySpecial && err == nil {
		s.xy, err = centered(st.Sxy, st.Sx, st.Sy, n)
	}
	return s, err
}

// centered is (n*sumProd - a*b) / n as a double: PostgreSQL's Sxx
// (sumProd the sum of the squares of x, a and b the sum of x), Syy or
// Sxy.
func centered(sumProd, a, b, n *apd.Decimal) (float64, error) {
	var q, ab apd.Decimal
	if _, err := varCtx.Mul(&q, n, orZero(sumProd)); err != nil {
		return 0, err
	}
	if _, err := varCtx.Mul(&ab, orZero(a), orZero(b)); err != nil {
		return 0, err
	}
	if _, err := varCtx.Sub(&q, &q, &ab); err != nil {
		return 0, err
	}
	return regrFloat(&q, n)
}

// regrQuoCtx rounds a quotient to far more digits than a double holds,
// so that converting it to one rounds once in effect.
var regrQuoCtx = apd.BaseContext.WithPrecision(40)

// regrFloat is num / den rounded to a double (past its range, infinite).
func regrFloat(num, den *apd.Decimal) (float64, error) {
	var q apd.Decimal
	if _, err := regrQuoCtx.Quo(&q, num, den); err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(q.String(), 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0, err
	}
	return f, nil
}

// specialSum is the float sum of a variable's inputs when NaN or
// infinities are among them: NaN for a NaN or both infinities, else the
// infinity; 0 when there are none.
func specialSum(special *[regrSpecialKinds]int64) float64 {
	switch {
	case special[regrNaN] > 0 || special[regrPosInf] > 0 && special[regrNegInf] > 0:
		return math.NaN()
	case special[regrPosInf] > 0:
		return math.Inf(1)
	case special[regrNegInf] > 0:
		return math.Inf(-1)
	}
	return 0
}

func hasSpecial(s *[regrSpecialKinds]int64) bool { return s[0] != 0 || s[1] != 0 || s[2] != 0 }

var decimalZero, decimalOne = apd.New(0, 0), apd.New(1, 0)

// orZero is d, or 0 for nil.
func orZero(d *apd.Decimal) *apd.Decimal {
	if d == nil {
		return decimalZero
	}
	return d
}

// RegrStateTypes are the types of a RegrState's columns in a view's
// state (StateColumns): N, Sx, Sy, Sxx, Syy, Sxy, and the counts of the
// special inputs as text (NULL when there are none).
var RegrStateTypes = []types.Type{types.TInt64, types.TNumeric, types.TNumeric, types.TNumeric,
	types.TNumeric, types.TNumeric, types.TText}

// StateColumns is the state as RegrStateTypes' columns.
func (st *RegrState) StateColumns() []types.Datum {
	var special types.Datum
	if hasSpecial(&st.SpecialX) || hasSpecial(&st.SpecialY) {
		parts := make([]string, 0, 2*regrSpecialKinds)
		for _, n := range append(st.SpecialX[:], st.SpecialY[:]...) {
			parts = append(parts, strconv.FormatInt(n, 10))
		}
		special = strings.Join(parts, ",")
	}
	return []types.Datum{st.N, orZero(st.Sx), orZero(st.Sy), orZero(st.Sxx), orZero(st.Syy), orZero(st.Sxy), special}
}

// SetStateColumns reads the state from StateColumns' columns.
func (st *RegrState) SetStateColumns(cols []types.Datum) error {
	bad := func() error { return fmt.Errorf("expr: corrupt regression state %v", cols) }
	if len(cols) != len(RegrStateTypes) {
		return bad()
	}
	n, ok := cols[0].(int64)
	if !ok {
		return bad()
	}
	*st = RegrState{N: n}
	for i, dst := range []**apd.Decimal{&st.Sx, &st.Sy, &st.Sxx, &st.Syy, &st.Sxy} {
		d, ok := cols[1+i].(*apd.Decimal)
		if !ok {
			return bad()
		}
		*dst = d
	}
	if cols[6] == nil {
		return nil
	}
	text, ok := cols[6].(string)
	parts := strings.Split(text, ",")
	if !ok || len(parts) != 2*regrSpecialKinds {
		return bad()
	}
	for i, p := range parts {
		v, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return bad()
		}
		if i < regrSpecialKinds {
			st.SpecialX[i] = v
		} else {
			st.SpecialY[i-regrSpecialKinds] = v
		}
	}
	return nil
}
