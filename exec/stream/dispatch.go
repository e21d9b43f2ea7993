package stream

import (
	"context"
)

// Dispatcher sends an actor's output to the receivers of its downstream
// actors. Every output gets every message (broadcast); chunks are retained
// once per extra output. Outputs change only at barriers (Add and Stop
// mutations), so every downstream sees a stream cut at a barrier.
type Dispatcher struct {
	outputs []*Output
}

// Outputs returns the current outputs.
func (d *Dispatcher) Outputs() []*Output { return d.outputs }

// AddOutput attaches an output; used when building the graph and by Add
// mutations.
func (d *Dispatcher) AddOutput(o *Output) { d.outputs = append(d.outputs, o) }

// Send delivers m to every output, blocking while a receiver is full.
func (d *Dispatcher) Send(ctx context.Context, m Message) error {
	if m.Chunk != nil {
		switch len(d.outputs) {
		case 0:
			m.Chunk.Release()
			return nil
		default:
			for range d.outputs[1:] {
				m.Chunk.Retain()
			}
		}
	}
	for _, o := range d.outputs {
		select {
		case o.C <- m:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// applyBeforeBarrier attaches the outputs an Add mutation gives actor id,
// so the barrier itself reaches them.
func (d *Dispatcher) applyBeforeBarrier(id ActorID, m Mutation) {
	if add, ok := m.(*AddMutation); ok {
		for _, o := range add.Outputs[id] {
			d.AddOutput(o)
		}
	}
}

// applyAfterBarrier drops the outputs to actors a Stop mutation stops,
// after they have received the barrier that stops them.
func (d *Dispatcher) applyAfterBarrier(m Mutation) {
	stop, ok := m.(*StopMutation)
	if !ok {
		return
	}
	kept := d.outputs[:0]
	for _, o := range d.outputs {
		if !stop.Actors[o.Actor] {
			kept = append(kept, o)
		}
	}
	for i := len(kept); i < len(d.outputs); i++ {
		d.outputs[i] = nil
	}
	d.outputs = kept
}
