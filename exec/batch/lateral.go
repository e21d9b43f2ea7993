package batch

import (
	"context"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// LateralJoin joins each row of its left input with the rows a LATERAL
// subquery yields for it: the subquery's plan reads the left row through
// an expr.OuterRow and is built and run once per left row. Rows pairing
// up must satisfy the ON condition (over the left columns, then the
// right); a LEFT lateral join keeps a left row with no such pair, the
// right side NULL.
type LateralJoin struct {
	left     Executor
	build    func() (Executor, error)
	outer    *expr.OuterRow
	keepLeft bool
	cond     expr.Expr
	types    []types.Type
	nRight   int
	rb       *rowBuilder
	pending  [][]types.Datum // left rows of the current chunk not yet joined
	done     bool
}

// NewLateralJoin returns the lateral join of left with the subquery build
// makes, reading outer; nRight is the subquery's column count and ts the
// output's types (left's, then the subquery's). cond may be nil.
func NewLateralJoin(left Executor, build func() (Executor, error), outer *expr.OuterRow, keepLeft bool,
	cond expr.Expr, nRight int, ts []types.Type) *LateralJoin {
	return &LateralJoin{left: left, build: build, outer: outer, keepLeft: keepLeft, cond: cond, types: ts,
		nRight: nRight, rb: newRowBuilder(ts)}
}

// Types implements Executor.
func (j *LateralJoin) Types() []types.Type { return j.types }

// Next implements Executor.
func (j *LateralJoin) Next(ctx context.Context) (*chunk.Chunk, error) {
	for !j.rb.full() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(j.pending) == 0 {
			if j.done {
				break
			}
			c, err := j.left.Next(ctx)
			if err != nil {
				return nil, err
			}
			if c == nil {
				j.done = true
				break
			}
			j.pending = c.Rows()
			c.Release()
			continue
		}
		l := j.pending[0]
		j.pending = j.pending[1:]
		if err := j.joinRow(ctx, l); err != nil {
			return nil, err
		}
	}
	return j.rb.build(), nil
}

// joinRow runs the subquery for left row l and appends its pairs.
func (j *LateralJoin) joinRow(ctx context.Context, l []types.Datum) error {
	rights, err := j.run(ctx, l)
	if err != nil {
		return err
	}
	matched := false
	row := make([]types.Datum, len(l)+j.nRight)
	copy(row, l)
	for _, r := range rights {
		copy(row[len(l):], r)
		if j.cond != nil {
			v, err := j.cond.Eval(row)
			if err != nil {
				return err
			}
			if v != true {
				continue
			}
		}
		matched = true
		j.rb.append(row)
	}
	if !matched && j.keepLeft {
		clear(row[len(l):])
		j.rb.append(row)
	}
	return nil
}

// run builds and drains the subquery with l as its outer row.
func (j *LateralJoin) run(ctx context.Context, l []types.Datum) ([][]types.Datum, error) {
	j.outer.Set(l)
	defer j.outer.Set(nil)
	e, err := j.build()
	if err != nil {
		return nil, err
	}
	rows, err := ReadAll(ctx, e)
	if cerr := e.Close(); err == nil {
		err = cerr
	}
	return rows, err
}

// Close implements Executor.
func (j *LateralJoin) Close() error { return j.left.Close() }
