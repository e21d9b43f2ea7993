package stream

import "context"

// Source is where a table's changes enter the graph: DML statements send
// chunks into C, the coordinator sends barriers. A statement holds the
// source (Acquire) while it sends, so no barrier can split its changes
// across epochs: a statement is committed whole or not at all.
type Source struct {
	C    chan Message
	lock chan struct{}
}

// NewSource returns a source whose channel holds up to capacity messages.
func NewSource(capacity int) *Source {
	return &Source{C: make(chan Message, capacity), lock: make(chan struct{}, 1)}
}

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
