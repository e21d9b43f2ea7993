package stream

import (
	"context"
)

// AlignSide names the input of a two-input executor a message came from.
type AlignSide uint8

// The sides Align reports. AlignBoth goes with an aligned barrier.
const (
	AlignLeft AlignSide = iota
	AlignRight
	AlignBoth
)

// Align merges the inputs of a two-input executor (a join) and aligns
// their barriers (invariant I1). Each side may itself be several channels
// (the actors of an upstream fragment). It reads whichever input has a
// message ready; once a barrier arrives on one input, it stops reading
// that input until the matching barrier has arrived on all of them, and
// then yields that barrier once, with side AlignBoth. Barriers whose
// epochs differ are an error, as is an input that ends (I5).
//
// Align is used by one goroutine, the actor's, like any executor.
type Align struct {
	m     *Merge
	nLeft int
}

// NewAlign returns an aligner over left and right.
func NewAlign(left, right *Receiver) *Align {
	return NewAlignInputs([]*Receiver{left}, []*Receiver{right})
}

// NewAlignInputs returns an aligner over the channels of the left side
// and those of the right side.
func NewAlignInputs(left, right []*Receiver) *Align {
	m := NewMerge(nil, left...)
	for _, r := range right {
		m.AddInput(r)
	}
	return &Align{m: m, nLeft: len(left)}
}

// Next returns the next message and its side.
func (a *Align) Next(ctx context.Context) (AlignSide, Message, error) {
	i, msg, err := a.m.NextInput(ctx)
	switch {
	case err != nil:
		return 0, Message{}, err
	case msg.Barrier != nil:
		return AlignBoth, msg, nil
	case i < a.nLeft:
		return AlignLeft, msg, nil
	}
	return AlignRight, msg, nil
}

// Poll is Next without blocking: ok is false when no message is ready.
func (a *Align) Poll(ctx context.Context) (AlignSide, Message, bool, error) {
	i, msg, ok, err := a.m.next(ctx, recvPoll, nil)
	switch {
	case err != nil || !ok:
		return 0, Message{}, false, err
	case msg.Barrier != nil:
		return AlignBoth, msg, true, nil
	case i < a.nLeft:
		return AlignLeft, msg, true, nil
	}
	return AlignRight, msg, true, nil
}
