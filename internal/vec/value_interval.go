package vec

import (
	"math"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// Time windows and interval arithmetic: the value kernels of what TUMBLE
// and HOP bind to (window_start is tumble_start(ts, slide), less whole
// slides for a HOP; window_end is window_start + size), and of a date,
// timestamp or timestamptz plus or minus a constant interval in general.
//
// A timestamp plus an interval is expr's addInterval: months first, in
// calendar arithmetic (the day clamped to the month's last), then days,
// then microseconds, the result checked against the timestamp range
// (22008); infinities stay as they are. The kernel computes the rows of
// finite timestamps within the range and hands the others (and any row
// it finds out of range) to the row evaluator's operator, so values and
// errors are the row evaluator's. A timestamptz moves by months and days
// in the session time zone (expr.WithZone): only intervals of
// microseconds alone, which do not depend on the zone, have kernels.

// intervalConst is the value of a non-NULL interval constant.
func intervalConst(e expr.Expr) (types.Interval, bool) {
	k, ok := e.(*expr.Const)
	if !ok {
		return types.Interval{}, false
	}
	iv, ok := k.Value.(types.Interval)
	return iv, ok
}

// timeInterval compiles ts + iv, iv + ts and ts - iv, ts a date,
// timestamp or timestamptz expression and iv a non-NULL interval
// constant. A constant whose negation overflows (ts - iv) does not
// compile: the row evaluator raises the error of the negation.
func (c *compiler) timeInterval(e expr.Expr, op byte, args []expr.Expr) (valueNode, bool) {
	tsArg := 0
	if op == '+' && args[0].Type().ID == types.IDInterval {
		tsArg = 1
	}
	iv, ok := intervalConst(args[1-tsArg])
	if !ok {
		return nil, false
	}
	if op == '-' {
		if iv.Months == math.MinInt32 || iv.Days == math.MinInt32 || iv.Micros == math.MinInt64 {
			return nil, false
		}
		iv = types.Interval{Months: -iv.Months, Days: -iv.Days, Micros: -iv.Micros}
	}
	from := args[tsArg].Type().ID
	switch {
	case from == types.IDTimestampTZ && (iv.Months != 0 || iv.Days != 0):
		return nil, false // the session time zone's calendar
	case from != types.IDDate && from != types.IDTimestamp && from != types.IDTimestampTZ:
		return nil, false
	}
	n, ok := c.value(args[tsArg])
	if !ok {
		return nil, false
	}
	return &timeIntervalNode{arg: n, iv: iv, date: from == types.IDDate, tsArg: tsArg,
		ivArg: args[1-tsArg].(*expr.Const).Value, e: e}, true
}

// timeIntervalNode adds iv (negated for a subtraction) to a date or
// timestamp. Rows the kernel does not decide go to the row evaluator's
// operator e, with its arguments in e's order (tsArg is the time's).
type timeIntervalNode struct {
	arg   valueNode
	iv    types.Interval
	date  bool
	tsArg int
	ivArg types.Datum
	e     expr.Expr
}

func (n *timeIntervalNode) eval(x *evalCtx) vvec {
	v := n.arg.eval(x)
	for i, raw := range v.i {
		ts, ok := raw, true
		if n.date {
			ts, ok = dateTimestamp(raw)
		}
		if ok {
			ts, ok = addInterval(ts, n.iv)
		}
		if ok {
			v.i[i] = ts
			continue
		}
		if !v.isValid(i) {
			continue
		}
		n.slow(x, &v, i, raw)
	}
	return v
}

// slow evaluates row i with the row evaluator's operator.
func (n *timeIntervalNode) slow(x *evalCtx, v *vvec, i int, raw int64) {
	var t types.Datum = types.Timestamp(raw)
	if n.date {
		t = types.Date(raw)
	}
	args := []types.Datum{t, n.ivArg}
	if n.tsArg == 1 {
		args[0], args[1] = args[1], args[0]
	}
	d, err, _ := expr.ApplyCall(n.e, args)
	if err != nil {
		v.fail(x, i, err)
		return
	}
	v.i[i] = int64(d.(types.Timestamp))
}

// dateTimestamp is the timestamp of midnight of date d (infinities to
// infinities), when the kernel can compute it: a date within the
// timestamp range.
func dateTimestamp(d int64) (int64, bool) {
	switch types.Date(d) {
	case types.DateInfinity:
		return int64(types.TimestampInfinity), true
	case types.DateNegInfinity:
		return int64(types.TimestampNegInfinity), true
	}
	ts, ok := dateMicros(d)
	return ts, ok && types.TimestampValid(types.Timestamp(ts))
}

// addInterval is ts + iv as expr's addInterval computes it, for an
// infinite timestamp or one within the timestamp range; false when ts is
// neither or the result is out of range (the row evaluator then decides,
// and raises its error).
func addInterval(ts int64, iv types.Interval) (int64, bool) {
	if ts == math.MaxInt64 || ts == math.MinInt64 {
		return ts, true // infinities
	}
	if !types.TimestampValid(types.Timestamp(ts)) {
		return 0, false
	}
	if iv.Months != 0 || iv.Days != 0 {
		var ok bool
		if ts, ok = addMonthsDays(ts, iv); !ok {
			return 0, false
		}
	}
	r, ok := int64Op('+', ts, iv.Micros)
	return r, ok && types.TimestampValid(types.Timestamp(r))
}

// addMonthsDays moves a timestamp within the range by iv's months (to the
// same day of the month, or the month's last) and days, keeping the time
// of day; false when the day number leaves what a timestamp can hold.
func addMonthsDays(ts int64, iv types.Interval) (int64, bool) {
	days, micros := types.SplitTimestamp(types.Timestamp(ts))
	if iv.Months != 0 {
		y, m, d := types.CivilFromDays(days)
		total := int64(y)*12 + int64(m-1) + int64(iv.Months)
		yy := total / 12
		if total%12 < 0 {
			yy--
		}
		y, m = int(yy), int(total-yy*12)+1
		d = min(d, types.DaysInMonth(y, m))
		days = types.DaysFromCivil(y, m, d)
	}
	days += int64(iv.Days)
	if days < -math.MaxInt64/types.MicrosPerDay || days > math.MaxInt64/types.MicrosPerDay {
		return 0, false
	}
	return days*types.MicrosPerDay + micros, true
}

// tumbleStart compiles tumble_start(ts, size) of a timestamp or
// timestamptz and a constant size (a valid window size: else the row
// evaluator raises its error on every row). It never fails; window
// starts are aligned to the Unix epoch in any time zone.
func (c *compiler) tumbleStart(args []expr.Expr) (valueNode, bool) {
	if len(args) != 2 {
		return nil, false
	}
	iv, ok := intervalConst(args[1])
	if !ok {
		return nil, false
	}
	size, err := expr.WindowSize(iv)
	if err != nil {
		return nil, false
	}
	if id := args[0].Type().ID; id != types.IDTimestamp && id != types.IDTimestampTZ {
		return nil, false
	}
	n, ok := c.value(args[0])
	if !ok {
		return nil, false
	}
	return &tumbleStartNode{arg: n, size: size}, true
}

// tumbleStartNode is the start of the size-long window holding each row's
// timestamp (expr.WindowStart, as the row evaluator computes it, on NULL
// rows too: it cannot fail).
type tumbleStartNode struct {
	arg  valueNode
	size int64
}

func (n *tumbleStartNode) eval(x *evalCtx) vvec {
	v := n.arg.eval(x)
	for i, ts := range v.i {
		v.i[i] = expr.WindowStart(ts, n.size)
	}
	return v
}
