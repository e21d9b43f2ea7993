package stream

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// Input is the upstream of an executor that reads other actors' channels:
// a Receiver (one channel) or a Merge (several). Besides Next it can be
// polled without blocking and waited on with a deadline, which a
// backfilling StreamScan needs to interleave snapshot reads with upstream
// messages.
type Input interface {
	Executor
	// Poll returns a message if one is ready now (ok false when none).
	Poll(ctx context.Context) (m Message, ok bool, err error)
	// NextBefore waits for a message until timeout fires (ok false then).
	NextBefore(ctx context.Context, timeout <-chan time.Time) (m Message, ok bool, err error)
}

// Poll implements Input.
func (r *Receiver) Poll(ctx context.Context) (Message, bool, error) {
	select {
	case m, open := <-r.C:
		working(ctx)
		return recvResult(m, open)
	case <-ctx.Done():
		return Message{}, false, ctx.Err()
	default:
		return Message{}, false, nil
	}
}

// NextBefore implements Input.
func (r *Receiver) NextBefore(ctx context.Context, timeout <-chan time.Time) (Message, bool, error) {
	mayBlock(ctx)
	select {
	case m, open := <-r.C:
		working(ctx)
		return recvResult(m, open)
	case <-timeout:
		return Message{}, false, nil
	case <-ctx.Done():
		return Message{}, false, ctx.Err()
	}
}

func recvResult(m Message, open bool) (Message, bool, error) {
	if !open {
		return Message{}, false, ErrUpstreamEnded
	}
	return m, true, nil
}

// Merge reads the channels of several upstream actors (the actors of an
// upstream fragment, each sending this actor the rows of its vnodes) as one
// input and aligns their barriers (I1): once a barrier arrives on one
// input, Merge stops reading that input until the same barrier has arrived
// on every input, and then yields it once. Chunks pass in arrival order.
// Barriers whose epochs differ are an error, as is an input that ends
// (I5).
//
// A Merge is used by one goroutine, the actor's, like any executor. Its
// inputs are fixed before the actor starts (AddInput).
type Merge struct {
	in  []*Receiver
	typ []types.Type

	pending  []bool      // per input: its barrier arrived, waiting for the others
	waiting  int         // inputs with a pending barrier
	barrier  *Barrier    // the first barrier of the round
	wms      []Watermark // the watermarks all inputs of the round carried so far
	cases    []reflect.SelectCase
	caseIn   []int // input of each receive case
	casesSet bool  // cases match pending
}

// NewMerge returns a merge of the inputs (more can be added before the
// actor starts); typ is the type of their chunks' columns.
func NewMerge(typ []types.Type, in ...*Receiver) *Merge {
	m := &Merge{typ: typ}
	for _, r := range in {
		m.AddInput(r)
	}
	return m
}

// AddInput adds an upstream channel; only before the actor starts.
func (m *Merge) AddInput(r *Receiver) {
	m.in = append(m.in, r)
	m.pending = append(m.pending, false)
	m.casesSet = false
}

// Types implements Executor.
func (m *Merge) Types() []types.Type { return m.typ }

// Next implements Executor.
func (m *Merge) Next(ctx context.Context) (Message, error) {
	_, msg, _, err := m.next(ctx, recvBlock, nil)
	return msg, err
}

// NextInput is Next that also says which input a chunk came from (-1 for
// an aligned barrier).
func (m *Merge) NextInput(ctx context.Context) (int, Message, error) {
	i, msg, _, err := m.next(ctx, recvBlock, nil)
	return i, msg, err
}

// Poll implements Input.
func (m *Merge) Poll(ctx context.Context) (Message, bool, error) {
	_, msg, ok, err := m.next(ctx, recvPoll, nil)
	return msg, ok, err
}

// NextBefore implements Input.
func (m *Merge) NextBefore(ctx context.Context, timeout <-chan time.Time) (Message, bool, error) {
	_, msg, ok, err := m.next(ctx, recvBlock, timeout)
	return msg, ok, err
}

type recvMode uint8

const (
	recvBlock recvMode = iota
	recvPoll
)

