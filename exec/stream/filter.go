package stream

import (
	"context"
	"fmt"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/failpoint"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/internal/vec"
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
//
// A condition package vec compiles is evaluated a chunk at a time, and
// the output taken from the input with chunk.Take (or the input itself,
// when every row passes with its op unchanged); any other a row at a
// time.
type Filter struct {
	in   Executor
	cond expr.Expr
	pred *vec.Predicate // nil: evaluate cond a row at a time
	sel  []int
	b    *chunk.Builder
	row  []types.Datum
}

// NewFilter returns an executor keeping in's rows that satisfy cond.
func NewFilter(in Executor, cond expr.Expr) *Filter {
	f := &Filter{in: in, cond: cond, b: chunk.NewBuilder(in.Types())}
	if p, ok := vec.Compile(cond, in.Types()); ok {
		f.pred = p
	}
	return f
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
		filter := f.filter
		if f.pred != nil {
			filter = f.filterVec
		}
		c, err := filter(msg.Chunk)
		msg.Chunk.Release()
		if err != nil {
			return Message{}, err
		}
		if c == nil {
			continue
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

// filterVec is filter with the compiled predicate: the same rows and ops,
// nil when no row passes. The result may be in itself, retained.
func (f *Filter) filterVec(in *chunk.Chunk) (*chunk.Chunk, error) {
	sel, err := f.pred.Select(in, f.sel)
	f.sel = sel
	if err != nil {
		return nil, fmt.Errorf("stream: filter %s: %w", f.cond, err)
	}
	if len(sel) == 0 {
		return nil, nil
	}
	rows, ops, same := keptOps(in, sel)
	switch {
	case same:
		in.Retain()
		return in, nil
	case len(rows) == in.NumRows(): // every row, some op changed
		in.Rec.Retain()
		return &chunk.Chunk{Rec: in.Rec, Ops: ops, Types: in.Types}, nil
	}
	return chunk.Take(in, rows, ops), nil
}

// keptOps walks the passing rows sel of in as filter does: the rows to
// keep and their ops, and whether those are all of in's rows with their
// ops unchanged.
func keptOps(in *chunk.Chunk, sel []int) (rows []int, ops []chunk.Op, same bool) {
	n := in.NumRows()
	rows, ops = make([]int, 0, len(sel)), make([]chunk.Op, 0, len(sel))
	same = len(sel) == n && in.Ops != nil
	k := 0 // next of sel
	pass := func(i int) bool {
		for k < len(sel) && sel[k] < i {
			k++
		}
		return k < len(sel) && sel[k] == i
	}
	for i := 0; i < n; i++ {
		op := in.Op(i)
		if op == chunk.UpdateDelete && i+1 < n && in.Op(i+1) == chunk.UpdateInsert {
			oldOK, newOK := pass(i), pass(i+1)
			switch {
			case oldOK && newOK:
				rows, ops = append(rows, i, i+1), append(ops, chunk.UpdateDelete, chunk.UpdateInsert)
			case oldOK:
				rows, ops = append(rows, i), append(ops, chunk.Delete)
			case newOK:
				rows, ops = append(rows, i+1), append(ops, chunk.Insert)
			}
			i++
			continue
		}
		if pass(i) {
			rows, ops = append(rows, i), append(ops, plainOp(op))
			same = same && plainOp(op) == op
		}
	}
	return rows, ops, same
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
