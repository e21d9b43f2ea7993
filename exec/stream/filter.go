package stream

import (
	"context"
	"fmt"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/failpoint"
	"github.com/streamdb/streamdb/internal/types"
)

// Filter keeps the rows of its input for which a boolean condition is true
// (NULL and false drop the row). Barriers pass through. Filter keeps no
// state.
//
// Updates: an adjacent UpdateDelete/UpdateInsert pair whose two sides both
// pass stays a pair; when only the old side passes it becomes a Delete,
// when only the new side passes an Insert. An unpaired UpdateDelete or
// UpdateInsert (which a well-formed stream never has) is treated as a Delete
// or Insert. Chunks left empty are not emitted.
type Filter struct {
	in   Executor
	cond expr.Expr
	b    *chunk.Builder
	row  []types.Datum
}

// NewFilter returns an executor keeping in's rows that satisfy cond.
func NewFilter(in Executor, cond expr.Expr) *Filter {
	return &Filter{in: in, cond: cond, b: chunk.NewBuilder(in.Types())}
}

// Types implements Executor.
func (f *Filter) Types() []types.Type { return f.in.Types() }

// Next implements Executor.
func (f *Filter) Next(ctx context.Context) (Message, error) {
	for {
		msg, err := f.in.Next(ctx)
		if err != nil {
			return msg, err
		}
		if failpoint.Enabled {
			if err := hitStateless(msg); err != nil {
				return Message{}, err
			}
		}
		if msg.Chunk == nil {
			return msg, nil
		}
		c, err := f.filter(msg.Chunk)
		msg.Chunk.Release()
		if err != nil {
			return Message{}, err
		}
		if c.NumRows() > 0 {
			return Message{Chunk: c}, nil
		}
		c.Release()
	}
}

// filter builds the output chunk of in; in stays owned by the caller.
func (f *Filter) filter(in *chunk.Chunk) (*chunk.Chunk, error) {
	n := in.NumRows()
	for i := 0; i < n; i++ {
		op := in.Op(i)
		if op == chunk.UpdateDelete && i+1 < n && in.Op(i+1) == chunk.UpdateInsert {
			if err := f.filterUpdate(in, i); err != nil {
				f.b.Build().Release()
				return nil, err
			}
			i++
			continue
		}
		if err := f.filterRow(in, i, plainOp(op)); err != nil {
			f.b.Build().Release()
			return nil, err
		}
	}
	return f.b.Build(), nil
}

// filterRow appends row i of in with op when it passes.
func (f *Filter) filterRow(in *chunk.Chunk, i int, op chunk.Op) error {
	ok, err := f.pass(in, i)
	if ok {
		f.b.Append(op, f.row)
	}
	return err
}

// filterUpdate handles the update pair at rows i, i+1 of in.
func (f *Filter) filterUpdate(in *chunk.Chunk, i int) error {
	oldOK, err := f.pass(in, i)
	if err != nil {
		return err
	}
	old := append([]types.Datum(nil), f.row...)
	newOK, err := f.pass(in, i+1)
	if err != nil {
		return err
	}
	switch {
	case oldOK && newOK:
		f.b.Append(chunk.UpdateDelete, old)
		f.b.Append(chunk.UpdateInsert, f.row)
	case oldOK:
		f.b.Append(chunk.Delete, old)
	case newOK:
		f.b.Append(chunk.Insert, f.row)
	}
	return nil
}

// pass decodes row i of in into f.row and evaluates the condition on it.
func (f *Filter) pass(in *chunk.Chunk, i int) (bool, error) {
	f.row = in.Row(i, f.row)
	v, err := f.cond.Eval(f.row)
	if err != nil {
		return false, fmt.Errorf("stream: filter %s: %w", f.cond, err)
	}
	b, _ := v.(bool)
	return b, nil
}

// plainOp maps the update ops to Delete and Insert.
func plainOp(op chunk.Op) chunk.Op {
	if op.IsInsert() {
		return chunk.Insert
	}
	return chunk.Delete
}
