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
// (NULL: none) and whether they quarantined it; and its own barriers: the
// running graph's epoch whose upstream state it has caught up with
// (epoch), how many epochs of the running graph it lags (lag_epochs), the
// last of its own barriers committed (job_epoch), and when it joined the
// running graph (joined_at, NULL before). An adaptive backfill shows its
// current rate as its backfill_rate_limit, and its latency_target (NULL
// for any other): the one set, or the one it works to when writes waited
// longer than that before the job started (CreatingJob.Target).
const DDLProgress = "streamdb_catalog.ddl_progress"

var ddlProgress = newTable(nsStreamdb, "ddl_progress", 16000, "v", ddlProgressRows,
	`id bigint, statement text, phase text, progress text, rows_read bigint, rows_total bigint, rows_per_second bigint, log_lag bigint, elapsed text, paused boolean, backfill_rate_limit bigint, parallelism integer, failures bigint, last_error text, quarantined boolean, epoch bigint, lag_epochs bigint, job_epoch bigint, joined_at timestamptz, latency_target text`)

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
		var target types.Datum
		if rel.BackfillAdaptive {
			rate, target = j.AdaptiveRate, rel.AdaptiveTarget().String()
			if set := rel.AdaptiveTarget(); j.AdaptiveTarget > set {
				// 1.5x: exec/stream's baselineFactor.
				target = fmt.Sprintf("%s (set %s, raised to 1.5x the p99 of writes before the job)", j.AdaptiveTarget.Round(10*time.Microsecond), set)
			}
		}
		var last types.Datum
		if j.LastError != "" {
			last = j.LastError
		}
		var epoch, lag, joined types.Datum // NULL before the job started, or joined
		if j.Epoch > 0 {
			epoch, lag = int64(j.Epoch), int64(j.CommittedEpoch-min(j.Epoch, j.CommittedEpoch))
		}
		if !j.Joined.IsZero() {
			joined = types.Timestamp(j.Joined.UnixMicro())
		}
		rows = append(rows, []types.Datum{int64(j.ID), j.Statement, j.Phase,
			fmt.Sprintf("%.2f%%", j.Progress), j.RowsRead, j.RowsTotal, int64(j.RowsPerSecond), j.LogLag,
			j.Elapsed.Round(time.Second).String(), rel.BackfillHeld(), rate, int64(max(rel.Parallelism, 1)),
			int64(j.Failures), last, j.Quarantined, epoch, lag, int64(j.OwnEpoch), joined, target})
	}
	return rows
}
