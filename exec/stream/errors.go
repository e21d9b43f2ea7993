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
