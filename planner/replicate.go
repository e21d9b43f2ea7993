package planner

import (
	"github.com/streamdb/streamdb/exec/batch"
	"github.com/streamdb/streamdb/internal/types"
)

// Replicate outputs, for every input row, as many copies as its column
// Count says (none for NULL or less than 1), each with its copy number
// from 1 in an added hidden column: INTERSECT ALL and EXCEPT ALL keep a
// row n times. The input's key and the copy number identify a row.
type Replicate struct {
	Input Node
	Count int
	Cols  []Column
}

// NewReplicate returns a Replicate over in.
func NewReplicate(in Node, count int) *Replicate {
	cols := append(append([]Column(nil), in.Columns()...), Column{Name: "_copy", Type: types.TInt64, Hidden: true})
	return &Replicate{Input: in, Count: count, Cols: cols}
}

func (n *Replicate) Columns() []Column { return n.Cols }
func (n *Replicate) Inputs() []Node    { return []Node{n.Input} }

func buildBatchReplicate(n *Replicate, src batch.Source) (batch.Executor, error) {
	return build1(n.Input, src, func(in batch.Executor) batch.Executor { return batch.NewReplicate(in, n.Count) })
}
