package stream

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/types"
)

var alignTypes = []types.Type{types.TInt64}

func alignChunk(v int64) Message { return chunkMsg(alignTypes, ins(v)) }

// alignTrace renders what Align yields until an error: "L3"/"R3" for a
// chunk holding 3 from the left/right, "|1" for the barrier of epoch 1.
func alignTrace(t *testing.T, a *Align) ([]string, error) {
	t.Helper()
	var out []string
	for {
		side, m, err := a.Next(context.Background())
		if err != nil {
			return out, err
		}
		if m.Barrier != nil {
			if side != AlignBoth {
				t.Fatalf("barrier with side %d", side)
			}
			out = append(out, fmt.Sprintf("|%d", m.Barrier.Prev))
			continue
		}
		out = append(out, fmt.Sprintf("%c%d", "LR"[side], m.Chunk.Row(0, nil)[0]))
		m.Chunk.Release()
	}
}

func TestAlignBlocksSideAfterBarrier(t *testing.T) {
	for i := range 50 { // Align picks between ready inputs at random
		left := scriptReceiver(alignTypes, []Message{alignChunk(1), barrierMsg(1), alignChunk(2), barrierMsg(2)})
		right := scriptReceiver(alignTypes, []Message{alignChunk(10), alignChunk(11), barrierMsg(1), barrierMsg(2)})
		got, err := alignTrace(t, NewAlign(left, right))
		if !errors.Is(err, ErrUpstreamEnded) {
			t.Fatalf("run %d: err %v, want ErrUpstreamEnded", i, err)
		}
		pos := map[string]int{}
		for j, s := range got {
			pos[s] = j
		}
		if len(got) != 6 || pos["|1"] != 3 || pos["L2"] != 4 || pos["|2"] != 5 || pos["R10"] > pos["R11"] {
			t.Fatalf("run %d: %q: chunks must stay within their epoch, in order per side", i, got)
		}
	}
}

func TestAlignMismatchedEpochs(t *testing.T) {
	left := scriptReceiver(alignTypes, []Message{barrierMsg(1)})
	right := scriptReceiver(alignTypes, []Message{barrierMsg(2)})
	if _, err := alignTrace(t, NewAlign(left, right)); err == nil || errors.Is(err, ErrUpstreamEnded) {
		t.Fatalf("err = %v, want a misalignment error", err)
	}
}

// TestAlignWaitsForOtherSide checks that a barrier is not yielded before
// the other input delivers it, and that Align honours cancellation.
func TestAlignWaitsForOtherSide(t *testing.T) {
	lc, rc := make(chan Message, 4), make(chan Message, 4)
	a := NewAlign(&Receiver{C: lc, Typ: alignTypes}, &Receiver{C: rc, Typ: alignTypes})
	lc <- barrierMsg(1)
	lc <- alignChunk(5) // must not be read before the right barrier
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, _, err := a.Next(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline while waiting for the right barrier", err)
	}
	rc <- alignChunk(6)
	rc <- barrierMsg(1)
	close(lc) // the right stays open (and idle): L5, then the end of the left
	got, err := alignTrace(t, a)
	if !errors.Is(err, ErrUpstreamEnded) {
		t.Fatalf("err = %v, want ErrUpstreamEnded", err)
	}
	if fmt.Sprint(got) != "[R6 |1 L5]" {
		t.Fatalf("got %q, want [R6 |1 L5]", got)
	}
}
