package stream

import (
	"context"
	"time"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// Barrier separates epochs in a stream. Rows before it belong to epoch Prev,
// rows after it to epoch Curr. Every barrier is a checkpoint: when it has
// passed every actor, epoch Prev is committed to the store in one batch.
type Barrier struct {
	Prev, Curr uint64
	// Time is when the barrier was made (unix microseconds, by the
	// coordinator's clock): the now() of the temporal filters it passes,
	// so every operator of one barrier sees the same instant.
	Time int64
	// Mutation, when not nil, changes the graph at this barrier; every actor
	// applies it when it passes the barrier.
	Mutation Mutation

	commit *commitSignal // set by the Coordinator
	// coll collects the barrier from each actor that passes it: the
	// Coordinator (nil) for the running graph's barriers, a creating
	// job's own for the barriers of its sequence (see CreatingJob).
	coll collector
}

// ofJob reports whether b is a creating job's own barrier (not the
// running graph's).
func (b *Barrier) ofJob() bool { return b.coll != nil }

// collector takes an actor's epoch batch once it has passed a barrier.
type collector interface {
	collect(id ActorID, b *Barrier, wb *storage.WriteBatch) error
}

// Mutation is a change of the stream graph carried by a barrier.
type Mutation interface{ mutation() }

// StopMutation stops the listed actors: they forward the barrier and exit;
// dispatchers drop their outputs to them.
type StopMutation struct {
	Actors map[ActorID]bool
}

// AddMutation attaches new downstream outputs to existing dispatchers: from
// this barrier on (the barrier itself included), the dispatcher of actor
// Upstream also sends to each of Outputs[Upstream] (broadcast) and
// Exchanges[Upstream] (partitioned by vnode).
type AddMutation struct {
	Outputs   map[ActorID][]*Output
	Exchanges map[ActorID][]*Exchange
}

// ThrottleMutation changes flow control at this barrier, in every actor
// it concerns at once: a rate limit in rows per second (0: none), or a
// pause. Kind says what it throttles: the backfill of job Job (a view's
// relation id, all of its scans together), or the connector of source
// Job (a source's or connector table's relation id).
type ThrottleMutation struct {
	Kind      ThrottleKind
	Job       uint32
	RateLimit int64
	Paused    bool
	// LatencyTarget, for a backfill, makes its rate adaptive: the job's
	// controller sets it (RateLimit is then ignored) so that the running
	// graph's barriers stay under this latency (see CreatingJob).
	LatencyTarget time.Duration
}

// ThrottleKind is what a ThrottleMutation throttles.
type ThrottleKind uint8

// Throttle kinds.
const (
	ThrottleBackfill ThrottleKind = iota
	ThrottleSource
)

// UpdateMutation replaces running actors at a barrier: a rescale, which
// rebuilds a job (and the jobs downstream of it) with other actors owning
// other vnodes. At the barrier:
//
//   - the actors in Stop forward it and exit once its epoch commits, so the
//     state they staged for the epoch commits with it;
//   - after forwarding it, the dispatcher of each actor in Exchanges drops
//     its outputs to stopped actors and attaches Exchanges[actor], so the
//     rows after the barrier go to the new actors;
//   - once the epoch has committed, Committed is called (from the barrier
//     loop) and then the actors in Start run, their Sources registered: they
//     start on the committed state, which holds every vnode's state and
//     backfill progress as of the barrier (I4), and take part from the next
//     barrier on.
//
// Send it with Coordinator.MutateIn, naming the graph generation the new
// actors were built against: it is refused with ErrGraphFailed when the
// graph was rebuilt since, as its actors would be wired to actors that
// are gone.
type UpdateMutation struct {
	Stop      map[ActorID]bool
	Exchanges map[ActorID][]*Exchange
	Start     []*Actor
	Sources   map[ActorID]*Source
	// Creating are creating jobs that start once the epoch has
	// committed, after Start (their writers are among Start).
	Creating  []*CreatingJob
	Committed func()
}

// JoinMutation ends a creating job's own barrier sequence (I8): at this
// barrier of the running graph, the dispatcher of each of the job's log
// writers attaches Outputs[writer], the channel to its scan, so the
// barrier itself and everything after it go to the scan instead of the
// log store. The scan replays what is left in the log store once the
// barrier has committed, then follows; the job's actors take part in the
// running graph's barriers from the next one on.
type JoinMutation struct {
	Job     uint32
	Outputs map[ActorID]*Output
}

// prepareJoin, on a creating job's own barrier, asks its scans to emit
// nothing more until the running graph's JoinMutation reaches them.
type prepareJoin struct{}

// stopsActor reports whether m stops actor id at its barrier.
func stopsActor(m Mutation, id ActorID) bool {
	switch m := m.(type) {
	case *StopMutation:
		return m.Actors[id]
	case *UpdateMutation:
		return m.Stop[id]
	}
	return false
}

// stoppedActors returns the actors m stops (nil for none).
func stoppedActors(m Mutation) map[ActorID]bool {
	switch m := m.(type) {
	case *StopMutation:
		return m.Actors
	case *UpdateMutation:
		return m.Stop
	}
	return nil
}

func (*UpdateMutation) mutation()   {}
func (*JoinMutation) mutation()     {}
func (*prepareJoin) mutation()      {}
func (*ThrottleMutation) mutation() {}
func (*StopMutation) mutation()     {}
func (*AddMutation) mutation()      {}

// ActorID identifies an actor in the graph.
type ActorID uint32

// Message is what flows on a stream: exactly one of Chunk and Barrier is set.
type Message struct {
	Chunk   *chunk.Chunk
	Barrier *Barrier
	// Ingest, only on a chunk a DML statement sends into a Source that
	// takes ingests (Source.Ingests), holds the chunk's rows already
	// written: the table's Materialize attaches it to its epoch batch
	// instead of writing them, and passes the chunk on without it.
	Ingest *storage.Ingest
	// Watermarks, only on a barrier, are the watermarks of the tables
	// upstream whose rows reach this stream unchanged in time (see
	// Watermark). Operators that keep rows' event time (filters,
	// projections, exchanges, TUMBLE/HOP expansions, local aggregates)
	// pass them on with the barrier; a merge keeps those every input
	// carries, at their least; the others drop them.
	Watermarks []Watermark
}

// Watermark says that every row of table Table that passes the barrier
// it travels with, and every later one, has a watermark column of at
// least Value (of type Type): the WatermarkFilter of the table drops the
// rows below it. It travels with every barrier, so an operator built
// after a restart, a recovery or a rescale learns it at its first
// barrier, and it never goes back (I7). Which columns of a stream a
// watermark bounds, and how (window_start of a TUMBLE over the column,
// the column minus an interval), is the planner's to know: it gives the
// operators that use one (WatermarkUse) the expressions that map it.
type Watermark struct {
	Table uint32
	Type  types.Type
	Value types.Datum
}

// findWatermark returns the watermark of table in ws.
func findWatermark(ws []Watermark, table uint32) (Watermark, bool) {
	for _, w := range ws {
		if w.Table == table {
			return w, true
		}
	}
	return Watermark{}, false
}

// Executor is one operator of an actor's pipeline. Next pulls from the
// executor's input(s) and returns its next message. An executor forwards
// every barrier it receives (after receiving it on all of its inputs, I1)
// and, before returning a barrier, writes its pending state for the epoch
// that ends into the actor's current write batch (StateContext.Batch).
//
// Next returning an error fails the actor (and triggers recovery); an input
// that ends without a barrier is such an error (I5).
type Executor interface {
	Next(ctx context.Context) (Message, error)
	// Types are the column types of the chunks it emits.
	Types() []types.Type
}

// Output is one downstream receiver of a dispatcher.
type Output struct {
	Actor ActorID
	C     chan<- Message
	// closed: the sending actor closed C without a barrier (a failpoint,
	// see Dispatcher.hitSend); later sends are dropped.
	closed bool
}

// Receiver is an Executor that reads messages from an upstream actor's
// channel. A closed channel is an upstream that ended without a barrier.
// The rows of the chunks Next returns count as the reading actor's rows in
// (ActorStats.RowsIn); a Merge counts those it reads through Poll and
// NextBefore.
type Receiver struct {
	C   <-chan Message
	Typ []types.Type
}

// Types implements Executor.
func (r *Receiver) Types() []types.Type { return r.Typ }

// Next implements Executor.
func (r *Receiver) Next(ctx context.Context) (Message, error) {
	mayBlock(ctx)
	select {
	case m, ok := <-r.C:
		if !ok {
			return Message{}, ErrUpstreamEnded
		}
		working(ctx)
		noteRowsIn(ctx, m)
		return m, nil
	case <-ctx.Done():
		return Message{}, ctx.Err()
	}
}

// sameDatum reports whether a and b (of type t, possibly NULL) are equal.
func sameDatum(a, b types.Datum, t types.Type) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return expr.Compare(a, b, t) == 0
}
