package stream

import (
	"errors"
	"fmt"
)

// ErrUpstreamEnded is returned by an input whose upstream ended without a
// barrier (invariant I5): a failure, never a silent stop.
var ErrUpstreamEnded = errors.New("stream: upstream ended unexpectedly")

// ActorError is the failure of one actor, as reported to the coordinator.
type ActorError struct {
	Actor ActorID
	Err   error
}

func (e *ActorError) Error() string { return fmt.Sprintf("actor %d: %v", e.Actor, e.Err) }

// Unwrap returns the actor's error.
func (e *ActorError) Unwrap() error { return e.Err }

// ErrorLog records the data errors of views' expressions, which the
// expressions turned into NULLs (expr.Guard): the engine keeps them for
// streamdb_catalog.view_errors. It is called from actors' goroutines.
type ErrorLog interface {
	RecordEvalError(rel uint32, epoch uint64, err error)
}

// EvalErrors is the expr.ErrorSink of one actor of a view's job: it sends
// each error to the log with the view and the epoch of the row that
// failed.
type EvalErrors struct {
	rel uint32
	log ErrorLog
	// epoch is the epoch of the rows the actor is processing: the Curr of
	// the last barrier it passed (its goroutine only; every executor of
	// an actor runs on its goroutine, and a row pulled after a barrier
	// belongs to that barrier's Curr).
	epoch uint64
}

// NewEvalErrors returns the sink for an actor of rel's job.
func NewEvalErrors(rel uint32, log ErrorLog) *EvalErrors {
	return &EvalErrors{rel: rel, log: log}
}

// EvalError implements expr.ErrorSink.
func (e *EvalErrors) EvalError(err error) { e.log.RecordEvalError(e.rel, e.epoch, err) }
