package streamdb

import "net/http"

// MetricsHandler returns an http.Handler that serves the DB's metrics in
// the Prometheus text format: mount it at /metrics in an embedding
// program (streamdb serve --http does). Each DB has a registry of its
// own, so several DBs in one process each serve only theirs.
//
// The metrics are named streamdb_*: barriers and epochs
// (streamdb_barrier_latency_seconds, streamdb_epoch_commit_seconds,
// streamdb_epoch_current, streamdb_epoch_committed), fragments
// (streamdb_fragment_rows_out_total, streamdb_fragment_send_seconds_total,
// by relation, fragment and kind), backfills by job
// (streamdb_backfill_progress_ratio, streamdb_backfill_rows_read_total,
// streamdb_backfill_log_lag_rows, streamdb_backfill_paused, ...), writes
// by kind (streamdb_dml_rows_total, streamdb_dml_statements_total,
// streamdb_dml_statement_seconds), recoveries and view errors
// (streamdb_recoveries_total, streamdb_view_errors_total), connections
// (streamdb_connections, streamdb_connections_total), Pebble
// (streamdb_pebble_*), and the Go runtime's and the process's (go_*,
// process_*).
func (db *DB) MetricsHandler() http.Handler { return db.e.MetricsHandler() }
