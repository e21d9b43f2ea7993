package engine

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/streamdb/streamdb/planner"
)

// TestPruneBench times, with column pruning on and off, alternately, a
// batch GROUP BY and the backfill of a materialized view of it over an
// 8-column table (ints, text, numeric) of STREAMDB_PRUNE_BENCH_ROWS rows
// on disk; it is skipped unless that is set. Rounds:
// STREAMDB_PRUNE_BENCH_ROUNDS (3).
//
//	STREAMDB_PRUNE_BENCH_ROWS=2000000 go test ./internal/engine -run TestPruneBench -v -timeout 60m
func TestPruneBench(t *testing.T) {
	rows, _ := strconv.Atoi(os.Getenv("STREAMDB_PRUNE_BENCH_ROWS"))
	if rows <= 0 {
		t.Skip("STREAMDB_PRUNE_BENCH_ROWS not set")
	}
	rounds := 3
	if s := os.Getenv("STREAMDB_PRUNE_BENCH_ROUNDS"); s != "" {
		rounds, _ = strconv.Atoi(s)
	}
	defer planner.SetPruning(planner.SetPruning(true))
	db, err := Open(t.TempDir(), &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s := db.NewSession()
	mustExec(t, s, "CREATE TABLE t (id bigint PRIMARY KEY, k int, a bigint, b text, c numeric, d int, e text, f numeric)")
	start := time.Now()
	const batchRows = 100000
	for lo := 1; lo <= rows; lo += batchRows {
		hi := min(lo+batchRows-1, rows)
		mustExec(t, s, fmt.Sprintf("INSERT INTO t SELECT g, g %% 1000, g * 7, 'customer-name-' || g, (g %% 9973)::numeric / 4, g %% 13, "+
			"'a somewhat longer free text column, row ' || g, g::numeric * 1.5 FROM generate_series(%d, %d) AS g", lo, hi))
	}
	mustExec(t, s, "FLUSH")
	t.Logf("loaded %d rows in %v", rows, time.Since(start).Round(time.Millisecond))
	const query = "SELECT k, sum(a) FROM t GROUP BY k"
	timed := func(on bool, what string, f func()) {
		planner.SetPruning(on)
		start := time.Now()
		f()
		d := time.Since(start)
		t.Logf("%-6s pruning=%-5v %8.3fs  %6.2f Mrows/s", what, on, d.Seconds(), float64(rows)/d.Seconds()/1e6)
	}
	for r := 0; r < rounds; r++ {
		for _, on := range []bool{r%2 == 0, r%2 != 0} {
			timed(on, "batch", func() {
				if got := textRows(t, s, query); len(got) != 1000 {
					t.Fatalf("%d groups", len(got))
				}
			})
		}
	}
	for r := 0; r < rounds; r++ {
		for _, on := range []bool{r%2 == 0, r%2 != 0} {
			timed(on, "view", func() { mustExec(t, s, "CREATE MATERIALIZED VIEW mv AS "+query) })
			planner.SetPruning(true)
			if got := textRows(t, s, "SELECT * FROM mv"); len(got) != 1000 {
				t.Fatalf("%d groups", len(got))
			}
			mustExec(t, s, "DROP MATERIALIZED VIEW mv")
		}
	}
}
