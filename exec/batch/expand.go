package batch

import (
	"context"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// Expand emits, for every input row, one row per projection (HOP
// windows).
type Expand struct {
	in    Executor
	projs [][]expr.Expr
	types []types.Type
	rb    *rowBuilder
}

// NewExpand returns an Expand over in.
func NewExpand(in Executor, projs [][]expr.Expr, ts []types.Type) *Expand {
	return &Expand{in: in, projs: projs, types: ts, rb: newRowBuilder(ts)}
}

// Types implements Executor.
func (e *Expand) Types() []types.Type { return e.types }

// Next implements Executor.
func (e *Expand) Next(ctx context.Context) (*chunk.Chunk, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, err := e.in.Next(ctx)
		if err != nil || c == nil {
			return nil, err
		}
		out, err := e.expand(c)
		if err != nil || out != nil {
			return out, err
		}
	}
}

func (e *Expand) expand(c *chunk.Chunk) (*chunk.Chunk, error) {
	defer c.Release()
	var in []types.Datum
	out := make([]types.Datum, len(e.types))
	for i := 0; i < c.NumRows(); i++ {
		in = c.Row(i, in)
		for _, proj := range e.projs {
			for j, x := range proj {
				v, err := x.Eval(in)
				if err != nil {
					e.rb.discard()
					return nil, err
				}
				out[j] = v
			}
			e.rb.append(out)
		}
	}
	return e.rb.build(), nil
}

// Close implements Executor.
func (e *Expand) Close() error {
	e.rb.release()
	return e.in.Close()
}
