package vec

import (
	"math"
	"math/rand"
	"testing"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// The generator of time-window expressions for the projection tests:
// date, timestamp and timestamptz plus or minus interval constants (of
// microseconds, days, months, their mixes and the extremes), and
// tumble_start with sizes valid and not, as TUMBLE and HOP bind them.

// The timestamp range's first and last microseconds (4714-11-24 BC and
// 294246-12-31 23:59:59.999999).
var (
	tsFirst = int64(-2440588) * types.MicrosPerDay
	tsLast  = types.DaysFromCivil(294247, 1, 1)*types.MicrosPerDay - 1
)

// edgeTimestamps are the timestamps near the range's ends and the
// calendar's edges: just inside and just outside the range, a leap day,
// month ends, and the finite extremes of an int64 that are no timestamps.
var edgeTimestamps = []int64{
	tsFirst, tsFirst + 1, tsFirst - 1, tsLast, tsLast - 1, tsLast + 1,
	tsLast - types.MicrosPerDay, tsFirst + types.MicrosPerDay,
	types.DaysFromCivil(2024, 2, 29) * types.MicrosPerDay,
	types.DaysFromCivil(2023, 1, 31)*types.MicrosPerDay + 5,
	types.DaysFromCivil(2000, 12, 31)*types.MicrosPerDay - 1,
	types.DaysFromCivil(-1, 3, 1) * types.MicrosPerDay,
	math.MaxInt64 - 1, math.MinInt64 + 1,
}

// edgeDates are dates near the ends of the timestamp range.
var edgeDates = []types.Date{
	types.Date(tsFirst / types.MicrosPerDay), types.Date(tsFirst/types.MicrosPerDay - 1),
	types.Date(tsLast / types.MicrosPerDay), types.Date(tsLast/types.MicrosPerDay + 1),
	types.Date(types.DaysFromCivil(2024, 2, 29)), types.Date(types.DaysFromCivil(2023, 3, 31)),
}

// interval returns a random interval constant: mostly of microseconds
// alone (the windows' case), else with days or months, now and then an
// extreme.
func (g *gen) interval() types.Interval {
	us := []int64{0, 1, -1, types.MicrosPerSecond, 2 * types.MicrosPerSecond, 10 * types.MicrosPerSecond,
		types.MicrosPerHour, -types.MicrosPerDay, 3*types.MicrosPerDay + 7, math.MaxInt64, math.MinInt64,
		math.MinInt64 + 1, tsLast, -tsLast, tsLast - tsFirst}
	iv := types.Interval{Micros: us[g.pick(len(us))]}
	switch g.pick(6) {
	case 0:
		iv.Days = []int32{1, -1, 30, 366, -400, math.MaxInt32, math.MinInt32}[g.pick(7)]
	case 1:
		iv.Months = []int32{1, -1, 12, 13, -25, 1200, math.MaxInt32, math.MinInt32}[g.pick(8)]
	case 2:
		iv.Months, iv.Days = int32(g.pick(25)-12), int32(g.pick(61)-30)
	}
	return iv
}

// windowValue returns a timestamp or timestamptz expression of interval
// arithmetic or window starts.
func (g *gen) windowValue(depth int) expr.Expr {
	for {
		if e, err := g.tryWindowValue(depth); err == nil {
			return e
		}
	}
}

// timeCol returns a column whose type is id.
func (g *gen) timeCol(id types.ID) expr.Expr {
	return g.col(g.colOf(func(t types.Type) bool { return t.ID == id }))
}

func (g *gen) tryWindowValue(depth int) (expr.Expr, error) {
	id := []types.ID{types.IDTimestamp, types.IDTimestamp, types.IDTimestampTZ, types.IDDate}[g.pick(4)]
	var ts expr.Expr
	if depth <= 0 || id == types.IDDate || g.pick(3) == 0 {
		ts = g.timeCol(id)
	} else if ts = g.windowValue(depth - 1); g.pick(2) == 0 {
		ts = g.timeCol(ts.Type().ID)
	}
	iv := expr.NewConst(g.interval(), types.TInterval)
	switch g.pick(5) {
	case 0:
		if ts.Type().ID == types.IDDate {
			ts = g.timeCol(types.IDTimestamp)
		}
		if g.pick(4) == 0 { // a size that is no window size: the row evaluator's error
			return expr.Func("tumble_start", []expr.Expr{ts, iv})
		}
		size := []int64{1, types.MicrosPerSecond, 2 * types.MicrosPerSecond, 7, types.MicrosPerDay, math.MaxInt64}[g.pick(6)]
		return expr.Func("tumble_start", []expr.Expr{ts, expr.NewConst(types.Interval{Micros: size, Days: int32(g.pick(2))}, types.TInterval)})
	case 1:
		return expr.Binary("+", iv, ts)
	case 2:
		return expr.Binary("-", ts, iv)
	case 3:
		if g.pick(3) == 0 { // a NULL interval: not compiled
			return expr.Binary("+", ts, expr.NewConst(nil, types.TInterval))
		}
	}
	return expr.Binary("+", ts, iv)
}

// TestProjectionWindowShapes checks that the expressions of TUMBLE and
// HOP compile, and those that depend on the session time zone or raise
// the same error on every row do not, and that all of them evaluate as
// the row evaluator does over chunks of edge timestamps.
func TestProjectionWindowShapes(t *testing.T) {
	ts := []types.Type{types.TTimestamp, types.TTimestampTZ, types.TDate}
	rows := [][]types.Datum{{nil, nil, nil}, {types.TimestampInfinity, types.TimestampNegInfinity, types.DateInfinity},
		{types.TimestampNegInfinity, types.TimestampInfinity, types.DateNegInfinity}}
	for i, e := range edgeTimestamps {
		rows = append(rows, []types.Datum{types.Timestamp(e), types.Timestamp(edgeTimestamps[len(edgeTimestamps)-1-i]), edgeDates[i%len(edgeDates)]})
	}
	c := chunk.FromRows(ts, chunk.Insert, rows)
	defer c.Release()
	col := func(i int) expr.Expr { return expr.NewColumn(i, ts[i], "c") }
	ivl := func(months, days int32, us int64) expr.Expr {
		return expr.NewConst(types.Interval{Months: months, Days: days, Micros: us}, types.TInterval)
	}
	sec := types.MicrosPerSecond
	start := must(expr.Func("tumble_start", []expr.Expr{col(0), ivl(0, 0, 2*sec)}))
	hopStart := mustBinary(t, "-", start, ivl(0, 0, 4*sec))
	ny, err := types.LoadZone("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		e       expr.Expr
		compile bool
	}{
		{"tumble_start", start, true},
		{"HOP window_start", hopStart, true},
		{"HOP window_end", mustBinary(t, "+", hopStart, ivl(0, 0, 10*sec)), true},
		{"tumble_start of timestamptz", must(expr.Func("tumble_start", []expr.Expr{col(1), ivl(0, 1, 0)})), true},
		{"interval + timestamp", mustBinary(t, "+", ivl(0, 0, -sec), col(0)), true},
		{"timestamp + months", mustBinary(t, "+", col(0), ivl(1, 0, 0)), true},
		{"timestamp - months and days", mustBinary(t, "-", col(0), ivl(-13, 40, sec)), true},
		{"timestamp + the largest micros", mustBinary(t, "+", col(0), ivl(0, 0, math.MaxInt64)), true},
		{"date + interval", mustBinary(t, "+", col(2), ivl(0, 1, 1)), true},
		{"date - months", mustBinary(t, "-", col(2), ivl(2, 0, 0)), true},
		{"timestamptz + micros", mustBinary(t, "+", col(1), ivl(0, 0, sec)), true},
		{"timestamptz + micros in a zone", expr.WithZone(mustBinary(t, "+", col(1), ivl(0, 0, -sec)), ny), true},
		{"timestamptz + days", expr.WithZone(mustBinary(t, "+", col(1), ivl(0, 1, 0)), ny), false},
		{"timestamptz - months", mustBinary(t, "-", col(1), ivl(1, 0, 0)), false},
		{"negation overflows", mustBinary(t, "-", col(0), ivl(0, 0, math.MinInt64)), false},
		{"NULL interval", mustBinary(t, "+", col(0), expr.NewConst(nil, types.TInterval)), false},
		{"window size with months", must(expr.Func("tumble_start", []expr.Expr{col(0), ivl(1, 0, 0)})), false},
		{"window size zero", must(expr.Func("tumble_start", []expr.Expr{col(0), ivl(0, 0, 0)})), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := CompileProjection([]expr.Expr{tc.e}, ts, nil)
			if got := p.Vectorized() == 1; got != tc.compile {
				t.Fatalf("compiled %v, want %v", got, tc.compile)
			}
			checkProjection(t, []expr.Expr{tc.e}, c, false, &projStats{})
			checkProjection(t, []expr.Expr{tc.e, tc.e}, c, true, &projStats{})
		})
	}
}

