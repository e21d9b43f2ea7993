package stream

import (
	"errors"
	"fmt"
	"time"

	"github.com/streamdb/streamdb/storage"
)

// A component is a connected part of the running graph: sources and the
// actors their rows reach, joined by dispatcher outputs. Components share
// no channel and no state, so each runs its own barriers (isolation,
// I8's running-graph half): a write to a table waits for the barrier of
// its table's component only, never behind a slow join over other
// tables, and a component's epoch commits as soon as its own actors have
// collected it.
//
// Epoch numbers stay global: each barrier takes the next one, so a
// component sees an increasing subsequence of them, and the store records
// the greatest epoch committed (storage.Store.CommitComponents). Barriers
// with a mutation (DDL, rescale, joins, pause and rate limits), and
// checkpoints (Coordinator.Checkpoint), are global: they wait until no
// component's barrier is in flight, go into every source, and commit
// once every actor collected them. The graph's shape changes only there,
// and the components are found again after each one (regroupLocked).
//
// A recovery is still the whole graph's.
type component struct {
	actors  map[ActorID]bool
	sources []*Source
	// es is the component's barrier in flight (nil when idle), reqs the
	// requests it serves.
	es   *epochState
	reqs []request
	// waiting are the requests for its next barrier; due says the
	// barrier interval passed since its last one.
	waiting []request
	due     bool
}

// regroupLocked finds the components of the running graph (under c.mu,
// between barriers: no actor changes its outputs meanwhile, as they
// change only at a global barrier). An output to an actor the
// coordinator does not know (graphs built by hand in tests) makes the
// whole graph one component, which is always correct.
func (c *Coordinator) regroupLocked() {
	parent := make(map[ActorID]ActorID, len(c.actors))
	var find func(ActorID) ActorID
	find = func(id ActorID) ActorID {
		for parent[id] != id {
			parent[id] = parent[parent[id]]
			id = parent[id]
		}
		return id
	}
	for id := range c.actors {
		parent[id] = id
	}
	whole := false
	union := func(a, b ActorID) {
		if _, ok := parent[b]; !ok {
			whole = true
			return
		}
		ra, rb := find(a), find(b)
		if ra != rb {
			parent[ra] = rb
		}
	}
	for id, a := range c.actors {
		for _, o := range a.Out.outputs {
			union(id, o.Actor)
		}
		for _, e := range a.Out.exchanges {
			for _, o := range e.outputs {
				union(id, o.Actor)
			}
		}
	}
	for id := range c.sources {
		if _, ok := parent[id]; !ok {
			whole = true
		}
	}
	byRoot := map[ActorID]*component{}
	c.comps = c.comps[:0]
	get := func(id ActorID) *component {
		r := ActorID(0)
		if !whole {
			r = find(id)
		}
		comp := byRoot[r]
		if comp == nil {
			comp = &component{actors: map[ActorID]bool{}}
			byRoot[r] = comp
			c.comps = append(c.comps, comp)
		}
		return comp
	}
	for id := range c.actors {
		get(id).actors[id] = true
	}
	c.srcComp = make(map[*Source]*component, len(c.sources))
	for id, src := range c.sources {
		comp := get(id)
		comp.sources = append(comp.sources, src)
		c.srcComp[src] = comp
	}
}

// Components returns the number of components of the running graph (for
// tests and SHOW-style introspection).
func (c *Coordinator) Components() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.comps)
}

// accept takes a request in the barrier loop: a write's goes to its
// source's component, the others (mutations, checkpoints, new actors)
// wait for a global barrier.
func (c *Coordinator) accept(r request) {
	for _, r := range c.route(c.dropStale([]request{r})) {
		if r.mutation != nil || r.source == nil || len(r.actors) > 0 || len(r.sources) > 0 || len(r.creating) > 0 {
			c.pending = append(c.pending, r)
			continue
		}
		comp := c.srcComp[r.source]
		switch {
		case r.source.Committed(r.mark):
			c.answered(r)
		case comp == nil:
			// Its graph is gone (a recovery replaced it): what was sent
			// into it can no longer commit.
			r.done <- c.goneError()
		default:
			comp.waiting = append(comp.waiting, r)
		}
	}
}

// goneError answers a write whose source's graph was torn down before
// its changes committed.
func (c *Coordinator) goneError() error {
	cause := c.lastCause
	if cause == nil {
		cause = errors.New("the source written to was torn down before its changes committed")
	}
	return &graphFailedError{cause: cause}
}

// busy reports whether a component's barrier is in flight.
func (c *Coordinator) busy() bool {
	for _, comp := range c.comps {
		if comp.es != nil {
			return true
		}
	}
	return false
}

