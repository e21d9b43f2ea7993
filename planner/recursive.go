package planner

import (
	"fmt"

	"github.com/streamdb/streamdb/exec/batch"
)

// WorkTable names the working table of one recursive query: the
// WorkTableScans of its recursive term read it, and its RecursiveUnion
// fills it. It carries no rows: each execution makes its own
// batch.WorkTable (workSource).
type WorkTable struct{ Name string }

// WorkTableScan reads the rows of the last iteration of a recursive
// query, within its recursive term.
type WorkTableScan struct {
	Work *WorkTable
	Cols []Column
}

// Columns implements Node.
func (n *WorkTableScan) Columns() []Column { return n.Cols }

// Inputs implements Node.
func (n *WorkTableScan) Inputs() []Node { return nil }

// RecursiveUnion is WITH RECURSIVE's query: Base UNION [ALL] Recursive,
// Recursive run again over the rows of its last run (read through Work)
// until it yields none. Distinct is UNION: a row already yielded is
// dropped. Batch queries only.
type RecursiveUnion struct {
	Base, Recursive Node
	Distinct        bool
	Work            *WorkTable
	Cols            []Column
}

// Columns implements Node.
func (n *RecursiveUnion) Columns() []Column { return n.Cols }

// Inputs implements Node.
func (n *RecursiveUnion) Inputs() []Node { return []Node{n.Base, n.Recursive} }

// workSource carries the working tables of the recursive queries whose
// recursive term is being built.
type workSource struct {
	batch.Source
	work *WorkTable
	rows *batch.WorkTable
}

// workTableOf finds the batch working table of w in src's wrappers.
func workTableOf(src batch.Source, w *WorkTable) (*batch.WorkTable, error) {
	for {
		switch s := src.(type) {
		case *workSource:
			if s.work == w {
				return s.rows, nil
			}
			src = s.Source
		case *prunedSource:
			src = s.Source
		default:
			return nil, fmt.Errorf("planner: no working table for recursive query %q", w.Name)
		}
	}
}

func buildRecursiveUnion(n *RecursiveUnion, src batch.Source) (batch.Executor, error) {
	base, err := BuildBatch(n.Base, src)
	if err != nil {
		return nil, err
	}
	rows := &batch.WorkTable{}
	ws := &workSource{Source: src, work: n.Work, rows: rows}
	build := func() (batch.Executor, error) { return BuildBatch(n.Recursive, ws) }
	return batch.NewRecursiveUnion(n.Work.Name, base, build, rows, n.Distinct, batchColumnTypes(n.Cols)), nil
}

func buildWorkTableScan(n *WorkTableScan, src batch.Source) (batch.Executor, error) {
	rows, err := workTableOf(src, n.Work)
	if err != nil {
		return nil, err
	}
	return batch.NewWorkTableScan(rows, batchColumnTypes(n.Cols)), nil
}
