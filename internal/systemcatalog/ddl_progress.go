package systemcatalog

import (
	"fmt"
	"time"

	"github.com/streamdb/streamdb/internal/types"
)

// DDLProgress names streamdb_catalog.ddl_progress, the jobs creating
// views, which SHOW JOBS lists too: each job's phase and progress, its
// backfill's rate limit (NULL: none) and parallelism (actors per
// partitioned fragment), and its failures in a row, its last error
// (NULL: none) and whether they quarantined it.
const DDLProgress = "streamdb_catalog.ddl_progress"

var ddlProgress = newTable(nsStreamdb, "ddl_progress", 16000, "v", ddlProgressRows,
	`id bigint, statement text, phase text, progress text, rows_read bigint, rows_total bigint, rows_per_second bigint, log_lag bigint, elapsed text, paused boolean, backfill_rate_limit bigint, parallelism integer, failures bigint, last_error text, quarantined boolean`)

func ddlProgressRows(v *view) [][]types.Datum { return JobRows(v.e.Jobs()) }

// JobRows renders jobs as the rows of streamdb_catalog.ddl_progress and
// SHOW JOBS.
func JobRows(jobs []Job) [][]types.Datum {
	var rows [][]types.Datum
	for _, j := range jobs {
		rel := j.View
		var rate types.Datum // NULL: no limit
		if rel.BackfillRateLimit > 0 || rel.BackfillRateZero {
			rate = rel.BackfillRateLimit
		}
		var last types.Datum
		if j.LastError != "" {
			last = j.LastError
		}
		rows = append(rows, []types.Datum{int64(j.ID), j.Statement, j.Phase,
			fmt.Sprintf("%.2f%%", j.Progress), j.RowsRead, j.RowsTotal, int64(j.RowsPerSecond), j.LogLag,
			j.Elapsed.Round(time.Second).String(), rel.BackfillHeld(), rate, int64(max(rel.Parallelism, 1)),
			int64(j.Failures), last, j.Quarantined})
	}
	return rows
}
