package engine

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestBackfillRateDefaultAdaptive: a view's backfill is adaptive unless
// told otherwise (issue 16): SHOW backfill_rate_limit says so, a view or
// index created with no setting records an adaptive rate at
// backfill_latency_target, 'unlimited' (session or WITH) and a number
// do not, SET ... TO DEFAULT and RESET bring adaptive back, and ALTER
// ... SET BACKFILL_RATE_LIMIT = DEFAULT makes a held job adaptive.
func TestBackfillRateDefaultAdaptive(t *testing.T) {
	db, s := openCursorDB(t, 1000)
	ctx := context.Background()
	query := func(q string) string { t.Helper(); return queryText(t, s, q) }
	show := func() string { return query("SHOW backfill_rate_limit") }
	type want struct {
		adaptive bool
		limit    int64
		target   time.Duration
	}
	check := func(name string, w want) {
		t.Helper()
		rel, ok := db.Relation(name)
		if !ok {
			t.Fatalf("%s: no such relation", name)
		}
		got := want{rel.BackfillAdaptive, rel.BackfillRateLimit, time.Duration(rel.BackfillLatencyTarget) * time.Microsecond}
		if got != w {
			t.Fatalf("%s: adaptive, limit, target = %+v, want %+v", name, got, w)
		}
	}
	if got := show(); got != "[[adaptive]]" {
		t.Fatalf("SHOW backfill_rate_limit = %q, want adaptive", got)
	}
	for _, q := range []string{
		"CREATE MATERIALIZED VIEW v_default AS SELECT v, count(*) AS n FROM t GROUP BY v",
		"CREATE INDEX ix_default ON t (v)",
		"CREATE MATERIALIZED VIEW v_with_unlimited WITH (backfill_rate_limit = 'unlimited') AS SELECT id FROM t",
		"CREATE MATERIALIZED VIEW v_with_n WITH (backfill_rate_limit = 100000) AS SELECT id FROM t",
		"SET backfill_latency_target = '20ms'",
		"CREATE MATERIALIZED VIEW v_target AS SELECT id FROM t",
		"SET backfill_rate_limit = 'unlimited'",
		"CREATE MATERIALIZED VIEW v_session_unlimited AS SELECT id FROM t",
		"SET backfill_rate_limit TO DEFAULT",
		"CREATE MATERIALIZED VIEW v_back AS SELECT id FROM t",
		"SET backfill_rate_limit = 'unlimited'",
		"RESET backfill_rate_limit",
		"CREATE MATERIALIZED VIEW v_reset AS SELECT id FROM t",
		"CREATE MATERIALIZED VIEW v_with_default WITH (backfill_rate_limit = default) AS SELECT id FROM t",
	} {
		if _, err := s.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	check("v_default", want{true, 0, 5 * time.Millisecond})
	check("ix_default", want{true, 0, 5 * time.Millisecond})
	check("v_with_unlimited", want{false, 0, 0})
	check("v_with_n", want{false, 100000, 0})
	check("v_target", want{true, 0, 20 * time.Millisecond})
	check("v_session_unlimited", want{false, 0, 0})
	check("v_back", want{true, 0, 20 * time.Millisecond})
	check("v_reset", want{true, 0, 20 * time.Millisecond})
	check("v_with_default", want{true, 0, 20 * time.Millisecond})
	if got := show(); got != "[[adaptive]]" {
		t.Fatalf("SHOW backfill_rate_limit after RESET = %q, want adaptive", got)
	}
	if got := query("SELECT sum(n) FROM v_default"); got != "[[1000]]" {
		t.Fatalf("v_default counts %s rows, want 1000", got)
	}
	for _, v := range []string{"v_with_unlimited", "v_reset"} {
		if got := query("SELECT count(*) FROM " + v); got != "[[1000]]" {
			t.Fatalf("%s has %s rows, want 1000", v, got)
		}
	}

	// A held job set back to DEFAULT becomes adaptive (and stays held by
	// its PAUSE), and finishes once resumed.
	for _, q := range []string{
		"SET background_ddl = true",
		"CREATE MATERIALIZED VIEW v_held WITH (backfill_rate_limit = 0) AS SELECT id, v FROM t",
		"ALTER MATERIALIZED VIEW v_held PAUSE",
		"ALTER MATERIALIZED VIEW v_held SET BACKFILL_RATE_LIMIT = DEFAULT",
	} {
		if _, err := s.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	check("v_held", want{true, 0, 5 * time.Millisecond})
	if got := query("SELECT relation, kind, paused FROM streamdb_catalog.rate_limits"); got != "[[v_held backfill (adaptive) true] [v_with_n backfill false]]" {
		t.Fatalf("rate_limits = %s, want the held adaptive job and the fixed limit (finished adaptive views are not listed)", got)
	}
	for _, q := range []string{"ALTER MATERIALIZED VIEW v_held RESUME", "WAIT"} {
		if _, err := s.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if got := query("SELECT count(*) FROM v_held"); got != "[[1000]]" {
		t.Fatalf("v_held has %s rows, want 1000", got)
	}
}

// queryText runs q on s and returns its rows as fmt prints [][]any.
func queryText(t *testing.T, s *Session, q string) string {
	t.Helper()
	rows, err := s.Query(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	var out [][]any
	for rows.Next() {
		out = append(out, rows.Values())
	}
	return fmt.Sprint(out)
}
