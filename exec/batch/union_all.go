package batch

import (
	"context"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// UnionAll passes the rows of its inputs, one input after the other.
type UnionAll struct {
	ins   []Executor
	types []types.Type
	cur   int
}

// NewUnionAll returns the concatenation of ins (all of types ts).
func NewUnionAll(ins []Executor, ts []types.Type) *UnionAll {
	return &UnionAll{ins: ins, types: ts}
}

// Types implements Executor.
func (u *UnionAll) Types() []types.Type { return u.types }

// Next implements Executor.
func (u *UnionAll) Next(ctx context.Context) (*chunk.Chunk, error) {
	for u.cur < len(u.ins) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, err := u.ins[u.cur].Next(ctx)
		if err != nil {
			return nil, err
		}
		if c != nil {
			return c, nil
		}
		u.cur++
	}
	return nil, nil
}

// Close implements Executor.
func (u *UnionAll) Close() error {
	var first error
	for _, in := range u.ins {
		if err := in.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
