package stream

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// slotCtx is the context of actor a in a graph whose slots are s.
func slotCtx(a *Actor, s *cpuSlots) context.Context {
	return context.WithValue(context.Background(), actorKey{}, &actorCtx{a: a, slots: s})
}

// TestCPUSlotsBound: while live work is around, creating-job actors
// compute at most max at a time, each getting its turn (working yields a
// slot others wait for); without live work they all run at once; an
// actor of the running graph never takes a slot.
func TestCPUSlotsBound(t *testing.T) {
	s := &cpuSlots{max: 2}
	run := func(live bool) (peak int64) {
		if live {
			s.noteLive(1)
			defer s.noteLive(-1)
		}
		var in, top atomic.Int64
		var wg sync.WaitGroup
		for i := range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a := &Actor{ID: ActorID(i)}
				a.background.Store(true)
				ctx := slotCtx(a, s)
				for range 50 {
					working(ctx)
					n := in.Add(1)
					for {
						p := top.Load()
						if n <= p || top.CompareAndSwap(p, n) {
							break
						}
					}
					time.Sleep(50 * time.Microsecond) // a chunk's work
					in.Add(-1)
				}
				mayBlock(ctx)
			}()
		}
		wg.Wait()
		return top.Load()
	}
	if peak := run(true); peak > 2 {
		t.Errorf("%d actors computed at once under live work, want at most 2", peak)
	}
	if s.held != 0 || len(s.waiters) != 0 {
		t.Fatalf("after the actors ended: %d slots held, %d waiters", s.held, len(s.waiters))
	}
	s.liveUntil.Store(0) // the live window is over
	if peak := run(false); peak < 3 {
		t.Errorf("only %d actors computed at once without live work, want all 6 free to", peak)
	}
	if n := s.overflows.Load(); n != 0 {
		t.Errorf("%d overflows", n)
	}

	fg := &Actor{ID: 99}
	s.noteLive(1)
	defer s.noteLive(-1)
	working(slotCtx(fg, s))
	if fg.slot || s.held != 0 {
		t.Fatal("an actor of the running graph took a slot")
	}
}

// TestCPUSlotsOverflow: a slot holder that blocks where no one gave its
// slot up (a blocking point missed) slows the others but never stops
// them: after overflowAfter a waiter takes a slot over the bound.
func TestCPUSlotsOverflow(t *testing.T) {
	s := &cpuSlots{max: 1}
	s.noteLive(1)
	defer s.noteLive(-1)
	hog, a := &Actor{ID: 1}, &Actor{ID: 2}
	hog.background.Store(true)
	a.background.Store(true)
	working(slotCtx(hog, s))
	start := time.Now()
	working(slotCtx(a, s))
	if d := time.Since(start); d < overflowAfter {
		t.Fatalf("took a second slot after %v with one slot held, want a wait of %v", d, overflowAfter)
	}
	if !a.slot || s.held != 2 || s.overflows.Load() != 1 {
		t.Fatalf("after the overflow: slot %v, held %d, overflows %d", a.slot, s.held, s.overflows.Load())
	}
	mayBlock(slotCtx(a, s))
	mayBlock(slotCtx(hog, s))
	if s.held != 0 {
		t.Fatalf("%d slots held after both gave theirs up", s.held)
	}
}

// TestCPUSlotsWindowEnds: a waiter takes a slot as soon as the live
// window ends, without a holder giving one up.
func TestCPUSlotsWindowEnds(t *testing.T) {
	s := &cpuSlots{max: 1}
	s.noteLive(1)
	s.noteLive(-1) // ended: bounded for liveWindow more
	hog, a := &Actor{ID: 1}, &Actor{ID: 2}
	hog.background.Store(true)
	a.background.Store(true)
	working(slotCtx(hog, s))
	s.liveUntil.Store(time.Now().Add(10 * time.Millisecond).UnixNano())
	start := time.Now()
	working(slotCtx(a, s))
	if d := time.Since(start); d >= overflowAfter {
		t.Fatalf("waited %v, past the live window", d)
	}
	if s.overflows.Load() != 0 {
		t.Fatal("counted an overflow after the live window ended")
	}
}
