package planner

import (
	"github.com/streamdb/streamdb/exec/batch"
	"github.com/streamdb/streamdb/internal/expr"
)

// Expand outputs, for every input row, one row per projection (HOP
// windows: one row per window holding the row; grouping sets: one per
// set). Each projection passes the input's columns through, at their
// positions shifted by Prefix, so the input's key still identifies a row
// together with column Branch, which differs between the projections of
// one row (the window start, the grouping set's number). A HOP's
// computed columns follow the input's (Prefix 0); grouping sets' come
// first (Prefix: the keys and the set number), so that the columns a
// view's planning adds to the input land after them.
type Expand struct {
	Input       Node
	Projections [][]expr.Expr
	Cols        []Column
	Branch      int
	Prefix      int
}

func (n *Expand) Columns() []Column { return n.Cols }
func (n *Expand) Inputs() []Node    { return []Node{n.Input} }

func buildBatchExpand(n *Expand, src batch.Source) (batch.Executor, error) {
	return build1(n.Input, src, func(in batch.Executor) batch.Executor {
		return batch.NewExpand(in, n.Projections, batchColumnTypes(n.Cols))
	})
}