// TestProjectionWindowOverflow pins the error of a window bound past the
// timestamp range: the row evaluator's SQLSTATE and message, on the first
// failing row, and a guarded expression's errors reach the sink in row
// order.
func TestProjectionWindowOverflow(t *testing.T) {
	ts := []types.Type{types.TTimestamp}
	c := chunk.FromRows(ts, chunk.Insert, [][]types.Datum{
		{types.Timestamp(0)}, {nil}, {types.Timestamp(tsLast)}, {types.TimestampInfinity}, {types.Timestamp(tsLast - 5)},
	})
	defer c.Release()
	end := mustBinary(t, "+", expr.NewColumn(0, types.TTimestamp, "ts"), expr.NewConst(types.Interval{Micros: 10}, types.TInterval))
	p := CompileProjection([]expr.Expr{end}, ts, nil)
	if p.Vectorized() != 1 {
		t.Fatal("ts + interval did not compile")
	}
	_, _, err := p.Columns(c)
	if err == nil || err.Error() != "timestamp out of range" {
		t.Fatalf("got %v, want timestamp out of range", err)
	}
	if code := pgerr.Code(err); code != pgerr.DatetimeFieldOverflow {
		t.Fatalf("SQLSTATE %s, want %s", code, pgerr.DatetimeFieldOverflow)
	}
	if _, _, ce := p.Eval(c, 0, nil); ce == nil || ce.Row != 2 {
		t.Fatalf("Eval: %+v, want the error on row 2", ce)
	}
	var sink recSink
	g := CompileProjection(expr.GuardAll([]expr.Expr{end}, &sink), ts, nil)
	defer g.Close()
	cols, _, err := g.Columns(c)
	if err != nil {
		t.Fatal(err)
	}
	defer cols[0].Release()
	if len(sink.errs) != 2 {
		t.Fatalf("sink got %q, want two errors", sink.errs)
	}
	for i, want := range []types.Datum{types.Timestamp(10), nil, nil, types.TimestampInfinity, nil} {
		if got := chunk.Value(cols[0], types.TTimestamp, i); got != want {
			t.Fatalf("row %d: got %v, want %v", i, got, want)
		}
	}
}

// TestProjectionWindowDifferential compares the window kernels with the
// row evaluator on random chunks (with the edge timestamps and dates) and
// random window expressions, some in a session time zone, some guarded.
func TestProjectionWindowDifferential(t *testing.T) {
	iters := 1500
	if testing.Short() {
		iters = 200
	}
	var st projStats
	for seed := range iters {
		g := &gen{r: rand.New(rand.NewSource(int64(seed))), edges: true}
		c := g.chunk([]int{1, 7, 64, 65, 130}[g.pick(5)])
		exprs := make([]expr.Expr, 1+g.pick(3))
		for j := range exprs {
			exprs[j] = g.zoned(g.windowValue(2))
		}
		checkProjection(t, exprs, c, g.pick(3) == 0, &st)
		c.Release()
	}
	if st.compiled < st.total/2 || st.errs < iters/50 || st.guarded < iters/50 {
		t.Fatalf("too little exercised: %+v", st)
	}
	t.Logf("%+v", st)
}
