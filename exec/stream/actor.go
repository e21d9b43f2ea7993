package stream

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/streamdb/streamdb/internal/failpoint"
	"github.com/streamdb/streamdb/storage"
)

// Actor runs one pipeline of executors on its own goroutine. The
// Coordinator starts, owns and joins it.
type Actor struct {
	ID    ActorID
	Exec  Executor
	State *StateContext
	Out   Dispatcher
	// Closers release what the pipeline holds (snapshots, builders) when
	// the actor exits.
	Closers []func()
	// Errors, for an actor of a view's job, records the data errors its
	// guarded expressions turned into NULLs (expr.Guard); nil otherwise.
	Errors *EvalErrors

	// stopped is set when a Stop barrier ended the actor (its goroutine
	// only): run returning nil without it is an actor that ended without
	// a barrier (I5).
	stopped bool
	// background is set while the actor belongs to a creating job: it
	// then computes only in one of the coordinator's cpuSlots.
	background atomic.Bool
	// slot: the actor holds one of the coordinator's cpuSlots (its
	// goroutine only).
	slot bool
	// watermarks are those of the last barrier the actor sent (see
	// Watermarks).
	watermarks atomic.Pointer[[]Watermark]
	// stats count what the actor received and sent (Stats).
	stats actorStats
}

// actorStats are an actor's counters: atomics, the only thing the chunk
// path touches for metrics.
type actorStats struct {
	rowsIn, rowsOut, chunksOut, sendNanos atomic.Int64
}

// ActorStats are what an actor received and sent downstream since it
// started: the rows of the chunks it read from its input channels (its
// upstream actors', or a table's DML), the rows and chunks it sent, and
// the time it spent in sending them, blocked when the downstream is
// slower (backpressure). Rows a backfill reads from a snapshot are not
// rows in.
type ActorStats struct {
	RowsIn             int64
	RowsOut, ChunksOut int64
	SendTime           time.Duration
}

// Stats returns the actor's counters; safe for concurrent use.
func (a *Actor) Stats() ActorStats {
	return ActorStats{RowsIn: a.stats.rowsIn.Load(), RowsOut: a.stats.rowsOut.Load(), ChunksOut: a.stats.chunksOut.Load(),
		SendTime: time.Duration(a.stats.sendNanos.Load())}
}

// noteRowsIn counts the rows of m, a message read from an input channel,
// as rows in of the actor running on ctx (none outside an actor).
func noteRowsIn(ctx context.Context, m Message) {
	if m.Chunk == nil {
		return
	}
	if ac := actorOf(ctx); ac != nil {
		ac.a.stats.rowsIn.Add(int64(m.Chunk.NumRows()))
	}
}

// Watermarks returns the watermarks of the last barrier the actor sent
// downstream (nil before its first barrier); safe for concurrent use.
func (a *Actor) Watermarks() []Watermark {
	if p := a.watermarks.Load(); p != nil {
		return *p
	}
	return nil
}

// noteWatermarks records the watermarks of a barrier the actor sends,
// when they differ from the last ones.
func (a *Actor) noteWatermarks(ws []Watermark) {
	if old := a.Watermarks(); len(old) == len(ws) {
		same := true
		for i := range ws {
			if old[i].Table != ws[i].Table || !sameDatum(old[i].Value, ws[i].Value, ws[i].Type) {
				same = false
				break
			}
		}
		if same {
			return
		}
	}
	ws = slices.Clone(ws)
	a.watermarks.Store(&ws)
}

// errExitedWithoutStop is the failure of an actor whose goroutine ended
// without an error and without a barrier that stopped it (I5).
var errExitedWithoutStop = errors.New("stream: actor ended without a barrier that stopped it")

// run pulls messages from the pipeline and dispatches them until a barrier
// stops the actor, the context ends, or something fails. After dispatching
// a barrier it hands its epoch batch to the coordinator and waits for the
// epoch to commit before touching state again.
func (a *Actor) run(ctx context.Context, c *Coordinator) (err error) {
	defer func() {
		mayBlock(ctx) // gives a slot back
		for _, f := range a.Closers {
			f()
		}
		if r := recover(); r != nil {
			if msg, ok := r.(string); ok && invariants && strings.HasPrefix(msg, "invariant ") {
				// A broken invariant must fail loudly, not be recovered from.
				panic(r)
			}
			if storage.IsFatal(r) {
				panic(r) // Pebble found its state broken: stop the process
			}
			err = &ActorError{Actor: a.ID, Err: fmt.Errorf("panicked: %v\n%s", r, debug.Stack())}
		}
	}()
	for {
		working(ctx) // a creating job's actor computes in a slot (cpuSlots)
		msg, err := a.Exec.Next(ctx)
		if err != nil {
			return &ActorError{Actor: a.ID, Err: err}
		}
		if failpoint.Enabled {
			if ended, err := a.hitActor(msg); ended || err != nil {
				return a.actorError(err)
			}
		}
		if msg.Chunk != nil {
			if !a.background.Load() {
				c.slots.noteActive() // the running graph has rows to move
			}
			start := time.Now()
			if err := a.Out.Send(ctx, msg); err != nil {
				return a.actorError(err)
			}
			a.stats.sendNanos.Add(int64(time.Since(start)))
			a.stats.rowsOut.Add(int64(msg.Chunk.NumRows()))
			a.stats.chunksOut.Add(1)
			continue
		}
		stopped, err := a.passBarrier(ctx, c, msg)
		if err != nil || stopped {
			a.stopped = stopped
			return a.actorError(err)
		}
	}
}

// actorError makes err (nil stays nil) the actor's failure.
func (a *Actor) actorError(err error) error {
	if err == nil {
		return nil
	}
	return &ActorError{Actor: a.ID, Err: err}
}

func (a *Actor) passBarrier(ctx context.Context, c *Coordinator, msg Message) (stopped bool, err error) {
	b := msg.Barrier
	a.noteWatermarks(msg.Watermarks)
	if a.Errors != nil {
		// The rows pulled next belong to the barrier's Curr; a creating
		// job's own barriers number apart from the running graph's, so
		// its rows' errors record none (0).
		a.Errors.epoch = 0
		if b.coll == nil {
			a.Errors.epoch = b.Curr
		}
	}
	a.Out.applyBeforeBarrier(a.ID, b.Mutation)
	if err := a.Out.Send(ctx, Message{Barrier: b, Watermarks: msg.Watermarks}); err != nil {
		return false, err
	}
	a.Out.applyAfterBarrier(a.ID, b.Mutation)
	var coll collector = c
	if b.coll != nil {
		coll = b.coll
	}
	if err := coll.collect(a.ID, b, a.State.TakeBatch()); err != nil {
		return false, err
	}
	if err := b.commit.wait(ctx); err != nil {
		return false, err
	}
	return stopsActor(b.Mutation, a.ID), nil
}
