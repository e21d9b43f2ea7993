package tests

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb"
)

// TestTempTablesPerSession: a temporary table belongs to its session:
// it shadows a table of the same name there (pg_temp first in the search
// path), no other session sees it, the session's end drops it, and no
// view may read it (0A000).
func TestTempTablesPerSession(t *testing.T) {
	db := openMem(t)
	mustExec(t, db, `CREATE TABLE tt (a int PRIMARY KEY, b text)`)
	mustExec(t, db, `INSERT INTO tt VALUES (1, 'public')`)
	port := startServer(t, db)
	ctx := context.Background()
	a := pgxConnect(t, port, pgx.QueryExecModeSimpleProtocol)
	b := pgxConnect(t, port, pgx.QueryExecModeSimpleProtocol)
	execAll(t, a, `CREATE TEMP TABLE tt (a int PRIMARY KEY, b text)`, `INSERT INTO tt VALUES (2, 'temp')`,
		`CREATE TEMPORARY TABLE only_a (x int) ON COMMIT PRESERVE ROWS`, `INSERT INTO only_a VALUES (7)`)
	var s string
	if err := a.QueryRow(ctx, `SELECT b FROM tt`).Scan(&s); err != nil || s != "temp" {
		t.Fatalf("session a reads tt = %q, %v; want its temporary table", s, err)
	}
	if err := a.QueryRow(ctx, `SELECT b FROM public.tt`).Scan(&s); err != nil || s != "public" {
		t.Fatalf("session a reads public.tt = %q, %v", s, err)
	}
	if err := b.QueryRow(ctx, `SELECT b FROM tt`).Scan(&s); err != nil || s != "public" {
		t.Fatalf("session b reads tt = %q, %v; want the public table", s, err)
	}
	_, err := b.Exec(ctx, `SELECT * FROM only_a`)
	if code, msg := pgErrCode(err); code != "42P01" {
		t.Fatalf("session b reads a's temporary table: %s %s", code, msg)
	}
	_, err = a.Exec(ctx, `CREATE MATERIALIZED VIEW v AS SELECT count(*) FROM only_a`)
	if code, msg := pgErrCode(err); code != "0A000" {
		t.Fatalf("a view over a temporary table: %s %s", code, msg)
	}
	_, err = a.Exec(ctx, `CREATE TEMP TABLE oc (x int) ON COMMIT DROP`)
	if code, msg := pgErrCode(err); code != "0A000" {
		t.Fatalf("ON COMMIT DROP: %s %s", code, msg)
	}
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	// Closing a session drops its tables: their names are free for a
	// third session, which sees no rows of them.
	c := pgxConnect(t, port, pgx.QueryExecModeSimpleProtocol)
	if err := c.QueryRow(ctx, `SELECT count(*) FROM pg_class WHERE relname = 'only_a'`).Scan(new(int64)); err != nil {
		t.Fatal(err)
	}
	waitNoRelation(t, db, "only_a")
	execAll(t, c, `CREATE TEMP TABLE only_a (x int)`)
	var n int64
	if err := c.QueryRow(ctx, `SELECT count(*) FROM only_a`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("a new temporary table of an old one's name has %d rows, %v", n, err)
	}
}

// waitNoRelation waits until no relation of the data dir is named
// name in any schema (a closed connection's session ends a moment after
// the client's Close returns).
func waitNoRelation(t *testing.T, db *streamdb.DB, name string) {
	t.Helper()
	for i := 0; i < 200; i++ {
		rows := queryRows(t, db, `SELECT count(*) FROM pg_class WHERE relname = '`+name+`'`)
		if len(rows) == 1 && rows[0] == "0" {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("relation %s still exists after its session closed", name)
}

// TestTempTablesGoneAfterRestart: a temporary table left by a session
// that never closed (the process ended) is dropped at Open, rows and all.
func TestTempTablesGoneAfterRestart(t *testing.T) {
	dir := t.TempDir()
	db, err := streamdb.Open(dir, &streamdb.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	s := db.NewSession()
	ctx := context.Background()
	for _, q := range []string{`CREATE TEMP TABLE gone (x int)`, `INSERT INTO gone VALUES (1), (2)`, `CREATE TABLE kept (x int)`} {
		if _, err := s.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = streamdb.Open(dir, &streamdb.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := queryRows(t, db, `SELECT relname FROM pg_class WHERE relname IN ('gone', 'kept') ORDER BY 1`); len(got) != 1 || got[0] != "kept" {
		t.Fatalf("relations after a restart: %v, want only kept", got)
	}
	s = db.NewSession()
	if _, err := s.Exec(ctx, `CREATE TEMP TABLE gone (x int)`); err != nil {
		t.Fatal(err)
	}
	got, err := sortedTextRows(s, `SELECT count(*) FROM pg_temp.gone`)
	if err != nil || len(got) != 1 || got[0] != "0" {
		t.Fatalf("a temporary table of a dropped one's name: %v, %v", got, err)
	}
}
