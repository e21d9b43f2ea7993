package batch

import (
	"context"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// Project computes one expression per output column for each input row.
type Project struct {
	in    Executor
	exprs []expr.Expr
	types []types.Type
	rb    *rowBuilder
}

// NewProject returns a projection of in.
func NewProject(in Executor, exprs []expr.Expr, ts []types.Type) *Project {
	return &Project{in: in, exprs: exprs, types: ts, rb: newRowBuilder(ts)}
}

// Types implements Executor.
func (p *Project) Types() []types.Type { return p.types }

// Next implements Executor.
func (p *Project) Next(ctx context.Context) (*chunk.Chunk, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, err := p.in.Next(ctx)
		if err != nil || c == nil {
			return nil, err
		}
		out, err := p.project(c)
		if err != nil || out != nil {
			return out, err
		}
	}
}

// project computes the output rows of c (nil when c is empty) and
// releases c.
func (p *Project) project(c *chunk.Chunk) (*chunk.Chunk, error) {
	defer c.Release()
	var in []types.Datum
	var err error
	out := make([]types.Datum, len(p.exprs))
	for i := 0; i < c.NumRows(); i++ {
		in = c.Row(i, in)
		for j, e := range p.exprs {
			if out[j], err = e.Eval(in); err != nil {
				p.rb.discard()
				return nil, err
			}
		}
		p.rb.append(out)
	}
	return p.rb.build(), nil
}

// Close implements Executor.
func (p *Project) Close() error {
	p.rb.release()
	return p.in.Close()
}
