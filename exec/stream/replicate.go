package stream

import (
	"context"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/failpoint"
	"github.com/streamdb/streamdb/internal/types"
)

// Replicate emits, for every input row, as many copies as its column
// Count says (none for NULL or less than 1), each followed by its copy
// number from 1 (INTERSECT ALL and EXCEPT ALL: a row kept n times). A
// count that changes from 3 to 5 arrives as an update pair and leaves as
// 3 deletes and 5 inserts: the copies of the two rows are not pairs, so
// UpdateDelete and UpdateInsert become Delete and Insert. Barriers pass
// through; it keeps no state.
type Replicate struct {
	in    Executor
	count int
	typs  []types.Type
	b     *chunk.Builder
	row   []types.Datum
	out   []types.Datum
}

// NewReplicate returns a Replicate over in; its output is in's columns
// and the copy number (bigint).
func NewReplicate(in Executor, count int) *Replicate {
	typs := append(append([]types.Type(nil), in.Types()...), types.TInt64)
	return &Replicate{in: in, count: count, typs: typs, b: chunk.NewBuilder(typs), out: make([]types.Datum, len(typs))}
}

// Types implements Executor.
func (r *Replicate) Types() []types.Type { return r.typs }

// Next implements Executor.
func (r *Replicate) Next(ctx context.Context) (Message, error) {
	msg, err := r.in.Next(ctx)
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
		r.row = in.Row(i, r.row)
		op := in.Op(i)
		switch op {
		case chunk.UpdateDelete:
			op = chunk.Delete
		case chunk.UpdateInsert:
			op = chunk.Insert
		}
		n := ReplicaCount(r.row[r.count])
		copy(r.out, r.row)
		for k := int64(1); k <= n; k++ {
			r.out[len(r.row)] = k
			r.b.Append(op, r.out)
		}
	}
	return Message{Chunk: r.b.Build()}, nil
}

// ReplicaCount is how many copies of a row a count datum asks for.
func ReplicaCount(v types.Datum) int64 {
	n, ok := v.(int64)
	if !ok || n < 1 {
		return 0
	}
	return n
}
