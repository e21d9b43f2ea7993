package stream

import "github.com/streamdb/streamdb/storage"

// StateContext gives an actor's executors the write batch of the current
// epoch. The actor replaces the batch after each barrier, so executors must
// call Batch each time rather than keep the result across barriers.
type StateContext struct {
	Store *storage.Store
	batch *storage.WriteBatch
	// writeOnly: the actor's executors only write state (see
	// NewWriteOnlyStateContext).
	writeOnly bool
}

// NewStateContext returns a context whose first epoch batch is fresh.
func NewStateContext(st *storage.Store) *StateContext {
	return &StateContext{Store: st, batch: st.NewWriteBatch()}
}

// NewWriteOnlyStateContext returns a context whose batches cannot be read
// through (storage.NewWriteOnlyBatch), for an actor whose executors never
// read their state.
func NewWriteOnlyStateContext(st *storage.Store) *StateContext {
	return &StateContext{Store: st, batch: st.NewWriteOnlyBatch(), writeOnly: true}
}

// Batch returns the current epoch's write batch; reads through it see the
// committed state plus this epoch's writes.
func (s *StateContext) Batch() *storage.WriteBatch { return s.batch }

// TakeBatch returns the current batch for commit and starts a new one,
// sized for as much as this epoch wrote.
func (s *StateContext) TakeBatch() *storage.WriteBatch {
	b := s.batch
	if s.writeOnly {
		s.batch = s.Store.NewWriteOnlyBatch()
	} else {
		s.batch = s.Store.NewWriteBatch()
	}
	s.batch.SizeHint(b.Len())
	return b
}
