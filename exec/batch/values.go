package batch

import (
	"context"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// Values produces constant rows, evaluating them a chunk at a time.
type Values struct {
	rows  [][]expr.Expr
	types []types.Type
	pos   int
	rb    *rowBuilder
}

// NewValues returns an executor yielding rows (expressions without column
// references) of the given types.
func NewValues(rows [][]expr.Expr, ts []types.Type) *Values {
	return &Values{rows: rows, types: ts, rb: newRowBuilder(ts)}
}

// Types implements Executor.
func (v *Values) Types() []types.Type { return v.types }

// Next implements Executor.
func (v *Values) Next(ctx context.Context) (*chunk.Chunk, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	row := make([]types.Datum, len(v.types))
	for v.pos < len(v.rows) && !v.rb.full() {
		for j, e := range v.rows[v.pos] {
			d, err := e.Eval(nil)
			if err != nil {
				return nil, err
			}
			row[j] = d
		}
		v.rb.append(row)
		v.pos++
	}
	return v.rb.build(), nil
}

// Close implements Executor.
func (v *Values) Close() error {
	v.rb.release()
	return nil
}
