package planner

import (
	"github.com/streamdb/streamdb/exec/batch"
	"github.com/streamdb/streamdb/internal/expr"
)

// Expand outputs, for every input row, one row per projection (HOP
// windows: one row per window holding the row). Each projection passes
// the input's columns through at their positions, so the input's key
// still identifies a row together with column Branch, which differs
// between the projections of one row (the window start).
type Expand struct {
	Input       Node
	Projections [][]expr.Expr
	Cols        []Column
	Branch      int
}

func (n *Expand) Columns() []Column { return n.Cols }
func (n *Expand) Inputs() []Node    { return []Node{n.Input} }

func buildBatchExpand(n *Expand, src batch.Source) (batch.Executor, error) {
	return build1(n.Input, src, func(in batch.Executor) batch.Executor {
		return batch.NewExpand(in, n.Projections, batchColumnTypes(n.Cols))
	})
}
