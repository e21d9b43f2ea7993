package stream

import (
	"context"
	"sync"
	"sync/atomic"
)

// Source is where a table's changes enter the graph: DML statements send
// chunks into C, the coordinator sends barriers. A statement holds the
// source (Acquire) while it sends, so no barrier can split its changes
// across epochs: a statement is committed whole or not at all.
//
// A source belongs to one graph: when the coordinator tears that graph down
// (a failure, Close) or stops the source's actor, it closes Dead, and what
// was sent into C and not yet committed is lost. A rebuilt graph gets new
// sources; a source is never registered again.
type Source struct {
	C    chan Message
	lock chan struct{}
	// Ingests says the source's chunks go straight to a trusted table
	// Materialize, so they may carry an Ingest (see Message.Ingest).
	Ingests bool

	dead     chan struct{}
	deadOnce sync.Once

	// injected counts the barriers sent into C; written by the
	// coordinator while it holds the source, read by holders (Mark).
	injected uint64
	// committed is the count of injected barriers whose epoch committed:
	// everything sent before barrier number committed is durable.
	committed atomic.Uint64
}

// NewSource returns a source whose channel holds up to capacity messages.
func NewSource(capacity int) *Source {
	return &Source{C: make(chan Message, capacity), lock: make(chan struct{}, 1),
		dead: make(chan struct{})}
}

// Dead returns a channel closed once nothing sent into the source can be
// committed any more (its graph was torn down or its actor stopped).
// Senders select on it so they never block on a source nobody reads.
func (s *Source) Dead() <-chan struct{} { return s.dead }

func (s *Source) kill() { s.deadOnce.Do(func() { close(s.dead) }) }

// Acquire takes the source, waiting while another holder has it.
func (s *Source) Acquire(ctx context.Context) error {
	select {
	case s.lock <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Release gives the source back.
func (s *Source) Release() { <-s.lock }

// Mark, called while holding the source, names what was sent into it so
// far: it is committed once the next barrier injected into the source
// commits (see Coordinator.CommitSource). A statement's changes can be
// committed by a barrier that was in flight before the statement asked
// to wait for them; the mark tells the coordinator so, and a later
// barrier's failure is then not reported as theirs.
func (s *Source) Mark() uint64 { return s.injected + 1 }

// Committed reports whether what was sent before mark is committed.
func (s *Source) Committed(mark uint64) bool { return s.committed.Load() >= mark }
