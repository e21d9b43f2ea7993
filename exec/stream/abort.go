package stream

// Abort fails the current graph as an actor failure would: the open epoch
// is not committed, the graph is torn down and rebuilt from committed
// state, and every statement waiting for the epoch fails with
// ErrGraphFailed (a retry).
//
// It is for a writer that has sent part of a statement's changes into a
// source it holds and cannot send the rest (the COPY that reads its
// staged rows back and hits an I/O error): it calls Abort and keeps the
// source until Dead is closed, so no barrier can follow, and commit, the
// partial changes.
func (c *Coordinator) Abort(cause error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failed == nil {
		c.failed = cause
		c.opts.Logger.Error("streaming graph aborted by a writer", "err", cause)
	}
	c.cancel()
}
