package stream

import (
	"context"
	"fmt"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/failpoint"
	"github.com/streamdb/streamdb/internal/types"
)

// Expand emits, for every input row, one row per projection, with the
// row's op (HOP windows: one row per window). The rows an update pair
// expands to are not adjacent pairs, so UpdateDelete and UpdateInsert
// become Delete and Insert. Barriers pass through; it keeps no state.
type Expand struct {
	in    Executor
	projs [][]expr.Expr
	typs  []types.Type
	b     *chunk.Builder
	row   []types.Datum
	out   []types.Datum
}

// NewExpand returns an Expand over in; typs are the output types.
func NewExpand(in Executor, projs [][]expr.Expr, typs []types.Type) *Expand {
	return &Expand{in: in, projs: projs, typs: typs, b: chunk.NewBuilder(typs), out: make([]types.Datum, len(typs))}
}

// Types implements Executor.
func (e *Expand) Types() []types.Type { return e.typs }

// Next implements Executor.
func (e *Expand) Next(ctx context.Context) (Message, error) {
	msg, err := e.in.Next(ctx)
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
	in := msg.Chunk
	defer in.Release()
	for i := 0; i < in.NumRows(); i++ {
		e.row = in.Row(i, e.row)
		op := in.Op(i)
		switch op {
		case chunk.UpdateDelete:
			op = chunk.Delete
		case chunk.UpdateInsert:
			op = chunk.Insert
		}
		for _, proj := range e.projs {
			for j, x := range proj {
				v, err := x.Eval(e.row)
				if err != nil {
					e.b.Build().Release()
					return Message{}, fmt.Errorf("stream: expand %s: %w", x, err)
				}
				e.out[j] = v
			}
			e.b.Append(op, e.out)
		}
	}
	return Message{Chunk: e.b.Build()}, nil
}
