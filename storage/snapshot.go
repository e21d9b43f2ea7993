package storage

import "github.com/cockroachdb/pebble/v2"

// Snapshot is a consistent, read-only view of committed state. Reads
// through one snapshot may run concurrently.
type Snapshot struct {
	s    *Store
	snap *pebble.Snapshot // nil once closed
}

// Snapshot returns a view of the currently committed state; Close it.
// On a closed store the snapshot's reads fail with ErrClosed.
func (s *Store) Snapshot() *Snapshot {
	// Not between an epoch's commit and its ingest (see ingest.go).
	s.visMu.RLock()
	defer s.visMu.RUnlock()
	s.snapMu.Lock()
	defer s.snapMu.Unlock()
	snap := &Snapshot{s: s}
	if s.closed.Load() {
		return snap
	}
	snap.snap = s.db.NewSnapshot()
	s.snaps[snap] = struct{}{}
	return snap
}

// Close releases the snapshot. Closing twice is harmless.
func (s *Snapshot) Close() error {
	s.s.snapMu.Lock()
	defer s.s.snapMu.Unlock()
	if s.snap == nil {
		return nil
	}
	delete(s.s.snaps, s)
	err := s.snap.Close()
	s.snap = nil
	return err
}

func (s *Snapshot) owner() *Store { return s.s }

func (s *Snapshot) reader() (pebble.Reader, error) {
	if s.snap == nil {
		return nil, ErrClosed
	}
	return s.snap, nil
}
