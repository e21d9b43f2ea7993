package batch

import (
	"context"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/internal/vec"
)

// Filter passes the rows for which a condition is true (not NULL, not
// false). A condition package vec compiles is evaluated a chunk at a time
// and the passing rows copied out with chunk.Take; any other a row at a
// time.
type Filter struct {
	in   Executor
	cond expr.Expr
	pred *vec.Predicate // nil: evaluate cond a row at a time
	sel  []int
	rb   *rowBuilder
}

// NewFilter returns a filter of in on cond.
func NewFilter(in Executor, cond expr.Expr) *Filter {
	f := &Filter{in: in, cond: cond, rb: newRowBuilder(in.Types())}
	if p, ok := vec.Compile(cond, in.Types()); ok {
		f.pred = p
	}
	return f
}

// Types implements Executor.
func (f *Filter) Types() []types.Type { return f.in.Types() }

// Next implements Executor. It skips input chunks with no passing rows and
// hands a chunk whose rows all pass on unchanged.
func (f *Filter) Next(ctx context.Context) (*chunk.Chunk, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, err := f.in.Next(ctx)
		if err != nil || c == nil {
			return nil, err
		}
		out, err := f.filter(c)
		if err != nil || out != nil {
			return out, err
		}
	}
}

// filter returns the passing rows of c (c itself if all pass, nil if none),
// taking ownership of c.
func (f *Filter) filter(c *chunk.Chunk) (*chunk.Chunk, error) {
	if f.pred != nil {
		return f.filterVec(c)
	}
	var row []types.Datum
	kept := 0
	for i := 0; i < c.NumRows(); i++ {
		row = c.Row(i, row)
		ok, err := isTrue(f.cond, row)
		if err != nil {
			c.Release()
			return nil, err
		}
		if ok {
			f.rb.append(row)
			kept++
		}
	}
	if kept == c.NumRows() && kept > 0 {
		f.rb.discard()
		return c, nil
	}
	c.Release()
	return f.rb.build(), nil
}

// filterVec is filter with the compiled predicate.
func (f *Filter) filterVec(c *chunk.Chunk) (*chunk.Chunk, error) {
	sel, err := f.pred.Select(c, f.sel)
	f.sel = sel
	switch {
	case err != nil:
		c.Release()
		return nil, err
	case len(sel) == c.NumRows() && len(sel) > 0:
		return c, nil
	case len(sel) == 0:
		c.Release()
		return nil, nil
	}
	out := chunk.Take(c, sel, nil) // plain rows, as the row path builds them
	c.Release()
	return out, nil
}

// isTrue evaluates a condition: NULL counts as false.
func isTrue(cond expr.Expr, row []types.Datum) (bool, error) {
	v, err := cond.Eval(row)
	if err != nil {
		return false, err
	}
	b, _ := v.(bool)
	return b, nil
}

// Close implements Executor.
func (f *Filter) Close() error {
	f.rb.release()
	return f.in.Close()
}
