package expr

import (
	"fmt"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/internal/types"
)

// aggResultType implements AggResultType.
func aggResultType(k AggKind, arg types.Type) (types.Type, error) {
	switch k {
	case AggCount, AggCountStar:
		return types.TInt64, nil
	case AggStringAgg:
		if arg.ID == types.IDBytea {
			return types.TBytea, nil // string_agg(bytea, bytea)
		}
		return types.TText, nil
	case AggArrayAgg:
		if arg.ID == types.IDUnknown {
			// Both array_agg(anynonarray) and array_agg(anyarray) take it.
			return types.Type{}, functionError(k.String(), []types.Type{arg}, resolveAmbiguous)
		}
		if arg.ID == types.IDArray {
			return arg, nil // array_agg(anyarray): one more dimension
		}
		return types.ArrayOf(arg.ID), nil
	case AggVarSamp, AggVarPop, AggStddevSamp, AggStddevPop:
		return varResultType(k, arg)
	case AggJSONBAgg:
		if arg.ID == types.IDUnknown {
			return types.Type{}, errUnknownPolymorphic() // jsonb_agg(anyelement)
		}
		return types.TJSONB, nil
	case AggJSONAgg:
		if arg.ID == types.IDUnknown {
			return types.Type{}, errUnknownPolymorphic() // json_agg(anyelement)
		}
		return types.TJSON, nil
	case AggJSONBObjectAgg, AggJSONObjectAgg:
		return objectAggResultType(k, arg)
	case AggPercentileCont, AggPercentileDisc, AggMode:
		return orderedSetResultType(k, arg, false)
	case AggCorr, AggCovarPop, AggCovarSamp, AggRegrAvgX, AggRegrAvgY, AggRegrIntercept, AggRegrR2,
		AggRegrSlope, AggRegrSXX, AggRegrSXY, AggRegrSYY:
		return regrResultType(k, arg)
	case AggBitAnd, AggBitOr, AggBitXor:
		if arg.ID == types.IDUnknown { // of smallint, integer, bigint or bit
			return types.Type{}, functionError(k.String(), []types.Type{arg}, resolveAmbiguous)
		}
		if !arg.IsInteger() {
			return types.Type{}, functionError(k.String(), []types.Type{arg}, resolveNone)
		}
		return types.Type{ID: arg.ID}, nil
	case AggBoolAnd, AggBoolOr:
		if arg.ID != types.IDBool {
			return types.Type{}, functionError(k.String(), []types.Type{arg}, resolveNone)
		}
		return types.TBool, nil
	case AggMin, AggMax:
		switch arg.ID {
		case types.IDUnknown:
			return types.TText, nil
		case types.IDBool, types.IDBytea, types.IDJSON, types.IDJSONB, types.IDUUID: // PostgreSQL 15 has no min or max of them
			return types.Type{}, functionError(k.String(), []types.Type{arg}, resolveNone)
		}
		if arg.IsString() {
			return types.TText, nil // min(text), as Postgres resolves varchar
		}
		if arg.ID == types.IDCidr {
			return types.TInet, nil // min(inet), as Postgres resolves cidr
		}
		return types.Type{ID: arg.ID, Elem: arg.Elem}, nil
	}
	if arg.ID == types.IDUnknown {
		return types.Type{}, functionError(k.String(), []types.Type{arg}, resolveAmbiguous)
	}
	switch {
	case arg.ID == types.IDInterval:
		return types.TInterval, nil
	case arg.ID == types.IDFloat32 && k == AggSum:
		return types.TFloat32, nil
	case arg.IsFloat():
		return types.TFloat64, nil
	case (arg.ID == types.IDInt16 || arg.ID == types.IDInt32) && k == AggSum:
		return types.TInt64, nil
	case arg.IsNumeric():
		return types.TNumeric, nil
	}
	return types.Type{}, functionError(k.String(), []types.Type{arg}, resolveNone)
}

// accType implements AccType.
func accType(arg types.Type) types.Type {
	switch arg.ID {
	case types.IDInt16, types.IDInt32:
		return types.TInt64
	case types.IDFloat32, types.IDFloat64:
		return types.TFloat64
	case types.IDInterval:
		return types.TInterval
	}
	return types.TNumeric
}

