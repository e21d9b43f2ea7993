package stream

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/failpoint"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/internal/vec"
)

// Project evaluates a list of expressions over every row of its input and
// emits one output row per input row, with the input row's op. Barriers
// pass through unchanged. Project keeps no state.
//
// An UpdateDelete/UpdateInsert pair stays a pair even when the projected
// values of both sides are equal: downstream executors handle such no-op
// updates correctly, and dropping them would need a look-ahead.
//
// An expression that is a bare column reference is not evaluated: the
// output chunk shares the input's Arrow column. The expressions package
// vec compiles are evaluated a chunk at a time, the others a row at a
// time over the input columns they read, decoded alone; either way the
// values, and the error (the first in row order), are the row
// evaluator's.
type Project struct {
	in     Executor
	exprs  []expr.Expr
	typs   []types.Type
	schema *arrow.Schema
	proj   *vec.Projection
}

// NewProject returns an executor emitting exprs evaluated over in's rows.
func NewProject(in Executor, exprs []expr.Expr) *Project {
	p := &Project{in: in, exprs: exprs, typs: make([]types.Type, len(exprs))}
	for j, e := range exprs {
		p.typs[j] = e.Type()
	}
	p.schema = chunk.Schema(p.typs)
	p.proj = vec.CompileProjection(exprs, in.Types(), nil)
	return p
}

// setAllocator makes the buffers of the columns Project builds come from
// mem (tests: a memory.CheckedAllocator).
func (p *Project) setAllocator(mem memory.Allocator) { p.proj.SetAllocator(mem) }

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
	n := in.NumRows()
	var cols []arrow.Array
	if n > 0 {
		var j int
		var err error
		if cols, j, err = p.proj.Columns(in); err != nil {
			return nil, fmt.Errorf("stream: project %s: %w", p.exprs[j], err)
		}
	} else {
		cols = make([]arrow.Array, len(p.exprs))
		for j, t := range p.typs {
			cols[j] = array.MakeArrayOfNull(chunk.Allocator(), chunk.ArrowType(t), 0)
		}
	}
	var ops []chunk.Op
	if in.Ops != nil {
		ops = slices.Clone(in.Ops[:n])
	}
	// NewRecordBatch retains the columns it is given.
	rec := array.NewRecordBatch(p.schema, cols, int64(n))
	for _, a := range cols {
		a.Release()
	}
	return &chunk.Chunk{Rec: rec, Ops: ops, Types: p.typs}, nil
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

// barrierMsg queues the pending rows and then the barrier of m with its
// watermarks: for an operator whose output rows keep their input rows'
// event time.
func (q *outQueue) barrierMsg(m Message) {
	q.flush()
	q.msgs = append(q.msgs, Message{Barrier: m.Barrier, Watermarks: m.Watermarks})
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
