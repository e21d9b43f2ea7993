package tests

import (
	"context"
	"database/sql"
	"testing"

	"go.uber.org/goleak"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// TestGoAPI uses the embedding API: Open, Exec with arguments, Query,
// Close, and checks that Close leaves no goroutine behind.
func TestGoAPI(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx := context.Background()
	db, err := streamdb.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, "CREATE TABLE kv (k text PRIMARY KEY, v int)"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, "CREATE MATERIALIZED VIEW total AS SELECT count(*) AS n, sum(v) AS s FROM kv"); err != nil {
		t.Fatal(err)
	}
	r, err := db.Exec(ctx, "INSERT INTO kv VALUES ($1, $2), ($3, $4)", "a", 1, "b", 41)
	if err != nil {
		t.Fatal(err)
	}
	if r.RowsAffected != 2 {
		t.Errorf("RowsAffected = %d, want 2", r.RowsAffected)
	}
	rows, err := db.Query(ctx, "SELECT n, s FROM total")
	if err != nil {
		t.Fatal(err)
	}
	if !rows.Next() {
		t.Fatal("no row")
	}
	if got := rows.Values(); got[0] != int64(2) || got[1] != int64(42) {
		t.Errorf("total = %v, want [2 42]", got)
	}
	_, err = db.Exec(ctx, "INSERT INTO kv VALUES ('a', 2)")
	if pgerr.Code(err) != pgerr.UniqueViolation {
		t.Errorf("duplicate insert: got %v, want 23505", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestRestart closes and reopens a database: tables, views and their
// contents are there and views keep being maintained.
func TestRestart(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db, err := streamdb.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, "CREATE TABLE t (id int PRIMARY KEY, k int)")
	mustExec(t, db, "INSERT INTO t SELECT g, g % 3 FROM generate_series(1, 100) AS g")
	mustExec(t, db, "CREATE MATERIALIZED VIEW c AS SELECT k, count(*) AS n FROM t GROUP BY k")
	mustExec(t, db, "CREATE MATERIALIZED VIEW cc AS SELECT sum(n) AS total FROM c")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = streamdb.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := queryRows(t, db, "SELECT * FROM cc"); len(got) != 1 || got[0] != "100" {
		t.Fatalf("after restart cc = %v, want [100]", got)
	}
	mustExec(t, db, "INSERT INTO t VALUES (1000, 0)")
	if got := queryRows(t, db, "SELECT n FROM c WHERE k = 0"); len(got) != 1 || got[0] != "34" {
		t.Fatalf("after restart and insert, c(k=0) = %v, want [34]", got)
	}
	if got := queryRows(t, db, "SELECT * FROM cc"); got[0] != "101" {
		t.Fatalf("view over view after restart = %v, want [101]", got)
	}
	_ = ctx
}

// TestDatabaseSQL uses the database/sql driver.
func TestDatabaseSQL(t *testing.T) {
	db, err := sql.Open("streamdb", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE p (id int PRIMARY KEY, name text)"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("INSERT INTO p VALUES ($1, $2)", 7, "seven"); err != nil {
		t.Fatal(err)
	}
	var name string
	if err := db.QueryRow("SELECT name FROM p WHERE id = $1", 7).Scan(&name); err != nil {
		t.Fatal(err)
	}
	if name != "seven" {
		t.Errorf("name = %q", name)
	}
}
