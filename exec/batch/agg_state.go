package batch

import (
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// AggSpec is one aggregate of a HashAgg.
type AggSpec struct {
	Kind     expr.AggKind
	Arg      int // input column; -1 for count(*)
	Distinct bool
	Type     types.Type // result type
	Sep      string     // string_agg's delimiter
	// Filtered: only rows whose column FilterCol is true count (FILTER).
	Filtered  bool
	FilterCol int
	// Order is the ORDER BY of string_agg and array_agg (input columns).
	Order []SortKey
	// order are Order's keys with their types (NewHashAgg).
	order []expr.ListOrder
	// argType is the argument's type (NewHashAgg).
	argType types.Type
}

// isList reports whether the aggregate collects its inputs in a list.
func (spec *AggSpec) isList() bool {
	return spec.Kind.IsList()
}

// aggState is the running state of one aggregate in one group.
type aggState struct {
	count int64           // count, count(*)
	sum   expr.SumState   // sum, avg
	vs    expr.VarState   // the variance family
	bits  expr.BitState   // bit_and, bit_or, bit_xor
	regr  expr.RegrState  // the regression family
	val   types.Datum     // min, max
	items []expr.ListItem // string_agg, array_agg: the inputs in order
	seen  map[string]struct{}
}

// add folds one input row into the state.
func (st *aggState) add(spec *AggSpec, argType types.Type, row []types.Datum, key []byte) error {
	if spec.Filtered && row[spec.FilterCol] != true {
		return nil
	}
	if spec.Kind == expr.AggCountStar {
		st.count++
		return nil
	}
	v := row[spec.Arg]
	if spec.isList() {
		// DISTINCT, ORDER BY and NULLs are expr.ListAgg's.
		it := expr.ListItem{Value: cloneDatum(v)}
		for _, k := range spec.Order {
			it.Keys = append(it.Keys, cloneDatum(row[k.Col]))
		}
		st.items = append(st.items, it)
		return nil
	}
	if v == nil {
		return nil
	}
	if spec.Distinct && st.firstSeen(storage.AppendDatumKeyOf(key[:0], argType, v)) {
		return nil
	}
	switch spec.Kind {
	case expr.AggCount:
		st.count++
	case expr.AggSum, expr.AggAvg:
		return st.sum.Accumulate(v, argType, false)
	case expr.AggMin:
		if st.val == nil || expr.Compare(v, st.val, argType) < 0 {
			st.val = cloneDatum(v)
		}
	case expr.AggMax:
		if st.val == nil || expr.Compare(v, st.val, argType) > 0 {
			st.val = cloneDatum(v)
		}
	case expr.AggVarSamp, expr.AggVarPop, expr.AggStddevSamp, expr.AggStddevPop:
		return st.vs.Accumulate(v, argType, false)
	case expr.AggBitAnd, expr.AggBitOr, expr.AggBitXor:
		st.bits.Accumulate(v, false)
	case expr.AggCorr, expr.AggCovarPop, expr.AggCovarSamp, expr.AggRegrAvgX, expr.AggRegrAvgY, expr.AggRegrIntercept,
		expr.AggRegrR2, expr.AggRegrSlope, expr.AggRegrSXX, expr.AggRegrSXY, expr.AggRegrSYY:
		return st.regr.Accumulate(v, false)
	case expr.AggBoolAnd:
		st.val = v.(bool) && (st.val == nil || st.val.(bool))
	case expr.AggBoolOr:
		st.val = v.(bool) || st.val == true
	}
	return nil
}

// firstSeen records a DISTINCT input; it reports true for a repeat.
func (st *aggState) firstSeen(k []byte) bool {
	if st.seen == nil {
		st.seen = map[string]struct{}{}
	}
	if _, ok := st.seen[string(k)]; ok {
		return true
	}
	st.seen[string(k)] = struct{}{}
	return false
}

// result returns the aggregate's value.
func (st *aggState) result(spec *AggSpec) (types.Datum, error) {
	switch spec.Kind {
	case expr.AggCount, expr.AggCountStar:
		return st.count, nil
	case expr.AggSum:
		return st.sum.Result(false, spec.Type)
	case expr.AggAvg:
		return st.sum.Result(true, spec.Type)
	case expr.AggVarSamp, expr.AggVarPop, expr.AggStddevSamp, expr.AggStddevPop:
		return st.vs.Result(spec.Kind, spec.Type)
	case expr.AggBitAnd, expr.AggBitOr, expr.AggBitXor:
		return st.bits.Result(spec.Kind, spec.Type), nil
	case expr.AggCorr, expr.AggCovarPop, expr.AggCovarSamp, expr.AggRegrAvgX, expr.AggRegrAvgY, expr.AggRegrIntercept,
		expr.AggRegrR2, expr.AggRegrSlope, expr.AggRegrSXX, expr.AggRegrSXY, expr.AggRegrSYY:
		return st.regr.Result(spec.Kind)
	case expr.AggJSONBObjectAgg, expr.AggJSONObjectAgg:
		return expr.ObjectAgg(spec.Kind, st.items, spec.order, spec.Distinct)
	case expr.AggStringAgg, expr.AggArrayAgg, expr.AggJSONBAgg, expr.AggJSONAgg, expr.AggPercentileCont, expr.AggPercentileDisc, expr.AggMode:
		return expr.ListAgg(spec.Kind, st.items, spec.order, spec.Distinct, spec.Sep, spec.argType)
	}
	return st.val, nil
}
