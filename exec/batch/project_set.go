package batch

import (
	"context"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// ProjectSet repeats each input row once per row that its set-returning
// functions yield for it together (expand: the functions' columns and
// the ordinal), appending that row.
type ProjectSet struct {
	in     Executor
	expand func(context.Context, []types.Datum) ([][]types.Datum, error)
	types  []types.Type
	rb     *rowBuilder
	row    []types.Datum
	out    []types.Datum
	// pending is the chunk being expanded and next its next row.
	pending *chunk.Chunk
	next    int
	vals    [][]types.Datum // the current row's expansion not yet emitted
	width   int             // the input's column count
}

// NewProjectSet returns the expansion of in's rows; ts are the output
// types (in's, then those of the rows expand yields).
func NewProjectSet(in Executor, expand func(context.Context, []types.Datum) ([][]types.Datum, error), ts []types.Type) *ProjectSet {
	return &ProjectSet{in: in, expand: expand, types: ts, rb: newRowBuilder(ts), out: make([]types.Datum, len(ts))}
}

// Types implements Executor.
func (p *ProjectSet) Types() []types.Type { return p.types }

// Next implements Executor.
func (p *ProjectSet) Next(ctx context.Context) (*chunk.Chunk, error) {
	for !p.rb.full() {
		if len(p.vals) > 0 {
			copy(p.out[p.width:], p.vals[0])
			p.vals = p.vals[1:]
			p.rb.append(p.out)
			continue
		}
		if p.pending != nil && p.next >= p.pending.NumRows() {
			p.pending.Release()
			p.pending = nil
		}
		if p.pending == nil {
			c, err := p.in.Next(ctx)
			if err != nil {
				return nil, err
			}
			if c == nil {
				break
			}
			p.pending, p.next = c, 0
			continue
		}
		p.row = p.pending.Row(p.next, p.row)
		p.next++
		vals, err := p.expand(ctx, p.row)
		if err != nil {
			return nil, err
		}
		p.width = copy(p.out, p.row)
		p.vals = vals
	}
	return p.rb.build(), nil
}

// Close implements Executor.
func (p *ProjectSet) Close() error {
	if p.pending != nil {
		p.pending.Release()
		p.pending = nil
	}
	p.rb.release()
	return p.in.Close()
}
