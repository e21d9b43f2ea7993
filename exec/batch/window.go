package batch

import (
	"context"
	"sort"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/internal/window"
)

// Window computes window functions: it reads its whole input, orders it by
// the partition columns and the window's ORDER BY, and emits each row
// followed by one column per function, partition by partition.
type Window struct {
	in    Executor
	spec  *window.Spec
	types []types.Type
	out   *rowsEmitter
}

// NewWindow returns the window functions of spec over in.
func NewWindow(in Executor, spec *window.Spec) *Window {
	ts := append([]types.Type{}, in.Types()...)
	for _, f := range spec.Funcs {
		ts = append(ts, f.Type)
	}
	return &Window{in: in, spec: spec, types: ts}
}

// Types implements Executor.
func (w *Window) Types() []types.Type { return w.types }

// Next implements Executor.
func (w *Window) Next(ctx context.Context) (*chunk.Chunk, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if w.out == nil {
		rows, err := w.compute(ctx)
		if err != nil {
			return nil, err
		}
		w.out = &rowsEmitter{rows: rows, rb: newRowBuilder(w.types)}
	}
	return w.out.next(), nil
}

func (w *Window) compute(ctx context.Context) ([][]types.Datum, error) {
	rows, err := (&Sort{in: w.in}).readAll(ctx)
	if err != nil {
		return nil, err
	}
	ts := w.in.Types()
	sort.SliceStable(rows, func(a, b int) bool {
		if c := comparePartition(rows[a], rows[b], w.spec.Partition, ts); c != 0 {
			return c < 0
		}
		return w.spec.CompareOrder(rows[a], rows[b]) < 0
	})
	nf := len(w.spec.Funcs)
	out := make([][]types.Datum, 0, len(rows))
	for start := 0; start < len(rows); {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		end := start + 1
		for end < len(rows) && comparePartition(rows[start], rows[end], w.spec.Partition, ts) == 0 {
			end++
		}
		part := rows[start:end]
		res, err := w.spec.Eval(window.Input{Rows: part, From: 0, To: len(part), AtStart: true, AtEnd: true})
		if err != nil {
			return nil, err
		}
		for i, r := range part {
			out = append(out, append(r, res[i][:nf]...))
		}
		start = end
	}
	return out, nil
}

// comparePartition orders rows by the partition columns, NULLs together.
func comparePartition(a, b []types.Datum, cols []int, ts []types.Type) int {
	for _, c := range cols {
		x, y := a[c], b[c]
		switch {
		case x == nil && y == nil:
			continue
		case x == nil:
			return -1
		case y == nil:
			return 1
		}
		if r := expr.Compare(x, y, ts[c]); r != 0 {
			return r
		}
	}
	return 0
}

// Close implements Executor.
func (w *Window) Close() error { return w.in.Close() }
