package stream

import (
	"errors"
	"fmt"

	"github.com/streamdb/streamdb/internal/failpoint"
)

// The failpoints of the streaming engine (names and what each does are
// documented in ../../internal/failpoint/names.go). Every call site is
// guarded by failpoint.Enabled, so a release build compiles them away.

// hit evaluates failpoint name at an executor: nil, or the error the
// executor fails with. End acts as the executor's input ending without
// a barrier (I5).
func hit(name string) error {
	err := failpoint.Hit(name)
	if err != nil && errors.Is(err, failpoint.ErrEnd) {
		return fmt.Errorf("%w (%w)", ErrUpstreamEnded, err)
	}
	return err
}

// hitMsg evaluates an executor's chunk or barrier failpoint for msg, as
// msg is; on failure it releases msg's chunk.
func hitMsg(chunkPoint, barrierPoint string, msg Message) error {
	name := barrierPoint
	if msg.Chunk != nil {
		name = chunkPoint
	}
	err := hit(name)
	if err != nil && msg.Chunk != nil {
		msg.Chunk.Release()
	}
	return err
}

// hitStateless is hitMsg for the stateless executors (Project, Filter,
// Expand), which share their failpoints.
func hitStateless(msg Message) error {
	return hitMsg(failpoint.ExecProjectChunk, failpoint.ExecProjectBarrier, msg)
}

// hitSend evaluates the send failpoint of a dispatcher: End closes the
// channel of its first output without a barrier and lets the send go on
// (to the other outputs); an error fails the send.
func (d *Dispatcher) hitSend() error {
	err := failpoint.Hit(failpoint.StreamSend)
	if err == nil || !errors.Is(err, failpoint.ErrEnd) {
		return err
	}
	switch {
	case len(d.outputs) > 0:
		d.outputs[0].close()
	case len(d.exchanges) > 0:
		d.exchanges[0].outputs[0].close()
	}
	return nil
}

// hitActor evaluates the upstream-end failpoint of an actor that took
// msg from its pipeline: ended reports that the actor must stop as if its
// goroutine had ended (End: its outputs are closed, msg released).
func (a *Actor) hitActor(msg Message) (ended bool, err error) {
	err = failpoint.Hit(failpoint.StreamUpstreamEnd)
	if err == nil {
		return false, nil
	}
	if msg.Chunk != nil {
		msg.Chunk.Release()
	}
	if !errors.Is(err, failpoint.ErrEnd) {
		return false, err
	}
	a.Out.closeAll()
	return true, nil
}
