package storage

import (
	"errors"
	"fmt"

	"github.com/streamdb/streamdb/internal/types"
)

// Sentinel errors; match them with errors.Is.
var (
	// ErrClosed is returned by a Store, Snapshot or WriteBatch used after
	// Close (or, for a WriteBatch, after CommitEpoch).
	ErrClosed = errors.New("storage: closed")
	// ErrEpochNotIncreasing is returned by CommitEpoch for an epoch that is
	// not greater than the committed one.
	ErrEpochNotIncreasing = errors.New("storage: epoch not increasing")
	// ErrCorrupt is returned when stored bytes cannot be decoded.
	ErrCorrupt = errors.New("storage: corrupt encoding")
	// ErrLeaked is returned by Store.Close when snapshots were left open.
	ErrLeaked = errors.New("storage: leaked snapshots")
	// ErrBadLayout is returned when a Table or a row does not fit its
	// layout (column counts, PK and DistKey indexes, Datum types).
	ErrBadLayout = errors.New("storage: bad table layout or row")
	// ErrStoreFailed is matched by every write to a store that could not
	// complete an earlier write (see failure.go): it takes no more writes
	// until it is reopened.
	ErrStoreFailed = errors.New("storage: the store stopped taking writes (reopen the database)")
)

func errDatumType(t types.Type, d types.Datum) error {
	return fmt.Errorf("%w: %T is not a %s datum", ErrBadLayout, d, t)
}

func errCorrupt(what, why string) error {
	return fmt.Errorf("%w: %s: %s", ErrCorrupt, what, why)
}
