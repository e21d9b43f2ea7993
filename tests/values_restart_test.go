package tests

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/failpoint"
)

// valuesViews are views over constant rows (VALUES, a SELECT without
// FROM): alone, as a branch next to a table's, as a join's lookup table,
// under an aggregate, and a view of one. Created in this order.
var valuesViews = []struct{ name, query string }{
	{"vc", "SELECT * FROM (VALUES (1, 'a'), (2, 'b'), (2, 'b')) AS v(n, s)"},
	{"vx", "SELECT 42 AS answer, 'x' AS s"},
	{"vu", "SELECT id, k FROM t WHERE id <= 20 UNION ALL VALUES (-1, -1), (-1, -1)"},
	{"vj", "SELECT t.id, m.name FROM t JOIN (VALUES (1, 'one'), (2, 'two'), (2, 'deux')) AS m(k, name) ON t.k = m.k WHERE t.id < 50"},
	{"va", "SELECT count(*) AS n, sum(x) AS s FROM (VALUES (1), (2), (3)) AS v(x)"},
	{"vv", "SELECT n, count(*) AS c FROM vc GROUP BY n"},
}

// heldValuesViews are created in the background, their backfill held back
// (a rate limit, or 0: held), so a restart finds them creating: the
// constant rows of hu and hg are emitted (and committed) while their
// table scans still read the snapshot; hc and hca, of constant rows
// alone, have emitted nothing. The aggregates would count constant rows
// emitted twice (a view's Materialize only overwrites a row emitted
// twice with its key, except under -tags invariants, where it panics).
var heldValuesViews = []struct{ name, query, limit string }{
	{"hu", "SELECT id, k FROM t UNION ALL VALUES (-7, -7), (-7, -7), (-8, -8)", "500"},
	{"hg", "SELECT k, count(*) AS n FROM (SELECT k FROM t UNION ALL VALUES (1), (1), (-2)) AS u GROUP BY k", "500"},
	{"hc", "SELECT * FROM (VALUES (10), (20), (20)) AS v(x)", "0"},
	{"hca", "SELECT count(*) AS n, sum(x) AS s FROM (VALUES (10), (20), (20)) AS v(x)", "0"},
}

