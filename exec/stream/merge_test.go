package stream

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/types"
)

// TestMergeAlignsManyInputs: a barrier is yielded once, after it has
// arrived on every input; an input that delivered it is not read again
// until then; chunks of the others keep flowing.
func TestMergeAlignsManyInputs(t *testing.T) {
	chs := []chan Message{make(chan Message, 4), make(chan Message, 4), make(chan Message, 4)}
	m := NewMerge(alignTypes)
	for _, ch := range chs {
		m.AddInput(&Receiver{C: ch, Typ: alignTypes})
	}
	chs[0] <- barrierMsg(1)
	chs[0] <- alignChunk(100) // epoch 2: only after the aligned barrier
	chs[1] <- alignChunk(1)
	chs[1] <- barrierMsg(1)
	chs[2] <- alignChunk(2)
	ctx := context.Background()
	var got []string
	for range 2 {
		msg, err := m.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprint(msg.Chunk.Row(0, nil)[0]))
		msg.Chunk.Release()
	}
	if _, ok, err := m.Poll(ctx); ok || err != nil {
		t.Fatalf("poll before the last barrier: ok %v, err %v", ok, err)
	}
	chs[2] <- barrierMsg(1)
	msg, err := m.Next(ctx)
	if err != nil || msg.Barrier == nil || msg.Barrier.Prev != 1 {
		t.Fatalf("got %+v, %v; want the barrier of epoch 1", msg, err)
	}
	msg, err = m.Next(ctx)
	if err != nil || msg.Chunk == nil || msg.Chunk.Row(0, nil)[0] != int64(100) {
		t.Fatalf("got %+v, %v; want the chunk of epoch 2", msg, err)
	}
	msg.Chunk.Release()
	if fmt.Sprint(got) != "[1 2]" && fmt.Sprint(got) != "[2 1]" {
		t.Fatalf("chunks %v", got)
	}
}

func TestMergeErrors(t *testing.T) {
	m := NewMerge(alignTypes, scriptReceiver(alignTypes, []Message{barrierMsg(1)}),
		scriptReceiver(alignTypes, []Message{barrierMsg(2)}))
	if _, err := m.Next(context.Background()); err == nil || errors.Is(err, ErrUpstreamEnded) {
		t.Fatalf("err = %v, want a misalignment error", err)
	}
	ended := NewMerge(alignTypes, scriptReceiver(alignTypes, nil), &Receiver{C: make(chan Message), Typ: alignTypes})
	if _, err := ended.Next(context.Background()); !errors.Is(err, ErrUpstreamEnded) {
		t.Fatalf("err = %v, want ErrUpstreamEnded", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	idle := NewMerge(alignTypes, &Receiver{C: make(chan Message), Typ: alignTypes}, &Receiver{C: make(chan Message), Typ: alignTypes})
	if _, err := idle.Next(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
	timer := time.NewTimer(time.Millisecond)
	defer timer.Stop()
	if _, ok, err := idle.NextBefore(context.Background(), timer.C); ok || err != nil {
		t.Fatalf("NextBefore: ok %v, err %v; want a timeout", ok, err)
	}
}

// TestMergeWatermarks: an aligned barrier carries the watermarks every
// input carried with it, each at the least of theirs; one an input
// lacks is dropped (a stream merged from several is as late as its
// latest input allows).
func TestMergeWatermarks(t *testing.T) {
	withWM := func(epoch uint64, ws ...Watermark) Message {
		m := barrierMsg(epoch)
		m.Watermarks = ws
		return m
	}
	wm := func(table uint32, v int64) Watermark { return Watermark{Table: table, Type: types.TInt64, Value: v} }
	a, b := make(chan Message, 4), make(chan Message, 4)
	m := NewMerge(alignTypes, &Receiver{C: a, Typ: alignTypes}, &Receiver{C: b, Typ: alignTypes})
	a <- withWM(1, wm(7, 30), wm(8, 5))
	b <- withWM(1, wm(7, 20))
	a <- withWM(2, wm(7, 40))
	b <- withWM(2, wm(7, 50))
	a <- withWM(3, wm(7, 60))
	b <- barrierMsg(3)
	want := [][]Watermark{{wm(7, 20)}, {wm(7, 40)}, nil}
	for i, w := range want {
		msg, err := m.Next(context.Background())
		if err != nil || msg.Barrier == nil {
			t.Fatalf("barrier %d: %+v, %v", i+1, msg, err)
		}
		if fmt.Sprint(msg.Watermarks) != fmt.Sprint(w) {
			t.Errorf("barrier %d: watermarks %v, want %v", i+1, msg.Watermarks, w)
		}
	}
}
