package stream

import "errors"

// ErrUpstreamEnded is returned by an input whose upstream ended without a
// barrier (invariant I5): a failure, never a silent stop.
var ErrUpstreamEnded = errors.New("stream: upstream ended unexpectedly")
