package stream

import (
	"context"
	"fmt"
)

// AlignSide names the input of a two-input executor a message came from.
type AlignSide uint8

// The sides Align reports. AlignBoth goes with an aligned barrier.
const (
	AlignLeft AlignSide = iota
	AlignRight
	AlignBoth
)

// Align merges two inputs and aligns their barriers (invariant I1). It
// reads whichever input has a message ready; once a barrier arrives on one
// side, it reads only the other side until the matching barrier arrives
// there, and then yields that barrier once, with side AlignBoth. Barriers
// whose epochs differ are an error, as is an input that ends (I5).
//
// Align is used by one goroutine, the actor's, like any executor.
type Align struct {
	in      [2]*Receiver
	pending *Barrier // the barrier received first, while waiting for the other
	side    int      // the side pending arrived on
}

// NewAlign returns an aligner over left and right.
func NewAlign(left, right *Receiver) *Align {
	return &Align{in: [2]*Receiver{left, right}}
}

// Next returns the next message and its side.
func (a *Align) Next(ctx context.Context) (AlignSide, Message, error) {
	for {
		side, msg, err := a.recv(ctx)
		if err != nil {
			return 0, Message{}, err
		}
		if msg.Barrier == nil {
			return AlignSide(side), msg, nil
		}
		if a.pending == nil {
			a.pending, a.side = msg.Barrier, side
			continue
		}
		b := a.pending
		a.pending = nil
		if b.Prev != msg.Barrier.Prev || b.Curr != msg.Barrier.Curr {
			return 0, Message{}, fmt.Errorf("stream: barrier misalignment: epoch %d->%d on one input, %d->%d on the other",
				b.Prev, b.Curr, msg.Barrier.Prev, msg.Barrier.Curr)
		}
		return AlignBoth, Message{Barrier: b}, nil
	}
}

// recv receives from both inputs, or only from the one without a pending
// barrier.
func (a *Align) recv(ctx context.Context) (int, Message, error) {
	if a.pending != nil {
		other := 1 - a.side
		m, err := a.in[other].Next(ctx)
		return other, m, err
	}
	var (
		m    Message
		ok   bool
		side int
	)
	select {
	case m, ok = <-a.in[0].C:
		side = 0
	case m, ok = <-a.in[1].C:
		side = 1
	case <-ctx.Done():
		return 0, Message{}, ctx.Err()
	}
	if !ok {
		return 0, Message{}, ErrUpstreamEnded
	}
	return side, m, nil
}
