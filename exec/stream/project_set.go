package stream

import (
	"context"
	"fmt"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// ProjectSet repeats each changed input row once per row its
// set-returning functions yield for it together (expand: deterministic,
// so a deleted row expands as it did when inserted), appending that row:
// the functions' columns and the ordinal, which joins the stream key. It
// keeps no state. An update pair becomes the old row's deletes followed
// by the new row's inserts.
type ProjectSet struct {
	in     Executor
	expand func(context.Context, []types.Datum) ([][]types.Datum, error)
	types  []types.Type
	out    *outQueue
	row    []types.Datum
}

// NewProjectSet returns the expansion of in; ts are the output types
// (in's, then those of the rows expand yields).
func NewProjectSet(in Executor, expand func(context.Context, []types.Datum) ([][]types.Datum, error), ts []types.Type) *ProjectSet {
	return &ProjectSet{in: in, expand: expand, types: ts, out: newOutQueue(ts)}
}

// Types implements Executor.
func (p *ProjectSet) Types() []types.Type { return p.types }

// Next implements Executor.
func (p *ProjectSet) Next(ctx context.Context) (Message, error) {
	for {
		if m, ok := p.out.pop(); ok {
			return m, nil
		}
		msg, err := p.in.Next(ctx)
		if err != nil {
			return Message{}, err
		}
		if msg.Barrier != nil {
			p.out.barrierMsg(msg)
			continue
		}
		err = p.apply(ctx, msg.Chunk)
		msg.Chunk.Release()
		if err != nil {
			return Message{}, fmt.Errorf("stream: project set: %w", err)
		}
		p.out.flush()
	}
}

func (p *ProjectSet) apply(ctx context.Context, c *chunk.Chunk) error {
	out := make([]types.Datum, len(p.types))
	for i := 0; i < c.NumRows(); i++ {
		p.row = c.Row(i, p.row)
		vals, err := p.expand(ctx, p.row)
		if err != nil {
			return err
		}
		op := chunk.Insert
		if !c.Op(i).IsInsert() {
			op = chunk.Delete
		}
		w := copy(out, p.row)
		for _, v := range vals {
			copy(out[w:], v)
			p.out.add(op, out)
		}
	}
	return nil
}
