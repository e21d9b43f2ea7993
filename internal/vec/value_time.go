package vec

import (
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// datePart compiles date_part('field', d) of a date or timestamp for the
// fields year, month, day, hour and epoch. The kernel decides the rows of
// years 1 to 9999 (epoch: of timestamps within 2^53 microseconds of the
// Unix epoch, where the division is exact), the row evaluator's function
// the others (BC years, infinities, dates past the timestamp range).
func (c *compiler) datePart(e expr.Expr, args []expr.Expr) (valueNode, bool) {
	if len(args) != 2 {
		return nil, false
	}
	k, ok := args[0].(*expr.Const)
	if !ok {
		return nil, false
	}
	field, _ := k.Value.(string)
	switch field {
	case "year", "month", "day", "hour", "epoch":
	default:
		return nil, false
	}
	t := args[1].Type()
	if t.ID != types.IDDate && t.ID != types.IDTimestamp {
		return nil, false
	}
	n, ok := c.value(args[1])
	if !ok {
		return nil, false
	}
	return &datePartNode{field: field, date: t.ID == types.IDDate, arg: n, e: e, fieldVal: k.Value}, true
}

type datePartNode struct {
	field    string
	date     bool
	arg      valueNode
	e        expr.Expr
	fieldVal types.Datum
}

// minYear1 and endYear10000 are the timestamps of 0001-01-01 and
// 10000-01-01.
var (
	minYear1     = types.DaysFromCivil(1, 1, 1) * types.MicrosPerDay
	endYear10000 = types.DaysFromCivil(10000, 1, 1) * types.MicrosPerDay
)

func (n *datePartNode) eval(x *evalCtx) vvec {
	v := n.arg.eval(x)
	out := x.floats()
	for i, raw := range v.i {
		ts, ok := raw, true
		if n.date {
			ts, ok = dateMicros(raw)
		}
		f, ok := n.fast(ts, ok)
		if ok {
			out[i] = f
			continue
		}
		if !v.isValid(i) {
			continue
		}
		var in types.Datum = types.Timestamp(raw)
		if n.date {
			in = types.Date(raw)
		}
		d, err, _ := expr.ApplyCall(n.e, []types.Datum{n.fieldVal, in})
		if err != nil {
			v.fail(x, i, err)
			continue
		}
		if d == nil { // not expected of these fields, but the row evaluator decides
			v.fail(x, i, nil)
			delete(v.errs, i)
			continue
		}
		out[i] = d.(float64)
	}
	v.f, v.i = out, nil
	return v
}

// fast computes the field of timestamp ts (microseconds since the Unix
// epoch) where the kernel is exact.
func (n *datePartNode) fast(ts int64, ok bool) (float64, bool) {
	if !ok || ts < minYear1 || ts >= endYear10000 {
		return 0, false
	}
	days, us := types.SplitTimestamp(types.Timestamp(ts))
	switch n.field {
	case "epoch":
		if ts <= -(1<<53) || ts >= 1<<53 {
			return 0, false
		}
		return float64(ts) / 1e6, true
	case "hour":
		return float64(us / types.MicrosPerHour), true
	}
	y, m, d := types.CivilFromDays(days)
	switch n.field {
	case "year":
		return float64(y), true
	case "month":
		return float64(m), true
	}
	return float64(d), true
}
