package engine

import (
	"strings"

	"github.com/streamdb/streamdb/internal/engine/write"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
)

// returning collects a DML statement's RETURNING rows while it runs and
// sends them once it has committed (a statement that fails returns none).
type returning struct {
	spec planner.Returning
	rows [][]types.Datum
}

func newReturning(spec planner.Returning) *returning { return &returning{spec: spec} }

// collect is the writer's callback: nil without a RETURNING list.
func (r *returning) collect() write.Returned {
	if len(r.spec.Exprs) == 0 {
		return nil
	}
	return func(row []types.Datum) error {
		out := make([]types.Datum, len(r.spec.Exprs))
		for i, e := range r.spec.Exprs {
			v, err := e.Eval(row)
			if err != nil {
				return err
			}
			if str, ok := v.(string); ok {
				v = strings.Clone(str) // the row's strings may point into a chunk
			}
			out[i] = v
		}
		r.rows = append(r.rows, out)
		return nil
	}
}

// write sends the rows, if the statement has a RETURNING list, and the
// command tag.
func (r *returning) write(w ResultWriter, tag string) error {
	if len(r.spec.Exprs) > 0 {
		cols := make([]Column, len(r.spec.Out))
		for i, c := range r.spec.Out {
			cols[i] = Column{Name: c.Name, Type: c.Type}
		}
		if err := w.Columns(cols); err != nil {
			return err
		}
		for _, row := range r.rows {
			if err := w.Row(row); err != nil {
				return err
			}
		}
	}
	return w.Complete(tag)
}
