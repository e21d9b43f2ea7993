package stream

import (
	"context"
	"testing"
	"time"
)

// TestLiveGate: a creating job's actor holds back while live work is in
// flight, at most maxDefer at a time and then runs at least maxDefer; it
// goes on at once when the live work ends; an actor of the running graph
// never holds back.
func TestLiveGate(t *testing.T) {
	g := newLiveGate()
	bg := &Actor{ID: 1}
	bg.background.Store(true)
	ctx := context.WithValue(context.Background(), actorKey{}, &actorCtx{a: bg, live: g})

	deferToLive(ctx) // nothing live: no wait
	if !bg.runUntil.IsZero() {
		t.Fatal("held back with no live work")
	}

	g.enter()
	start := time.Now()
	deferToLive(ctx)
	if d := time.Since(start); d < maxDefer {
		t.Fatalf("held back %v for live work that never ended, want %v", d, maxDefer)
	}
	if bg.runUntil.IsZero() {
		t.Fatal("gave up waiting without a window to run in")
	}
	until := bg.runUntil
	deferToLive(ctx) // within its window: runs
	if bg.runUntil != until {
		t.Fatal("held back again within its window")
	}

	// Live work that ends while the actor waits releases it.
	bg.runUntil = time.Time{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		g.wait(context.Background(), bg)
	}()
	g.exit()
	<-done
	if g.n.Load() != 0 {
		t.Fatalf("live count %d after the work ended", g.n.Load())
	}

	// An actor of the running graph never waits.
	fg := &Actor{ID: 2}
	fctx := context.WithValue(context.Background(), actorKey{}, &actorCtx{a: fg, live: g})
	g.enter()
	defer g.exit()
	for range 100 {
		deferToLive(fctx)
	}
	if !fg.runUntil.IsZero() {
		t.Fatal("an actor of the running graph held back")
	}
}

// TestCoordinatorLiveEndsOnce: the end function Live returns may be
// called more than once and counts once.
func TestCoordinatorLiveEndsOnce(t *testing.T) {
	c := &Coordinator{live: newLiveGate(), slots: newCPUSlots()}
	end := c.Live()
	end()
	end()
	if n := c.live.n.Load(); n != 0 {
		t.Fatalf("live count %d", n)
	}
	select {
	case <-c.live.idle:
	default:
		t.Fatal("the gate is not idle after the live work ended")
	}
}
