package stream

import (
	"context"
	"sync"
)

// Live marks live work (a query or a write of a session) as in flight
// until the returned function is called (once or more): while it is, and
// for liveWindow after, creating jobs compute on fewer processors
// (cpuSlots).
//
// (A creating job's actors also used to hold back between chunks while a
// write was in flight, up to 2 ms at a time. Once the slots kept a
// processor free for live work, that only slowed backfills: streamdb
// bench isolation, 3M rows, without it: an unthrottled GROUP BY backfill
// 1.9 s instead of 2.5 s, and inserts into an unrelated table p99 4.2 ms
// instead of 7.3 ms.)
func (c *Coordinator) Live() (end func()) {
	c.slots.noteLive(1)
	var once sync.Once
	return func() { once.Do(func() { c.slots.noteLive(-1) }) }
}

// actorKey keys an actor's context to its actorCtx.
type actorKey struct{}

type actorCtx struct {
	a     *Actor
	slots *cpuSlots
}

// actorOf returns the actor whose goroutine runs with ctx (nil outside
// actors).
func actorOf(ctx context.Context) *actorCtx {
	ac, _ := ctx.Value(actorKey{}).(*actorCtx)
	return ac
}
