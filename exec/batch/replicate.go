package batch

import (
	"context"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// Replicate emits, for every input row, as many copies as its column
// Count says (none for NULL or less than 1), each followed by its copy
// number from 1 (INTERSECT ALL and EXCEPT ALL).
type Replicate struct {
	in    Executor
	count int
	types []types.Type
	rb    *rowBuilder
}

// NewReplicate returns a Replicate over in; its output is in's columns
// and the copy number (bigint).
func NewReplicate(in Executor, count int) *Replicate {
	ts := append(append([]types.Type(nil), in.Types()...), types.TInt64)
	return &Replicate{in: in, count: count, types: ts, rb: newRowBuilder(ts)}
}

// Types implements Executor.
func (r *Replicate) Types() []types.Type { return r.types }

// Next implements Executor.
func (r *Replicate) Next(ctx context.Context) (*chunk.Chunk, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, err := r.in.Next(ctx)
		if err != nil || c == nil {
			return nil, err
		}
		if out := r.replicate(c); out != nil {
			return out, nil
		}
	}
}

func (r *Replicate) replicate(c *chunk.Chunk) *chunk.Chunk {
	defer c.Release()
	var in []types.Datum
	out := make([]types.Datum, len(r.types))
	for i := 0; i < c.NumRows(); i++ {
		in = c.Row(i, in)
		copy(out, in)
		for k, n := int64(1), replicaCount(in[r.count]); k <= n; k++ {
			out[len(in)] = k
			r.rb.append(out)
		}
	}
	return r.rb.build()
}

// Close implements Executor.
func (r *Replicate) Close() error {
	r.rb.release()
	return r.in.Close()
}

// replicaCount is how many copies of a row a count datum asks for (as
// stream.ReplicaCount: batch and stream must agree).
func replicaCount(v types.Datum) int64 {
	n, ok := v.(int64)
	if !ok || n < 1 {
		return 0
	}
	return n
}
