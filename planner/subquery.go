package planner

import (
	"github.com/streamdb/streamdb/exec/batch"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// SubqueryKind is what an Apply computes from one subquery.
type SubqueryKind uint8

// Subquery kinds.
const (
	// ScalarSubquery is (SELECT ...) as a value: its one value, NULL when
	// it has no row, an error when it has more than one.
	ScalarSubquery SubqueryKind = iota
	// InSubquery is Probe [NOT] IN (SELECT ...), three-valued.
	InSubquery
	// ExistsSubquery is EXISTS (SELECT ...).
	ExistsSubquery
	// ArraySubquery is ARRAY(SELECT ...): the values of its column, in
	// order, as an array.
	ArraySubquery
	// QuantifiedSubquery is Probe Op ANY|ALL (SELECT ...), three-valued
	// (for = ANY and <> ALL the binder makes an InSubquery).
	QuantifiedSubquery
)

// Subquery is a subquery of an Apply. An uncorrelated one's plan does not
// refer to the Apply's input; a correlated one's reads the current input
// row through Outer (expr.OuterRef), and runs once per row.
type Subquery struct {
	Kind SubqueryKind
	// Plan has one visible column for Scalar and In (for In, of Probe's
	// type).
	Plan Node
	// Probe is, for In, the left operand over the Apply's input row.
	Probe expr.Expr
	// Not is NOT IN.
	Not bool
	// Op and All are, for Quantified, the comparison (=, <>, <, <=, >,
	// >=) and whether it is ALL (else ANY); Plan's column is of Probe's
	// type.
	Op  string
	All bool
	// Row and Cmp are, for Quantified with a row on the left ((a, b) IN
	// (SELECT x, y ...)), the row's elements (Probe is nil) and the
	// comparison over them followed by a row of Plan.
	Row []expr.Expr
	Cmp expr.Expr
	// Outer is set for a correlated subquery.
	Outer *expr.OuterRow
}

// Apply evaluates each of its uncorrelated subqueries once, and each
// correlated one once per input row, and appends to every input row one
// column per subquery: the scalar value, the IN
// result, or the EXISTS result. Output: Input's columns, then Subs'.
type Apply struct {
	Input Node
	Subs  []Subquery
	Cols  []Column
}

// Columns implements Node.
func (n *Apply) Columns() []Column { return n.Cols }

// Inputs implements Node: the input, then each subquery's plan.
func (n *Apply) Inputs() []Node {
	ins := []Node{n.Input}
	for _, s := range n.Subs {
		ins = append(ins, s.Plan)
	}
	return ins
}

var batchSubqueryKinds = [...]batch.SubqueryKind{
	ScalarSubquery: batch.ScalarSubquery, InSubquery: batch.InSubquery, ExistsSubquery: batch.ExistsSubquery,
	ArraySubquery: batch.ArraySubquery, QuantifiedSubquery: batch.QuantifiedSubquery,
}

// batchSpec is the part of s's batch spec that does not depend on
// whether it is correlated.
func batchSpec(s Subquery) (batch.SubquerySpec, error) {
	spec := batch.SubquerySpec{Kind: batchSubqueryKinds[s.Kind], Probe: s.Probe, Not: s.Not, Elem: arrayElem(s), All: s.All}
	if s.Kind == QuantifiedSubquery && s.Row != nil {
		spec.Probes, spec.Cmp = s.Row, s.Cmp
	} else if s.Kind == QuantifiedSubquery {
		t := s.Probe.Type()
		cmp, err := expr.Binary(s.Op, expr.NewColumn(0, t, "x"), expr.NewColumn(1, t, "y"))
		if err != nil {
			return spec, err
		}
		spec.Cmp = cmp
	}
	return spec, nil
}

// arrayElem is the element type of an Array subquery's result.
func arrayElem(s Subquery) types.Type {
	if s.Kind != ArraySubquery {
		return types.Type{}
	}
	return s.Plan.Columns()[0].Type
}

func buildApply(n *Apply, src batch.Source) (batch.Executor, error) {
	if d, ok := batchDecorrelate(n); ok {
		return BuildBatch(d, src)
	}
	specs := make([]batch.SubquerySpec, 0, len(n.Subs))
	closeAll := func() {
		for _, s := range specs {
			if s.Plan != nil {
				s.Plan.Close()
			}
		}
	}
	for _, s := range n.Subs {
		spec, err := batchSpec(s)
		if err != nil {
			closeAll()
			return nil, err
		}
		if s.Outer != nil {
			plan := s.Plan
			spec.Outer = s.Outer
			spec.Build = func() (batch.Executor, error) { return BuildBatch(plan, src) }
			if cols, pure := outerColumns(plan, s.Outer); pure && s.Kind != InSubquery && s.Kind != QuantifiedSubquery {
				spec.Memo = true
				spec.OuterCols = cols
			}
			specs = append(specs, spec)
			continue
		}
		e, err := BuildBatch(s.Plan, src)
		if err != nil {
			closeAll()
			return nil, err
		}
		spec.Plan = e
		specs = append(specs, spec)
	}
	in, err := BuildBatch(n.Input, src)
	if err != nil {
		closeAll()
		return nil, err
	}
	return batch.NewApply(in, specs, batchColumnTypes(n.Cols)), nil
}

// batchDecorrelate rewrites the correlated subqueries of a batch Apply
// into joins, as a view's plan does (decorrelate): an EXISTS becomes a
// hash join with the distinct correlated keys of the subquery's rows, an
// aggregate a hash join with it grouped by them, so the subquery's input
// is read once rather than once per row. The uncorrelated subqueries
// stay in an Apply below (each runs once there anyway). ok is false when
// there is nothing to gain, a subquery's correlation is not one
// decorrelateOne takes, or the rewrite needs an operator only views have
// (a Top-N per key); the caller then runs the Apply as it is.
func batchDecorrelate(a *Apply) (Node, bool) {
	w := len(a.Input.Columns())
	var cur Node = a.Input
	pos := make([]int, len(a.Subs))
	uncorrelated := &Apply{Input: a.Input, Cols: a.Cols[:w:w]}
	for i, s := range a.Subs {
		if s.Outer == nil {
			pos[i] = len(uncorrelated.Cols)
			uncorrelated.Subs = append(uncorrelated.Subs, s)
			uncorrelated.Cols = append(uncorrelated.Cols, a.Cols[w+i])
		}
	}
	if len(uncorrelated.Subs) == len(a.Subs) {
		return nil, false
	}
	if len(uncorrelated.Subs) > 0 {
		cur = uncorrelated
	}
	for i, s := range a.Subs {
		if s.Outer == nil {
			continue
		}
		next, val, err := decorrelateOne(cur, s)
		if err != nil {
			return nil, false
		}
		keep := cur.Columns()
		pos[i] = len(keep)
		cur = keepAndAppend(next, keep, val, a.Cols[w+i])
	}
	if !batchPlannable(cur) {
		return nil, false
	}
	// Back to the Apply's columns: the input's, then one per subquery.
	cols := cur.Columns()
	out := &Project{Input: cur, Cols: a.Cols}
	for c := 0; c < w; c++ {
		out.Exprs = append(out.Exprs, expr.NewColumn(c, cols[c].Type, cols[c].Name))
	}
	for _, p := range pos {
		out.Exprs = append(out.Exprs, expr.NewColumn(p, cols[p].Type, cols[p].Name))
	}
	return out, true
}

// batchPlannable reports whether BuildBatch has an executor for every
// node of n that a decorrelated subquery may bring.
func batchPlannable(n Node) bool {
	switch n.(type) {
	case *TopN, *DynamicFilter:
		return false
	}
	for _, in := range n.Inputs() {
		if !batchPlannable(in) {
			return false
		}
	}
	return true
}
