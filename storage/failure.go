package storage

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// A write the store cannot complete (Pebble could not write or sync its
// WAL: a full disk, an I/O error, a failed fsync) leaves the store in an
// unknown state: what was written may or may not be durable. Pebble stops
// the process on such an error; Postgres, on a failed fsync, does too.
// The store does the same within its process: it fails, keeps serving
// reads, and refuses every later write with the failure (ErrStoreFailed),
// until it is reopened, which replays the WAL and finds exactly what was
// durable. Committed state is never overwritten by a guess.

// guard runs a Pebble write f; a fatal Pebble error in it (see
// quietLogger.Fatalf) fails the store, and guard returns the failure.
func (s *Store) guard(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			pf, ok := r.(*pebbleFatal)
			if !ok {
				panic(r)
			}
			err = s.fail(pf)
		}
	}()
	return f()
}

// storeFailure is why the store stopped writing.
type storeFailure struct{ err error }

// fail stops the store's writes for good with cause (the first cause
// wins) and returns the error writers get.
func (s *Store) fail(cause error) error {
	s.failure.CompareAndSwap(nil, &storeFailure{err: failedError(cause)})
	return s.failure.Load().err
}

// Failed returns nil while the store takes writes, else the error every
// write gets (it matches ErrStoreFailed and carries SQLSTATE 53100
// disk_full or 58030 io_error).
func (s *Store) Failed() error {
	if f := s.failure.Load(); f != nil {
		return f.err
	}
	return nil
}

// writable returns the error of a write on a closed or failed store.
func (s *Store) writable() error {
	if s.closed.Load() {
		return ErrClosed
	}
	return s.Failed()
}

func failedError(cause error) error {
	code, what := pgerr.IOError, "an I/O error"
	if errors.Is(cause, syscall.ENOSPC) {
		code, what = pgerr.DiskFull, "a full disk"
	}
	wrapped := fmt.Errorf("%w after %s: %w", ErrStoreFailed, what, cause)
	return pgerr.Wrap(wrapped, code, "could not write to the database")
}
