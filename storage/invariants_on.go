//go:build invariants

package storage

import (
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// invariants turns on the storage checks of ../ARCHITECTURE.md's
// invariants (build with -tags invariants); the release build compiles
// them away.
const invariants = true

// checkDisjoint enforces what CommitEpoch relies on to merge an epoch's
// batches in any order: no two actors write the same key in one epoch,
// because each writes only the vnodes it owns (I4).
func checkDisjoint(batches []*pebble.Batch) {
	if len(batches) < 2 {
		return
	}
	owner := map[string]int{}
	for i, b := range batches {
		r := b.Reader()
		for {
			_, key, _, ok, err := r.Next()
			if err != nil {
				panic(fmt.Sprintf("storage: read write batch: %v", err))
			}
			if !ok {
				break
			}
			if j, dup := owner[string(key)]; dup && j != i {
				panic(fmt.Sprintf("invariant I4 violated: two actors wrote key %x in one epoch", key))
			}
			owner[string(key)] = i
		}
	}
}
