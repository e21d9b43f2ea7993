package stream

import (
	"context"
	"fmt"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// Exchange is a hash-partitioned output of a dispatcher: the actors of a
// downstream fragment, each owning a set of vnodes. Each row goes to the
// owner of its vnode, computed from the Key columns exactly as a state
// table computes it from its DistKey (storage.VnodeOf), so an actor
// receives exactly the rows whose state it owns. Barriers go to every
// output.
//
// An update pair (UpdateDelete, UpdateInsert) whose two rows land on
// different actors is split into a Delete for one and an Insert for the
// other: no actor ever sees half a pair. An UpdateDelete or UpdateInsert
// outside a pair (which a well-formed stream never has) is sent as a
// Delete or Insert when the chunk is split.
//
// An Exchange belongs to the dispatcher of one actor and is used by that
// actor's goroutine only.
type Exchange struct {
	outputs  []*Output
	owner    [storage.NumVnodes]uint16 // vnode -> index in outputs
	key      []int
	keyTypes []types.Type

	dest     []int        // per row of the chunk being routed: its output
	rows     [][]int      // per output: the rows it gets
	ops      [][]chunk.Op // per output: their ops
	keyBytes []byte
	// reads, when not nil, are the upstream's columns the receivers
	// read (SetReads, source_prune.go).
	reads []bool
}

// NewExchange returns an exchange to outputs, where outputs[i] owns the
// vnodes of owned[i]; the owned sets must be disjoint and cover every
// vnode. key are the columns of the chunks whose hash picks a row's vnode,
// keyTypes their types (those of the downstream state's DistKey). An
// empty key sends every row to the owner of vnode 0.
func NewExchange(outputs []*Output, owned []storage.VnodeBitmap, key []int, keyTypes []types.Type) (*Exchange, error) {
	if len(outputs) != len(owned) || len(outputs) == 0 {
		return nil, fmt.Errorf("stream: exchange with %d outputs and %d vnode sets", len(outputs), len(owned))
	}
	if len(key) != len(keyTypes) {
		return nil, fmt.Errorf("stream: exchange key of %d columns with %d types", len(key), len(keyTypes))
	}
	e := &Exchange{outputs: outputs, key: key, keyTypes: keyTypes, rows: make([][]int, len(outputs)),
		ops: make([][]chunk.Op, len(outputs))}
	var seen storage.VnodeBitmap
	for i := range owned {
		for _, v := range owned[i].Vnodes() {
			if seen.Has(v) {
				return nil, fmt.Errorf("stream: exchange: vnode %d has two owners", v)
			}
			seen.Set(v)
			e.owner[v] = uint16(i)
		}
	}
	if seen.Count() != storage.NumVnodes {
		return nil, fmt.Errorf("stream: exchange: %d of %d vnodes have no owner", storage.NumVnodes-seen.Count(), storage.NumVnodes)
	}
	return e, nil
}

// Outputs returns the exchange's outputs.
func (e *Exchange) Outputs() []*Output { return e.outputs }

// sendBarrier delivers a barrier to every output.
func (e *Exchange) sendBarrier(ctx context.Context, m Message) error {
	for _, o := range e.outputs {
		if err := o.send(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

// sendChunk routes the rows of c (owned by the exchange, which releases
// it) to the owners of their vnodes.
func (e *Exchange) sendChunk(ctx context.Context, c *chunk.Chunk) error {
	if c.NumRows() == 0 {
		c.Release()
		return nil
	}
	if len(e.outputs) == 1 {
		return e.outputs[0].sendOwned(ctx, c)
	}
	single, err := e.route(c)
	if err != nil {
		c.Release()
		return err
	}
	if single >= 0 {
		return e.outputs[single].sendOwned(ctx, c)
	}
	e.split(c)
	for i := range e.outputs {
		if len(e.rows[i]) == 0 {
			continue
		}
		part := chunk.Take(c, e.rows[i], e.ops[i])
		e.ops[i] = nil // now the part's
		if err == nil {
			err = e.outputs[i].sendOwned(ctx, part)
		} else {
			part.Release()
		}
	}
	c.Release()
	return err
}

// route computes the destination of every row of c into e.dest; single
// is the one destination when all rows share it, else -1.
func (e *Exchange) route(c *chunk.Chunk) (single int, err error) {
	n := c.NumRows()
	e.dest = e.dest[:0]
	single = -1
	for i := 0; i < n; i++ {
		var v uint16
		if len(e.key) == 0 {
			v = 0 // an empty key maps to vnode 0
		} else {
			var err error
			if e.keyBytes, err = e.appendKey(e.keyBytes[:0], c, i); err != nil {
				return 0, fmt.Errorf("stream: exchange: %w", err)
			}
			v = storage.VnodeOfKey(e.keyBytes)
		}
		d := int(e.owner[v])
		e.dest = append(e.dest, d)
		switch {
		case i == 0:
			single = d
		case single != d:
			single = -1
		}
	}
	return single, nil
}

// appendKey appends the encoded distribution key of row i of c, as
// storage.VnodeOf encodes it.
func (e *Exchange) appendKey(buf []byte, c *chunk.Chunk, i int) ([]byte, error) {
	for k, col := range e.key {
		var err error
		if buf, err = storage.AppendKeyAt(buf, e.keyTypes[k], c, col, i); err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// split lists, per output, the rows of c it gets and their ops, keeping
// update pairs whole or splitting them into a Delete and an Insert.
func (e *Exchange) split(c *chunk.Chunk) {
	for i := range e.outputs {
		e.rows[i] = e.rows[i][:0]
	}
	n := c.NumRows()
	for i := 0; i < n; i++ {
		op := c.Op(i)
		if op == chunk.UpdateDelete && i+1 < n && c.Op(i+1) == chunk.UpdateInsert {
			d, d2 := e.dest[i], e.dest[i+1]
			if d == d2 {
				e.add(d, i, chunk.UpdateDelete)
				e.add(d, i+1, chunk.UpdateInsert)
			} else {
				e.add(d, i, chunk.Delete)
				e.add(d2, i+1, chunk.Insert)
			}
			i++
			continue
		}
		e.add(e.dest[i], i, plainOp(op))
	}
}

func (e *Exchange) add(d, row int, op chunk.Op) {
	e.rows[d] = append(e.rows[d], row)
	e.ops[d] = append(e.ops[d], op)
}

// stops reports whether the exchange goes to an actor that stop stops;
// the actors of a fragment stop together, so the whole exchange goes.
func (e *Exchange) stops(stop map[ActorID]bool) bool {
	for _, o := range e.outputs {
		if stop[o.Actor] {
			return true
		}
	}
	return false
}
