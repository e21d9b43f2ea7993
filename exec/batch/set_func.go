package batch

import (
	"context"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// SetFunc yields the rows of a set-returning function (expr.SetFunc)
// over constant arguments, in order.
type SetFunc struct {
	args    []expr.Expr
	fn      func([]types.Datum) ([][]types.Datum, error)
	types   []types.Type
	rows    [][]types.Datum
	pos     int
	started bool
	rb      *rowBuilder
}

// NewSetFunc returns fn over args, its rows' columns of types ts.
func NewSetFunc(args []expr.Expr, fn func([]types.Datum) ([][]types.Datum, error), ts []types.Type) *SetFunc {
	return &SetFunc{args: args, fn: fn, types: ts, rb: newRowBuilder(ts)}
}

// Types implements Executor.
func (s *SetFunc) Types() []types.Type { return s.types }

// Next implements Executor.
func (s *SetFunc) Next(ctx context.Context) (*chunk.Chunk, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !s.started {
		s.started = true
		vals := make([]types.Datum, len(s.args))
		for i, a := range s.args {
			v, err := a.Eval(nil)
			if err != nil {
				return nil, err
			}
			vals[i] = v
		}
		var err error
		if s.rows, err = s.fn(vals); err != nil {
			return nil, err
		}
	}
	for s.pos < len(s.rows) && !s.rb.full() {
		s.rb.append(s.rows[s.pos])
		s.pos++
	}
	return s.rb.build(), nil
}

// Close implements Executor.
func (s *SetFunc) Close() error {
	s.rb.release()
	return nil
}
