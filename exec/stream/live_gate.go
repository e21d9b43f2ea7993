package stream

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// liveGate puts live work before backfill work on a busy machine (issue
// 16, item 3): while a write into the running graph is in flight (Live),
// a creating job's actors hold back between chunks, so the Go scheduler
// has a processor free for the running graph's actors and the writer's
// session instead of queueing them behind the backfill's goroutines for
// a time slice or more. A backfill actor holds back at most maxDefer at
// a time, then runs at least maxDefer before it holds back again, so
// that a steady stream of writes slows a backfill but never stops it.
type liveGate struct {
	n    atomic.Int64 // writes in flight
	mu   sync.Mutex
	idle chan struct{} // closed when n drops to zero
}

// maxDefer bounds how long a backfill actor holds back at a time, and is
// how long it then runs before it may hold back again.
const maxDefer = 2 * time.Millisecond

func newLiveGate() *liveGate {
	g := &liveGate{idle: make(chan struct{})}
	close(g.idle)
	return g
}

func (g *liveGate) enter() {
	g.mu.Lock()
	if g.n.Add(1) == 1 {
		g.idle = make(chan struct{})
	}
	g.mu.Unlock()
}

func (g *liveGate) exit() {
	g.mu.Lock()
	if g.n.Add(-1) == 0 {
		close(g.idle)
	}
	g.mu.Unlock()
}

// Live marks a write into the running graph as in flight until the
// returned function is called (once).
func (c *Coordinator) Live() (end func()) {
	c.live.enter()
	c.slots.noteLive(1)
	var once sync.Once
	return func() {
		once.Do(func() {
			c.live.exit()
			c.slots.noteLive(-1)
		})
	}
}

// actorKey keys an actor's context to its actorCtx.
type actorKey struct{}

type actorCtx struct {
	a     *Actor
	live  *liveGate
	slots *cpuSlots
}

// deferToLive is called by an actor's inputs before each receive (and by
// the actor after each chunk it sends): in a creating job's actor it
// waits for live work in flight (liveGate.wait).
func deferToLive(ctx context.Context) {
	if ac, _ := ctx.Value(actorKey{}).(*actorCtx); ac != nil && ac.a.background.Load() {
		ac.live.wait(ctx, ac.a)
	}
}

// wait: while live work is in flight, a creating job's actor waits for
// it, up to maxDefer, unless it gave up waiting less than maxDefer ago
// (a.runUntil).
func (g *liveGate) wait(ctx context.Context, a *Actor) {
	if g.n.Load() == 0 {
		return
	}
	now := time.Now()
	if now.Before(a.runUntil) {
		return
	}
	g.mu.Lock()
	idle := g.idle
	g.mu.Unlock()
	mayBlock(ctx)
	t := time.NewTimer(maxDefer)
	select {
	case <-idle:
	case <-t.C:
		a.runUntil = time.Now().Add(maxDefer)
	case <-ctx.Done():
	}
	t.Stop()
}
