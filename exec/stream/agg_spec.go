package stream

import (
	"fmt"
	"slices"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// AggCall is one aggregate of a HashAgg.
type AggCall struct {
	Kind expr.AggKind
	// Arg is the input column aggregated (ignored for count(*)).
	Arg int
	// Distinct aggregates each distinct non-NULL value once. It is
	// meaningless (and ignored) for min and max, invalid for count(*).
	Distinct bool
	// Type is the result type; the zero Type means expr.AggResultType.
	Type types.Type
	// Sep is string_agg's delimiter.
	Sep string
	// Order is the ORDER BY of string_agg and array_agg, over input
	// columns; Filtered says only rows whose column FilterCol is true
	// count (their FILTER, as array_agg keeps NULLs).
	Order     []AggOrder
	Filtered  bool
	FilterCol int
}

// AggOrder is one ORDER BY key of a list aggregate (string_agg,
// array_agg): an input column and its direction.
type AggOrder struct {
	Col        int
	Desc       bool
	NullsFirst bool
}

// isList reports whether an aggregate keeps its group's inputs as a list
// (string_agg, array_agg): its value is recomputed from them.
func isList(k expr.AggKind) bool { return k.IsList() }

// AggSpec describes a grouped (or, with no GroupBy, global) aggregation.
type AggSpec struct {
	InTypes []types.Type
	GroupBy []int
	Aggs    []AggCall
	// InputPK is the stream key of the input: the columns that identify an
	// input row. The min/max state tables store it.
	InputPK []int
	// Partial makes a HashAgg the second phase of a two-phase aggregation
	// (see LocalAgg): its input is not the rows InTypes describes but the
	// partial aggregates a LocalAgg of the same spec (Partial false) makes
	// of them, rows of PartialTypes. InTypes, GroupBy and Aggs still
	// describe the aggregation of the original rows. Only a Splittable
	// spec may be partial.
	Partial bool
	// FixedGroups are values of the GroupBy columns whose group always
	// has a row, even with no input rows, as a global aggregate's one
	// group: the empty grouping sets. The actor owning a fixed group's
	// vnode (HashAgg.SetOwned) creates it at its first barrier.
	FixedGroups [][]types.Datum
	// Watermark, when not nil, names the group column a table's watermark
	// bounds: a group below the bound can take no more rows, so its state
	// is dropped (and, with EmitOnWindowClose, its row emitted then).
	Watermark *AggWatermark
	// AppendOnly says every input row is an insert (the planner proves it:
	// a source or an APPEND ONLY table, through filters, projections and
	// inner joins). A min or max then keeps only its extreme: an insert
	// can only improve it, so its min/max input table is neither written
	// nor read (it is still allocated, so the job's state table ids do
	// not depend on this), and a new view's backfill skips the reads of
	// groups it has not written (HashAgg.start). A delete reaching such an
	// aggregate fails it rather than leave a wrong extreme.
	AppendOnly bool
}

// AggWatermark is how a HashAgg closes groups by a watermark (TUMBLE and
// HOP windows, RisingWave's and Flink's windows that close). The
// watermark of table Table bounds group column Key (a position in
// GroupBy): every row still to come has a value of it at least the least
// of Bounds, evaluated over the one-column row [the watermark]. The group
// column leads the result table's key, so the closed groups are one
// range of each vnode.
type AggWatermark struct {
	Table  uint32
	Key    int
	Bounds []expr.Expr
	// EmitOnWindowClose emits a group's row once, when it closes, and
	// nothing before (EMIT ON WINDOW CLOSE): the output is append-only.
	// Without it the groups' changes are emitted as usual and a closed
	// group's state is only dropped: its row stays in the view.
	EmitOnWindowClose bool
}

// Splittable reports whether the aggregation can run in two phases: every
// call is a count, count(*), or a sum or avg of integers, none DISTINCT.
// Their partial states are exact net changes (a count, an integer sum),
// whose merge does not depend on the order of the rows or on how they
// were split, so the two phases give the one-phase result exactly. (A
// float sum rounds differently in another order; a numeric sum's scale
// depends on when its count last returned to zero; min, max and DISTINCT
// keep per-value state.)
func (s AggSpec) Splittable() bool {
	if s.validate() != nil {
		return false
	}
	for _, c := range s.Aggs {
		if c.Distinct {
			return false
		}
		switch c.Kind {
		case expr.AggCount, expr.AggCountStar:
		case expr.AggSum, expr.AggAvg:
			if !s.InTypes[c.Arg].IsInteger() {
				return false
			}
		case expr.AggMin, expr.AggMax:
			// Over inserts only, the extreme of the partial extremes is
			// the extreme; with deletes, a partial could not say what
			// is left once its extreme goes.
			if !s.AppendOnly {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// PartialTypes are the column types of a LocalAgg's output: the group
// columns, the net change in the group's row count (int64), then per call
// its partial state, laid out as its state in the result table: the net
// change of a count (int64); of a sum or avg, the signed total of the
// values (in expr.AccType of the argument, NULL for none) and their net
// count (int64).
func (s AggSpec) PartialTypes() []types.Type {
	ts := append(s.groupTypes(), types.TInt64)
	for _, c := range s.Aggs {
		cl := aggCallLayout{AggCall: c}
		if c.Kind != expr.AggCountStar {
			cl.argType = s.InTypes[c.Arg]
		}
		ts = append(ts, cl.stateTypes()...)
	}
	return ts
}

// keyCols are the columns of a HashAgg's input chunks that hold the group
// key: GroupBy, or for a partial aggregation the leading columns.
func (s AggSpec) keyCols() []int {
	if !s.Partial {
		return s.GroupBy
	}
	cols := make([]int, len(s.GroupBy))
	for i := range cols {
		cols[i] = i
	}
	return cols
}

// NumStateTables returns how many state table ids NewHashAgg takes:
//
//	[0]                   the result table
//	then one per column   that a min or max aggregates (first-use order)
//	then one per column   that a count/sum/avg DISTINCT aggregates (first-use order)
//	then one per call     of string_agg or array_agg
func (s AggSpec) NumStateTables() int {
	return 1 + len(s.minMaxCols()) + len(s.distinctCols()) + s.listCalls()
}

// listCalls counts the calls of string_agg and array_agg.
func (s AggSpec) listCalls() int {
	n := 0
	for _, c := range s.Aggs {
		if isList(c.Kind) {
			n++
		}
	}
	return n
}

// OutTypes returns the output column types: the group columns, then one
// column per aggregate.
func (s AggSpec) OutTypes() []types.Type {
	out := s.groupTypes()
	for _, c := range s.Aggs {
		t, err := s.resultType(c)
		if err != nil {
			t = c.Type
		}
		out = append(out, t)
	}
	return out
}

func (s AggSpec) groupTypes() []types.Type {
	ts := make([]types.Type, len(s.GroupBy))
	for i, c := range s.GroupBy {
		ts[i] = s.InTypes[c]
	}
	return ts
}

func (s AggSpec) resultType(c AggCall) (types.Type, error) {
	if c.Type.ID != types.IDUnknown {
		return c.Type, nil
	}
	if c.Kind == expr.AggCount || c.Kind == expr.AggCountStar {
		return types.TInt64, nil
	}
	return expr.AggResultType(c.Kind, s.InTypes[c.Arg])
}

func isMinMax(k expr.AggKind) bool { return k == expr.AggMin || k == expr.AggMax }

// minMaxCols lists the columns aggregated by min or max, in first-use order.
func (s AggSpec) minMaxCols() []int {
	var cols []int
	for _, c := range s.Aggs {
		if isMinMax(c.Kind) && !slices.Contains(cols, c.Arg) {
			cols = append(cols, c.Arg)
		}
	}
	return cols
}

// distinctCols lists the columns aggregated by a DISTINCT count, sum or
// avg, in first-use order.
func (s AggSpec) distinctCols() []int {
	var cols []int
	for _, c := range s.Aggs {
		if c.Distinct && !isMinMax(c.Kind) && !isList(c.Kind) && c.Kind != expr.AggCountStar && !slices.Contains(cols, c.Arg) {
			cols = append(cols, c.Arg)
		}
	}
	return cols
}

// validate checks column references and kinds.
func (s AggSpec) validate() error {
	in := func(c int) bool { return c >= 0 && c < len(s.InTypes) }
	for _, c := range slices.Concat(s.GroupBy, s.InputPK) {
		if !in(c) {
			return fmt.Errorf("stream: hash agg: column %d out of range", c)
		}
	}
	if w := s.Watermark; w != nil && (w.Key < 0 || w.Key >= len(s.GroupBy) || len(w.Bounds) == 0 || len(s.FixedGroups) > 0) {
		return fmt.Errorf("stream: hash agg: a watermark on group column %d of %d", w.Key, len(s.GroupBy))
	}
	for _, k := range s.FixedGroups {
		if len(k) != len(s.GroupBy) {
			return fmt.Errorf("stream: hash agg: fixed group of %d values for %d group columns", len(k), len(s.GroupBy))
		}
	}
	for _, c := range s.Aggs {
		switch {
		case c.Kind > expr.AggJSONAgg:
			return fmt.Errorf("stream: hash agg: unknown aggregate %d", c.Kind)
		case isList(c.Kind) && len(s.InputPK) == 0:
			return fmt.Errorf("stream: hash agg: %s over an input without a stream key", c.Kind)
		case (c.Filtered || len(c.Order) > 0) && !isList(c.Kind):
			return fmt.Errorf("stream: hash agg: %s with its own FILTER or ORDER BY", c.Kind)
		case c.Filtered && !in(c.FilterCol):
			return fmt.Errorf("stream: hash agg: FILTER column %d out of range", c.FilterCol)
		case c.Kind == expr.AggCountStar && c.Distinct:
			return pgerr.New(pgerr.FeatureNotSupported, "count(DISTINCT *) is not supported")
		case c.Kind != expr.AggCountStar && !in(c.Arg):
			return fmt.Errorf("stream: hash agg: %s argument column %d out of range", c.Kind, c.Arg)
		}
		for _, o := range c.Order {
			if !in(o.Col) {
				return fmt.Errorf("stream: hash agg: ORDER BY column %d out of range", o.Col)
			}
		}
	}
	if s.Partial {
		p := s
		p.Partial = false
		if !p.Splittable() {
			return fmt.Errorf("stream: hash agg: partial aggregation of aggregates that do not split")
		}
	}
	return nil
}

// aggCallLayout is an AggCall resolved against its state layout.
type aggCallLayout struct {
	AggCall
	argType  types.Type
	stateCol int // first column of the call's state in the result row
	minMax   int // index of its min/max input table, or -1
	distinct int // index of its distinct-value table, or -1
	list     int // index of its list input table, or -1
	order    []expr.ListOrder
	// scaleCol is the column of a numeric sum's or avg's scale counts
	// (expr.ScaleCounts, as text) in the result row, or -1.
	scaleCol int
	// specialCol is the column of a numeric or float sum's or avg's
	// counts of NaN and infinite inputs (expr.SpecialCounts, as text) in
	// the result row, or -1.
	specialCol int
}

// aggLayout holds the state tables of a HashAgg. With g group columns:
//
// Result table: one row per group that has input rows (always one row for a
// global aggregate), PK and DistKey the group key:
//
//	group key (g cols) | row count int64 | per call: state columns
//
// where the state of count and count(*) is a count int64, of sum and avg an
// expr.SumState as (sum AccType(arg), count int64), and of min and max the
// current extreme (NULL when the group has no non-NULL value), of the
// variance family an expr.VarState as (n int64, sum numeric, sum of
// squares numeric, special int64), of bit_and, bit_or and bit_xor an
// expr.BitState as (n int64, bit counts text), of the regression family
// (corr, covar_pop, ..., regr_syy) an expr.RegrState as (n int64, sum of
// x numeric, sum of y numeric, sum of x^2 numeric, sum of y^2 numeric,
// sum of x*y numeric, special text): the exact sums of the finite values
// of the pairs (Y, X) counted (of the products, of the pairs where both
// are), and the counts of NaN, Infinity and -Infinity among the Xs, then
// the Ys, as "xnan,xinf,x-inf,ynan,yinf,y-inf" (NULL when all are 0);
// regr_count is a count (of non-NULL pairs). After every
// call's state come the scale counts of each sum, avg or variance of a numeric
// argument (text, expr.ScaleCounts; NULL in a row written before they
// were kept, when the sum keeps the largest scale it has seen), then the
// counts of NaN, Infinity and -Infinity inputs of each sum or avg of a
// numeric or float argument, which its sum leaves out (text,
// expr.SpecialCounts; NULL when all are 0, and in a row written before
// they were kept, whose sum includes them); they are last so that such
// rows still decode.
//
// Min/max input table, one per column aggregated by min or max: every input
// row with a non-NULL value in that column, PK all columns, DistKey the
// group key, so ScanPrefix(group key) walks a group's values in order (in
// reverse for max):
//
//	group key | value | input stream key (InputPK cols)
//
// Distinct table, one per column aggregated DISTINCT: how many input rows
// of the group hold each non-NULL value, PK (group key, value), DistKey the
// group key:
//
//	group key | value | count int64
//
// List input table, one per call of string_agg, array_agg, jsonb_agg,
// jsonb_object_agg or json_object_agg: the input rows it aggregates
// (those its FILTER keeps), PK (group key, input stream key), DistKey
// the group key, so ScanPrefix(group key) walks a group's rows in input
// key order; the call's state in the result row is its current value,
// recomputed from them for each group that changed. The value of
// jsonb_object_agg and json_object_agg is expr.ObjectPair's text[] of
// key and value (NULL where their FILTER rejects the row):
//
//	group key | input stream key (InputPK cols) | value | ORDER BY keys
type aggLayout struct {
	groupTypes []types.Type
	result     *storage.Table
	wmKey      int // the group column leading the state tables' keys (AggWatermark.Key; 0 without)
	minMaxCols []int
	minMax     []*storage.Table
	distCols   []int
	distinct   []*storage.Table
	lists      []*storage.Table
	calls      []aggCallLayout
}

func newAggLayout(s AggSpec, ids []uint32) (*aggLayout, error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	if len(ids) != s.NumStateTables() {
		return nil, fmt.Errorf("stream: hash agg needs %d state tables, got %d", s.NumStateTables(), len(ids))
	}
	l := &aggLayout{groupTypes: s.groupTypes(), minMaxCols: s.minMaxCols(), distCols: s.distinctCols()}
	if err := l.resolveCalls(s); err != nil {
		return nil, err
	}
	l.result = l.resultTable(ids[0])
	ids = ids[1:]
	for i, c := range l.minMaxCols {
		l.minMax = append(l.minMax, l.minMaxTable(ids[i], s, c))
	}
	ids = ids[len(l.minMaxCols):]
	for i, c := range l.distCols {
		l.distinct = append(l.distinct, l.distinctTable(ids[i], s.InTypes[c]))
	}
	ids = ids[len(l.distCols):]
	for i := range l.calls {
		c := &l.calls[i]
		if c.list >= 0 {
			l.lists = append(l.lists, l.listTable(ids[c.list], s, c.AggCall))
		}
	}
	if w := s.Watermark; w != nil {
		// The bounded column leads every table's key: the state of the
		// closed groups is one range of each vnode.
		l.wmKey = w.Key
		for _, t := range l.tables() {
			t.PK = append([]int{w.Key}, slices.Delete(slices.Clone(t.PK), w.Key, w.Key+1)...)
		}
	}
	return l, nil
}

// tables returns the state tables: the result table, then the min/max,
// distinct and list tables.
func (l *aggLayout) tables() []*storage.Table {
	return slices.Concat([]*storage.Table{l.result}, l.minMax, l.distinct, l.lists)
}

// resolveCalls fills l.calls: types, state columns and table indexes.
func (l *aggLayout) resolveCalls(s AggSpec) error {
	col := len(l.groupTypes) + 1
	lists := 0
	for _, c := range s.Aggs {
		t, err := s.resultType(c)
		if err != nil {
			return err
		}
		cl := aggCallLayout{AggCall: c, stateCol: col, minMax: -1, distinct: -1, list: -1, scaleCol: -1, specialCol: -1}
		cl.Type = t
		if c.Kind != expr.AggCountStar {
			cl.argType = s.InTypes[c.Arg]
		}
		if isList(c.Kind) {
			cl.list = lists
			lists++
			for _, o := range c.Order {
				cl.order = append(cl.order, expr.ListOrder{Type: s.InTypes[o.Col], Desc: o.Desc, NullsFirst: o.NullsFirst})
			}
		} else if isMinMax(c.Kind) {
			cl.minMax = slices.Index(l.minMaxCols, c.Arg)
			cl.Distinct = false
		} else if c.Distinct {
			cl.distinct = slices.Index(l.distCols, c.Arg)
		}
		col += len(cl.stateTypes())
		l.calls = append(l.calls, cl)
	}
	for i := range l.calls {
		c := &l.calls[i]
		if (c.Kind == expr.AggSum || c.Kind == expr.AggAvg || c.Kind.IsVariance()) && c.argType.ID == types.IDNumeric {
			c.scaleCol = col
			col++
		}
	}
	for i := range l.calls {
		c := &l.calls[i]
		if (c.Kind == expr.AggSum || c.Kind == expr.AggAvg) && (c.argType.ID == types.IDNumeric || c.argType.IsFloat()) {
			c.specialCol = col
			col++
		}
	}
	return nil
}

// stateTypes are the types of the call's state columns in the result row.
func (c *aggCallLayout) stateTypes() []types.Type {
	switch c.Kind {
	case expr.AggSum, expr.AggAvg:
		return []types.Type{expr.AccType(c.argType), types.TInt64}
	case expr.AggMin, expr.AggMax:
		return []types.Type{c.argType}
	case expr.AggStringAgg, expr.AggArrayAgg, expr.AggJSONBAgg, expr.AggJSONAgg, expr.AggJSONBObjectAgg, expr.AggJSONObjectAgg,
		expr.AggPercentileCont, expr.AggPercentileDisc, expr.AggMode:
		return []types.Type{c.Type}
	case expr.AggBoolAnd, expr.AggBoolOr:
		return []types.Type{types.TInt64, types.TInt64}
	case expr.AggVarSamp, expr.AggVarPop, expr.AggStddevSamp, expr.AggStddevPop:
		return []types.Type{types.TInt64, types.TNumeric, types.TNumeric, types.TInt64}
	case expr.AggBitAnd, expr.AggBitOr, expr.AggBitXor:
		return []types.Type{types.TInt64, types.TText}
	}
	if c.Kind.IsRegression() {
		return expr.RegrStateTypes
	}
	return []types.Type{types.TInt64}
}

// keyPK returns group key key (in GroupBy order) in the order the state
// tables' keys start with.
func (l *aggLayout) keyPK(key []types.Datum) []types.Datum {
	if l.wmKey == 0 {
		return key
	}
	pk := append(make([]types.Datum, 0, len(key)), key[l.wmKey])
	pk = append(pk, key[:l.wmKey]...)
	return append(pk, key[l.wmKey+1:]...)
}

func (l *aggLayout) groupKeyCols() []int {
	cols := make([]int, len(l.groupTypes))
	for i := range cols {
		cols[i] = i
	}
	return cols
}

func (l *aggLayout) resultTable(id uint32) *storage.Table {
	ts := append(slices.Clone(l.groupTypes), types.TInt64)
	for i := range l.calls {
		ts = append(ts, l.calls[i].stateTypes()...)
	}
	for i := range l.calls {
		if l.calls[i].scaleCol >= 0 {
			ts = append(ts, types.TText)
		}
	}
	for i := range l.calls {
		if l.calls[i].specialCol >= 0 {
			ts = append(ts, types.TText)
		}
	}
	return &storage.Table{ID: id, Types: ts, PK: l.groupKeyCols(), DistKey: l.groupKeyCols()}
}

func (l *aggLayout) minMaxTable(id uint32, s AggSpec, col int) *storage.Table {
	ts := append(slices.Clone(l.groupTypes), s.InTypes[col])
	for _, c := range s.InputPK {
		ts = append(ts, s.InTypes[c])
	}
	pk := make([]int, len(ts))
	for i := range pk {
		pk[i] = i
	}
	return &storage.Table{ID: id, Types: ts, PK: pk, DistKey: l.groupKeyCols()}
}

func (l *aggLayout) distinctTable(id uint32, t types.Type) *storage.Table {
	ts := append(slices.Clone(l.groupTypes), t, types.TInt64)
	pk := append(l.groupKeyCols(), len(l.groupTypes))
	return &storage.Table{ID: id, Types: ts, PK: pk, DistKey: l.groupKeyCols()}
}

func (l *aggLayout) listTable(id uint32, s AggSpec, c AggCall) *storage.Table {
	ts := slices.Clone(l.groupTypes)
	for _, p := range s.InputPK {
		ts = append(ts, s.InTypes[p])
	}
	pk := make([]int, len(ts))
	for i := range pk {
		pk[i] = i
	}
	ts = append(ts, s.InTypes[c.Arg])
	for _, o := range c.Order {
		ts = append(ts, s.InTypes[o.Col])
	}
	return &storage.Table{ID: id, Types: ts, PK: pk, DistKey: l.groupKeyCols()}
}
