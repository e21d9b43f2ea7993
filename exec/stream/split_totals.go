package stream

import (
	"sync"
	"sync/atomic"
)

// SplitTotals sums the counters (rows emitted, messages skipped) of the
// SplitSources of one source fragment, one per actor, for the outside
// (streamdb_catalog.sources). It publishes the sums only once every
// actor has loaded its committed counters, so a rescale or a recovery
// never shows a partial total. One SplitTotals lives as long as the job
// that built it: a rebuild makes a new one.
//
// Safe for concurrent use: the actors add under mu, and mu orders the
// stores, so the last one stored is the latest sum.
type SplitTotals struct {
	mu             sync.Mutex
	actors, loaded int
	counts         [2]int64
	// progress and skipped receive the sums; either may be nil.
	progress, skipped *atomic.Int64
}

// NewSplitTotals returns the totals of a fragment of actors actors,
// published to progress and skipped (nil: not published).
func NewSplitTotals(actors int, progress, skipped *atomic.Int64) *SplitTotals {
	return &SplitTotals{actors: max(actors, 1), progress: progress, skipped: skipped}
}

// add adds an actor's counts: those it loaded (load true, once per
// actor) or those it just counted.
func (t *SplitTotals) add(emitted, skipped int64, load bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.counts[0] += emitted
	t.counts[1] += skipped
	if load {
		t.loaded++
	}
	if t.loaded < t.actors {
		return
	}
	if t.progress != nil {
		t.progress.Store(t.counts[0])
	}
	if t.skipped != nil {
		t.skipped.Store(t.counts[1])
	}
}
