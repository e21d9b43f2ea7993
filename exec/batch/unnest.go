package batch

import (
	"context"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// Unnest yields the elements of an array, one row each, in order; a NULL
// array yields no rows. The array expression has no column references
// (it may read an enclosing query's row).
type Unnest struct {
	arr     expr.Expr
	types   []types.Type
	rb      *rowBuilder
	started bool
	elems   []types.Datum
	pos     int
}

// NewUnnest returns the rows of the array arr, whose elements have type elem.
func NewUnnest(arr expr.Expr, elem types.Type) *Unnest {
	ts := []types.Type{elem}
	return &Unnest{arr: arr, types: ts, rb: newRowBuilder(ts)}
}

// Types implements Executor.
func (u *Unnest) Types() []types.Type { return u.types }

// Next implements Executor.
func (u *Unnest) Next(ctx context.Context) (*chunk.Chunk, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !u.started {
		u.started = true
		v, err := u.arr.Eval(nil)
		if err != nil {
			return nil, err
		}
		if v != nil {
			if u.elems, err = types.ParseArray(v.(string), u.types[0]); err != nil {
				return nil, err
			}
		}
	}
	row := make([]types.Datum, 1)
	for u.pos < len(u.elems) && !u.rb.full() {
		row[0] = u.elems[u.pos]
		u.rb.append(row)
		u.pos++
	}
	return u.rb.build(), nil
}

// Close implements Executor.
func (u *Unnest) Close() error {
	u.rb.release()
	return nil
}
