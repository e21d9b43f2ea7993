package storage

import "time"

// A row updated often leaves one version per commit in the memtable,
// where every scan over it must step through them all: a 10-row GROUP BY
// view took 7.4 ms to read after 20,000 single-row inserts into its
// table, and a view backfilled with a checkpoint every few milliseconds
// 7 ms, growing until the 64 MiB memtable flushed. A flush keeps only
// the newest version of each key that no open snapshot still needs, so
// a scan that stepped over many more versions than the rows it returned
// asks Pebble for one (noteChurn), at most once per churnInterval.
const (
	// churnRatio and churnSlack: a scan that saw more internal points
	// than churnRatio per row returned plus churnSlack asks for a flush.
	churnRatio = 16
	churnSlack = 4096
	// churnInterval spaces the flushes it asks for: versions that a
	// flush keeps for an open snapshot (a backfill's) are not worth a
	// flush per scan.
	churnInterval = time.Second
)

// noteChurn asks Pebble to flush its memtable in the background, unless
// it asked within churnInterval or the store is closing.
func (s *Store) noteChurn() {
	now := time.Now().UnixNano()
	last := s.churnFlush.Load()
	if now-last < int64(churnInterval) || !s.churnFlush.CompareAndSwap(last, now) {
		return
	}
	if s.writable() != nil {
		return
	}
	// Advisory: an error here is a write's to report, not a read's.
	_ = s.guard(func() error {
		_, err := s.db.AsyncFlush()
		return err
	})
}
