package tests

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/streamdb/streamdb"
)

// TestSetOpViewsAcrossRestart: views of every set operation stay equal
// to their query across writes, a backfill cut short by a restart (it
// resumes), a rescale and another restart.
func TestSetOpViewsAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	open := func() *streamdb.DB {
		t.Helper()
		db, err := streamdb.Open(dir, &streamdb.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open()
	mustExec(t, db, "CREATE TABLE l (id int PRIMARY KEY, k int, s text)")
	mustExec(t, db, "CREATE TABLE r (k int, s text)")
	mustExec(t, db, "INSERT INTO l SELECT g, g % 7, 'x' || (g % 3) FROM generate_series(1, 3000) g")
	mustExec(t, db, "INSERT INTO r SELECT g % 5, 'x' || (g % 2) FROM generate_series(1, 2000) g")
	views := map[string]string{
		"so_all":       "SELECT k, s FROM l UNION ALL SELECT k, s FROM r",
		"so_union":     "SELECT k, s FROM l UNION SELECT k, s FROM r",
		"so_inter":     "SELECT k, s FROM l INTERSECT SELECT k, s FROM r",
		"so_inter_all": "SELECT k, s FROM l INTERSECT ALL SELECT k, s FROM r",
		"so_except":    "SELECT k, s FROM l EXCEPT SELECT k, s FROM r",
		"so_exc_all":   "SELECT k, s FROM l EXCEPT ALL SELECT k, s FROM r",
	}
	names := make([]string, 0, len(views))
	for n := range views {
		names = append(names, n)
	}
	slices.Sort(names)
	s := db.NewSession()
	for _, q := range []string{"SET background_ddl = true", "SET backfill_rate_limit = 2000"} {
		if _, err := s.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range names {
		if _, err := s.Exec(ctx, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", n, views[n])); err != nil {
			t.Fatal(err)
		}
	}
	// Writes land in the log stores while the backfills are held back.
	mustExec(t, db, "DELETE FROM l WHERE id % 10 = 0")
	mustExec(t, db, "UPDATE r SET s = 'x2' WHERE k = 3")
	mustExec(t, db, "INSERT INTO r VALUES (6, 'x0'), (6, 'x0'), (NULL, NULL)")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db = open()
	defer func() { db.Close() }()
	for _, n := range names {
		mustExec(t, db, fmt.Sprintf("ALTER MATERIALIZED VIEW %s SET BACKFILL_RATE_LIMIT = DEFAULT", n))
	}
	mustExec(t, db, "INSERT INTO l VALUES (5000, NULL, NULL), (5001, 6, 'x0')")
	mustExec(t, db, "WAIT")
	check := func(when string) {
		t.Helper()
		for _, n := range names {
			got := queryRows(t, db, "SELECT k, s FROM "+n)
			want := queryRows(t, db, views[n])
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("%s %s: %d rows, its query %d", n, when, len(got), len(want))
			}
			if len(want) == 0 {
				t.Fatalf("%s %s: its query is empty: the test checks nothing", n, when)
			}
		}
	}
	check("after the resumed backfills")
	mustExec(t, db, "ALTER MATERIALIZED VIEW so_inter_all SET PARALLELISM = 3")
	mustExec(t, db, "ALTER MATERIALIZED VIEW so_all SET PARALLELISM = 1")
	mustExec(t, db, "DELETE FROM r WHERE k = 1")
	mustExec(t, db, "UPDATE l SET k = k + 1 WHERE id % 3 = 0")
	check("after a rescale and writes")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = open()
	mustExec(t, db, "INSERT INTO r SELECT g % 7, 'x1' FROM generate_series(1, 500) g")
	check("after a restart")
}
