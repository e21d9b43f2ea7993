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
	// The job may finish before SHOW JOBS reads it (no row then); while it
	// runs, its row shows its current rate and the target.
	got := queryRows(t, db, "SELECT backfill_rate_limit, latency_target FROM streamdb_catalog.ddl_progress")
	if len(got) == 1 && (!strings.HasSuffix(got[0], "|20ms") || strings.HasPrefix(got[0], "NULL")) || len(got) > 1 {
		t.Fatalf("ddl_progress of an adaptive backfill: %q, want its rate and 20ms", got)
	}
	// Listed while it backfills (adaptive is the default, so a finished
	// view's is not).
	if got := fmt.Sprint(rlRateLimits(t, db)); got != "[ad|backfill (adaptive)|NULL|f]" && got != "[]" {
		t.Fatalf("rate_limits = %q", got)
	}
	mustExec(t, db, "WAIT")
	if got := queryRows(t, db, "SELECT sum(n) FROM ad"); fmt.Sprint(got) != "[30000]" {
		t.Fatalf("adaptive view sums to %v", got)
	}

	// Held, paused, then ALTER to a fixed limit and to adaptive: the job
	// stays paused, so that it is still there to look at.
	if _, err := s.Exec(ctx, "CREATE MATERIALIZED VIEW ad2 WITH (backfill_rate_limit = 0) AS SELECT id, v FROM src"); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, "ALTER MATERIALIZED VIEW ad2 PAUSE")
	mustExec(t, db, "ALTER MATERIALIZED VIEW ad2 SET BACKFILL_RATE_LIMIT = 500")
	if got := rlRateLimits(t, db); fmt.Sprint(got) != "[ad2|backfill|500|t]" {
		t.Fatalf("rate_limits after a fixed limit = %q", got)
	}
	mustExec(t, db, "ALTER MATERIALIZED VIEW ad2 SET BACKFILL_RATE_LIMIT = ADAPTIVE")
	if got := queryRows(t, db, "SELECT backfill_rate_limit IS NOT NULL, latency_target FROM streamdb_catalog.ddl_progress"); fmt.Sprint(got) != "[t|5ms]" {
		t.Fatalf("ddl_progress after ALTER ... ADAPTIVE: %q, want a rate and the default 5ms", got)
	}
	if got := rlRateLimits(t, db); fmt.Sprint(got) != "[ad2|backfill (adaptive)|NULL|t]" {
		t.Fatalf("rate_limits after ALTER ... ADAPTIVE = %q", got)
	}
	mustExec(t, db, "ALTER MATERIALIZED VIEW ad2 RESUME")
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

// TestBackfillRateUnlimited: backfill_rate_limit = 'unlimited' (WITH,
// session, ALTER) is no limit whatever the session's setting, and not a
// pause (0 is one): where the session says 'adaptive', a view created
// WITH 'unlimited' has no limit and no adaptive rate (rate_limits lists
// only the adaptive one), and an adaptive backfill ALTERed to UNLIMITED
// shows no limit and no latency target in SHOW JOBS, still paused when
// PAUSEd. A DML limit takes 'unlimited' too.
func TestBackfillRateUnlimited(t *testing.T) {
	db := openMem(t)
	ctx := context.Background()
	rlFillTable(t, db, "src", 20_000)
	s := db.NewSession()
	for _, q := range []string{"SET background_ddl = true", "SET backfill_rate_limit = 'adaptive'",
		"CREATE MATERIALIZED VIEW ad AS SELECT v, count(*) AS n FROM src GROUP BY v",
		"CREATE MATERIALIZED VIEW un WITH (backfill_rate_limit = 'unlimited') AS SELECT v, count(*) AS n FROM src GROUP BY v",
		"SET backfill_rate_limit = 'Unlimited'",
		"CREATE MATERIALIZED VIEW un2 AS SELECT id, v FROM src",
	} {
		if _, err := s.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if got := fmt.Sprint(rlRateLimits(t, db)); got != "[ad|backfill (adaptive)|NULL|f]" && got != "[]" {
		t.Fatalf("rate_limits = %q, want the adaptive view's alone while it backfills", got)
	}
	mustExec(t, db, "WAIT")
	for v, want := range map[string]string{"ad": "[20000]", "un": "[20000]", "un2": "[20000]"} {
		q := "SELECT sum(n) FROM " + v
		if v == "un2" {
			q = "SELECT count(*) FROM un2"
		}
		if got := queryRows(t, db, q); fmt.Sprint(got) != want {
			t.Fatalf("%s: %v, want %s", q, got, want)
		}
	}

	// Held (0 pauses), PAUSEd, adaptive, then unlimited: still paused.
	if _, err := s.Exec(ctx, "CREATE MATERIALIZED VIEW held WITH (backfill_rate_limit = 0) AS SELECT id, v FROM src"); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, "ALTER MATERIALIZED VIEW held PAUSE")
	mustExec(t, db, "ALTER MATERIALIZED VIEW held SET BACKFILL_RATE_LIMIT = ADAPTIVE")
	if got := queryRows(t, db, "SELECT backfill_rate_limit IS NOT NULL, latency_target, paused FROM streamdb_catalog.ddl_progress"); fmt.Sprint(got) != "[t|5ms|t]" {
		t.Fatalf("SHOW JOBS of the adaptive job: %q", got)
	}
	mustExec(t, db, "ALTER MATERIALIZED VIEW held SET BACKFILL_RATE_LIMIT = UNLIMITED")
	if got := queryRows(t, db, "SELECT backfill_rate_limit, latency_target, paused FROM streamdb_catalog.ddl_progress"); fmt.Sprint(got) != "[NULL|NULL|t]" {
		t.Fatalf("SHOW JOBS after ALTER ... UNLIMITED: %q, want no limit, no target, paused", got)
	}
	if got := rlRateLimits(t, db); fmt.Sprint(got) != "[held|backfill|0|t]" {
		t.Fatalf("rate_limits after ALTER ... UNLIMITED = %q", got)
	}
	mustExec(t, db, "ALTER MATERIALIZED VIEW held RESUME")
	mustExec(t, db, "WAIT")
	if got := queryRows(t, db, "SELECT count(*) FROM held"); fmt.Sprint(got) != "[20000]" {
		t.Fatalf("held has %v rows", got)
	}
	if got := rlRateLimits(t, db); len(got) != 0 {
		t.Fatalf("rate_limits after RESUME = %q, want none", got)
	}

	mustExec(t, db, "ALTER TABLE src SET DML_RATE_LIMIT = 10")
	mustExec(t, db, "ALTER TABLE src SET DML_RATE_LIMIT = 'unlimited'")
	mustExec(t, db, "INSERT INTO src SELECT g, 1 FROM generate_series(20001, 20100) AS g")
	if got := rlRateLimits(t, db); len(got) != 0 {
		t.Fatalf("rate_limits after a DML limit set UNLIMITED = %q, want none", got)
	}
	_, err := db.Exec(ctx, "SET backfill_rate_limit = 'unlimitedx'")
	rlWantCode(t, err, pgerr.InvalidParameterValue, "")
}