// accumulate adds or retracts one value. Integer and numeric sums are
// exact, so retracting restores the previous sum (a numeric sum keeps the
// largest scale it has seen while any value remains, unless Scales counts
// them); float sums may drift by rounding. NaN and infinities are only
// counted (Special). When no finite value remains the sum is reset.
func (st *SumState) accumulate(v types.Datum, arg types.Type, retract bool) error {
	delta := int64(1)
	if retract {
		delta = -1
	}
	if k, ok := specialKindOf(v); ok {
		st.Special[k] += delta
		st.Count += delta
		if st.Count == st.Special.total() {
			st.Sum = nil
		}
		return nil
	}
	acc, err := toAcc(v, arg)
	if err != nil {
		return err
	}
	sum := st.Sum
	if sum == nil {
		sum = zeroAcc(acc)
	}
	if sum, err = addAcc(sum, acc, retract); err != nil {
		return err
	}
	st.Sum = sum
	st.Count += delta
	if d, ok := v.(*apd.Decimal); ok && st.Scales != nil {
		st.Scales.add(d, delta)
	}
	if st.Count == st.Special.total() {
		st.Sum = nil
	}
	return nil
}

func (st *SumState) addInt64Run(sum, n int64) error {
	if sum == 0 && n == 0 {
		return nil
	}
	acc := st.Sum
	if acc == nil {
		acc = apd.New(0, 0)
	}
	acc, err := addAcc(acc, apd.New(sum, 0), false)
	if err != nil {
		return err
	}
	st.Sum, st.Count = acc, st.Count+n
	if st.Count == 0 {
		st.Sum = nil
	}
	return nil
}

func (st *SumState) addPartial(sum types.Datum, n int64) error {
	if k, ok := specialKindOf(sum); ok {
		// A NaN or infinite partial sum (a window's running sum that a
		// frame resumes) counts as one such input.
		st.Special[k]++
		st.Count += n
		return nil
	}
	if sum != nil {
		acc := st.Sum
		if acc == nil {
			acc = zeroAcc(sum)
		}
		acc, err := addAcc(acc, sum, false)
		if err != nil {
			return err
		}
		st.Sum = acc
	}
	st.Count += n
	return nil
}

// toAcc converts an input value to the accumulation type.
func toAcc(v types.Datum, arg types.Type) (types.Datum, error) {
	switch arg.ID {
	case types.IDInt16, types.IDInt32, types.IDFloat32, types.IDFloat64, types.IDInterval, types.IDNumeric:
		return v, nil
	case types.IDInt64:
		return apd.New(v.(int64), 0), nil
	}
	return nil, fmt.Errorf("expr: cannot sum values of type %s", arg)
}

func zeroAcc(acc types.Datum) types.Datum {
	switch acc.(type) {
	case int64:
		return int64(0)
	case float64:
		return float64(0)
	case types.Interval:
		return types.Interval{}
	}
	return apd.New(0, 0)
}

// addAcc returns sum + v (sum - v when sub) in the accumulation type.
func addAcc(sum, v types.Datum, sub bool) (types.Datum, error) {
	op := "+"
	if sub {
		op = "-"
	}
	switch s := sum.(type) {
	case int64:
		r, ok := int64Op(op, s, v.(int64))
		if !ok {
			return nil, intRangeError(types.TInt64)
		}
		return r, nil
	case float64:
		if sub {
			return s - v.(float64), nil
		}
		return s + v.(float64), nil
	case types.Interval:
		return intervalAdd(s, v.(types.Interval), sub)
	}
	return numericArith(op)([]types.Datum{sum, v})
}

// result implements Result.
func (st *SumState) result(avg bool, result types.Type) (types.Datum, error) {
	if st.Count == 0 {
		return nil, nil
	}
	if v, ok := st.Special.result(result); ok {
		return v, nil // sum and avg alike
	}
	if st.Sum == nil {
		return nil, nil
	}
	sum := st.Sum
	if d, ok := sum.(*apd.Decimal); ok && st.Scales != nil {
		if sc, ok := st.Scales.maxScale(); ok {
			sum = rescale(d, sc)
		}
	}
	if !avg {
		if result.ID == types.IDFloat32 {
			return float64(float32(sum.(float64))), nil
		}
		return sum, nil
	}
	switch s := sum.(type) {
	case int64:
		return numericArith("/")([]types.Datum{apd.New(s, 0), apd.New(st.Count, 0)})
	case float64:
		return s / float64(st.Count), nil
	case types.Interval:
		return intervalScale(s, float64(st.Count), true)
	}
	return numericArith("/")([]types.Datum{sum, apd.New(st.Count, 0)})
}
