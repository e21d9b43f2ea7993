package stream

import (
	"errors"
	"testing"

	"github.com/streamdb/streamdb/internal/failpoint"
)

// TestCoordinatorActorEndsWithoutBarrier (I5): an actor whose goroutine
// ends without an error and without a Stop barrier (stream/upstream-end)
// fails the graph, also when nothing reads its output: before, the
// barrier in flight waited for it forever.
func TestCoordinatorActorEndsWithoutBarrier(t *testing.T) {
	if !failpoint.Enabled {
		t.Skip("failpoints need -tags invariants")
	}
	defer failpoint.Reset()
	h := newHarness(t)
	tn := h.newTable(1)
	h.c.Start([]*Actor{tn.actor}, tn.sources(), nil)
	h.send(tn, ins(int64(1), int64(1)))
	h.mustCheckpoint()

	if _, err := failpoint.Enable(failpoint.StreamUpstreamEnd, failpoint.Spec{Action: failpoint.End, Times: 1}); err != nil {
		t.Fatal(err)
	}
	h.send(tn, ins(int64(2), int64(2)))
	if err := h.checkpoint(); !errors.Is(err, ErrGraphFailed) {
		t.Fatalf("Checkpoint after the actor ended: %v, want ErrGraphFailed", err)
	}
	select {
	case cause := <-h.fails:
		if !errors.Is(cause, errExitedWithoutStop) {
			t.Fatalf("OnFailure cause %v, want errExitedWithoutStop", cause)
		}
	default:
		t.Fatal("OnFailure was not called")
	}
	h.mustCheckpoint() // an empty graph, still working
}

// TestSendEndClosesOutput: stream/send with End closes a downstream
// channel without a barrier; the receiver sees its upstream end (I5) and
// the graph fails instead of hanging.
func TestSendEndClosesOutput(t *testing.T) {
	if !failpoint.Enabled {
		t.Skip("failpoints need -tags invariants")
	}
	defer failpoint.Reset()
	h := newHarness(t)
	tn := h.newTable(1)
	ch := make(chan Message, 16)
	sinkID := h.newID()
	tn.actor.Out.AddOutput(&Output{Actor: sinkID, C: ch})
	sink := &Actor{ID: sinkID, State: NewStateContext(h.st), Exec: &Receiver{C: ch, Typ: kvTypes}}
	h.c.Start([]*Actor{tn.actor, sink}, tn.sources(), nil)
	h.mustCheckpoint()
	if _, err := failpoint.Enable(failpoint.StreamSend, failpoint.Spec{Action: failpoint.End, Times: 1}); err != nil {
		t.Fatal(err)
	}
	h.send(tn, ins(int64(2), int64(2)))
	if err := h.checkpoint(); !errors.Is(err, ErrGraphFailed) {
		t.Fatalf("Checkpoint after the channel closed: %v, want ErrGraphFailed", err)
	}
	if cause := <-h.fails; !errors.Is(cause, ErrUpstreamEnded) {
		t.Fatalf("OnFailure cause %v, want ErrUpstreamEnded", cause)
	}
}
