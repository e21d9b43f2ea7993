package batch

import (
	"context"
	"sort"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// SortKey is one sort column.
type SortKey struct {
	Col        int
	Desc       bool
	NullsFirst bool
}

// Sort orders its whole input, stably, by keys compared with
// expr.Compare; NULLs go first or last per key, whatever the direction.
type Sort struct {
	in   Executor
	keys []SortKey
	out  *rowsEmitter
}

// NewSort returns a sort of in.
func NewSort(in Executor, keys []SortKey) *Sort {
	return &Sort{in: in, keys: keys}
}

// Types implements Executor.
func (s *Sort) Types() []types.Type { return s.in.Types() }

// Next implements Executor. The first call consumes the whole input.
func (s *Sort) Next(ctx context.Context) (*chunk.Chunk, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.out == nil {
		rows, err := s.readAll(ctx)
		if err != nil {
			return nil, err
		}
		ts := s.in.Types()
		sort.SliceStable(rows, func(a, b int) bool { return compareRows(rows[a], rows[b], s.keys, ts) < 0 })
		s.out = &rowsEmitter{rows: rows, rb: newRowBuilder(ts)}
	}
	return s.out.next(), nil
}

func (s *Sort) readAll(ctx context.Context) ([][]types.Datum, error) {
	var rows [][]types.Datum
	for {
		c, err := s.in.Next(ctx)
		if err != nil || c == nil {
			return rows, err
		}
		for i := 0; i < c.NumRows(); i++ {
			rows = append(rows, cloneRow(c.Row(i, nil)))
		}
		c.Release()
	}
}

// compareRows orders two rows by keys.
func compareRows(a, b []types.Datum, keys []SortKey, ts []types.Type) int {
	for _, k := range keys {
		if c := compareKey(a[k.Col], b[k.Col], k, ts[k.Col]); c != 0 {
			return c
		}
	}
	return 0
}

func compareKey(a, b types.Datum, k SortKey, t types.Type) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return nullOrder(k)
	case b == nil:
		return -nullOrder(k)
	}
	c := expr.Compare(a, b, t)
	if k.Desc {
		return -c
	}
	return c
}

// nullOrder is how a NULL compares with a non-NULL value.
func nullOrder(k SortKey) int {
	if k.NullsFirst {
		return -1
	}
	return 1
}

// Close implements Executor.
func (s *Sort) Close() error {
	if s.out != nil {
		s.out.rb.release()
	}
	return s.in.Close()
}
