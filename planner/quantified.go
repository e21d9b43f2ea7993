package planner

import (
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// A view maintains x op ANY|ALL (subquery) from four aggregates of the
// subquery's column y: n = count(*), nn = count(y), lo = min(y), hi =
// max(y), joined to every input row on a constant key (uncorrelated), or
// grouped by the correlated columns and joined on them (correlated by
// inner = outer conjuncts, as a correlated scalar subquery is).
// ALL is NOT ANY with the negated operator (x < ALL s is NOT (x >= ANY
// s), De Morgan holding in three-valued logic), and ANY is
//
//	CASE WHEN n = 0 THEN false WHEN some THEN true
//	     WHEN x IS NULL OR nn < n THEN NULL ELSE false END
//
// where some says a non-NULL y compares true: x < hi for <, x > lo for
// >, x <> lo OR x <> hi for <>. (= ANY and <> ALL are IN subqueries.)

// negatedOp is the comparison true exactly where op is false (for
// non-NULL operands).
var negatedOp = map[string]string{"=": "<>", "<>": "=", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}

func quantifier(all bool) string {
	if all {
		return "ALL"
	}
	return "ANY"
}

// quantifiedJoin joins cur with the aggregates of s.Plan; the value is
// the quantified comparison over the join's rows.
func quantifiedJoin(cur Node, s Subquery) (Node, expr.Expr, error) {
	w := len(cur.Columns())
	typ := s.Plan.Columns()[0].Type
	withX := identityProject(cur)
	withX.Exprs = append(withX.Exprs, s.Probe)
	withX.Cols = append(withX.Cols, Column{Name: "?column?", Type: s.Probe.Type(), Hidden: true})
	calls, cols := summaryAggs(0, typ)
	j := constJoin(withX, &Aggregate{Input: s.Plan, Aggs: calls, Cols: cols})
	// j: cur (w), x, const, n, nn, lo, hi, const.
	x := expr.NewColumn(w, s.Probe.Type(), "x")
	n := expr.NewColumn(w+2, types.TInt64, "n")
	nn := expr.NewColumn(w+3, types.TInt64, "nn")
	lo := expr.NewColumn(w+4, typ, "lo")
	hi := expr.NewColumn(w+5, typ, "hi")
	val, err := quantifiedValue(s, x, n, nn, lo, hi)
	return j, val, err
}

// summaryAggs are the aggregates of column col (of type typ) a
// quantified comparison needs: n, nn, lo, hi.
func summaryAggs(col int, typ types.Type) ([]AggCall, []Column) {
	return []AggCall{{Kind: expr.AggCountStar, Arg: -1, Type: types.TInt64}, {Kind: expr.AggCount, Arg: col, Type: types.TInt64},
			{Kind: expr.AggMin, Arg: col, Type: typ}, {Kind: expr.AggMax, Arg: col, Type: typ}},
		[]Column{{Name: "n", Type: types.TInt64}, {Name: "nn", Type: types.TInt64}, {Name: "lo", Type: typ}, {Name: "hi", Type: typ}}
}

// correlatedQuantifiedJoin is x op ANY|ALL (subquery correlated by
// inner = outer conjuncts): the summary aggregates grouped by the
// subquery's correlated columns, left-joined on them; an input row with
// no match has no subquery rows (n = 0).
func correlatedQuantifiedJoin(cur Node, s Subquery) (Node, expr.Expr, error) {
	p, m, keys, agg, err := pullCorrelation(s.Plan, s.Outer)
	if err != nil {
		return nil, nil, err
	}
	if agg != nil {
		return nil, nil, notInView("a correlated %s %s subquery over an aggregate", s.Op, quantifier(s.All))
	}
	w := len(cur.Columns())
	typ := s.Plan.Columns()[0].Type
	withX := identityProject(cur)
	withX.Exprs = append(withX.Exprs, s.Probe)
	withX.Cols = append(withX.Cols, Column{Name: "?column?", Type: s.Probe.Type(), Hidden: true})
	g := &Aggregate{Input: p}
	dk := make([]corrKey, len(keys))
	for i, k := range keys {
		g.GroupBy = append(g.GroupBy, k.inner)
		g.Cols = append(g.Cols, p.Columns()[k.inner])
		dk[i] = corrKey{inner: i, outer: k.outer}
	}
	aggs, cols := summaryAggs(m[0], typ)
	g.Aggs, g.Cols = aggs, append(g.Cols, cols...)
	j := keyJoin(withX, g, dk)
	// j: cur (w), x, the keys, n, nn, lo, hi.
	at := w + 1 + len(keys)
	zero := expr.NewConst(int64(0), types.TInt64)
	counts := make([]expr.Expr, 2)
	for i := range counts {
		if counts[i], err = expr.Func("coalesce", []expr.Expr{expr.NewColumn(at+i, types.TInt64, "n"), zero}); err != nil {
			return nil, nil, err
		}
	}
	x := expr.NewColumn(w, s.Probe.Type(), "x")
	val, err := quantifiedValue(s, x, counts[0], counts[1], expr.NewColumn(at+2, typ, "lo"), expr.NewColumn(at+3, typ, "hi"))
	return j, val, err
}

// quantifiedValue is s's value from the summary of its subquery's rows.
func quantifiedValue(s Subquery, x, n, nn, lo, hi expr.Expr) (expr.Expr, error) {
	op := s.Op
	if s.All {
		op = negatedOp[op]
	}
	val, err := anyValue(op, x, n, nn, lo, hi)
	if err != nil || !s.All {
		return val, err
	}
	return expr.Unary("NOT", val)
}

// anyValue is x op ANY over the aggregates (see above).
func anyValue(op string, x, n, nn, lo, hi expr.Expr) (expr.Expr, error) {
	var some expr.Expr
	var err error
	switch op {
	case "<", "<=":
		some, err = expr.Binary(op, x, hi)
	case ">", ">=":
		some, err = expr.Binary(op, x, lo)
	case "<>":
		var a, b expr.Expr
		if a, err = expr.Binary("<>", x, lo); err == nil {
			if b, err = expr.Binary("<>", x, hi); err == nil {
				some, err = expr.Binary("OR", a, b)
			}
		}
	default: // =: x = lo when lo = hi decides nothing in general
		return nil, notInView("%s ANY (subquery)", op)
	}
	if err != nil {
		return nil, err
	}
	zero := expr.NewConst(int64(0), types.TInt64)
	noRows, err := expr.Binary("=", n, zero)
	if err != nil {
		return nil, err
	}
	someNull, err := expr.Binary("<", nn, n)
	if err != nil {
		return nil, err
	}
	unknown, err := expr.Binary("OR", expr.IsNull(x, false), someNull)
	if err != nil {
		return nil, err
	}
	f := expr.NewConst(false, types.TBool)
	return expr.Case(nil, []expr.Expr{noRows, some, unknown},
		[]expr.Expr{f, expr.NewConst(true, types.TBool), expr.NewConst(nil, types.TBool)}, f)
}
