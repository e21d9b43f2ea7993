package planner

import (
	"github.com/streamdb/streamdb/exec/batch"
	"github.com/streamdb/streamdb/internal/expr"
)

// Unnest produces one row per element of the array Arg, a constant
// expression (or one over an enclosing query's row), in order.
type Unnest struct {
	Arg  expr.Expr
	Cols []Column
}

// Columns implements Node.
func (n *Unnest) Columns() []Column { return n.Cols }

// Inputs implements Node.
func (n *Unnest) Inputs() []Node { return nil }

func buildUnnest(n *Unnest) batch.Executor { return batch.NewUnnest(n.Arg, n.Cols[0].Type) }
