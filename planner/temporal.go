package planner

import (
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// Temporal filters: in a view, a WHERE conjunct that compares an
// expression of the row with an expression of now() alone
//
//	WHERE ts > now() - INTERVAL '1 hour'   (rows leave as time passes)
//	WHERE ts + INTERVAL '1 day' > now()    (the same)
//	WHERE ts <= now()                      (rows enter as time passes)
//
// (a timestamp or date ts compares as the instant it names in the
// view's time zone, as PostgreSQL compares it with a timestamptz)
//
// runs as a DynamicFilter without a threshold input (Right nil): its
// threshold is the now() side evaluated at the time each barrier carries,
// so the view equals its query evaluated at that instant, and rows enter
// and leave at barriers (every second by default, or as writes commit).
// The rows are kept in state in the order of the row side, so a move of
// time costs the rows it crosses; and as now() only moves on, a row whose
// fate is sealed (one that expired, or one that entered under <) leaves
// the state. Both bounds together make a sliding window: two filters.
//
// Any other use of now() (or current_timestamp, current_date, ...) in a
// view is refused (checkTimeFuncs): evaluated as each row arrives, its
// value would be frozen into the view.

// nowColumn is the threshold input of a temporal filter: the barrier's
// time.
var nowColumn = expr.NewColumn(0, types.TTimestampTZ, "now()")

// temporalFilter returns f with its temporal conjuncts made temporal
// DynamicFilters over a Filter of the others; ok is false when it has
// none.
func temporalFilter(f *Filter) (Node, bool) {
	var rest []expr.Expr
	type temporal struct {
		l, r expr.Expr
		op   string
	}
	var ts []temporal
	for _, c := range expr.Conjuncts(f.Cond) {
		if !expr.ReadsNow(c) {
			rest = append(rest, c)
			continue
		}
		op, l, r, ok := expr.TimestampTZComparison(c)
		if !ok {
			op, l, r, ok = expr.Comparison(c)
		}
		if _, cmp := flippedOps[op]; !ok || !cmp {
			rest = append(rest, c)
			continue
		}
		if expr.ReadsNow(l) {
			l, r, op = r, l, flippedOps[op]
		}
		if expr.ReadsTime(l) != "" || len(expr.Columns(r)) > 0 || expr.HasOuterRefs(r) ||
			expr.ReadsClock(expr.ReplaceNow(r, nowColumn)) != "" || !keyOrdered(l.Type(), r.Type()) {
			rest = append(rest, c)
			continue
		}
		ts = append(ts, temporal{l: l, r: expr.ReplaceNow(r, nowColumn), op: op})
	}
	if len(ts) == 0 {
		return nil, false
	}
	var n Node = f.Input
	cond, ok := andExprs(rest)
	if !ok {
		return nil, false
	}
	if cond != nil {
		n = &Filter{Input: n, Cond: cond}
	}
	for _, t := range ts {
		n = &DynamicFilter{Input: n, Left: t.l, RightExpr: t.r, Op: t.op}
	}
	return n, true
}

// checkTimeFuncs refuses the functions of the time in a view's stream
// plan that no temporal filter took, and the sleeping functions
// (pg_sleep), which would hold the view's barriers.
func checkTimeFuncs(n Node) error {
	var err error
	walkPlan(n, func(m Node) {
		for _, e := range nodeExprs(m) {
			if name := expr.Sleeps(e); name != "" && err == nil {
				err = pgerr.New(pgerr.FeatureNotSupported, "%s() is not supported in a materialized view", name)
			}
			if expr.ConvertsTimeTZByZoneName(e) && err == nil {
				pe := pgerr.New(pgerr.FeatureNotSupported,
					"time with time zone AT TIME ZONE a zone name is not supported in a materialized view")
				pe.Detail = "The zone's offset is taken when each row arrives, so the view would keep values its query no longer gives after a daylight-saving change."
				pe.Hint = "Give the zone as an interval (AT TIME ZONE INTERVAL '+02:00'), or convert a timestamp with time zone."
				err = pe
			}
			if name := expr.ReadsTime(e); name != "" && err == nil {
				pe := pgerr.New(pgerr.FeatureNotSupported,
					"%s() in a materialized view is supported only in a WHERE comparison of a row's value with an expression of now() (a temporal filter)", name)
				pe.Hint = "For example WHERE ts > now() - INTERVAL '1 hour'. Elsewhere, its value would be frozen when each row arrives."
				err = pe
			}
		}
	})
	return err
}