// next returns the next chunk, or the barrier once it is aligned; ok is
// false when nothing came (poll mode, or the timeout fired).
func (m *Merge) next(ctx context.Context, mode recvMode, timeout <-chan time.Time) (int, Message, bool, error) {
	if len(m.in) == 0 {
		return 0, Message{}, false, fmt.Errorf("stream: merge without inputs")
	}
	for {
		i, msg, ok, err := m.recv(ctx, mode, timeout)
		if err != nil || !ok {
			return 0, Message{}, false, err
		}
		if msg.Barrier == nil {
			noteRowsIn(ctx, msg)
			return i, msg, true, nil
		}
		b, ws, err := m.align(i, msg)
		if err != nil {
			return 0, Message{}, false, err
		}
		if b != nil {
			return -1, Message{Barrier: b, Watermarks: ws}, true, nil
		}
	}
}

// align records the barrier of msg from input i and returns the barrier
// once every input has delivered it, with the watermarks every input
// carried, each at its least.
func (m *Merge) align(i int, msg Message) (*Barrier, []Watermark, error) {
	b := msg.Barrier
	if m.barrier == nil {
		m.barrier = b
		m.wms = append(m.wms[:0], msg.Watermarks...)
	} else if m.barrier.Prev != b.Prev || m.barrier.Curr != b.Curr {
		return nil, nil, fmt.Errorf("stream: barrier misalignment: epoch %d->%d on one input, %d->%d on the other",
			m.barrier.Prev, m.barrier.Curr, b.Prev, b.Curr)
	} else {
		m.wms = LeastWatermarks(m.wms, msg.Watermarks)
	}
	m.pending[i] = true
	m.waiting++
	m.casesSet = false
	if m.waiting < len(m.in) {
		return nil, nil, nil
	}
	first := m.barrier
	m.barrier, m.waiting = nil, 0
	clear(m.pending)
	var ws []Watermark
	if len(m.wms) > 0 {
		ws = slices.Clone(m.wms)
	}
	return first, ws, nil
}

// LeastWatermarks keeps in acc the watermarks ws has too, each at the
// lesser of the two, and returns it: a stream merged from several holds
// rows as late as the latest of its inputs allows.
func LeastWatermarks(acc, ws []Watermark) []Watermark {
	out := acc[:0]
	for _, a := range acc {
		w, ok := findWatermark(ws, a.Table)
		if !ok {
			continue
		}
		if expr.Compare(w.Value, a.Value, a.Type) < 0 {
			a.Value = w.Value
		}
		out = append(out, a)
	}
	return out
}

// recv receives one message from an input without a pending barrier.
func (m *Merge) recv(ctx context.Context, mode recvMode, timeout <-chan time.Time) (int, Message, bool, error) {
	if len(m.in)-m.waiting == 1 {
		for i, p := range m.pending {
			if !p {
				if mode == recvPoll {
					msg, ok, err := m.in[i].Poll(ctx)
					return i, msg, ok, err
				}
				msg, ok, err := m.in[i].NextBefore(ctx, timeout)
				return i, msg, ok, err
			}
		}
	}
	return m.recvAny(ctx, mode, timeout)
}

// recvAny selects over the inputs without a pending barrier.
func (m *Merge) recvAny(ctx context.Context, mode recvMode, timeout <-chan time.Time) (int, Message, bool, error) {
	m.setCases()
	cases := m.cases
	cases[0].Chan = reflect.ValueOf(ctx.Done())
	switch {
	case mode == recvPoll:
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectDefault})
	case timeout != nil:
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(timeout)})
	}
	if mode != recvPoll {
		mayBlock(ctx)
	}
	chosen, v, open := reflect.Select(cases)
	m.cases = cases[:len(m.caseIn)+1]
	if chosen > 0 && chosen <= len(m.caseIn) {
		working(ctx)
	}
	switch {
	case chosen == 0:
		return 0, Message{}, false, ctx.Err()
	case chosen > len(m.caseIn):
		return 0, Message{}, false, nil // default or timeout
	}
	if !open {
		return 0, Message{}, false, ErrUpstreamEnded
	}
	return m.caseIn[chosen-1], v.Interface().(Message), true, nil
}

// setCases rebuilds the select cases after the pending set changed:
// case 0 is the context, then one receive per input still read.
func (m *Merge) setCases() {
	if m.casesSet {
		return
	}
	m.cases = append(m.cases[:0], reflect.SelectCase{Dir: reflect.SelectRecv})
	m.caseIn = m.caseIn[:0]
	for i, r := range m.in {
		if !m.pending[i] {
			m.cases = append(m.cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(r.C)})
			m.caseIn = append(m.caseIn, i)
		}
	}
	m.casesSet = true
}
