package tests

import (
	"slices"
	"testing"

	"github.com/streamdb/streamdb"
)

// TestPlainViewsAcrossRestart: plain views, and a materialized view over
// one, survive a restart: the view still expands, the materialized view
// (rebuilt from its definition, which names the view) keeps following its
// table, and the dependencies still hold.
func TestPlainViewsAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	open := func() *streamdb.DB {
		t.Helper()
		db, err := streamdb.Open(dir, &streamdb.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open()
	mustExec(t, db, "CREATE TABLE t (id int PRIMARY KEY, g int, v int)")
	mustExec(t, db, "INSERT INTO t SELECT i, i % 5, i FROM generate_series(1, 100) i")
	mustExec(t, db, "CREATE VIEW v AS SELECT g, sum(v) AS s FROM t GROUP BY g")
	mustExec(t, db, "CREATE VIEW w (grp, total) AS SELECT g, s FROM v WHERE g > 0")
	mustExec(t, db, "CREATE MATERIALIZED VIEW m AS SELECT grp, total + 1 AS t1 FROM w")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = open()
	defer func() { db.Close() }()
	mustExec(t, db, "INSERT INTO t VALUES (1000, 1, 1)")
	got := queryRows(t, db, "SELECT * FROM m")
	want := queryRows(t, db, "SELECT grp, total + 1 FROM w")
	if !slices.Equal(got, want) || len(want) != 4 {
		t.Fatalf("after a restart, m holds %v, its query gives %v", got, want)
	}
	if want[0] != "1|972" {
		t.Fatalf("group 1: %q, want 1|972 (1+6+...+96 = 970, the new row, plus 1)", want[0])
	}
	if _, err := db.Exec(t.Context(), "DROP VIEW v"); err == nil {
		t.Fatal("DROP VIEW v succeeded after a restart although w depends on it")
	}
	if _, err := db.Exec(t.Context(), "DROP VIEW w"); err == nil {
		t.Fatal("DROP VIEW w succeeded after a restart although m depends on it")
	}
	mustExec(t, db, "DROP TABLE t CASCADE")
	if rows := queryRows(t, db, "SELECT relname FROM pg_class WHERE relname IN ('v', 'w', 'm')"); len(rows) != 0 {
		t.Fatalf("DROP TABLE ... CASCADE left %v", rows)
	}
}
