// Package window computes SQL window functions over the rows of one
// partition in window order. The batch Window executor hands it whole
// partitions; the stream OverWindow hands it the part of a partition that a
// change can affect, with the context around it and, where the part does
// not start at the partition's first row, the stored results of the row
// before it (Base), from which running results resume.
package window

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// Kind is a window function.
type Kind uint8

// The window functions.
const (
	RowNumber Kind = iota
	Rank
	DenseRank
	PercentRank
	CumeDist
	Ntile
	Lag
	Lead
	FirstValue
	LastValue
	NthValue
	Agg // an aggregate over the frame (Func.Agg)
)

var kindNames = [...]string{"row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile",
	"lag", "lead", "first_value", "last_value", "nth_value", "aggregate"}

func (k Kind) String() string { return kindNames[k] }

// KindByName returns the window function called name (lower case), other
// than an aggregate.
func KindByName(name string) (Kind, bool) {
	for i, n := range kindNames[:Agg] {
		if n == name {
			return Kind(i), true
		}
	}
	return 0, false
}

// BoundKind is where a frame starts or ends.
type BoundKind uint8

// Frame bounds.
const (
	UnboundedPreceding BoundKind = iota
	Preceding                    // N rows before
	CurrentRow                   // the row (ROWS), or its first/last peer (RANGE)
	Following                    // N rows after
	UnboundedFollowing
)

// Bound is one end of a frame.
type Bound struct {
	Kind BoundKind
	N    int64
	// Value, for an offset bound of a RANGE frame, computes the bound's
	// ORDER BY value from the row's (over the one-column row [Frame.Key's
	// value]): x - offset or x + offset, by the bound's side and the
	// order's direction. Offset is the offset as written, for display.
	Value  expr.Expr
	Offset string
}

// Frame is the rows of a partition an aggregate, first_value, last_value
// or nth_value sees for a row. Rows frames count rows; RANGE frames (Rows
// false) take only unbounded and CURRENT ROW bounds, CURRENT ROW meaning
// the row's peers (equal in the window order) too.
type Frame struct {
	Rows bool
	// Groups is a GROUPS frame: its offsets count peer groups (ORDER BY
	// values), its CURRENT ROW is the row's peer group, as in RANGE.
	Groups     bool
	Start, End Bound
	// Exclude leaves rows out of each row's frame (EXCLUDE ...).
	Exclude Exclusion
	// Key, for a RANGE frame with an offset bound, computes from the
	// window's one ORDER BY value the value the bounds compare with (a
	// cast to a type the offset's arithmetic cannot overflow, or the
	// value itself when nil); KeyType is its type.
	Key     expr.Expr
	KeyType types.Type
}

// rangeOffset reports whether the frame is RANGE with an offset bound.
func (f Frame) rangeOffset() bool {
	return !f.Rows && (f.Start.Value != nil || f.End.Value != nil)
}

// DefaultFrame is the frame of a window with no frame clause: RANGE
// BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW (every row when the window
// has no ORDER BY, all rows being peers).
var DefaultFrame = Frame{Start: Bound{Kind: UnboundedPreceding}, End: Bound{Kind: CurrentRow}}

func (b Bound) String() string {
	switch b.Kind {
	case UnboundedPreceding:
		return "UNBOUNDED PRECEDING"
	case Preceding:
		if b.Value != nil {
			return b.Offset + " PRECEDING"
		}
		return fmt.Sprintf("%d PRECEDING", b.N)
	case CurrentRow:
		return "CURRENT ROW"
	case Following:
		if b.Value != nil {
			return b.Offset + " FOLLOWING"
		}
		return fmt.Sprintf("%d FOLLOWING", b.N)
	}
	return "UNBOUNDED FOLLOWING"
}

func (f Frame) String() string {
	mode := "RANGE"
	switch {
	case f.Rows:
		mode = "ROWS"
	case f.Groups:
		mode = "GROUPS"
	}
	return fmt.Sprintf("%s BETWEEN %s AND %s%s", mode, f.Start, f.End, exclusionNames[f.Exclude])
}

// offset is the bound as a row offset (±MaxInt64 when unbounded).
func (b Bound) offset() int64 {
	switch b.Kind {
	case UnboundedPreceding:
		return math.MinInt64
	case Preceding:
		return -b.N
	case Following:
		return b.N
	case UnboundedFollowing:
		return math.MaxInt64
	}
	return 0
}

