package tests

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// queryFeatureViews are views over the PostgreSQL query features a view
// maintains: row comparisons, quantified subqueries, array_agg of
// arrays, unnest of several arrays, numeric generate_series and
// generate_subscripts, GROUPS frames and EXCLUDE.
//
// oracle, when set, is the same query written without the feature
// (EXISTS for a quantified subquery), which the view must equal too:
// the batch query may run the same plan as the view.
var queryFeatureViews = []struct{ name, query, oracle string }{
	{"qf_row_lt", "SELECT id, k, v FROM a WHERE (k, v) < (3, 50)", ""},
	{"qf_row_ge", "SELECT id FROM a WHERE (k, v, id) >= (2, 10, 0) AND (k, v) <> (4, 4)", ""},
	{"qf_row_in", "SELECT id FROM a WHERE (k, v) IN ((1, 1), (2, 20), (NULL, 3))", ""},
	{"qf_row_distinct", "SELECT id, (k, v) IS DISTINCT FROM (1, NULL) AS d FROM a", ""},
	{"qf_gt_all", "SELECT id, v > ALL (SELECT w FROM b) AS r FROM a",
		"SELECT id, CASE WHEN EXISTS (SELECT 1 FROM b WHERE a.v <= b.w) THEN false " +
			"WHEN EXISTS (SELECT 1 FROM b WHERE a.v IS NULL OR b.w IS NULL) THEN NULL ELSE true END FROM a"},
	{"qf_lt_any", "SELECT id, v < ANY (SELECT w FROM b WHERE k > 2) AS r FROM a",
		"SELECT id, CASE WHEN EXISTS (SELECT 1 FROM b WHERE k > 2 AND a.v < b.w) THEN true " +
			"WHEN EXISTS (SELECT 1 FROM b WHERE k > 2 AND (a.v IS NULL OR b.w IS NULL)) THEN NULL ELSE false END FROM a"},
	{"qf_ne_any", "SELECT id, k <> ANY (SELECT k FROM b) AS r FROM a", ""},
	{"qf_eq_all", "SELECT id, k = ALL (SELECT k FROM b WHERE w < 30) AS r FROM a", ""},
	{"qf_ge_some", "SELECT id FROM a WHERE v >= SOME (SELECT w FROM b)", ""},
	{"qf_le_all", "SELECT id FROM a WHERE NOT (k <= ALL (SELECT k FROM b))", ""},
	{"qf_corr_gt_all", "SELECT id, v > ALL (SELECT w FROM b WHERE b.k = a.k) AS r FROM a",
		"SELECT id, CASE WHEN EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND a.v <= b.w) THEN false " +
			"WHEN EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND (a.v IS NULL OR b.w IS NULL)) THEN NULL ELSE true END FROM a"},
	{"qf_corr_ne_any", "SELECT id FROM a WHERE v <> ANY (SELECT w FROM b WHERE b.k = a.k AND b.w > 0)", ""},
	{"qf_agg_arrays", "SELECT k, array_agg(ARRAY[id, v] ORDER BY id) AS pairs FROM a WHERE v IS NOT NULL GROUP BY k", ""},
	{"qf_unnest2", "SELECT id, x, y FROM a, unnest(ARRAY[k, v], ARRAY[id]) AS t(x, y)", ""},
	{"qf_series_numeric", "SELECT id, g FROM a, generate_series(0.5, k::numeric, 1.5) AS g", ""},
	{"qf_groups", "SELECT id, count(*) OVER (PARTITION BY k ORDER BY v GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS c, sum(v) OVER (PARTITION BY k ORDER BY v DESC GROUPS 2 PRECEDING) AS s FROM a", ""},
	{"qf_exclude", "SELECT id, sum(v) OVER (PARTITION BY k ORDER BY v GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE TIES) AS s, sum(v) OVER (PARTITION BY k ORDER BY v, id ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW) AS r, count(*) OVER (ORDER BY k RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW EXCLUDE CURRENT ROW) AS c FROM a", ""},
	{"qf_subscripts", "SELECT id, s FROM a, generate_subscripts(ARRAY[k, v, id], 1, v > 0) AS s", ""},
}

