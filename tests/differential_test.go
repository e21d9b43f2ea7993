package tests

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// diffViews are the views the differential test maintains, by name, with
// their defining queries.
var diffViews = []struct{ name, query string }{
	{"v_agg", "SELECT k, count(*) AS n, sum(v) AS s, min(v) AS lo, max(v) AS hi, avg(v) AS mean, count(v) AS nv FROM a GROUP BY k"},
	{"v_global", "SELECT count(*) AS n, sum(v) AS s, min(v) AS lo, max(v) AS hi FROM a"},
	{"v_filter", "SELECT id, v * 2 AS v2, k FROM a WHERE v > 10"},
	{"v_distinct", "SELECT DISTINCT k FROM a"},
	{"v_join", "SELECT a.id, a.v, b.id AS bid, b.w FROM a JOIN b ON a.k = b.k"},
	{"v_left", "SELECT a.id, b.id AS bid, b.w FROM a LEFT JOIN b ON a.k = b.k"},
	{"v_right", "SELECT a.id, b.id AS bid FROM a RIGHT JOIN b ON a.k = b.k AND a.v < b.w"},
	{"v_full", "SELECT a.id, b.id AS bid FROM a FULL JOIN b ON a.k = b.k"},
	{"v_join_agg", "SELECT b.w, count(*) AS n, sum(a.v) AS s FROM a JOIN b ON a.k = b.k GROUP BY b.w"},
	{"v_over_view", "SELECT count(*) AS ngroups, sum(n) AS rows_total, max(hi) AS top FROM v_agg"},
	{"v_over_join", "SELECT bid, count(*) AS n FROM v_left GROUP BY bid"},
	// Constant rows: a lookup table, and a branch next to a table's.
	{"v_values_join", "SELECT a.id, a.v, m.label FROM a LEFT JOIN (VALUES (0, 'zero'), (1, 'one'), (1, 'uno'), (NULL, 'null')) AS m(k, label) ON a.k = m.k"},
	{"v_values_union", "SELECT k, v FROM a UNION ALL VALUES (-1, -1), (-1, -1), (2, 5) EXCEPT ALL SELECT k, w FROM b"},
}

// TestDifferential applies a random stream of INSERT, UPDATE and DELETE
// statements to two tables and checks after every step that each view
// equals its defining query run as a batch SELECT.
func TestDifferential(t *testing.T) {
	steps, seed := diffStepsSeed(150, 1)
	rng := rand.New(rand.NewSource(seed))
	db := openMem(t)
	mustExec(t, db, "CREATE TABLE a (id int PRIMARY KEY, k int, v bigint)")
	mustExec(t, db, "CREATE TABLE b (id int PRIMARY KEY, k int, w int)")
	// Some rows exist before the views, so they are backfilled.
	for i := 0; i < 20; i++ {
		applyRandomDML(t, db, rng)
	}
	for _, v := range diffViews {
		mustExec(t, db, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", v.name, v.query))
	}
	checkViews(t, db, "after creation")
	for step := 0; step < steps; step++ {
		stmt := applyRandomDML(t, db, rng)
		checkViews(t, db, fmt.Sprintf("step %d (seed %d): %s", step, seed, stmt))
		if t.Failed() {
			return
		}
	}
}

// diffStepsSeed is how many random statements a differential test runs
// and the seed of their choice: STREAMDB_DIFF_STEPS and
// STREAMDB_DIFF_SEED, else steps and seed.
func diffStepsSeed(steps int, seed int64) (int, int64) {
	if s := os.Getenv("STREAMDB_DIFF_STEPS"); s != "" {
		steps, _ = strconv.Atoi(s)
	}
	if s := os.Getenv("STREAMDB_DIFF_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	return steps, seed
}

// checkViews compares every view with its query.
func checkViews(t *testing.T, db *streamdb.DB, when string) {
	t.Helper()
	for _, v := range diffViews {
		got := queryRows(t, db, "SELECT * FROM "+v.name)
		want := queryRows(t, db, v.query)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: view %s differs from its query\nview:  %v\nquery: %v", when, v.name, got, want)
		}
	}
}

// applyRandomDML runs one random statement; duplicate keys are expected
// and ignored. It returns the statement.
func applyRandomDML(t *testing.T, db *streamdb.DB, rng *rand.Rand) string {
	t.Helper()
	stmt := randomDML(rng)
	if _, err := db.Exec(context.Background(), stmt); err != nil && pgerr.Code(err) != pgerr.UniqueViolation {
		t.Fatalf("%s: %v", stmt, err)
	}
	return stmt
}

// randomDML returns one random INSERT, UPDATE or DELETE of table a or b.
func randomDML(rng *rand.Rand) string {
	table := []string{"a", "b"}[rng.Intn(2)]
	col := map[string]string{"a": "v", "b": "w"}[table]
	var stmt string
	switch r := rng.Intn(10); {
	case r < 5:
		var vals []string
		for i := 0; i < 1+rng.Intn(4); i++ {
			vals = append(vals, fmt.Sprintf("(%d, %s, %s)", rng.Intn(60), nullOr(rng, rng.Intn(6)), nullOr(rng, rng.Intn(100)-50)))
		}
		stmt = fmt.Sprintf("INSERT INTO %s VALUES %s", table, strings.Join(vals, ", "))
	case r < 7:
		stmt = fmt.Sprintf("UPDATE %s SET %s = %s, k = %s WHERE id = %d", table, col, nullOr(rng, rng.Intn(100)-50), nullOr(rng, rng.Intn(6)), rng.Intn(60))
	case r < 8:
		stmt = fmt.Sprintf("UPDATE %s SET %s = %s + 1 WHERE k = %d", table, col, col, rng.Intn(6))
	case r < 9:
		stmt = fmt.Sprintf("DELETE FROM %s WHERE id = %d", table, rng.Intn(60))
	default:
		stmt = fmt.Sprintf("DELETE FROM %s WHERE k = %d", table, rng.Intn(6))
	}
	return stmt
}

func nullOr(rng *rand.Rand, v int) string {
	if rng.Intn(8) == 0 {
		return "NULL"
	}
	return strconv.Itoa(v)
}
