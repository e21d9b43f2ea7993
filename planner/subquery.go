package planner

import (
	"github.com/streamdb/streamdb/exec/batch"
	"github.com/streamdb/streamdb/exec/expr"
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
)

// Subquery is an uncorrelated subquery of an Apply: its plan does not
// refer to the Apply's input.
type Subquery struct {
	Kind SubqueryKind
	// Plan has one visible column for Scalar and In (for In, of Probe's
	// type).
	Plan Node
	// Probe is, for In, the left operand over the Apply's input row.
	Probe expr.Expr
	// Not is NOT IN.
	Not bool
}

// Apply evaluates each of its uncorrelated subqueries once and appends to
// every input row one column per subquery: the scalar value, the IN
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
}

func buildApply(n *Apply, src batch.Source) (batch.Executor, error) {
	specs := make([]batch.SubquerySpec, 0, len(n.Subs))
	closeAll := func() {
		for _, s := range specs {
			s.Plan.Close()
		}
	}
	for _, s := range n.Subs {
		e, err := BuildBatch(s.Plan, src)
		if err != nil {
			closeAll()
			return nil, err
		}
		specs = append(specs, batch.SubquerySpec{Kind: batchSubqueryKinds[s.Kind], Plan: e, Probe: s.Probe, Not: s.Not})
	}
	in, err := BuildBatch(n.Input, src)
	if err != nil {
		closeAll()
		return nil, err
	}
	return batch.NewApply(in, specs, batchColumnTypes(n.Cols)), nil
}
