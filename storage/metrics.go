package storage

import "github.com/cockroachdb/pebble/v2"

// Metrics returns Pebble's metrics (compactions, flushes, levels,
// memtables, block cache, WAL), or nil once the store is closed. The
// engine reads them when /metrics is scraped; it is not cheap enough for
// a hot path.
func (s *Store) Metrics() *pebble.Metrics {
	if s.closed.Load() {
		return nil
	}
	return s.db.Metrics()
}
