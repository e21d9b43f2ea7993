package stream

import (
	"context"
	"fmt"

	"github.com/streamdb/streamdb/exec/expr"
	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/failpoint"
	"github.com/streamdb/streamdb/internal/types"
)

// Project evaluates a list of expressions over every row of its input and
// emits one output row per input row, with the input row's op. Barriers
// pass through unchanged. Project keeps no state.
//
// An UpdateDelete/UpdateInsert pair stays a pair even when the projected
// values of both sides are equal: downstream executors handle such no-op
// updates correctly, and dropping them would need a look-ahead.
type Project struct {
	in    Executor
	exprs []expr.Expr
	typs  []types.Type
	b     *chunk.Builder
	row   []types.Datum
	out   []types.Datum
}

// NewProject returns an executor emitting exprs evaluated over in's rows.
func NewProject(in Executor, exprs []expr.Expr) *Project {
	typs := make([]types.Type, len(exprs))
	for i, e := range exprs {
		typs[i] = e.Type()
	}
	return &Project{in: in, exprs: exprs, typs: typs, b: chunk.NewBuilder(typs),
		out: make([]types.Datum, len(exprs))}
}

// Types implements Executor.
func (p *Project) Types() []types.Type { return p.typs }

// Next implements Executor.
func (p *Project) Next(ctx context.Context) (Message, error) {
	msg, err := p.in.Next(ctx)
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
	c, err := p.project(msg.Chunk)
	msg.Chunk.Release()
	if err != nil {
		return Message{}, err
	}
	return Message{Chunk: c}, nil
}

// project builds the output chunk of in; in stays owned by the caller.
func (p *Project) project(in *chunk.Chunk) (*chunk.Chunk, error) {
	for i := 0; i < in.NumRows(); i++ {
		p.row = in.Row(i, p.row)
		for j, e := range p.exprs {
			v, err := e.Eval(p.row)
			if err != nil {
				p.b.Build().Release()
				return nil, fmt.Errorf("stream: project %s: %w", e, err)
			}
			p.out[j] = v
		}
		p.b.Append(in.Op(i), p.out)
	}
	return p.b.Build(), nil
}

// maxChunkRows bounds the chunks that row-at-a-time executors build.
const maxChunkRows = 1024

// outQueue collects the output of an executor that produces a variable
// number of rows per input message (filter, aggregation, join): rows are
// appended to a builder, cut into chunks of at most maxChunkRows rows (an
// UpdateDelete/UpdateInsert pair is never split across chunks), and queued
// as messages together with barriers, in order. Next pops from the queue.
type outQueue struct {
	b    *chunk.Builder
	msgs []Message
}

func newOutQueue(ts []types.Type) *outQueue {
	return &outQueue{b: chunk.NewBuilder(ts)}
}

// add appends one row with its op.
func (q *outQueue) add(op chunk.Op, row []types.Datum) {
	if q.b.Len() >= maxChunkRows {
		q.flush()
	}
	q.b.Append(op, row)
}

// addUpdate appends an UpdateDelete(old)/UpdateInsert(new) pair, both in
// the same chunk.
func (q *outQueue) addUpdate(old, new []types.Datum) {
	if q.b.Len()+2 > maxChunkRows {
		q.flush()
	}
	q.b.Append(chunk.UpdateDelete, old)
	q.b.Append(chunk.UpdateInsert, new)
}

// flush queues the rows appended so far as one chunk (if there are any).
func (q *outQueue) flush() {
	if q.b.Len() == 0 {
		return
	}
	q.msgs = append(q.msgs, Message{Chunk: q.b.Build()})
}

// barrier queues the pending rows and then b.
func (q *outQueue) barrier(b *Barrier) {
	q.flush()
	q.msgs = append(q.msgs, Message{Barrier: b})
}

// pop removes and returns the oldest queued message.
func (q *outQueue) pop() (Message, bool) {
	if len(q.msgs) == 0 {
		return Message{}, false
	}
	m := q.msgs[0]
	q.msgs[0] = Message{}
	q.msgs = q.msgs[1:]
	return m, true
}
