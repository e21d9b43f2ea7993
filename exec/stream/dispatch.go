package stream

import (
	"context"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/failpoint"
)

// Dispatcher sends an actor's output to the receivers of its downstream
// actors. It has two kinds of outputs:
//
//   - broadcast outputs (AddOutput) get every message; chunks are
//     retained once per extra receiver;
//   - exchanges (AddExchange) partition each chunk by the vnodes of its
//     rows among the actors of a downstream fragment (see Exchange) and
//     send each barrier to all of them.
//
// Outputs change only at barriers (Add and Stop mutations), so every
// downstream sees a stream cut at a barrier.
type Dispatcher struct {
	outputs   []*Output
	exchanges []*Exchange
}

// Outputs returns the current broadcast outputs.
func (d *Dispatcher) Outputs() []*Output { return d.outputs }

// Exchanges returns the current exchanges.
func (d *Dispatcher) Exchanges() []*Exchange { return d.exchanges }

// AddOutput attaches a broadcast output; used when building the graph and
// by Add mutations.
func (d *Dispatcher) AddOutput(o *Output) { d.outputs = append(d.outputs, o) }

// AddExchange attaches an exchange; used when building the graph and by
// Add mutations.
func (d *Dispatcher) AddExchange(e *Exchange) { d.exchanges = append(d.exchanges, e) }

// Send delivers m to every output, blocking while a receiver is full. It
// takes ownership of m's chunk.
func (d *Dispatcher) Send(ctx context.Context, m Message) error {
	if failpoint.Enabled {
		if err := d.hitSend(); err != nil {
			if m.Chunk != nil {
				m.Chunk.Release()
			}
			return err
		}
	}
	if m.Chunk != nil {
		return d.sendChunk(ctx, m)
	}
	for _, o := range d.outputs {
		if err := o.send(ctx, m); err != nil {
			return err
		}
	}
	for _, e := range d.exchanges {
		if err := e.sendBarrier(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

// sendChunk gives each output and exchange a reference to the chunk.
func (d *Dispatcher) sendChunk(ctx context.Context, m Message) error {
	n := len(d.outputs) + len(d.exchanges)
	if n == 0 {
		m.Chunk.Release()
		return nil
	}
	for i := 1; i < n; i++ {
		m.Chunk.Retain()
	}
	for i, o := range d.outputs {
		if err := o.send(ctx, m); err != nil {
			d.releaseRefs(m, n-i) // this output's and the later ones'
			return err
		}
	}
	for i, e := range d.exchanges {
		if err := e.sendChunk(ctx, m.Chunk); err != nil {
			d.releaseRefs(m, len(d.exchanges)-i-1) // e released its own
			return err
		}
	}
	return nil
}

// releaseRefs drops the references of outputs not reached after a failed
// send.
func (d *Dispatcher) releaseRefs(m Message, n int) {
	for i := 0; i < n; i++ {
		m.Chunk.Release()
	}
}

// send delivers m to o's receiver.
func (o *Output) send(ctx context.Context, m Message) error {
	if o.closed {
		if m.Chunk != nil {
			m.Chunk.Release()
		}
		return nil
	}
	select {
	case o.C <- m:
		return nil
	default:
	}
	mayBlock(ctx) // the receiver is behind
	defer working(ctx)
	select {
	case o.C <- m:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// close closes o's channel without a barrier: its receiver sees its
// upstream end (I5). Only the sending actor calls it, and only from
// failpoints.
func (o *Output) close() {
	if !o.closed {
		o.closed = true
		close(o.C)
	}
}

// closeAll closes every output's channel (see Output.close).
func (d *Dispatcher) closeAll() {
	for _, o := range d.outputs {
		o.close()
	}
	for _, e := range d.exchanges {
		for _, o := range e.outputs {
			o.close()
		}
	}
}

// sendOwned sends chunk c to o's receiver, releasing it when it cannot.
func (o *Output) sendOwned(ctx context.Context, c *chunk.Chunk) error {
	err := o.send(ctx, Message{Chunk: c})
	if err != nil {
		c.Release()
	}
	return err
}

// applyBeforeBarrier attaches the outputs and exchanges an Add mutation
// gives actor id, so the barrier itself reaches them.
func (d *Dispatcher) applyBeforeBarrier(id ActorID, m Mutation) {
	switch m := m.(type) {
	case *AddMutation:
		for _, o := range m.Outputs[id] {
			d.AddOutput(o)
		}
		for _, e := range m.Exchanges[id] {
			d.AddExchange(e)
		}
	case *JoinMutation:
		if o := m.Outputs[id]; o != nil {
			d.AddOutput(o)
		}
	}
}

// applyAfterBarrier drops the outputs to actors a Stop or Update mutation
// stops, after they have received the barrier that stops them, and
// attaches the exchanges an Update mutation gives actor id.
func (d *Dispatcher) applyAfterBarrier(id ActorID, m Mutation) {
	stop := stoppedActors(m)
	if len(stop) > 0 {
		kept := d.outputs[:0]
		for _, o := range d.outputs {
			if !stop[o.Actor] {
				kept = append(kept, o)
			}
		}
		clear(d.outputs[len(kept):])
		d.outputs = kept
		keptEx := d.exchanges[:0]
		for _, e := range d.exchanges {
			if !e.stops(stop) {
				keptEx = append(keptEx, e)
			}
		}
		clear(d.exchanges[len(keptEx):])
		d.exchanges = keptEx
	}
	if u, ok := m.(*UpdateMutation); ok {
		for _, e := range u.Exchanges[id] {
			d.AddExchange(e)
		}
	}
}
