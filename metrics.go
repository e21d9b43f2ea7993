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
// (streamdb_fragment_rows_in_total, streamdb_fragment_rows_out_total,
// streamdb_fragment_send_seconds_total, by relation, fragment and kind),
// backfills by job
// (streamdb_backfill_progress_ratio, streamdb_backfill_rows_read_total,
// streamdb_backfill_log_lag_rows, streamdb_backfill_paused, ...), writes
// by kind (streamdb_dml_rows_total, streamdb_dml_statements_total,
// streamdb_dml_statement_seconds; Append and AppendReader count as kind
// copy, the COPY they are), recoveries and view errors
// (streamdb_recoveries_total, streamdb_view_errors_total), connections
// (streamdb_connections, streamdb_connections_total), Pebble
// (streamdb_pebble_*), and the Go runtime's and the process's (go_*,
// process_*).
func (db *DB) MetricsHandler() http.Handler { return db.e.MetricsHandler() }

// DashboardHandler returns an http.Handler that serves the DB's web
// dashboard: a page at / (HTML, JavaScript, SVG and CSS embedded in the
// binary; it loads nothing from elsewhere) and the JSON it polls under
// /api/. It shows the jobs creating views (their SHOW JOBS rows, with
// progress, rate, ETA and log-store lag, and the ALTER statements that
// pause, resume or rate limit them, to copy: the page changes nothing),
// the fragment graph of a chosen view (fragments, exchanges, actors and
// their vnodes, rows per second), charts of the last ten minutes
// (barrier latency, throughput, epochs not yet committed), and the
// recent recoveries and view errors.
//
// Mount it at / or under a prefix with http.StripPrefix (the page uses
// relative URLs only); streamdb serve --http mounts it at /. The first
// call starts a sampler that keeps the charts' history, one sample a
// second; Close stops it. The handler has no access control of its
// own: wrap it in the embedding program's.
func (db *DB) DashboardHandler() http.Handler { return db.e.DashboardHandler() }