// TestValuesViewsAcrossRestart: views over constant rows hold their rows
// exactly once across a restart, with backfills of such views cut short
// by it (one past its constant rows, one before them), a rescale of the
// views and of the table under them, writes, and another restart.
func TestValuesViewsAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	open := func() *streamdb.DB {
		t.Helper()
		db, err := streamdb.Open(dir, &streamdb.Options{NoSync: true, Logger: quietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open()
	mustExec(t, db, "CREATE TABLE t (id int PRIMARY KEY, k int, v int)")
	mustExec(t, db, "INSERT INTO t SELECT g, g % 5, g FROM generate_series(1, 3000) AS g")
	for _, v := range valuesViews {
		mustExec(t, db, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", v.name, v.query))
	}
	defs := map[string]string{}
	for _, v := range valuesViews {
		defs[v.name] = v.query
	}
	checkValuesViews(t, db, defs, "after creation")

	s := db.NewSession()
	if _, err := s.Exec(ctx, "SET background_ddl = true"); err != nil {
		t.Fatal(err)
	}
	for _, v := range heldValuesViews {
		q := fmt.Sprintf("CREATE MATERIALIZED VIEW %s WITH (backfill_rate_limit = %s) AS %s", v.name, v.limit, v.query)
		if _, err := s.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
		defs[v.name] = v.query
	}
	// hu's job commits its constant rows at its first checkpoint, then
	// reads the snapshot at 500 rows/s.
	waitRowsRead(t, db, "hu", 200)
	waitRowsRead(t, db, "hg", 200)
	mustExec(t, db, "FLUSH")
	mustExec(t, db, "UPDATE t SET k = k + 1 WHERE id % 7 = 0")
	mustExec(t, db, "DELETE FROM t WHERE id % 11 = 0")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db = open()
	defer func() { db.Close() }()
	checkValuesViews(t, db, defs, "after a restart")
	for _, v := range heldValuesViews {
		mustExec(t, db, fmt.Sprintf("ALTER MATERIALIZED VIEW %s SET BACKFILL_RATE_LIMIT = DEFAULT", v.name))
	}
	mustExec(t, db, "INSERT INTO t VALUES (5000, 1, 1), (5001, 2, 2)")
	mustExec(t, db, "WAIT")
	checkValuesViews(t, db, defs, "after the resumed backfills")
	checkConstantCounts(t, db, "after the resumed backfills")

	mustExec(t, db, "ALTER MATERIALIZED VIEW vc SET PARALLELISM = 3")
	mustExec(t, db, "ALTER MATERIALIZED VIEW vu SET PARALLELISM = 1")
	mustExec(t, db, "ALTER MATERIALIZED VIEW hu SET PARALLELISM = 4")
	mustExec(t, db, "ALTER TABLE t SET PARALLELISM = 3")
	mustExec(t, db, "UPDATE t SET k = 2 WHERE id < 10")
	mustExec(t, db, "DELETE FROM t WHERE id BETWEEN 10 AND 15")
	checkValuesViews(t, db, defs, "after rescales and writes")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db = open()
	mustExec(t, db, "INSERT INTO t VALUES (6000, 2, 6000)")
	checkValuesViews(t, db, defs, "after another restart")
	checkConstantCounts(t, db, "after another restart")
}

// checkValuesViews compares every view of defs with its query.
func checkValuesViews(t *testing.T, db *streamdb.DB, defs map[string]string, when string) {
	t.Helper()
	mustExec(t, db, "FLUSH")
	n := checkViewsEqualQueries(t, db, defs)
	if t.Failed() {
		t.Fatalf("%s: a view differs from its query", when)
	}
	if n == 0 {
		t.Fatalf("%s: no view checked", when)
	}
}

// checkConstantCounts checks, by counting them, that each view's
// constant rows are there exactly once (equal rows count as many as the
// VALUES lists).
func checkConstantCounts(t *testing.T, db *streamdb.DB, when string) {
	t.Helper()
	for q, want := range map[string]string{
		"SELECT count(*) FROM vc":               "3",
		"SELECT count(*) FROM vx":               "1",
		"SELECT count(*) FROM vu WHERE id = -1": "2",
		"SELECT n FROM va":                      "3",
		"SELECT count(*) FROM hu WHERE id = -7": "2",
		"SELECT count(*) FROM hu WHERE id = -8": "1",
		"SELECT count(*) FROM hc":               "3",
		"SELECT n FROM hca":                     "3",
		"SELECT n FROM hg WHERE k = -2":         "1",
		"SELECT c FROM vv WHERE n = 2":          "2",
		"SELECT count(*) FROM vj WHERE id = 2":  "2", // k = 2: 'two' and 'deux'
	} {
		if got := strings.Join(queryRows(t, db, q), ","); got != want {
			t.Errorf("%s: %s = %s, want %s", when, q, got, want)
		}
	}
}

// waitRowsRead waits until the job of view has read at least n rows.
func waitRowsRead(t *testing.T, db *streamdb.DB, view string, n int64) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		rows := queryRows(t, db, fmt.Sprintf("SELECT rows_read FROM streamdb_catalog.ddl_progress WHERE statement LIKE '%% %s %%'", view))
		if len(rows) != 1 {
			t.Fatalf("job of %s: %d rows in ddl_progress", view, len(rows))
		}
		var read int64
		fmt.Sscan(rows[0], &read)
		if read >= n {
			return
		}
	}
	t.Fatalf("job of %s did not read %d rows", view, n)
}

// kgQuery counts constant rows next to a table's: each emitted twice would
// count twice.
const kgQuery = "SELECT k, count(*) AS n FROM (SELECT k FROM t UNION ALL VALUES (1), (1), (-2)) AS u GROUP BY k"

// TestValuesViewsKill9: the server is killed with SIGKILL while a view
// with constant rows backfills (its constant rows emitted and committed,
// its snapshot half read), and again right after a view over constant
// rows alone was created; after each restart every view holds its
// constant rows exactly once and equals its query.
func TestValuesViewsKill9(t *testing.T) {
	dir := t.TempDir()
	p := startProc(t, dir)
	c := p.connect(t)
	stmts := []string{
		"CREATE TABLE t (id int PRIMARY KEY, k int, v int)",
		"INSERT INTO t SELECT g, g % 5, g FROM generate_series(1, 6000) AS g",
	}
	for _, v := range valuesViews {
		stmts = append(stmts, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", v.name, v.query))
	}
	stmts = append(stmts, "SET background_ddl = true",
		"CREATE MATERIALIZED VIEW ku WITH (backfill_rate_limit = 2000) AS SELECT id, k FROM t UNION ALL VALUES (-7, -7), (-7, -7)",
		"CREATE MATERIALIZED VIEW kg WITH (backfill_rate_limit = 2000) AS "+kgQuery,
		"UPDATE t SET k = k + 1 WHERE id % 3 = 0")
	execAll(t, c, stmts...)
	defs := map[string]string{"ku": "SELECT id, k FROM t UNION ALL VALUES (-7, -7), (-7, -7)", "kg": kgQuery}
	for _, v := range valuesViews {
		defs[v.name] = v.query
	}
	_, before := waitJobPhase(t, c, "ku", func(ph string, read int64) bool { return ph == "snapshot" && read >= 1000 })
	execAll(t, c, "FLUSH")
	p.kill()

	p = startProc(t, dir)
	c = p.connect(t)
	_, after := waitJobPhase(t, c, "ku", func(ph string, _ int64) bool { return ph != "starting" })
	if after < before-500 {
		t.Fatalf("the backfill restarted from %d rows, had read %d before the kill", after, before)
	}
	checkPGViews(t, c, defs, "after a kill during a backfill")
	// A view of constant rows alone, killed as soon as it was created.
	execAll(t, c, "SET background_ddl = false", "CREATE MATERIALIZED VIEW kc AS VALUES (1, 'k'), (1, 'k')")
	defs["kc"] = "VALUES (1, 'k'), (1, 'k')"
	p.kill()

	p = startProc(t, dir)
	c = p.connect(t)
	execAll(t, c, "ALTER MATERIALIZED VIEW ku SET BACKFILL_RATE_LIMIT = DEFAULT", "ALTER MATERIALIZED VIEW kg SET BACKFILL_RATE_LIMIT = DEFAULT", "WAIT",
		"DELETE FROM t WHERE id % 10 = 0", "INSERT INTO t VALUES (7000, 2, 7000)")
	checkPGViews(t, c, defs, "after a kill after a CREATE")
	execAll(t, c, "ALTER MATERIALIZED VIEW kc SET PARALLELISM = 3", "FLUSH")
	p.kill()

	p = startProc(t, dir)
	c = p.connect(t)
	defer c.Close(context.Background())
	execAll(t, c, "UPDATE t SET k = 1 WHERE id < 100")
	checkPGViews(t, c, defs, "after a third kill")
	for q, want := range map[string]string{
		"SELECT count(*) FROM ku WHERE id = -7": "2",
		"SELECT n FROM kg WHERE k = -2":         "1",
		"SELECT count(*) FROM kc":               "2",
		"SELECT count(*) FROM vc":               "3",
		"SELECT count(*) FROM vu WHERE id = -1": "2",
	} {
		if got := strings.Join(pgLines(t, c, q), ","); got != want {
			t.Errorf("%s = %s, want %s", q, got, want)
		}
	}
}

// checkPGViews compares each view of defs with its query over c.
func checkPGViews(t *testing.T, c *pgx.Conn, defs map[string]string, when string) {
	t.Helper()
	execAll(t, c, "FLUSH")
	names := make([]string, 0, len(defs))
	for n := range defs {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if strings.Join(pgLines(t, c, "SELECT count(*) FROM streamdb_catalog.ddl_progress WHERE statement LIKE '% "+n+" %'"), "") != "0" {
			continue // still being created
		}
		got, want := pgLines(t, c, "SELECT * FROM "+n), pgLines(t, c, defs[n])
		if !slices.Equal(got, want) {
			t.Fatalf("%s: view %s differs from its query: %d rows vs %d\nview:  %.300v\nquery: %.300v", when, n, len(got), len(want), got, want)
		}
	}
}

// TestValuesViewsRecovery fails the graph (failpoints) at each step of a
// job over constant rows alone, and of one with a table too: while the
// rows are emitted, at the job's barriers and checkpoints, at the join,
// and once joined. Each recovery rebuilds the job from its committed
// progress; the rows end in the view once. Needs -tags invariants.
func TestValuesViewsRecovery(t *testing.T) {
	requireFailpoints(t)
	for _, name := range []string{failpoint.BackfillSnapshotRead, failpoint.ExecScanBarrier,
		failpoint.BackfillJobCommit, failpoint.BackfillJoin, failpoint.ExecMaterializeBarrier} {
		for _, after := range []int64{0, 1, 3} {
			t.Run(fmt.Sprintf("%s/after%d", strings.ReplaceAll(name, "/", "_"), after), func(t *testing.T) {
				defer failpoint.Reset()
				db := openFailpointDB(t)
				defer db.Close()
				mustExec(t, db, "CREATE TABLE t (id int PRIMARY KEY, k int, v int)")
				mustExec(t, db, "INSERT INTO t SELECT g, g % 5, g FROM generate_series(1, 300) AS g")
				if _, err := failpoint.Enable(name, failpoint.Spec{Action: failpoint.Error, After: after, Times: 2}); err != nil {
					t.Fatal(err)
				}
				defer hangWatch(t, 60*time.Second, name)()
				defs := map[string]string{
					"rc": "SELECT count(*) AS n, sum(x) AS s FROM (VALUES (1), (2), (2)) AS v(x)",
					"rv": "VALUES (1, 'a'), (1, 'a')",
					"rg": kgQuery,
				}
				for _, n := range []string{"rc", "rv", "rg"} {
					fpExec(t, db.NewSession(), fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", n, defs[n]))
				}
				mustExec(t, db, "UPDATE t SET k = k + 1 WHERE id % 4 = 0")
				failpoint.Disable(name)
				fpFlush(t, db)
				if n := checkViewsEqualQueries(t, db, defs); n != len(defs) {
					t.Fatalf("%d of %d views exist", n, len(defs))
				}
				for q, want := range map[string]string{
					"SELECT n FROM rc":              "3",
					"SELECT count(*) FROM rv":       "2",
					"SELECT n FROM rg WHERE k = -2": "1",
				} {
					if got := strings.Join(queryRows(t, db, q), ","); got != want {
						t.Errorf("%s = %s, want %s", q, got, want)
					}
				}
				_, fired := failpoint.Stats(name)
				t.Logf("%s fired %d times", name, fired)
			})
		}
	}
}
