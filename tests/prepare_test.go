package tests

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestPreparePgx: SQL-level PREPARE / EXECUTE / DEALLOCATE sent by a
// driver through the extended protocol (pgx describes EXECUTE to learn
// its columns, and binds $n of an EXECUTE's own arguments) and the
// simple one; the statements belong to their session.
func TestPreparePgx(t *testing.T) {
	db := openMem(t)
	mustExec(t, db, `CREATE TABLE pp (a int PRIMARY KEY, b text)`)
	mustExec(t, db, `INSERT INTO pp VALUES (1, 'one'), (2, 'two')`)
	port := startServer(t, db)
	ctx := context.Background()
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
		conn := pgxConnect(t, port, mode)
		if _, err := conn.Exec(ctx, `PREPARE byid (int) AS SELECT a, b FROM pp WHERE a = $1`); err != nil {
			t.Fatalf("%v: PREPARE: %v", mode, err)
		}
		var a int32
		var b string
		if err := conn.QueryRow(ctx, `EXECUTE byid(2)`).Scan(&a, &b); err != nil || a != 2 || b != "two" {
			t.Fatalf("%v: EXECUTE byid(2) = %d %q, %v", mode, a, b, err)
		}
		if err := conn.QueryRow(ctx, `EXECUTE byid($1)`, 1).Scan(&a, &b); err != nil || a != 1 || b != "one" {
			t.Fatalf("%v: EXECUTE byid($1) = %d %q, %v", mode, a, b, err)
		}
		_, err := conn.Exec(ctx, `EXECUTE byid(1, 2)`)
		if code, msg := pgErrCode(err); code != "42601" {
			t.Fatalf("%v: wrong argument count: %s %s", mode, code, msg)
		}
		_, err = conn.Exec(ctx, `PREPARE byid AS SELECT 1`)
		if code, msg := pgErrCode(err); code != "42P05" {
			t.Fatalf("%v: PREPARE twice: %s %s", mode, code, msg)
		}
		var n int64
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_prepared_statements WHERE name = 'byid' AND from_sql`).Scan(&n); err != nil || n != 1 {
			t.Fatalf("%v: pg_prepared_statements: %d, %v", mode, n, err)
		}
		if _, err := conn.Exec(ctx, `DEALLOCATE byid`); err != nil {
			t.Fatalf("%v: DEALLOCATE: %v", mode, err)
		}
		_, err = conn.Exec(ctx, `EXECUTE byid(1)`)
		if code, msg := pgErrCode(err); code != "26000" {
			t.Fatalf("%v: EXECUTE after DEALLOCATE: %s %s", mode, code, msg)
		}
	}
	// The protocol's named statements share the namespace and the
	// listing (from_sql false); DEALLOCATE ALL ends them too.
	conn := pgxConnect(t, port, pgx.QueryExecModeCacheStatement)
	var n int64
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_prepared_statements WHERE NOT from_sql AND statement LIKE 'SELECT count(*)%'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("protocol statements listed: %d, %v", n, err)
	}
	if err := conn.DeallocateAll(ctx); err != nil {
		t.Fatalf("DeallocateAll: %v", err)
	}
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_prepared_statements WHERE NOT from_sql AND statement LIKE 'SELECT count(*)%'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("protocol statements listed after DEALLOCATE ALL and a new Parse: %d, %v", n, err)
	}
	// Another session does not see this one's statements.
	a, b := pgxConnect(t, port, pgx.QueryExecModeSimpleProtocol), pgxConnect(t, port, pgx.QueryExecModeSimpleProtocol)
	if _, err := a.Exec(ctx, `PREPARE mine AS SELECT 1`); err != nil {
		t.Fatal(err)
	}
	_, err := b.Exec(ctx, `EXECUTE mine`)
	if code, msg := pgErrCode(err); code != "26000" {
		t.Fatalf("EXECUTE in another session: %s %s", code, msg)
	}
}
