package tests

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// TestAdaptiveBackfillRate: backfill_rate_limit = 'adaptive' (session,
// WITH, ALTER) makes a backfill's rate follow the running graph's barrier
// latency: SHOW JOBS shows its current rate and latency target, the view
// ends equal to its query, and a fixed limit set later replaces it.
// Adaptive is refused for the other rate limits, and a bad latency target
// is 22023.
func TestAdaptiveBackfillRate(t *testing.T) {
	db := openMem(t)
	ctx := context.Background()
	rlFillTable(t, db, "src", 30_000)
	s := db.NewSession()
	for _, q := range []string{"SET background_ddl = true", "SET backfill_rate_limit = 'adaptive'",
		"SET backfill_latency_target = '20ms'"} {
		if _, err := s.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Exec(ctx, "CREATE MATERIALIZED VIEW ad AS SELECT v, count(*) AS n FROM src GROUP BY v"); err != nil {
		t.Fatal(err)
	}
	got := queryRows(t, db, "SELECT backfill_rate_limit, latency_target FROM streamdb_catalog.ddl_progress")
	if len(got) == 1 && got[0] == "NULL|NULL" {
		// Finished before the read: nothing to see, but the view must be right.
		t.Log("the adaptive backfill finished before SHOW JOBS")
	} else if len(got) != 1 || !strings.HasSuffix(got[0], "|20ms") || strings.HasPrefix(got[0], "NULL") {
		t.Fatalf("ddl_progress of an adaptive backfill: %q, want its rate and 20ms", got)
	}
	if got := rlRateLimits(t, db); fmt.Sprint(got) != "[ad|backfill (adaptive)|NULL|f]" {
		t.Fatalf("rate_limits = %q", got)
	}
	mustExec(t, db, "WAIT")
	if got := queryRows(t, db, "SELECT sum(n) FROM ad"); fmt.Sprint(got) != "[30000]" {
		t.Fatalf("adaptive view sums to %v", got)
	}

	// WITH, then ALTER to a fixed limit and back to adaptive.
	mustExec(t, db, "SET background_ddl = true")
	mustExec(t, db, "CREATE MATERIALIZED VIEW ad2 WITH (backfill_rate_limit = 'adaptive') AS SELECT id, v FROM src")
	mustExec(t, db, "ALTER MATERIALIZED VIEW ad2 SET BACKFILL_RATE_LIMIT = 500")
	if got := rlRateLimits(t, db); fmt.Sprint(got) != "[ad2|backfill|500|f ad|backfill (adaptive)|NULL|f]" {
		t.Fatalf("rate_limits after a fixed limit = %q", got)
	}
	mustExec(t, db, "ALTER MATERIALIZED VIEW ad2 SET BACKFILL_RATE_LIMIT = ADAPTIVE")
	if got := queryRows(t, db, "SELECT latency_target FROM streamdb_catalog.ddl_progress"); len(got) == 1 && got[0] != "5ms" {
		t.Fatalf("latency target after ALTER ... ADAPTIVE: %q, want the default 5ms", got)
	}
	mustExec(t, db, "WAIT")
	if got := queryRows(t, db, "SELECT count(*) FROM ad2"); fmt.Sprint(got) != "[30000]" {
		t.Fatalf("ad2 has %v rows", got)
	}

	for _, q := range []string{
		"SET dml_rate_limit = 'adaptive'",
		"ALTER TABLE src SET DML_RATE_LIMIT = ADAPTIVE",
		"SET backfill_latency_target = 'soon'",
		"SET backfill_rate_limit = 'adaptivex'",
	} {
		_, err := db.Exec(ctx, q)
		rlWantCode(t, err, pgerr.InvalidParameterValue, "")
	}
}