// Func is one window function.
type Func struct {
	Kind Kind
	Agg  expr.AggKind // for Agg
	// Arg is the input column of the argument (-1 for none, count(*)).
	Arg int
	// N is lag's and lead's offset, ntile's bucket count and nth_value's
	// position.
	N int64
	// Default is the input column of lag's or lead's default (-1: NULL).
	Default int
	Frame   Frame
	ArgType types.Type
	Type    types.Type // the result type
	Sep     string     // string_agg's delimiter
}

// SortKey is one ORDER BY column of a window.
type SortKey struct {
	Col        int
	Desc       bool
	NullsFirst bool
}

// Spec is a window (PARTITION BY, ORDER BY) and the functions computed
// over it.
type Spec struct {
	Partition []int
	Order     []SortKey
	InTypes   []types.Type
	Funcs     []Func
}

// Peers reports whether two rows are equal in the window order.
func (s *Spec) Peers(a, b []types.Datum) bool { return s.CompareOrder(a, b) == 0 }

// CompareOrder orders two rows of a partition by the window's ORDER BY.
func (s *Spec) CompareOrder(a, b []types.Datum) int {
	for _, k := range s.Order {
		x, y := a[k.Col], b[k.Col]
		var c int
		switch {
		case x == nil && y == nil:
			continue
		case x == nil:
			c = 1
			if k.NullsFirst {
				c = -1
			}
			return c
		case y == nil:
			c = -1
			if k.NullsFirst {
				c = 1
			}
			return c
		}
		c = expr.Compare(x, y, s.InTypes[k.Col])
		if k.Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// Reach says which rows a change at one position can affect: the Before
// rows before it and the After rows after it (ReachAll: to the partition's
// end), and how many rows of context computing them needs on each side.
// Whole: every row can change (a result depends on the partition's size).
type Reach struct {
	Before, After       int64
	CtxBefore, CtxAfter int64
	// NeedsStart: computing a row needs every row before it (a running
	// result that cannot resume from the previous row's).
	NeedsStart bool
}

// ReachAll stands for "to the end of the partition".
const ReachAll = math.MaxInt64

// Reach is the union of the functions' reaches.
func (s *Spec) Reach() Reach {
	var r Reach
	for i := range s.Funcs {
		f := s.Funcs[i].reach()
		r.Before, r.After = max(r.Before, f.Before), max(r.After, f.After)
		r.CtxBefore, r.CtxAfter = max(r.CtxBefore, f.CtxBefore), max(r.CtxAfter, f.CtxAfter)
		r.NeedsStart = r.NeedsStart || f.NeedsStart
	}
	if r.NeedsStart {
		r.Before = ReachAll
	}
	return r
}

func (f *Func) reach() Reach {
	switch f.Kind {
	case RowNumber, Rank, DenseRank:
		return Reach{After: ReachAll}
	case PercentRank, CumeDist, Ntile:
		return Reach{Before: ReachAll, After: ReachAll, NeedsStart: true}
	case Lag:
		return Reach{After: f.N + 1, CtxBefore: f.N}
	case Lead:
		return Reach{Before: f.N + 1, CtxAfter: f.N}
	}
	if f.Frame.rangeOffset() || f.Frame.groupsOffset() {
		// Which rows a value- or group-bounded frame reaches is a matter
		// of their values, not of their count: the whole partition.
		return Reach{Before: ReachAll, After: ReachAll, NeedsStart: true}
	}
	s, e := f.Frame.Start.offset(), f.Frame.End.offset()
	var r Reach
	// A row r sees the change at c when r+s <= c <= r+e: r in [c-e, c-s],
	// give or take the row the change shifts.
	switch {
	case e == math.MaxInt64:
		r.Before = ReachAll
		r.NeedsStart = true // its frame's end is the partition's
	case e > 0:
		r.Before, r.CtxAfter = e+1, e
	case e < 0:
		r.CtxBefore = -e
	}
	switch {
	case s == math.MinInt64:
		r.After = ReachAll
		r.NeedsStart = r.NeedsStart || !f.resumes()
	case s < 0:
		r.After, r.CtxBefore = -s+1, max(r.CtxBefore, -s)
	}
	if e == math.MaxInt64 {
		r.After = ReachAll
	}
	return r
}

// resumes reports whether a running result (over a frame from the
// partition's start to the current row) can resume from the previous
// row's: for the functions that fold their frame into a value of their
// own type, and last_value, which needs no frame but its end.
func (f *Func) resumes() bool {
	if f.Frame.End.Kind != CurrentRow || f.Frame.Exclude != ExcludeNoOthers {
		return false
	}
	switch f.Kind {
	case FirstValue, LastValue:
		return true
	case Agg:
		switch f.Agg {
		case expr.AggCount, expr.AggCountStar, expr.AggMin, expr.AggMax:
			return true
		case expr.AggSum:
			return f.Type.ID != types.IDFloat32 // its result is rounded
		}
	}
	return false
}

// Input is the rows Eval works over: rows of one partition in window
// order, and which of them to compute.
type Input struct {
	Rows     [][]types.Datum
	From, To int // compute Rows[From:To]; the others are context
	// AtStart: Rows[0] is the partition's first row; AtEnd: the last row
	// is its last.
	AtStart, AtEnd bool
	// Base, when not AtStart, is what Eval computed for the row just
	// before Rows[From] (Eval's output row for it, BaseCols included),
	// which must start a peer group. Running results resume from it.
	Base []types.Datum
}

// BaseCols is how many columns Eval appends to its output after the
// functions' results: the row's number and its dense rank, from which the
// next rows' resume.
const BaseCols = 2

// Eval computes the functions for in.Rows[in.From:in.To] and returns one
// row per computed row: the functions' results, then BaseCols columns.
func (s *Spec) Eval(in Input) ([][]types.Datum, error) {
	rows := in.Rows
	n := in.To - in.From
	out := make([][]types.Datum, n)
	nf := len(s.Funcs)
	for i := range out {
		out[i] = make([]types.Datum, nf+BaseCols)
	}
	// Peer groups: first[i] and last[i] are the first and last peer of
	// row i in rows.
	first, last := make([]int, len(rows)), make([]int, len(rows))
	for i := range rows {
		if i > 0 && s.Peers(rows[i-1], rows[i]) {
			first[i] = first[i-1]
		} else {
			first[i] = i
		}
	}
	for i := len(rows) - 1; i >= 0; i-- {
		if i < len(rows)-1 && s.Peers(rows[i], rows[i+1]) {
			last[i] = last[i+1]
		} else {
			last[i] = i
		}
	}
	// The row numbers and dense ranks, resumed from Base or counted from
	// the partition's start.
	var rn0, dense0 int64 // of the row before From
	start := in.From
	if in.AtStart {
		start = 0
	} else if in.Base != nil {
		rn0, _ = in.Base[nf].(int64)
		dense0, _ = in.Base[nf+1].(int64)
	}
	rn, dense := rn0, dense0
	for i := start; i < in.To; i++ {
		rn++
		if i == start || first[i] == i {
			dense++
		}
		if i >= in.From {
			out[i-in.From][nf], out[i-in.From][nf+1] = rn, dense
		}
	}
	ev := evaluator{s: s, in: in, first: first, last: last, out: out}
	for fi := range s.Funcs {
		if err := ev.eval(fi); err != nil {
			return nil, err
		}
	}
	return out, nil
}

type evaluator struct {
	s           *Spec
	in          Input
	first, last []int
	out         [][]types.Datum
	// groupOf is each row's peer group, groupStarts each group's first
	// row (computed when a GROUPS frame asks).
	groupOf, groupStarts []int
}

// rowNumber is the 1-based position of rows[i] in its partition (known
// for From..To).
func (ev *evaluator) rowNumber(i int) int64 {
	return ev.out[i-ev.in.From][len(ev.s.Funcs)].(int64)
}

func (ev *evaluator) set(i, fi int, v types.Datum) { ev.out[i-ev.in.From][fi] = v }

func (ev *evaluator) eval(fi int) error {
	f := &ev.s.Funcs[fi]
	in := ev.in
	rows := in.Rows
	nf := len(ev.s.Funcs)
	switch f.Kind {
	case RowNumber:
		for i := in.From; i < in.To; i++ {
			ev.set(i, fi, ev.rowNumber(i))
		}
	case Rank:
		for i := in.From; i < in.To; i++ {
			ev.set(i, fi, ev.rowNumber(i)-int64(i-ev.first[i]))
		}
	case DenseRank:
		for i := in.From; i < in.To; i++ {
			ev.set(i, fi, ev.out[i-in.From][nf+1])
		}
	case PercentRank, CumeDist, Ntile:
		total := int64(len(rows))
		for i := in.From; i < in.To; i++ {
			rank := ev.rowNumber(i) - int64(i-ev.first[i])
			switch f.Kind {
			case PercentRank:
				v := 0.0
				if total > 1 {
					v = float64(rank-1) / float64(total-1)
				}
				ev.set(i, fi, v)
			case CumeDist:
				ev.set(i, fi, float64(ev.last[i]+1)/float64(total))
			default:
				ev.set(i, fi, ntile(ev.rowNumber(i), total, f.N))
			}
		}
	case Lag, Lead:
		for i := in.From; i < in.To; i++ {
			j := int64(i) - f.N
			if f.Kind == Lead {
				j = int64(i) + f.N
			}
			var v types.Datum
			switch {
			case j >= 0 && j < int64(len(rows)):
				v = rows[j][f.Arg]
			case j < 0 && !in.AtStart || j >= int64(len(rows)) && !in.AtEnd:
				return fmt.Errorf("window: %s needs rows beyond its context", f.Kind)
			case f.Default >= 0:
				v = rows[i][f.Default]
			}
			ev.set(i, fi, v)
		}
	default:
		return ev.evalFrame(fi, f)
	}
	return nil
}

// ntile is the bucket of the row numbered rn (1-based) of total rows split
// into n buckets, the first total%n one row larger, as in Postgres.
func ntile(rn, total, n int64) int64 {
	per, extra := total/n, total%n
	if per == 0 {
		return rn
	}
	big := extra * (per + 1) // rows in the larger buckets
	if rn <= big {
		return (rn-1)/(per+1) + 1
	}
	return extra + (rn-big-1)/per + 1
}

// frameOf returns the frame of rows[i] as [lo, hi] indexes into rows
// (hi < lo: empty), clamped to the rows at hand. lo is -1 for a frame that
// starts at the partition's start before the rows at hand.
func (ev *evaluator) frameOf(f *Func, i int) (lo, hi int) {
	n := len(ev.in.Rows)
	pos := func(b Bound, start bool) int {
		switch b.Kind {
		case UnboundedPreceding:
			return 0
		case UnboundedFollowing:
			return n - 1
		case CurrentRow:
			if f.Frame.Rows {
				return i
			}
			if start {
				return ev.first[i]
			}
			return ev.last[i]
		}
		if b.Value != nil {
			return ev.rangeBound(f, b, i, start)
		}
		if f.Frame.Groups {
			return ev.groupsBound(b, i, start)
		}
		p := int64(i) + b.offset()
		return int(max(min(p, int64(n)), -1))
	}
	lo, hi = pos(f.Frame.Start, true), pos(f.Frame.End, false)
	return max(lo, 0), min(hi, n-1)
}

// rangeBound is the first (start) or last (!start) row of the frame of
// rows[i] bounded by b, an offset bound of a RANGE frame: the rows whose
// ORDER BY value is not before b's value for the row (start), or not
// after it (end). A row whose value is NULL has its peers as frame on
// that side, as in PostgreSQL; NULLs sort where the order puts them.
func (ev *evaluator) rangeBound(f *Func, b Bound, i int, start bool) int {
	rows, o := ev.in.Rows, ev.s.Order[0]
	x := rows[i][o.Col]
	if x == nil {
		if start {
			return ev.first[i]
		}
		return ev.last[i]
	}
	key := func(v types.Datum) types.Datum {
		if f.Frame.Key == nil || v == nil {
			return v
		}
		k, err := f.Frame.Key.Eval([]types.Datum{v})
		if err != nil {
			return nil
		}
		return k
	}
	target, err := b.Value.Eval([]types.Datum{key(x)})
	if err != nil || target == nil {
		// An offset past the type's range reaches the partition's end.
		if b.Kind == Preceding {
			return -1
		}
		return len(rows)
	}
	// cmp orders row j's value against the target in the window order.
	cmp := func(j int) int {
		v := rows[j][o.Col]
		if v == nil {
			if o.NullsFirst {
				return -1
			}
			return 1
		}
		c := expr.Compare(key(v), target, f.Frame.KeyType)
		if o.Desc {
			return -c
		}
		return c
	}
	if start {
		return sort.Search(len(rows), func(j int) bool { return cmp(j) >= 0 })
	}
	return sort.Search(len(rows), func(j int) bool { return cmp(j) > 0 }) - 1
}

// evalFrame computes an aggregate, first_value, last_value or nth_value.
func (ev *evaluator) evalFrame(fi int, f *Func) error {
	in := ev.in
	rows := in.Rows
	if f.Frame.Exclude != ExcludeNoOthers {
		return ev.evalExcluding(fi, f)
	}
	running := f.Frame.Start.Kind == UnboundedPreceding
	if running && !in.AtStart && in.Base == nil && in.From > 0 {
		return fmt.Errorf("window: %s over a running frame needs its base", f.Kind)
	}
	switch f.Kind {
	case FirstValue, LastValue, NthValue:
		for i := in.From; i < in.To; i++ {
			lo, hi := ev.frameOf(f, i)
			var v types.Datum
			switch f.Kind {
			case FirstValue:
				switch {
				case running && !in.AtStart && in.Base != nil:
					v = in.Base[fi] // the partition's first row's value
				case lo <= hi:
					v = rows[lo][f.Arg]
				}
			case LastValue:
				if lo <= hi {
					v = rows[hi][f.Arg]
				}
			default:
				if k := lo + int(f.N) - 1; lo <= hi && k <= hi {
					v = rows[k][f.Arg]
				}
			}
			ev.set(i, fi, v)
		}
		return nil
	}
	if running {
		return ev.runningAgg(fi, f)
	}
	if f.Frame.End.Kind == UnboundedFollowing {
		return ev.suffixAgg(fi, f)
	}
	for i := in.From; i < in.To; i++ {
		lo, hi := ev.frameOf(f, i)
		acc := newAcc(f)
		for j := lo; j <= hi; j++ {
			if err := acc.add(rows[j]); err != nil {
				return err
			}
		}
		v, err := acc.result()
		if err != nil {
			return err
		}
		ev.set(i, fi, v)
	}
	return nil
}

// runningAgg computes an aggregate whose frame starts at the partition's
// start: its frame only grows from row to row, so one accumulator folds
// the rows in as the frame's end passes them.
func (ev *evaluator) runningAgg(fi int, f *Func) error {
	in := ev.in
	rows := in.Rows
	acc := newAcc(f)
	next := 0 // the next row to fold in
	if !in.AtStart {
		if in.Base != nil {
			if err := acc.resume(in.Base[fi]); err != nil {
				return err
			}
		}
		next = in.From
	}
	for i := in.From; i < in.To; i++ {
		_, hi := ev.frameOf(f, i)
		for ; next <= hi; next++ {
			if err := acc.add(rows[next]); err != nil {
				return err
			}
		}
		v, err := acc.result()
		if err != nil {
			return err
		}
		ev.set(i, fi, v)
	}
	return nil
}

// suffixAgg computes an aggregate whose frame ends at the partition's
// end (the rows are all at hand): walking the rows backwards, its frame
// only grows.
func (ev *evaluator) suffixAgg(fi int, f *Func) error {
	in := ev.in
	rows := in.Rows
	acc := newAcc(f)
	next := len(rows) - 1 // the next row to fold in
	for i := in.To - 1; i >= in.From; i-- {
		lo, _ := ev.frameOf(f, i)
		for ; next >= lo; next-- {
			if err := acc.addFront(rows[next]); err != nil {
				return err
			}
		}
		v, err := acc.result()
		if err != nil {
			return err
		}
		ev.set(i, fi, v)
	}
	return nil
}

// acc is an aggregate's state over a frame.
type acc struct {
	f     *Func
	count int64
	sum   expr.SumState
	vs    expr.VarState
	bits  expr.BitState
	regr  expr.RegrState
	val   types.Datum
	vals  []types.Datum
}

func newAcc(f *Func) *acc { return &acc{f: f} }

// resume starts from the previous row's result (Func.resumes).
func (a *acc) resume(prev types.Datum) error {
	switch a.f.Agg {
	case expr.AggCount, expr.AggCountStar:
		a.count, _ = prev.(int64)
	case expr.AggSum:
		if prev != nil {
			return a.sum.AddPartial(prev, 1)
		}
	default:
		a.val = prev
	}
	return nil
}

// addFront folds in a row that comes before the rows folded so far.
func (a *acc) addFront(row []types.Datum) error {
	switch a.f.Agg {
	case expr.AggStringAgg, expr.AggArrayAgg, expr.AggJSONBAgg, expr.AggJSONAgg, expr.AggJSONBObjectAgg, expr.AggJSONObjectAgg:
		n := len(a.vals)
		if err := a.add(row); err != nil || len(a.vals) == n {
			return err
		}
		v := a.vals[n]
		copy(a.vals[1:], a.vals[:n])
		a.vals[0] = v
		return nil
	}
	return a.add(row)
}

func (a *acc) add(row []types.Datum) error {
	f := a.f
	if f.Agg == expr.AggCountStar {
		a.count++
		return nil
	}
	v := row[f.Arg]
	if f.Agg == expr.AggArrayAgg || f.Agg == expr.AggJSONBAgg || f.Agg == expr.AggJSONAgg {
		a.vals = append(a.vals, v)
		return nil
	}
	if v != nil && f.Agg.IsObjectAgg() {
		a.vals = append(a.vals, v) // a pair, NULL where FILTER rejects the row
		return nil
	}
	if v == nil {
		return nil
	}
	switch f.Agg {
	case expr.AggCount:
		a.count++
	case expr.AggSum, expr.AggAvg:
		return a.sum.Accumulate(v, f.ArgType, false)
	case expr.AggMin:
		if a.val == nil || expr.Compare(v, a.val, f.ArgType) < 0 {
			a.val = v
		}
	case expr.AggMax:
		if a.val == nil || expr.Compare(v, a.val, f.ArgType) > 0 {
			a.val = v
		}
	case expr.AggStringAgg:
		a.vals = append(a.vals, v)
	case expr.AggBoolAnd:
		a.val = v.(bool) && (a.val == nil || a.val.(bool))
	case expr.AggBoolOr:
		a.val = v.(bool) || a.val == true
	case expr.AggVarSamp, expr.AggVarPop, expr.AggStddevSamp, expr.AggStddevPop:
		return a.vs.Accumulate(v, f.ArgType, false)
	case expr.AggBitAnd, expr.AggBitOr, expr.AggBitXor:
		a.bits.Accumulate(v, false)
	case expr.AggCorr, expr.AggCovarPop, expr.AggCovarSamp, expr.AggRegrAvgX, expr.AggRegrAvgY, expr.AggRegrIntercept,
		expr.AggRegrR2, expr.AggRegrSlope, expr.AggRegrSXX, expr.AggRegrSXY, expr.AggRegrSYY:
		return a.regr.Accumulate(v, false)
	}
	return nil
}

func (a *acc) result() (types.Datum, error) {
	switch a.f.Agg {
	case expr.AggCount, expr.AggCountStar:
		return a.count, nil
	case expr.AggSum:
		return a.sum.Result(false, a.f.Type)
	case expr.AggAvg:
		return a.sum.Result(true, a.f.Type)
	case expr.AggStringAgg:
		if len(a.vals) == 0 {
			return nil, nil
		}
		var b strings.Builder
		for i, v := range a.vals {
			if i > 0 {
				b.WriteString(a.f.Sep)
			}
			b.WriteString(v.(string))
		}
		return b.String(), nil
	case expr.AggArrayAgg:
		if len(a.vals) == 0 {
			return nil, nil
		}
		return expr.ArrayFromValues(a.vals, a.f.Type.ElemType()), nil
	case expr.AggJSONBAgg:
		if len(a.vals) == 0 {
			return nil, nil
		}
		return expr.JSONBArray(a.vals, a.f.ArgType)
	case expr.AggJSONAgg:
		if len(a.vals) == 0 {
			return nil, nil
		}
		return expr.JSONArray(a.vals, a.f.ArgType), nil
	case expr.AggVarSamp, expr.AggVarPop, expr.AggStddevSamp, expr.AggStddevPop:
		return a.vs.Result(a.f.Agg, a.f.Type)
	case expr.AggBitAnd, expr.AggBitOr, expr.AggBitXor:
		return a.bits.Result(a.f.Agg, a.f.Type), nil
	case expr.AggCorr, expr.AggCovarPop, expr.AggCovarSamp, expr.AggRegrAvgX, expr.AggRegrAvgY, expr.AggRegrIntercept,
		expr.AggRegrR2, expr.AggRegrSlope, expr.AggRegrSXX, expr.AggRegrSXY, expr.AggRegrSYY:
		return a.regr.Result(a.f.Agg)
	case expr.AggJSONBObjectAgg, expr.AggJSONObjectAgg:
		return expr.ObjectFromPairs(a.f.Agg, a.vals)
	}
	return a.val, nil
}
