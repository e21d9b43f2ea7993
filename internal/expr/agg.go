package expr

import (
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// AggKind is an aggregate function.
type AggKind uint8

// The aggregates streamdb computes, in batch and incrementally.
const (
	AggCount     AggKind = iota // count(x): non-NULL inputs
	AggCountStar                // count(*)
	AggSum
	AggAvg
	AggMin
	AggMax
	// AggStringAgg and AggArrayAgg collect their inputs in input order
	// (batch queries only: they cannot be maintained incrementally).
	AggStringAgg // string_agg(x, sep)
	AggArrayAgg  // array_agg(x)
	// AggBoolAnd (bool_and, every) and AggBoolOr (bool_or): whether all
	// or any of the non-NULL boolean inputs are true.
	AggBoolAnd
	AggBoolOr
	// The variance family (VarState): sample and population variance and
	// standard deviation; variance is var_samp, stddev stddev_samp.
	AggVarSamp
	AggVarPop
	AggStddevSamp
	AggStddevPop
	// AggJSONBAgg is jsonb_agg: array_agg's list as a jsonb array.
	AggJSONBAgg
	// The bitwise aggregates over integers (BitState).
	AggBitAnd
	AggBitOr
	AggBitXor
	// The regression family over pairs (Y, X) of double precision
	// (RegrState). The argument is RegrPair's float8[] [Y, X], NULL when
	// Y or X is: such rows are skipped. regr_count is count of that pair.
	AggCorr
	AggCovarPop
	AggCovarSamp
	AggRegrAvgX
	AggRegrAvgY
	AggRegrIntercept
	AggRegrR2
	AggRegrSlope
	AggRegrSXX
	AggRegrSXY
	AggRegrSYY
	// jsonb_object_agg and json_object_agg (ObjectAgg): list aggregates
	// of ObjectPair's (key, value) pairs.
	AggJSONBObjectAgg
	AggJSONObjectAgg
	// The ordered-set aggregates (agg_ordered.go): list aggregates of
	// their WITHIN GROUP key, whose direct argument (the fraction) the
	// call's Sep holds as text.
	AggPercentileCont
	AggPercentileDisc
	AggMode
	// AggJSONAgg is json_agg: array_agg's list as a json array, as
	// PostgreSQL prints it (see JSONArray).
	AggJSONAgg
)

// AggByName returns the aggregate called name (lower case).
func AggByName(name string) (AggKind, bool) {
	switch name {
	case "count":
		return AggCount, true
	case "sum":
		return AggSum, true
	case "avg":
		return AggAvg, true
	case "min":
		return AggMin, true
	case "max":
		return AggMax, true
	case "string_agg":
		return AggStringAgg, true
	case "array_agg":
		return AggArrayAgg, true
	case "bool_and", "every":
		return AggBoolAnd, true
	case "bool_or":
		return AggBoolOr, true
	case "var_samp", "variance":
		return AggVarSamp, true
	case "var_pop":
		return AggVarPop, true
	case "stddev_samp", "stddev":
		return AggStddevSamp, true
	case "stddev_pop":
		return AggStddevPop, true
	case "jsonb_agg":
		return AggJSONBAgg, true
	case "json_agg":
		return AggJSONAgg, true
	case "bit_and":
		return AggBitAnd, true
	case "bit_or":
		return AggBitOr, true
	case "bit_xor":
		return AggBitXor, true
	case "regr_count":
		return AggCount, true // of RegrPair(Y, X)
	case "jsonb_object_agg":
		return AggJSONBObjectAgg, true
	case "json_object_agg":
		return AggJSONObjectAgg, true
	case "percentile_cont":
		return AggPercentileCont, true
	case "percentile_disc":
		return AggPercentileDisc, true
	case "mode":
		return AggMode, true
	}
	if k, ok := regrByName[name]; ok {
		return k, true
	}
	return 0, false
}

func (k AggKind) String() string {
	return [...]string{"count", "count(*)", "sum", "avg", "min", "max", "string_agg", "array_agg", "bool_and", "bool_or",
		"var_samp", "var_pop", "stddev_samp", "stddev_pop", "jsonb_agg",
		"bit_and", "bit_or", "bit_xor",
		"corr", "covar_pop", "covar_samp", "regr_avgx", "regr_avgy", "regr_intercept", "regr_r2", "regr_slope",
		"regr_sxx", "regr_sxy", "regr_syy", "jsonb_object_agg", "json_object_agg",
		"percentile_cont", "percentile_disc", "mode", "json_agg"}[k]
}

// AggResultType is the type of agg(arg) as Postgres gives it: count is
// bigint; sum of smallint/integer is bigint, of bigint and numeric numeric,
// of real real, of double double; avg of integers and numeric is numeric,
// of floats double; min/max the argument's type.
func AggResultType(k AggKind, arg types.Type) (types.Type, error) { return aggResultType(k, arg) }

// AggUnknownArg is the type PostgreSQL's function resolution gives an
// unknown-typed argument (a string literal or NULL) of aggregate k: its
// only candidate's (bool_and, the variance family, percentile_cont), or
// text where the candidates include text (count, min, max, string_agg).
// ok is false where resolution fails: AggResultType of the unknown type
// then gives PostgreSQL's error, function sum(unknown) is not unique
// (sum, avg, the bitwise aggregates, array_agg) or could not determine
// polymorphic type (jsonb_agg, json_agg, mode, percentile_disc).
func AggUnknownArg(k AggKind) (t types.Type, ok bool) {
	switch {
	case k == AggCount, k == AggMin, k == AggMax, k == AggStringAgg:
		return types.TText, true
	case k == AggBoolAnd, k == AggBoolOr:
		return types.TBool, true
	case k.IsVariance(), k == AggPercentileCont:
		return types.TFloat64, true
	}
	return types.TUnknown, false
}

// AggArgCoercion is the type PostgreSQL's function resolution converts
// an argument of type arg of aggregate k to, implicitly, when k has no
// version for arg itself: sum and avg of a time are of the interval it
// converts to. ok is false where the argument stays as it is.
func AggArgCoercion(k AggKind, arg types.Type) (types.Type, bool) {
	if (k == AggSum || k == AggAvg) && arg.ID == types.IDTime {
		return types.TInterval, true
	}
	return types.Type{}, false
}

// errUnknownPolymorphic is PostgreSQL's error for a polymorphic
// (anyelement) argument of unknown type.
func errUnknownPolymorphic() error {
	return pgerr.New(pgerr.DatatypeMismatch, "could not determine polymorphic type because input has type unknown")
}

// IsList reports whether k collects its inputs in a list (ListAgg).
func (k AggKind) IsList() bool {
	return k == AggStringAgg || k == AggArrayAgg || k == AggJSONBAgg || k == AggJSONAgg || k.IsObjectAgg() || k.IsOrderedSet()
}

// IsOrderedSet reports whether k is an ordered-set aggregate
// (percentile_cont, percentile_disc, mode): a list aggregate of its
// WITHIN GROUP key (see OrderedSetAgg).
func (k AggKind) IsOrderedSet() bool { return k >= AggPercentileCont && k <= AggMode }

// IsObjectAgg reports whether k is jsonb_object_agg or json_object_agg,
// list aggregates whose value is ObjectAgg's.
func (k AggKind) IsObjectAgg() bool { return k == AggJSONBObjectAgg || k == AggJSONObjectAgg }

// IsRegression reports whether k is of the regression family (RegrState).
func (k AggKind) IsRegression() bool { return k >= AggCorr && k <= AggRegrSYY }

// IsBitwise reports whether k is bit_and, bit_or or bit_xor (BitState).
func (k AggKind) IsBitwise() bool { return k >= AggBitAnd && k <= AggBitXor }

// IsVariance reports whether k is of the variance family (VarState).
func (k AggKind) IsVariance() bool { return k >= AggVarSamp && k <= AggStddevPop }

// SumState is the retractable running state of sum and avg: the sum of the
// finite non-NULL inputs (as a Datum of AccType; nil while none is
// counted), how many non-NULL inputs there were, and how many of them are
// NaN, Infinity or -Infinity (numeric and floats), which the sum leaves
// out, as PostgreSQL's numeric accumulator does: so retracting one of them
// gives back the sum of the others, and the result is NaN, an infinity or
// the finite sum by what remains.
type SumState struct {
	Sum   types.Datum
	Count int64
	// Scales, when not nil, counts the numeric inputs by scale: the sum
	// then has the largest scale of the inputs counted, as PostgreSQL's
	// over the same inputs, however many were retracted. A view's state
	// keeps it; a batch aggregate, which never retracts, needs none.
	Scales ScaleCounts
	// Special counts the NaN and infinite inputs. (A view's state row
	// written before they were counted has none, and its Sum may itself
	// be NaN or infinite: it then stays so, as it did.)
	Special SpecialCounts
}

// AccType is the type sum/avg accumulate in for an argument type: bigint for
// smallint/integer... (numeric for bigint and numeric, double for floats).
func AccType(arg types.Type) types.Type { return accType(arg) }

// Accumulate adds (retract=false) or removes (retract=true) one non-NULL
// input value v of type arg to st.
func (st *SumState) Accumulate(v types.Datum, arg types.Type, retract bool) error {
	return st.accumulate(v, arg, retract)
}

// AddInt64Run adds to st a run of bigint argument values: n of them net
// (inserts minus retractions) whose signed total is sum. It leaves st as
// Accumulating the run's values one by one would, provided the count does
// not return to zero within the run (the caller folds a run at each such
// point): a bigint sum is exact, so only the total matters.
func (st *SumState) AddInt64Run(sum, n int64) error { return st.addInt64Run(sum, n) }

// AddPartial adds to st the net change of a set of inputs, as a two-phase
// aggregation merges the partial sums its first phase made: sum is their
// signed total in the accumulation type (NULL for zero) and n the net
// count of their values (inserts minus retractions). Only exact sums (of
// integers) may be merged so: their result does not depend on the order
// the values came in. Unlike Accumulate it does not reset the sum when the
// count returns to zero: partial states of different inputs may come in
// any order, so a zero count may be a passing one (the sum of the values
// of a consistent stream is then zero anyway), and the merged state is
// the exact total of all the changes.
func (st *SumState) AddPartial(sum types.Datum, n int64) error {
	return st.addPartial(sum, n)
}

// Result is the value of sum (avg=false) or avg over the state; NULL when
// Count is 0. result is the aggregate's result type.
func (st *SumState) Result(avg bool, result types.Type) (types.Datum, error) {
	return st.result(avg, result)
}
