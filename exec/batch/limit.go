package batch

import (
	"context"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// Limit skips offset rows, then passes at most count rows (count < 0: no
// limit), and stops pulling its input once it has them.
type Limit struct {
	in            Executor
	count, offset int64
	passed        int64
}

// NewLimit returns a limit over in.
func NewLimit(in Executor, count, offset int64) *Limit {
	return &Limit{in: in, count: count, offset: offset}
}

// Types implements Executor.
func (l *Limit) Types() []types.Type { return l.in.Types() }

// Next implements Executor.
func (l *Limit) Next(ctx context.Context) (*chunk.Chunk, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if l.count >= 0 && l.passed >= l.count {
			return nil, nil
		}
		c, err := l.in.Next(ctx)
		if err != nil || c == nil {
			return nil, err
		}
		if out := l.cut(c); out != nil {
			return out, nil
		}
	}
}

// cut returns the part of c to pass on (nil for none), taking ownership
// of c.
func (l *Limit) cut(c *chunk.Chunk) *chunk.Chunk {
	n := int64(c.NumRows())
	from := min(l.offset, n)
	l.offset -= from
	to := n
	if l.count >= 0 {
		to = min(n, from+l.count-l.passed)
	}
	if from >= to {
		c.Release()
		return nil
	}
	l.passed += to - from
	if from == 0 && to == n {
		return c
	}
	out := &chunk.Chunk{Rec: c.Rec.NewSlice(from, to), Types: c.Types}
	c.Release()
	return out
}

// Close implements Executor.
func (l *Limit) Close() error { return l.in.Close() }
