package expr

import (
	"fmt"
	"math"
	"strconv"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/types"
)

// VarState is the retractable state of var_samp, var_pop, stddev_samp and
// stddev_pop: how many non-NULL inputs, and the exact sum of the finite
// ones and of their squares. A float input counts as the decimal it
// prints as; NaN and infinities are only counted (the result is NaN).
// Being exact, a retraction restores the previous state, so a view and
// its query compute the same value from the same inputs.
type VarState struct {
	N          int64
	Sum, SumSq *apd.Decimal // nil while no finite input is counted
	Special    int64        // NaN and infinite inputs
	// Scales counts numeric inputs by scale, as SumState.Scales: the
	// result's scale depends on the largest. Nil: the sums' scales are
	// the inputs' largest (nothing was retracted).
	Scales ScaleCounts
}

// varCtx computes the exact sums: enough precision for any product of
// two finite numerics.
var varCtx = apd.BaseContext.WithPrecision(4000)

// Accumulate adds (retract false) or removes one non-NULL input v of
// type arg.
func (st *VarState) Accumulate(v types.Datum, arg types.Type, retract bool) error {
	d, special, err := varInput(v, arg)
	if err != nil {
		return err
	}
	delta := int64(1)
	if retract {
		delta = -1
	}
	st.N += delta
	if special {
		st.Special += delta
	} else {
		if st.Sum == nil {
			st.Sum, st.SumSq = apd.New(0, 0), apd.New(0, 0)
		}
		var sq apd.Decimal
		if _, err := varCtx.Mul(&sq, d, d); err != nil {
			return err
		}
		op := varCtx.Add
		if retract {
			op = varCtx.Sub
		}
		sum, sumSq := new(apd.Decimal), new(apd.Decimal)
		if _, err := op(sum, st.Sum, d); err != nil {
			return err
		}
		if _, err := op(sumSq, st.SumSq, &sq); err != nil {
			return err
		}
		st.Sum, st.SumSq = sum, sumSq
		if st.Scales != nil && arg.ID == types.IDNumeric {
			st.Scales.add(d, delta)
		}
	}
	if st.N == st.Special {
		st.Sum, st.SumSq = nil, nil
	}
	return nil
}

// varInput is v as an exact decimal, or special for NaN and infinities.
func varInput(v types.Datum, arg types.Type) (d *apd.Decimal, special bool, err error) {
	switch x := v.(type) {
	case int64:
		return apd.New(x, 0), false, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, true, nil
		}
		d := new(apd.Decimal)
		if _, err := d.SetFloat64(x); err != nil {
			return nil, false, err
		}
		return d, false, nil
	case *apd.Decimal:
		return x, x.Form != apd.Finite, nil
	}
	return nil, false, fmt.Errorf("expr: cannot compute the variance of %s values", arg)
}

// Result is the value of aggregate k (one of AggVarSamp, AggVarPop,
// AggStddevSamp, AggStddevPop) of type result (numeric or double
// precision), as PostgreSQL computes it: NULL for no input (or one, for
// the sample forms), NaN when an input is NaN or infinite, and for
// numeric PostgreSQL's scale (numeric_stddev_internal's).
func (st *VarState) Result(k AggKind, result types.Type) (types.Datum, error) {
	sample := k == AggVarSamp || k == AggStddevSamp
	if st.N == 0 || sample && st.N == 1 {
		return nil, nil
	}
	if st.Special > 0 {
		if result.ID == types.IDNumeric {
			return &apd.Decimal{Form: apd.NaN}, nil
		}
		return math.NaN(), nil
	}
	// num = N * sum(x^2) - sum(x)^2, den = N * (N - 1) or N * N.
	n := apd.New(st.N, 0)
	var num, sq apd.Decimal
	if _, err := varCtx.Mul(&num, n, st.SumSq); err != nil {
		return nil, err
	}
	if _, err := varCtx.Mul(&sq, st.Sum, st.Sum); err != nil {
		return nil, err
	}
	if _, err := varCtx.Sub(&num, &num, &sq); err != nil {
		return nil, err
	}
	den := apd.New(st.N*(st.N-1), 0)
	if !sample {
		den = apd.New(0, 0)
		if _, err := varCtx.Mul(den, n, n); err != nil {
			return nil, err
		}
	}
	stddev := k == AggStddevSamp || k == AggStddevPop
	if result.ID != types.IDNumeric {
		if num.Sign() <= 0 {
			return float64(0), nil
		}
		var q apd.Decimal
		if _, err := apd.BaseContext.WithPrecision(40).Quo(&q, &num, den); err != nil {
			return nil, err
		}
		f, err := strconv.ParseFloat(q.String(), 64)
		if err != nil && !math.IsInf(f, 0) {
			return nil, err
		}
		// Past double precision's range the result is Infinity, in a
		// view as in a query, where PostgreSQL's float algorithm fails
		// with "value out of range: overflow".
		if stddev {
			f = math.Sqrt(f)
		}
		return f, nil
	}
	if num.Sign() <= 0 {
		return apd.New(0, 0), nil
	}
	// The numerator has twice the inputs' largest scale, as
	// PostgreSQL's (which the division's scale depends on).
	scale := int32(types.NumericScale(st.Sum))
	if st.Scales != nil {
		scale, _ = st.Scales.maxScale()
	}
	numer := rescale(&num, 2*scale)
	rscale := divScale(numer, den)
	v := divRound(numer, den, rscale)
	if !stddev {
		return v, nil
	}
	w, _ := nbaseLead(v)
	ctx := apd.BaseContext.WithPrecision(uint32(max(w*decDigits, 0)) + uint32(rscale) + 20)
	r := new(apd.Decimal)
	if _, err := ctx.Sqrt(r, v); err != nil {
		return nil, err
	}
	return types.RoundNumeric(r, rscale), nil
}

// varResultType is the type of k(arg) for the variance family: numeric
// for integers and numeric, double precision for floats.
func varResultType(k AggKind, arg types.Type) (types.Type, error) {
	switch {
	case arg.IsFloat():
		return types.TFloat64, nil
	case arg.IsInteger(), arg.ID == types.IDNumeric:
		return types.TNumeric, nil
	}
	return types.Type{}, functionError(k.String(), []types.Type{arg}, resolveNone)
}
