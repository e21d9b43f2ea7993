package planner

import (
	"slices"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/window"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// A view cannot run a subquery once per row, as the batch Apply does:
// decorrelate rewrites an Apply into joins the stream maintains.
//
//   - An uncorrelated scalar subquery that yields at most one row (an
//     aggregate without GROUP BY, LIMIT 1, one VALUES row) is left-joined
//     to every input row on a constant key: when its value changes, every
//     row it reaches changes.
//   - A correlated one, (SELECT agg(...) FROM s WHERE s.k = outer.k ...),
//     becomes the aggregate grouped by the correlated columns, left-joined
//     on them; an input row without a match gets the subquery's value over
//     no rows (count is 0), computed here.
//   - [NOT] EXISTS: a correlated one is a left join with the distinct
//     correlated keys of the subquery's rows; an uncorrelated one is
//     count(*) > 0 of them.
//   - x [NOT] IN (uncorrelated subquery), with SQL's three-valued result:
//     a left join with the distinct non-NULL values, and the count of the
//     values and of the non-NULL ones (a NULL x, or a NULL among the
//     values, makes a missing match NULL rather than false).
//
// The correlation a view accepts is a conjunct inner_column = outer_column
// in a WHERE of the subquery, below any aggregate of it (or in its
// HAVING), through projections and filters only.
func decorrelate(a *Apply) (Node, error) {
	cur := a.Input
	w := len(a.Input.Columns())
	for i, s := range a.Subs {
		next, val, err := decorrelateOne(cur, s)
		if err != nil {
			return nil, err
		}
		cur = keepAndAppend(next, a.Cols[:w+i], val, a.Cols[w+i])
	}
	return cur, nil
}

// keepAndAppend projects next (a join of some input with a subquery's
// plan) onto the input's columns, keep, and the subquery's value val,
// named col.
func keepAndAppend(next Node, keep []Column, val expr.Expr, col Column) *Project {
	cols := next.Columns()
	p := &Project{Input: next, Cols: append(slices.Clone(keep), col)}
	for c := range keep {
		p.Exprs = append(p.Exprs, expr.NewColumn(c, cols[c].Type, cols[c].Name))
	}
	p.Exprs = append(p.Exprs, val)
	return p
}

func notInView(format string, args ...any) error {
	return pgerr.New(pgerr.FeatureNotSupported, format+" in a materialized view", args...)
}

// decorrelateOne joins cur with subquery s; val is the subquery's value
// over the join's output.
func decorrelateOne(cur Node, s Subquery) (Node, expr.Expr, error) {
	w := len(cur.Columns())
	switch s.Kind {
	case ScalarSubquery:
		if !atMostOneRow(s.Plan) {
			return nil, nil, notInView("a scalar subquery that may return more than one row (only an aggregate without GROUP BY, or LIMIT 1)")
		}
		typ := s.Plan.Columns()[0].Type
		if s.Outer == nil {
			j := constJoin(cur, s.Plan)
			return j, expr.NewColumn(w+1, typ, "?column?"), nil
		}
		p, m, keys, agg, err := pullCorrelation(s.Plan, s.Outer)
		if err != nil {
			return nil, nil, err
		}
		j := keyJoin(cur, p, keys)
		val := expr.Expr(expr.NewColumn(w+m[0], typ, "?column?"))
		if agg == nil {
			return j, val, nil
		}
		empty, err := emptyValue(s.Plan, agg)
		if err != nil || empty == nil {
			return j, val, err
		}
		matched := expr.IsNull(expr.NewColumn(w+keys[0].inner, p.Columns()[keys[0].inner].Type, ""), true)
		val, err = expr.Case(nil, []expr.Expr{matched}, []expr.Expr{val}, expr.NewConst(empty, typ))
		return j, val, err
	case ExistsSubquery:
		if s.Outer == nil {
			n := &Aggregate{Input: s.Plan, Aggs: []AggCall{{Kind: expr.AggCountStar, Arg: -1, Type: types.TInt64}},
				Cols: []Column{{Name: "count", Type: types.TInt64}}}
			val, err := expr.Binary(">", expr.NewColumn(w+1, types.TInt64, "count"), expr.NewConst(int64(0), types.TInt64))
			return constJoin(cur, n), val, err
		}
		p, _, keys, agg, err := pullCorrelation(s.Plan, s.Outer)
		if err != nil {
			return nil, nil, err
		}
		if agg != nil {
			return nil, nil, notInView("a correlated EXISTS over an aggregate")
		}
		d := &Aggregate{Input: p}
		dk := make([]corrKey, len(keys))
		for i, k := range keys {
			d.GroupBy = append(d.GroupBy, k.inner)
			d.Cols = append(d.Cols, p.Columns()[k.inner])
			dk[i] = corrKey{inner: i, outer: k.outer}
		}
		j := keyJoin(cur, d, dk)
		return j, expr.IsNull(expr.NewColumn(w, d.Cols[0].Type, ""), true), nil
	case InSubquery:
		if s.Outer != nil {
			return nil, nil, notInView("a correlated IN subquery")
		}
		return inJoin(cur, s)
	case QuantifiedSubquery:
		if s.Row != nil {
			return nil, nil, notInView("a row compared with a subquery (%s %s)", s.Op, quantifier(s.All))
		}
		if s.Outer != nil {
			return correlatedQuantifiedJoin(cur, s)
		}
		return quantifiedJoin(cur, s)
	}
	return nil, nil, notInView("an ARRAY subquery")
}

// inJoin is x [NOT] IN (s.Plan), uncorrelated: cur, x, the matching
// non-NULL value (y) and the counts of all values (n) and non-NULL ones
// (nn); the value is
//
//	CASE WHEN y IS NOT NULL THEN true WHEN n = 0 THEN false
//	     WHEN x IS NULL OR nn < n THEN NULL ELSE false END
//
// (its negation for NOT IN).
func inJoin(cur Node, s Subquery) (Node, expr.Expr, error) {
	w := len(cur.Columns())
	typ := s.Plan.Columns()[0].Type
	withX := identityProject(cur)
	withX.Exprs = append(withX.Exprs, s.Probe)
	withX.Cols = append(withX.Cols, Column{Name: "?column?", Type: s.Probe.Type(), Hidden: true})
	y := expr.NewColumn(0, typ, "y")
	distinct := &Aggregate{Input: &Filter{Input: s.Plan, Cond: expr.IsNull(y, true)}, GroupBy: []int{0},
		Cols: []Column{{Name: "y", Type: typ}}}
	matched := &Join{Left: withX, Right: distinct, Kind: LeftJoin, LeftKeys: []int{w}, RightKeys: []int{0}}
	counts := &Aggregate{Input: s.Plan,
		Aggs: []AggCall{{Kind: expr.AggCountStar, Arg: -1, Type: types.TInt64}, {Kind: expr.AggCount, Arg: 0, Type: types.TInt64}},
		Cols: []Column{{Name: "n", Type: types.TInt64}, {Name: "nn", Type: types.TInt64}}}
	j := constJoin(matched, counts)
	// j: cur (w), x, y, const, n, nn, const.
	x := expr.NewColumn(w, s.Probe.Type(), "x")
	n := expr.NewColumn(w+3, types.TInt64, "n")
	nn := expr.NewColumn(w+4, types.TInt64, "nn")
	zero := expr.NewConst(int64(0), types.TInt64)
	noRows, err := expr.Binary("=", n, zero)
	if err != nil {
		return nil, nil, err
	}
	someNull, err := expr.Binary("<", nn, n)
	if err != nil {
		return nil, nil, err
	}
	unknown, err := expr.Binary("OR", expr.IsNull(x, false), someNull)
	if err != nil {
		return nil, nil, err
	}
	yes, no := expr.NewConst(!s.Not, types.TBool), expr.NewConst(s.Not, types.TBool)
	val, err := expr.Case(nil,
		[]expr.Expr{expr.IsNull(expr.NewColumn(w+1, typ, "y"), true), noRows, unknown},
		[]expr.Expr{yes, no, expr.NewConst(nil, types.TBool)}, no)
	return j, val, err
}

// identityProject projects n onto all its columns (to append more).
func identityProject(n Node) *Project { return reorder(n, identity(len(n.Columns()))) }

// withConst appends a hidden constant column to n.
func withConst(n Node) *Project {
	p := identityProject(n)
	p.Exprs = append(p.Exprs, expr.NewConst(int64(0), types.TInt32))
	p.Cols = append(p.Cols, Column{Name: "_one", Type: types.TInt32, Hidden: true})
	return p
}

// constJoin left-joins every row of l with r (at most one row) on a
// constant key: l's columns, the key, r's columns, the key.
func constJoin(l, r Node) *Join {
	wl, wr := len(l.Columns()), len(r.Columns())
	return &Join{Left: withConst(l), Right: withConst(r), Kind: LeftJoin, LeftKeys: []int{wl}, RightKeys: []int{wr}}
}

// corrKey is one correlation: column inner of the subquery's rewritten
// plan equals column outer of the Apply's input.
type corrKey struct{ inner, outer int }

// keyJoin left-joins l with r on the correlations.
func keyJoin(l, r Node, keys []corrKey) *Join {
	j := &Join{Left: l, Right: r, Kind: LeftJoin}
	for _, k := range keys {
		j.LeftKeys = append(j.LeftKeys, k.outer)
		j.RightKeys = append(j.RightKeys, k.inner)
	}
	return j
}

// atMostOneRow reports whether n yields at most one row whatever its
// input: an aggregate without GROUP BY, LIMIT 0 or 1, one VALUES row,
// under filters and projections.
func atMostOneRow(n Node) bool {
	switch n := n.(type) {
	case *Aggregate:
		return len(n.GroupBy) == 0
	case *Project:
		return atMostOneRow(n.Input)
	case *Filter:
		return atMostOneRow(n.Input)
	case *Sort:
		return atMostOneRow(n.Input)
	case *Limit:
		return n.Count >= 0 && n.Count <= 1 || atMostOneRow(n.Input)
	case *Values:
		return len(n.Rows) <= 1
	}
	return false
}

// pullCorrelation takes the correlations to outer out of plan: the
// conjuncts inner = outer of its filters are removed and their inner
// columns carried up (through projections, and into the GROUP BY of an
// aggregate, agg, which then yields a row per correlated key). It returns
// the rewritten plan, the position in it of each of plan's columns (m),
// and the correlations.
func pullCorrelation(plan Node, outer *expr.OuterRow) (Node, []int, []corrKey, *Aggregate, error) {
	var agg *Aggregate
	var pull func(n Node) (Node, []int, []corrKey, error)
	pull = func(n Node) (Node, []int, []corrKey, error) {
		if !refersTo(n, outer) {
			return n, identity(len(n.Columns())), nil, nil
		}
		switch n := n.(type) {
		case *Filter:
			in, m, keys, err := pull(n.Input)
			if err != nil {
				return nil, nil, nil, err
			}
			below := agg
			var rest []expr.Expr
			for _, c := range expr.Conjuncts(n.Cond) {
				if !expr.HasOuterRefs(c) {
					rest = append(rest, remapCols(c, m))
					continue
				}
				k, ok := correlation(c, outer, in.Columns(), m)
				if !ok {
					return nil, nil, nil, notInView("a correlated subquery whose condition on the outer query is not inner_column = outer_column")
				}
				if below != nil {
					// A missing match would be ambiguous: no rows, or
					// the HAVING failed.
					return nil, nil, nil, notInView("a correlated subquery correlated both below and above its aggregate")
				}
				keys = append(keys, k)
			}
			if len(rest) == 0 {
				return in, m, keys, nil
			}
			cond := rest[0]
			for _, c := range rest[1:] {
				var err error
				if cond, err = expr.Binary("AND", cond, c); err != nil {
					return nil, nil, nil, err
				}
			}
			return &Filter{Input: in, Cond: cond}, m, keys, nil
		case *Project:
			for _, e := range n.Exprs {
				if expr.HasOuterRefs(e) {
					return nil, nil, nil, notInView("a correlated subquery that selects a column of the outer query")
				}
			}
			in, m, keys, err := pull(n.Input)
			if err != nil {
				return nil, nil, nil, err
			}
			p := &Project{Input: in, Cols: append([]Column{}, n.Cols...)}
			for _, e := range n.Exprs {
				p.Exprs = append(p.Exprs, remapCols(e, m))
			}
			inCols := in.Columns()
			for i, k := range keys {
				p.Exprs = append(p.Exprs, expr.NewColumn(k.inner, inCols[k.inner].Type, inCols[k.inner].Name))
				c := inCols[k.inner]
				c.Hidden = true
				p.Cols = append(p.Cols, c)
				keys[i].inner = len(n.Exprs) + i
			}
			return p, identity(len(n.Exprs)), keys, nil
		case *Aggregate:
			in, m, keys, err := pull(n.Input)
			if err != nil {
				return nil, nil, nil, err
			}
			if len(keys) == 0 {
				return nil, nil, nil, notInView("this correlated subquery")
			}
			if agg != nil || len(n.GroupBy) > 0 {
				return nil, nil, nil, notInView("a correlated subquery over a grouped or nested aggregate")
			}
			agg = n
			inCols := in.Columns()
			a := &Aggregate{Input: in}
			for i, k := range keys {
				a.GroupBy = append(a.GroupBy, k.inner)
				c := inCols[k.inner]
				c.Hidden = true
				a.Cols = append(a.Cols, c)
				keys[i].inner = i
			}
			for _, c := range n.Aggs {
				if c.Arg >= 0 {
					c.Arg = m[c.Arg]
				}
				if c.Filtered {
					c.FilterCol = m[c.FilterCol]
				}
				c.Order = slices.Clone(c.Order)
				for i := range c.Order {
					c.Order[i].Col = m[c.Order[i].Col]
				}
				a.Aggs = append(a.Aggs, c)
			}
			a.Cols = append(a.Cols, n.Cols...)
			out := make([]int, len(n.Cols))
			for i := range out {
				out[i] = i + len(keys)
			}
			return a, out, keys, nil
		case *Sort:
			// The order of a set does not matter.
			return pull(n.Input)
		case *Limit:
			return pullLimit(n, pull)
		}
		return nil, nil, nil, notInView("a correlated subquery of this shape (%s)", nodeName(n))
	}
	p, m, keys, err := pull(plan)
	if err == nil && len(keys) == 0 {
		err = notInView("a correlated subquery whose condition on the outer query is not inner_column = outer_column")
	}
	return p, m, keys, agg, err
}

// pullLimit pulls the correlations out of ORDER BY ... LIMIT n [OFFSET
// m] (n, under pull): the limit applies per correlated key, a Top-N
// grouped by the keys' columns.
func pullLimit(n *Limit, pull func(Node) (Node, []int, []corrKey, error)) (Node, []int, []corrKey, error) {
	s, ok := n.Input.(*Sort)
	switch {
	case !ok:
		return nil, nil, nil, notInView("LIMIT without ORDER BY in a correlated subquery")
	case n.Count == 0:
		return nil, nil, nil, notInView("LIMIT 0 in a correlated subquery")
	case n.Count < 0:
		return nil, nil, nil, notInView("OFFSET without LIMIT in a correlated subquery")
	}
	in, m, keys, err := pull(s.Input)
	if err != nil {
		return nil, nil, nil, err
	}
	t := &TopN{Input: in, Kind: stream.TopRowNumber, Limit: n.Count, Offset: n.Offset, Cols: in.Columns()}
	for _, k := range keys {
		t.GroupBy = append(t.GroupBy, k.inner)
	}
	for _, k := range s.Keys {
		t.Order = append(t.Order, window.SortKey{Col: m[k.Col], Desc: k.Desc, NullsFirst: k.NullsFirst})
	}
	return t, m, keys, nil
}

// correlation recognizes c as inner = outer (either side): inner a
// column of the plan below (cols, after the mapping m), outer a column
// of the row outer, of types that join.
func correlation(c expr.Expr, outer *expr.OuterRow, cols []Column, m []int) (corrKey, bool) {
	op, l, r, ok := expr.Comparison(c)
	if !ok || op != "=" {
		return corrKey{}, false
	}
	l, r = stripKeyCast(l), stripKeyCast(r)
	col, isCol := l.(*expr.Column)
	ref, isRef := r.(*expr.OuterRef)
	if !isCol || !isRef {
		col, isCol = r.(*expr.Column)
		ref, isRef = l.(*expr.OuterRef)
	}
	if !isCol || !isRef || ref.Row != outer {
		return corrKey{}, false
	}
	inner := m[col.Index]
	if !KeyCompatible(cols[inner].Type, ref.Typ) {
		return corrKey{}, false
	}
	return corrKey{inner: inner, outer: ref.Index}, true
}

// stripKeyCast takes off a cast the binder inserted to match an
// operator when it keeps equality as it was (varchar to text, an integer
// widened): u.k = t.k over two varchar columns binds as k::text =
// outer.k::text, and is still a key inner = outer. KeyCompatible then
// judges the columns' own types.
func stripKeyCast(e expr.Expr) expr.Expr {
	arg, to, ok := expr.ImplicitCast(e)
	if !ok {
		return e
	}
	from := arg.Type()
	if from.IsString() && to.IsString() || from.IsInteger() && to.IsInteger() {
		return arg
	}
	return e
}

// refersTo reports whether n or any node below it reads the row outer.
func refersTo(n Node, outer *expr.OuterRow) bool {
	for _, e := range nodeExprs(n) {
		if readsRow(e, outer) {
			return true
		}
	}
	for _, in := range n.Inputs() {
		if refersTo(in, outer) {
			return true
		}
	}
	return false
}

func readsRow(e expr.Expr, outer *expr.OuterRow) bool {
	if r, ok := e.(*expr.OuterRef); ok && r.Row == outer {
		return true
	}
	for _, c := range e.Children() {
		if readsRow(c, outer) {
			return true
		}
	}
	return false
}

// nodeExprs returns the expressions a node evaluates.
func nodeExprs(n Node) []expr.Expr {
	switch n := n.(type) {
	case *Filter:
		return []expr.Expr{n.Cond}
	case *Project:
		return n.Exprs
	case *Join:
		if n.Cond != nil {
			return []expr.Expr{n.Cond}
		}
	case *Apply:
		var es []expr.Expr
		for _, s := range n.Subs {
			if s.Probe != nil {
				es = append(es, s.Probe)
			}
			es = append(es, s.Row...)
		}
		return es
	case *Values:
		var es []expr.Expr
		for _, r := range n.Rows {
			es = append(es, r...)
		}
		return es
	case *GenerateSeries:
		return []expr.Expr{n.Start, n.Stop, n.Step}
	case *ProjectSet:
		if n.Cond != nil {
			return append(n.funcArgs(), n.Cond)
		}
		return n.funcArgs()
	case *Unnest:
		return n.args()
	case *Expand:
		var es []expr.Expr
		for _, p := range n.Projections {
			es = append(es, p...)
		}
		return es
	}
	return nil
}

// outerColumns returns the columns of outer's row that plan reads, in
// order, and whether plan is deterministic given them (no volatile
// function): a subquery's result is then a function of those values.
func outerColumns(plan Node, outer *expr.OuterRow) ([]int, bool) {
	seen := map[int]bool{}
	pure := true
	var walkExpr func(e expr.Expr)
	walkExpr = func(e expr.Expr) {
		if e == nil {
			return
		}
		if r, ok := e.(*expr.OuterRef); ok && r.Row == outer {
			seen[r.Index] = true
		}
		if expr.IsVolatile(e) {
			pure = false
		}
		for _, c := range e.Children() {
			walkExpr(c)
		}
	}
	var walk func(n Node)
	walk = func(n Node) {
		for _, e := range nodeExprs(n) {
			walkExpr(e)
		}
		for _, in := range n.Inputs() {
			walk(in)
		}
	}
	walk(plan)
	cols := make([]int, 0, len(seen))
	for c := range seen {
		cols = append(cols, c)
	}
	slices.Sort(cols)
	return cols, pure
}

// emptyValue is the value of a correlated scalar subquery over no rows:
// its aggregate agg over no input (count is 0, the others NULL), through
// the filters and projections above it in plan; nil when that is NULL or
// a filter (HAVING) drops the row.
func emptyValue(plan Node, agg *Aggregate) (types.Datum, error) {
	r, err := emptyRow(plan, agg)
	if err != nil || r == nil {
		return nil, err
	}
	return r[0], nil
}

// emptyRow is the row plan (an aggregate without GROUP BY, agg, under
// filters and projections) yields over no input rows, or nil when a
// filter above the aggregate rejects it.
func emptyRow(plan Node, agg *Aggregate) ([]types.Datum, error) {
	var row func(n Node) ([]types.Datum, bool, error)
	row = func(n Node) ([]types.Datum, bool, error) {
		switch n := n.(type) {
		case *Aggregate:
			if n != agg {
				return nil, false, notInView("this correlated subquery")
			}
			out := make([]types.Datum, len(n.Cols))
			for i, c := range n.Aggs {
				if c.Kind == expr.AggCount || c.Kind == expr.AggCountStar {
					out[len(n.GroupBy)+i] = int64(0)
				}
			}
			return out, true, nil
		case *Project:
			in, ok, err := row(n.Input)
			if err != nil || !ok {
				return nil, ok, err
			}
			out := make([]types.Datum, len(n.Exprs))
			for i, e := range n.Exprs {
				if out[i], err = e.Eval(in); err != nil {
					return nil, false, err
				}
			}
			return out, true, nil
		case *Filter:
			in, ok, err := row(n.Input)
			if err != nil || !ok {
				return nil, ok, err
			}
			// Its correlations hold for a row of the key's own group.
			var keep types.Datum = true
			for _, c := range expr.Conjuncts(n.Cond) {
				if expr.HasOuterRefs(c) {
					continue
				}
				v, err := c.Eval(in)
				if err != nil {
					return nil, false, err
				}
				if v != true {
					keep = false
				}
			}
			return in, keep == true, nil
		case *Sort:
			return row(n.Input)
		}
		return nil, false, notInView("this correlated subquery")
	}
	r, ok, err := row(plan)
	if err != nil || !ok {
		return nil, err
	}
	return r, nil
}

func identity(n int) []int {
	m := make([]int, n)
	for i := range m {
		m[i] = i
	}
	return m
}

func remapCols(e expr.Expr, m []int) expr.Expr {
	return expr.Remap(e, func(i int) int { return m[i] })
}

// DynamicFilter keeps the rows of Input for which Left Op RightExpr holds,
// where RightExpr is over the one row of Right (an uncorrelated scalar
// subquery yielding at most one row): WHERE price > (SELECT avg(price)
// FROM bids). Without Right it is a temporal filter: RightExpr is over
// now() (temporal.go). In a view it is stream.DynamicFilter, whose cost when the
// threshold moves is the rows it crosses. Output: Input's columns.
type DynamicFilter struct {
	Input, Right    Node
	Left, RightExpr expr.Expr
	Op              string
}

// Columns implements Node.
func (n *DynamicFilter) Columns() []Column { return n.Input.Columns() }

// Inputs implements Node.
func (n *DynamicFilter) Inputs() []Node {
	if n.Right == nil {
		return []Node{n.Input}
	}
	return []Node{n.Input, n.Right}
}

// Temporal reports whether the filter is a temporal one: no threshold
// input, RightExpr is over the barrier's time (see temporal.go).
func (n *DynamicFilter) Temporal() bool { return n.Right == nil }

var flippedOps = map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<="}

// dynamicFilter recognizes, under a projection p, a WHERE conjunct that
// compares an expression of the input row with an uncorrelated scalar
// subquery's value which nothing else uses (Project(Filter(Apply))), and
// returns p with that conjunct made a DynamicFilter.
func dynamicFilter(p *Project) (Node, bool) {
	f, ok := p.Input.(*Filter)
	if !ok {
		return nil, false
	}
	a, ok := f.Input.(*Apply)
	if !ok {
		return nil, false
	}
	base := len(a.Input.Columns())
	conjs := expr.Conjuncts(f.Cond)
	for ci, c := range conjs {
		op, l, r, ok := expr.Comparison(c)
		if _, cmp := flippedOps[op]; !ok || !cmp {
			continue
		}
		col, ok := subqueryOnly(r, base)
		if !ok {
			if col, ok = subqueryOnly(l, base); !ok {
				continue
			}
			l, r, op = r, l, flippedOps[op]
		}
		if !InputOnly(l, base) || !keyOrdered(l.Type(), r.Type()) {
			continue
		}
		s := a.Subs[col-base]
		if s.Kind != ScalarSubquery || s.Outer != nil || !atMostOneRow(s.Plan) || usesColumn(col, p.Exprs) {
			continue
		}
		var rest []expr.Expr
		for cj, o := range conjs {
			if cj != ci {
				rest = append(rest, o)
			}
		}
		if usesColumn(col, rest) {
			continue
		}
		// Drop the subquery from the Apply; the columns after it move
		// one to the left.
		shift := func(j int) int {
			if j > col {
				return j - 1
			}
			return j
		}
		var in Node = a.Input
		if len(a.Subs) > 1 {
			na := &Apply{Input: a.Input}
			for i, sq := range a.Subs {
				if base+i != col {
					na.Subs = append(na.Subs, sq)
					na.Cols = append(na.Cols, a.Cols[base+i])
				}
			}
			na.Cols = append(slices.Clone(a.Cols[:base]), na.Cols...)
			in = na
		}
		// The conjuncts over the input alone filter rows before the
		// dynamic filter keeps them; the others (over other subqueries)
		// after.
		var below, above []expr.Expr
		for _, o := range rest {
			if InputOnly(o, base) {
				below = append(below, o)
			} else {
				above = append(above, expr.Remap(o, shift))
			}
		}
		if cond, ok := andExprs(below); !ok {
			return nil, false
		} else if cond != nil {
			in = &Filter{Input: in, Cond: cond}
		}
		var n Node = &DynamicFilter{Input: in, Right: s.Plan, Left: l, Op: op,
			RightExpr: expr.Remap(r, func(int) int { return 0 })}
		if cond, ok := andExprs(above); !ok {
			return nil, false
		} else if cond != nil {
			n = &Filter{Input: n, Cond: cond}
		}
		np := &Project{Input: n, Cols: p.Cols}
		for _, e := range p.Exprs {
			np.Exprs = append(np.Exprs, expr.Remap(e, shift))
		}
		return np, true
	}
	return nil, false
}

// andExprs ANDs es (nil for none); ok is false if that fails.
func andExprs(es []expr.Expr) (expr.Expr, bool) {
	if len(es) == 0 {
		return nil, true
	}
	cond := es[0]
	for _, e := range es[1:] {
		var err error
		if cond, err = expr.Binary("AND", cond, e); err != nil {
			return nil, false
		}
	}
	return cond, true
}

// subqueryOnly returns the one column e reads when it is a column at or
// past base (a subquery's), with no outer references.
func subqueryOnly(e expr.Expr, base int) (int, bool) {
	cols := expr.Columns(e)
	if len(cols) == 0 || expr.HasOuterRefs(e) {
		return 0, false
	}
	for _, c := range cols {
		if c < base || c != cols[0] {
			return 0, false
		}
	}
	return cols[0], true
}

// InputOnly reports whether e reads only columns below base (an Apply's
// input, not its subqueries' values), no outer row, and is not volatile:
// it may filter the Apply's input.
func InputOnly(e expr.Expr, base int) bool {
	if expr.HasOuterRefs(e) || expr.IsVolatile(e) {
		return false
	}
	for _, c := range expr.Columns(e) {
		if c >= base {
			return false
		}
	}
	return true
}

func usesColumn(col int, es []expr.Expr) bool {
	for _, e := range es {
		if slices.Contains(expr.Columns(e), col) {
			return true
		}
	}
	return false
}

// keyOrdered reports whether values of types a and b compare as their
// key encodings do, so a dynamic filter can keep rows in that order.
func keyOrdered(a, b types.Type) bool {
	if a.ID != b.ID {
		return false
	}
	switch a.ID {
	case types.IDInt16, types.IDInt32, types.IDInt64, types.IDNumeric, types.IDDate, types.IDTimestamp, types.IDTimestampTZ:
		return true
	}
	return false
}
