package engine

import (
	"strconv"

	"github.com/cockroachdb/pebble/v2"
	"github.com/prometheus/client_golang/prometheus"
)

// collectPebble sends Pebble's metrics, read at scrape time.
func collectPebble(ch chan<- prometheus.Metric, m *pebble.Metrics) {
	counter := func(name, help string, v float64) {
		ch <- prometheus.MustNewConstMetric(prometheus.NewDesc(name, help, nil, nil), prometheus.CounterValue, v)
	}
	gauge := func(name, help string, v float64) {
		ch <- prometheus.MustNewConstMetric(prometheus.NewDesc(name, help, nil, nil), prometheus.GaugeValue, v)
	}
	counter("streamdb_pebble_compactions_total", "Pebble compactions.", float64(m.Compact.Count))
	gauge("streamdb_pebble_compaction_debt_bytes", "Pebble's estimated compaction debt.", float64(m.Compact.EstimatedDebt))
	gauge("streamdb_pebble_compactions_in_progress", "Pebble compactions running.", float64(m.Compact.NumInProgress))
	counter("streamdb_pebble_flushes_total", "Pebble memtable flushes.", float64(m.Flush.Count))
	gauge("streamdb_pebble_l0_files", "Files in Pebble's L0.", float64(m.Levels[0].TablesCount))
	gauge("streamdb_pebble_l0_sublevels", "Sublevels of Pebble's L0.", float64(m.Levels[0].Sublevels))
	gauge("streamdb_pebble_memtable_bytes", "Size of Pebble's memtables.", float64(m.MemTable.Size))
	gauge("streamdb_pebble_memtables", "Pebble memtables.", float64(m.MemTable.Count))
	counter("streamdb_pebble_block_cache_hits_total", "Pebble block cache hits.", float64(m.BlockCache.Hits))
	counter("streamdb_pebble_block_cache_misses_total", "Pebble block cache misses.", float64(m.BlockCache.Misses))
	gauge("streamdb_pebble_block_cache_bytes", "Size of Pebble's block cache in use.", float64(m.BlockCache.Size))
	counter("streamdb_pebble_wal_bytes_in_total", "Bytes written into Pebble's WAL (logical).", float64(m.WAL.BytesIn))
	counter("streamdb_pebble_wal_bytes_written_total", "Bytes Pebble wrote to its WAL files.", float64(m.WAL.BytesWritten))
	gauge("streamdb_pebble_disk_usage_bytes", "Disk space Pebble uses (tables, WAL, manifest).", float64(m.DiskSpaceUsage()))
	levelSize := prometheus.NewDesc("streamdb_pebble_level_bytes", "Size of the tables in each Pebble level.", []string{"level"}, nil)
	for i := range m.Levels {
		ch <- prometheus.MustNewConstMetric(levelSize, prometheus.GaugeValue, float64(m.Levels[i].TablesSize), strconv.Itoa(i))
	}
}
