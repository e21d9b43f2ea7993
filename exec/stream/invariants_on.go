//go:build invariants

package stream

import "fmt"

// invariants turns on the internal checks of the named invariants of
// ../../ARCHITECTURE.md (build with -tags invariants, as Pebble does). The
// release build compiles them away.
const invariants = true

// checkPausedEmit enforces I2: a scan that has passed a pausing barrier
// emits no backfill chunk (snapshot or log store) until a resuming one.
//
// Under the invariants tag the actor re-raises this panic instead of
// recovering from it, so a violation stops the process.
func (s *StreamScan) checkPausedEmit(m Message) {
	if !s.opts.Paused || m.Chunk == nil {
		return
	}
	what := "snapshot"
	if s.phase == phaseLogStore {
		what = "log store"
	}
	panic(fmt.Sprintf("invariant I2 violated: paused scan of table %d (job %d) emitted a %s chunk of %d rows",
		s.upstream.ID, s.opts.Job, what, m.Chunk.NumRows()))
}
