package stream

import (
	"fmt"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// aggState is the in-memory state of one aggregate call for one group; see
// aggLayout for how it is stored.
type aggState struct {
	count int64          // count, count(*)
	sum   expr.SumState  // sum, avg
	vs    expr.VarState  // the variance family
	bits  expr.BitState  // bit_and, bit_or, bit_xor
	regr  expr.RegrState // the regression family
	ext   types.Datum    // min, max: the current extreme, nil when none
	// stale (min, max) means the extreme was deleted this epoch: ext is
	// unknown until refreshed from the min/max input table; (string_agg,
	// array_agg) the group's list changed: ext, its value, is recomputed
	// from the list input table.
	stale bool
	// hits (bool_and, bool_or) counts the false inputs (bool_and) or the
	// true ones (bool_or), and count all non-NULL ones.
	hits int64
	// pend is a run of bigint values of a sum or avg not yet added to
	// sum (the columnar path adds them in int64), pendN their net count;
	// folded into sum before sum is read (foldPending).
	pend, pendN int64
}

// decodeState reads the call's state from a result-table row.
func (c *aggCallLayout) decodeState(row []types.Datum) (aggState, error) {
	v := row[c.stateCol]
	switch c.Kind {
	case expr.AggSum, expr.AggAvg:
		n, ok := row[c.stateCol+1].(int64)
		if !ok {
			return aggState{}, fmt.Errorf("stream: hash agg: corrupt %s state %v", c.Kind, row[c.stateCol+1])
		}
		st := aggState{sum: expr.SumState{Sum: v, Count: n}}
		if err := c.decodeScales(row, &st.sum.Scales); err != nil {
			return aggState{}, err
		}
		if err := c.decodeSpecial(row, &st.sum.Special); err != nil {
			return aggState{}, err
		}
		return st, nil
	case expr.AggMin, expr.AggMax, expr.AggStringAgg, expr.AggArrayAgg, expr.AggJSONBAgg, expr.AggJSONAgg,
		expr.AggJSONBObjectAgg, expr.AggJSONObjectAgg, expr.AggPercentileCont, expr.AggPercentileDisc, expr.AggMode:
		return aggState{ext: v}, nil
	case expr.AggVarSamp, expr.AggVarPop, expr.AggStddevSamp, expr.AggStddevPop:
		n, ok1 := v.(int64)
		special, ok2 := row[c.stateCol+3].(int64)
		sum, ok3 := row[c.stateCol+1].(*apd.Decimal)
		sumSq, ok4 := row[c.stateCol+2].(*apd.Decimal)
		if !ok1 || !ok2 || (ok3 != ok4) || (!ok3 && row[c.stateCol+1] != nil) {
			return aggState{}, fmt.Errorf("stream: hash agg: corrupt %s state %v", c.Kind, row[c.stateCol:c.stateCol+4])
		}
		st := aggState{vs: expr.VarState{N: n, Sum: sum, SumSq: sumSq, Special: special}}
		if err := c.decodeScales(row, &st.vs.Scales); err != nil {
			return aggState{}, err
		}
		return st, nil
	case expr.AggBitAnd, expr.AggBitOr, expr.AggBitXor:
		n, ok1 := v.(int64)
		text, ok2 := row[c.stateCol+1].(string)
		var st aggState
		st.bits.N = n
		if !ok1 || !ok2 && row[c.stateCol+1] != nil {
			return aggState{}, fmt.Errorf("stream: hash agg: corrupt %s state %v", c.Kind, row[c.stateCol:c.stateCol+2])
		}
		if err := st.bits.ParseBitCounts(text); err != nil {
			return aggState{}, fmt.Errorf("stream: hash agg: corrupt %s state: %w", c.Kind, err)
		}
		return st, nil
	case expr.AggCorr, expr.AggCovarPop, expr.AggCovarSamp, expr.AggRegrAvgX, expr.AggRegrAvgY, expr.AggRegrIntercept,
		expr.AggRegrR2, expr.AggRegrSlope, expr.AggRegrSXX, expr.AggRegrSXY, expr.AggRegrSYY:
		var st aggState
		if err := st.regr.SetStateColumns(row[c.stateCol : c.stateCol+len(expr.RegrStateTypes)]); err != nil {
			return aggState{}, fmt.Errorf("stream: hash agg: %s: %w", c.Kind, err)
		}
		return st, nil
	case expr.AggBoolAnd, expr.AggBoolOr:
		n, ok1 := v.(int64)
		hits, ok2 := row[c.stateCol+1].(int64)
		if !ok1 || !ok2 {
			return aggState{}, fmt.Errorf("stream: hash agg: corrupt %s state %v, %v", c.Kind, v, row[c.stateCol+1])
		}
		return aggState{count: n, hits: hits}, nil
	}
	n, ok := v.(int64)
	if !ok {
		return aggState{}, fmt.Errorf("stream: hash agg: corrupt %s state %v", c.Kind, v)
	}
	return aggState{count: n}, nil
}

// decodeScales reads the call's scale counts, if it keeps them, into
// dst; a row written before they were kept leaves dst nil.
func (c *aggCallLayout) decodeScales(row []types.Datum, dst *expr.ScaleCounts) error {
	if c.scaleCol < 0 || c.scaleCol >= len(row) {
		return nil
	}
	text, ok := row[c.scaleCol].(string)
	if !ok {
		return nil
	}
	sc, err := expr.ParseScaleCounts(text)
	if err != nil {
		return fmt.Errorf("stream: hash agg: corrupt %s state: %w", c.Kind, err)
	}
	*dst = sc
	return nil
}

// decodeSpecial reads the call's counts of NaN and infinite inputs, if
// it keeps them, into dst; NULL (none, or a row written before they were
// kept) leaves dst zero.
func (c *aggCallLayout) decodeSpecial(row []types.Datum, dst *expr.SpecialCounts) error {
	if c.specialCol < 0 || c.specialCol >= len(row) || row[c.specialCol] == nil {
		return nil
	}
	text, ok := row[c.specialCol].(string)
	if !ok {
		return fmt.Errorf("stream: hash agg: corrupt %s state %v", c.Kind, row[c.specialCol])
	}
	sc, err := expr.ParseSpecialCounts(text)
	if err != nil {
		return fmt.Errorf("stream: hash agg: corrupt %s state: %w", c.Kind, err)
	}
	*dst = sc
	return nil
}

// appendState appends the call's state columns to a result-table row.
func (c *aggCallLayout) appendState(row []types.Datum, st *aggState) []types.Datum {
	switch c.Kind {
	case expr.AggSum, expr.AggAvg:
		return append(row, st.sum.Sum, st.sum.Count)
	case expr.AggMin, expr.AggMax, expr.AggStringAgg, expr.AggArrayAgg, expr.AggJSONBAgg, expr.AggJSONAgg,
		expr.AggJSONBObjectAgg, expr.AggJSONObjectAgg, expr.AggPercentileCont, expr.AggPercentileDisc, expr.AggMode:
		return append(row, st.ext)
	case expr.AggBoolAnd, expr.AggBoolOr:
		return append(row, st.count, st.hits)
	case expr.AggCorr, expr.AggCovarPop, expr.AggCovarSamp, expr.AggRegrAvgX, expr.AggRegrAvgY, expr.AggRegrIntercept,
		expr.AggRegrR2, expr.AggRegrSlope, expr.AggRegrSXX, expr.AggRegrSXY, expr.AggRegrSYY:
		return append(row, st.regr.StateColumns()...)
	case expr.AggBitAnd, expr.AggBitOr, expr.AggBitXor:
		return append(row, st.bits.N, st.bits.String())
	case expr.AggVarSamp, expr.AggVarPop, expr.AggStddevSamp, expr.AggStddevPop:
		var sum, sumSq types.Datum // NULL while no finite input is counted
		if st.vs.Sum != nil {
			sum, sumSq = st.vs.Sum, st.vs.SumSq
		}
		return append(row, st.vs.N, sum, sumSq, st.vs.Special)
	}
	return append(row, st.count)
}

// appendTail appends the call's columns that follow every call's state
// (see aggLayout): a numeric sum's scale counts.
func (c *aggCallLayout) appendTail(row []types.Datum, st *aggState) []types.Datum {
	if c.scaleCol < 0 {
		return row
	}
	sc := st.sum.Scales
	if c.Kind.IsVariance() {
		sc = st.vs.Scales
	}
	if sc == nil {
		return append(row, nil) // not known (a group from before they were kept)
	}
	return append(row, sc.String())
}

// appendSpecial appends the call's counts of NaN and infinite inputs,
// if it keeps them: they follow every call's scale counts (see aggLayout).
func (c *aggCallLayout) appendSpecial(row []types.Datum, st *aggState) []types.Datum {
	if c.specialCol < 0 {
		return row
	}
	if st.sum.Special.IsZero() {
		return append(row, nil)
	}
	return append(row, st.sum.Special.String())
}

// result is the aggregate's value for state st.
func (c *aggCallLayout) result(st *aggState) (types.Datum, error) {
	switch c.Kind {
	case expr.AggSum:
		return st.sum.Result(false, c.Type)
	case expr.AggAvg:
		return st.sum.Result(true, c.Type)
	case expr.AggMin, expr.AggMax, expr.AggStringAgg, expr.AggArrayAgg, expr.AggJSONBAgg, expr.AggJSONAgg,
		expr.AggJSONBObjectAgg, expr.AggJSONObjectAgg, expr.AggPercentileCont, expr.AggPercentileDisc, expr.AggMode:
		return st.ext, nil
	case expr.AggCorr, expr.AggCovarPop, expr.AggCovarSamp, expr.AggRegrAvgX, expr.AggRegrAvgY, expr.AggRegrIntercept,
		expr.AggRegrR2, expr.AggRegrSlope, expr.AggRegrSXX, expr.AggRegrSXY, expr.AggRegrSYY:
		return st.regr.Result(c.Kind)
	case expr.AggVarSamp, expr.AggVarPop, expr.AggStddevSamp, expr.AggStddevPop:
		return st.vs.Result(c.Kind, c.Type)
	case expr.AggBitAnd, expr.AggBitOr, expr.AggBitXor:
		return st.bits.Result(c.Kind, c.Type), nil
	case expr.AggBoolAnd, expr.AggBoolOr:
		if st.count == 0 {
			return nil, nil
		}
		if c.Kind == expr.AggBoolAnd {
			return st.hits == 0, nil
		}
		return st.hits > 0, nil
	}
	return st.count, nil
}

// accumulate adds (delta 1) or retracts (delta -1) the argument value v of
// a count, count(*), sum or avg. For DISTINCT calls delta is the change in
// whether v is present in the group, not the input row's sign.
func (c *aggCallLayout) accumulate(st *aggState, v types.Datum, delta int64) error {
	if delta == 0 || v == nil && c.Kind != expr.AggCountStar {
		return nil
	}
	switch c.Kind {
	case expr.AggCount, expr.AggCountStar:
		st.count += delta
		return nil
	case expr.AggBoolAnd, expr.AggBoolOr:
		st.count += delta
		if v.(bool) == (c.Kind == expr.AggBoolOr) {
			st.hits += delta
		}
		return nil
	}
	if c.Kind.IsBitwise() {
		st.bits.Accumulate(v, delta < 0)
		return nil
	}
	if c.Kind.IsRegression() {
		if err := st.regr.Accumulate(v, delta < 0); err != nil {
			return fmt.Errorf("stream: hash agg %s: %w", c.Kind, err)
		}
		return nil
	}
	if c.Kind.IsVariance() {
		if c.scaleCol >= 0 && st.vs.Scales == nil && st.vs.N == 0 {
			st.vs.Scales = expr.ScaleCounts{} // no inputs: none to count
		}
		if err := st.vs.Accumulate(v, c.argType, delta < 0); err != nil {
			return fmt.Errorf("stream: hash agg %s: %w", c.Kind, err)
		}
		return nil
	}
	if c.scaleCol >= 0 && st.sum.Scales == nil && st.sum.Count == 0 {
		st.sum.Scales = expr.ScaleCounts{} // no inputs: none to count
	}
	if err := st.sum.Accumulate(v, c.argType, delta < 0); err != nil {
		return fmt.Errorf("stream: hash agg %s: %w", c.Kind, err)
	}
	return nil
}

// updateExtreme applies an inserted (sign 1) or deleted (sign -1) value to
// a min or max. An insert better than the extreme replaces it; a delete of
// the extreme makes the state stale (another row may hold the same value,
// or the next one is only known to the input table).
func (c *aggCallLayout) updateExtreme(st *aggState, v types.Datum, sign int64) {
	if v == nil || st.stale {
		return
	}
	if sign > 0 {
		if st.ext == nil || c.better(v, st.ext) {
			st.ext = v
		}
		return
	}
	if st.ext != nil && expr.Compare(v, st.ext, c.argType) == 0 {
		st.stale = true
	}
}

// better reports whether v beats the extreme x.
func (c *aggCallLayout) better(v, x types.Datum) bool {
	cmp := expr.Compare(v, x, c.argType)
	if c.Kind == expr.AggMax {
		return cmp > 0
	}
	return cmp < 0
}
