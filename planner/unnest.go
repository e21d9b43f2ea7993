package planner

import (
	"github.com/streamdb/streamdb/exec/batch"
	"github.com/streamdb/streamdb/internal/expr"
)

// Unnest produces one row per element of the array Arg, a constant
// expression (or one over an enclosing query's row), in order. With Set,
// it is that set-returning function instead (jsonb_array_elements,
// jsonb_each, regexp_split_to_table, ...; see expr.SetFunc): one row per
// row it yields, over Set.Args (Arg is then Set.Args[0]), of Set.Cols'
// columns.
type Unnest struct {
	Arg  expr.Expr
	Set  *expr.SetFunc
	Cols []Column
}

// Columns implements Node.
func (n *Unnest) Columns() []Column { return n.Cols }

// Inputs implements Node.
func (n *Unnest) Inputs() []Node { return nil }

// args are the function's arguments.
func (n *Unnest) args() []expr.Expr {
	if n.Set != nil {
		return n.Set.Args
	}
	return []expr.Expr{n.Arg}
}

// name is the function's name.
func (n *Unnest) name() string {
	if n.Set != nil {
		return n.Set.Name
	}
	return "unnest"
}

func buildUnnest(n *Unnest) batch.Executor {
	if n.Set != nil {
		return batch.NewSetFunc(n.Set.Args, n.Set.Fn, batchColumnTypes(n.Cols))
	}
	return batch.NewUnnest(n.Arg, n.Cols[0].Type)
}
