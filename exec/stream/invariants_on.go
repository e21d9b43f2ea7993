//go:build invariants

package stream

import (
	"fmt"

	"github.com/streamdb/streamdb/internal/types"
)

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

// checkOwned enforces the routing half of I4: a scan receives only the
// upstream changes of the vnodes it owns (its upstream's exchange hashes
// rows exactly as the upstream table stores them).
func (s *StreamScan) checkOwned(m Message) {
	if m.Chunk == nil {
		return
	}
	var row []types.Datum
	for i := 0; i < m.Chunk.NumRows(); i++ {
		row = m.Chunk.Row(i, row)
		s.checkOwnedRow(row)
	}
}

func (s *StreamScan) checkOwnedRow(row []types.Datum) {
	if v := s.upstream.Vnode(row); !s.owned.Has(v) {
		panic(fmt.Sprintf("invariant I4 violated: scan of table %d (job %d) received a row of vnode %d, which it does not own",
			s.upstream.ID, s.opts.Job, v))
	}
}

// checkOwnedRow enforces that a Materialize writes only rows of the vnodes
// its actor owns, so the actors of a parallel view never share a key.
func (m *Materialize) checkOwnedRow(row []types.Datum) {
	if m.Owned == nil {
		return
	}
	if v := m.table.Vnode(row); !m.Owned.Has(v) {
		panic(fmt.Sprintf("invariant I4 violated: materialize of table %d received a row of vnode %d, which its actor does not own",
			m.table.ID, v))
	}
}