// TestQueryFeatureViews: each view equals its query after every random
// write, and after a restart and more writes.
func TestQueryFeatureViews(t *testing.T) {
	dir := t.TempDir()
	open := func() *streamdb.DB {
		t.Helper()
		db, err := streamdb.Open(dir, &streamdb.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	rng := rand.New(rand.NewSource(7))
	db := open()
	mustExec(t, db, "CREATE TABLE a (id int PRIMARY KEY, k int, v bigint)")
	mustExec(t, db, "CREATE TABLE b (id int PRIMARY KEY, k int, w int)")
	for i := 0; i < 20; i++ {
		applyRandomDML(t, db, rng)
	}
	for _, v := range queryFeatureViews {
		mustExec(t, db, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", v.name, v.query))
	}
	check := func(when string) {
		t.Helper()
		for _, v := range queryFeatureViews {
			got := queryRows(t, db, "SELECT * FROM "+v.name)
			slices.Sort(got)
			for _, q := range []string{v.query, v.oracle} {
				if q == "" {
					continue
				}
				want := queryRows(t, db, q)
				slices.Sort(want)
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("%s: view %s differs from %s\nview:  %v\nquery: %v", when, v.name, q, got, want)
				}
			}
		}
	}
	check("after creation")
	for step := 0; step < 80; step++ {
		stmt := applyRandomDML(t, db, rng)
		check(fmt.Sprintf("step %d: %s", step, stmt))
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = open()
	defer func() { db.Close() }()
	check("after restart")
	for step := 0; step < 30; step++ {
		stmt := applyRandomDML(t, db, rng)
		check(fmt.Sprintf("after restart, step %d: %s", step, stmt))
	}
}

// TestQueryFeatureViewRefusals: what a view cannot maintain is refused
// with 0A000 and a message naming it.
func TestQueryFeatureViewRefusals(t *testing.T) {
	db := openMem(t)
	mustExec(t, db, "CREATE TABLE a (id int PRIMARY KEY, k int, v bigint)")
	mustExec(t, db, "CREATE TABLE b (id int PRIMARY KEY, k int, w int)")
	for _, c := range []struct{ query, msg string }{
		{"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT * FROM r",
			"WITH RECURSIVE is not supported in a materialized view"},
		{"SELECT id FROM a WHERE v < ANY (SELECT max(w) FROM b WHERE b.k = a.k)",
			"a correlated < ANY subquery over an aggregate"},
		{"SELECT id FROM a WHERE (k, v) IN (SELECT k, w FROM b)",
			"a row compared with a subquery (= ANY)"},
	} {
		_, err := db.Exec(context.Background(), "CREATE MATERIALIZED VIEW refused AS "+c.query)
		if pgerr.Code(err) != pgerr.FeatureNotSupported || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: got %v, want 0A000 %q", c.query, err, c.msg)
		}
		// The query itself runs.
		queryRows(t, db, c.query)
	}
}

// TestBackendPIDAndRecursiveCancel: pg_backend_pid() is the process ID
// the server sent in BackendKeyData (what a CancelRequest names), two
// connections have different ones, and a WITH RECURSIVE query that
// never ends stops at a cancel.
func TestBackendPIDAndRecursiveCancel(t *testing.T) {
	db := openMem(t)
	port := startServer(t, db)
	c1, c2 := pgxCancelConn(t, port), pgxCancelConn(t, port)
	var pid1, pid2 uint32
	ctx := context.Background()
	if err := c1.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid1); err != nil {
		t.Fatal(err)
	}
	if err := c2.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid2); err != nil {
		t.Fatal(err)
	}
	if pid1 != c1.PgConn().PID() || pid2 != c2.PgConn().PID() || pid1 == pid2 {
		t.Errorf("pg_backend_pid() %d, %d; BackendKeyData %d, %d", pid1, pid2, c1.PgConn().PID(), c2.PgConn().PID())
	}
	cancelAfter(t, c1, 300*time.Millisecond, "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n FROM r) SELECT count(*) FROM r")
	// An in-process session has one too.
	if rows := queryRows(t, db, "SELECT pg_backend_pid() > 0"); len(rows) != 1 || rows[0] != "t" && rows[0] != "true" {
		t.Errorf("in-process pg_backend_pid() > 0: %v", rows)
	}
}

// TestQueryFeatureParams: the new syntax takes parameters through the
// extended protocol, their types inferred from where they stand.
func TestQueryFeatureParams(t *testing.T) {
	db := openMem(t)
	conn := pgxConnect(t, startServer(t, db), pgx.QueryExecModeCacheStatement)
	ctx := context.Background()
	for _, c := range []struct {
		query string
		args  []any
		want  string
	}{
		{"SELECT (1, 2) < ($1, $2)", []any{int32(1), int32(3)}, "true"},
		{"SELECT $1::int > ALL (SELECT g FROM generate_series(1, $2) g)", []any{int32(5), int32(4)}, "true"},
		{"SELECT make_interval(days => $1)::text", []any{int32(3)}, "3 days"},
		{"SELECT count(*) FROM (WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < $1) SELECT * FROM r) s", []any{int32(7)}, "7"},
		{"SELECT x FROM jsonb_to_record($1) AS t(x int)", []any{`{"x": 4}`}, "4"},
		{"SELECT sum(g) FROM generate_series(1.5, $1, 0.5) g", []any{"3"}, "9.0"},
	} {
		var got any
		if err := conn.QueryRow(ctx, c.query, c.args...).Scan(&got); err != nil {
			t.Errorf("%s: %v", c.query, err)
			continue
		}
		if s := fmt.Sprint(got); s != c.want {
			if n, ok := got.(pgtype.Numeric); ok {
				v, _ := n.Value()
				s = fmt.Sprint(v)
			}
			if s != c.want {
				t.Errorf("%s: got %v, want %s", c.query, s, c.want)
			}
		}
	}
}
