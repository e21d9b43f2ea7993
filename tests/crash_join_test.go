package tests

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/failpoint"
)

// TestCrashAroundJoin kills the server (a failpoint's exit) at a creating
// job's own checkpoint and just after the barrier that joins it to the
// live graph, while writes land in its log store; after each restart the
// job resumes (or, joined but not yet marked created, catches up again)
// and the view equals its query, then keeps up with more writes.
func TestCrashAroundJoin(t *testing.T) {
	if !failpoint.Enabled {
		t.Skip("failpoints need -tags invariants")
	}
	for _, point := range []string{"backfill/job-commit=exit,after=3", "backfill/join=exit"} {
		t.Run(point, func(t *testing.T) {
			dir := t.TempDir()
			p := startProcOpts(t, dir, []string{"STREAMDB_FAILPOINTS=" + point}, io.Discard)
			c := p.connect(t)
			execAll(t, c,
				"CREATE TABLE t (id int PRIMARY KEY, k int, v int)",
				"INSERT INTO t SELECT g, g % 13, g FROM generate_series(1, 20000) AS g",
				"SET background_ddl = true",
				"SET backfill_rate_limit = 8000", // ~2.5 s: several job checkpoints (one a second under a limit)
				"CREATE MATERIALIZED VIEW agg AS SELECT k, count(*) AS n, sum(v) AS s FROM t GROUP BY k")
			// Writes go on until the failpoint stops the server.
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			for i := 1; ctx.Err() == nil; i++ {
				if _, err := c.Exec(ctx, "INSERT INTO t VALUES ($1, $2, 1)", 100_000+i, i%7); err != nil {
					break // the server exited
				}
				if i%50 == 0 {
					if _, err := c.Exec(ctx, "DELETE FROM t WHERE id = $1", i); err != nil {
						break
					}
				}
			}
			if ctx.Err() != nil {
				t.Fatalf("%s: the server did not exit within 20s", point)
			}
			if err := p.cmd.Wait(); err == nil {
				t.Fatal("the server exited cleanly")
			}

			p = startProc(t, dir)
			c = p.connect(t)
			defer c.Close(context.Background())
			execAll(t, c, "ALTER MATERIALIZED VIEW agg SET BACKFILL_RATE_LIMIT = DEFAULT", "WAIT")
			checkAggView(t, c)
			execAll(t, c, "DELETE FROM t WHERE id % 3 = 0", "INSERT INTO t VALUES (-1, 1, 1)")
			checkAggView(t, c)
		})
	}
}
