package batch

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/internal/vec"
)

// Project computes one expression per output column for each input row.
// The expressions package vec compiles are evaluated a chunk at a time
// (a bare column reference shares the input's Arrow column), the others
// a row at a time; either way the values and the error (the first in row
// order) are the row evaluator's.
type Project struct {
	in     Executor
	exprs  []expr.Expr
	types  []types.Type
	schema *arrow.Schema
	proj   *vec.Projection
}

// NewProject returns a projection of in.
func NewProject(in Executor, exprs []expr.Expr, ts []types.Type) *Project {
	return &Project{in: in, exprs: exprs, types: ts, schema: chunk.Schema(ts),
		proj: vec.CompileProjection(exprs, in.Types(), ts)}
}

// setAllocator makes the buffers of the columns Project builds come from
// mem (tests: a memory.CheckedAllocator).
func (p *Project) setAllocator(mem memory.Allocator) { p.proj.SetAllocator(mem) }

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
	n := c.NumRows()
	if n == 0 {
		return nil, nil
	}
	cols, _, err := p.proj.Columns(c)
	if err != nil {
		return nil, err
	}
	rec := array.NewRecordBatch(p.schema, cols, int64(n)) // retains cols
	for _, a := range cols {
		a.Release()
	}
	return &chunk.Chunk{Rec: rec, Types: p.types}, nil
}

// Close implements Executor.
func (p *Project) Close() error {
	p.proj.Close()
	return p.in.Close()
}