// injectComponents starts a barrier in every idle component that has a
// write waiting or whose interval passed. Its sources take it on a
// goroutine of its own (a statement may hold a source for long), so that
// no component waits for another's.
func (c *Coordinator) injectComponents() {
	c.mu.Lock()
	defer c.mu.Unlock()
	ctx := c.graphCtx
	for _, comp := range c.comps {
		if comp.es != nil || (len(comp.waiting) == 0 && !comp.due) {
			continue
		}
		es := c.newEpochLocked(nil, comp.actors)
		es.comp = comp
		comp.es, comp.reqs, comp.waiting, comp.due = es, comp.waiting, nil, false
		es.injected = make(chan struct{})
		srcs := comp.sources
		c.actorWG.Add(1)
		go func() {
			defer c.actorWG.Done()
			defer close(es.injected)
			for _, src := range srcs {
				if c.inject(ctx, src, es) != nil {
					return // the graph failed or the coordinator stops: the loop sees it
				}
			}
		}()
	}
}

// commitComponents commits, in one batch, the barriers of the components
// whose actors have all collected them, and answers their requests.
func (c *Coordinator) commitComponents() {
	var done []*component
	c.mu.Lock()
	for _, comp := range c.comps {
		if comp.es == nil {
			continue
		}
		select {
		case <-comp.es.all:
			done = append(done, comp)
		default:
		}
	}
	c.mu.Unlock()
	if len(done) == 0 {
		return
	}
	var batches []*storage.WriteBatch
	epoch := uint64(0)
	for _, comp := range done {
		<-comp.es.injected // every actor has the barrier: the injector is finishing
		batches = append(batches, comp.es.batches...)
		epoch = max(epoch, comp.es.barrier.Prev)
	}
	commitStart := time.Now()
	err := c.store.CommitComponents(epoch, batches)
	if err != nil {
		c.failComponents(fmt.Errorf("stream: committing epoch %d: %w", epoch, err))
		return
	}
	made := make([]time.Time, len(done))
	for i, comp := range done {
		made[i] = comp.es.made
	}
	c.observeCommit(commitStart, made...)
	c.mu.Lock()
	c.committed = max(c.committed, epoch)
	c.failures = 0
	for _, comp := range done {
		delete(c.inflight, comp.es.barrier)
	}
	c.mu.Unlock()
	for _, comp := range done {
		es := comp.es
		for _, m := range es.marks {
			m.src.committed.Store(m.n)
		}
		close(es.barrier.commit.done)
		for _, r := range comp.reqs {
			if r.source.Committed(r.mark) {
				c.answered(r)
			} else {
				// Sent after the barrier passed its source: the next
				// barrier serves it.
				comp.waiting = append(comp.waiting, r)
			}
		}
		// Writes that arrived meanwhile may have made it before the
		// barrier.
		waiting := comp.waiting[:0]
		for _, r := range comp.waiting {
			if r.source.Committed(r.mark) {
				c.answered(r)
			} else {
				waiting = append(waiting, r)
			}
		}
		comp.es, comp.reqs, comp.waiting = nil, nil, waiting
	}
}

// failComponents ends every component's barrier in flight with err (the
// graph failed, or a commit did), recovers the graph, and answers every
// write waiting in a component: committed or not, its graph is gone.
func (c *Coordinator) failComponents(err error) {
	var reqs []request
	c.mu.Lock()
	for _, comp := range c.comps {
		if comp.es != nil {
			comp.es.barrier.commit.err = err
			close(comp.es.barrier.commit.done)
			delete(c.inflight, comp.es.barrier)
		}
		reqs = append(reqs, comp.reqs...)
		reqs = append(reqs, comp.waiting...)
		comp.es, comp.reqs, comp.waiting = nil, nil, nil
	}
	c.mu.Unlock()
	c.endGraph(err)
	for _, r := range reqs {
		switch {
		case r.source.Committed(r.mark):
			r.done <- nil
		case c.storeFailed != nil:
			r.done <- c.storeFailed
		default:
			r.done <- &graphFailedError{cause: err}
		}
	}
}

// waitEvent waits in the barrier loop for a request (taking those
// already queued with it, so that they share barriers), the interval, a
// component's barrier collected, a graph failure while one is in flight,
// or the end. (A failure between barriers fails the next barrier, as a
// write sent before it must not see a later barrier succeed.)
func (c *Coordinator) waitEvent(tick <-chan time.Time) bool {
	var failed <-chan struct{}
	if c.busy() {
		c.mu.Lock()
		failed = c.graphCtx.Done()
		c.mu.Unlock()
	}
	select {
	case <-c.stop:
		return false
	case r := <-c.reqs:
		c.accept(r)
		for more := true; more; {
			select {
			case r := <-c.reqs:
				c.accept(r)
			default:
				more = false
			}
		}
	case <-tick:
		for _, comp := range c.comps {
			comp.due = true
		}
	case <-c.wake:
		c.commitComponents()
	case <-c.retick:
		// The loop resets its ticker to the new interval.
	case <-failed:
		c.failComponents(c.failure())
	}
	return true
}
