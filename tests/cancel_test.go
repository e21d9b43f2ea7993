package tests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/streamdb/streamdb"
)

// The cancel tests send a CancelRequest (pgx does when a statement's
// context is cancelled; psql on Ctrl-C) to a statement that would
// otherwise run for a long time, and check that it stops at once with
// 57014, leaves the connection usable, and leaves nothing behind.

// pgxCancelConn connects with pgx set to answer a cancelled context with a
// CancelRequest (and to give up on the connection only 10s later).
func pgxCancelConn(t *testing.T, port int) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(fmt.Sprintf("postgres://tester@127.0.0.1:%d/dev?sslmode=disable", port))
	if err != nil {
		t.Fatal(err)
	}
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: 10 * time.Second}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// cancelAfter runs sql on conn with a context cancelled after delay and
// checks that it fails with 57014 within a few seconds of the cancel.
func cancelAfter(t *testing.T, conn *pgx.Conn, delay time.Duration, sql string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	timer := time.AfterFunc(delay, cancel)
	defer timer.Stop()
	start := time.Now()
	_, err := conn.Exec(ctx, sql)
	elapsed := time.Since(start)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "57014" {
		t.Fatalf("%s: %v after %v, want 57014", sql, err, elapsed)
	}
	if elapsed > delay+5*time.Second {
		t.Fatalf("%s: took %v to stop after the cancel", sql, elapsed-delay)
	}
	var one int
	if err := conn.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("connection after the cancel: %d, %v", one, err)
	}
}

func TestCancelLongSelect(t *testing.T) {
	db := openMem(t)
	port := startServer(t, db)
	conn := pgxCancelConn(t, port)
	cancelAfter(t, conn, 300*time.Millisecond, "SELECT count(*) FROM generate_series(1, 1000000000)")
	mustExec(t, db, "CREATE TABLE big (id int PRIMARY KEY, v int)")
	mustExec(t, db, "INSERT INTO big SELECT g, g % 100 FROM generate_series(1, 20000) AS g")
	cancelAfter(t, conn, 300*time.Millisecond, "SELECT count(*) FROM big a, big b WHERE a.v + b.v > 1")
	cancelAfter(t, conn, 300*time.Millisecond, "SELECT a.v, count(*) FROM big a, big b GROUP BY a.v")
	// The extended protocol, with a parameter.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var n int64
	err := conn.QueryRow(ctx, "SELECT count(*) FROM big a, big b WHERE a.v < $1", 1000).Scan(&n)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "57014" {
		t.Fatalf("cancelled prepared query: %v, want 57014", err)
	}
}

// TestCancelCreateMaterializedView cancels a foreground CREATE
// MATERIALIZED VIEW whose backfill is slowed (and then paused) by a rate
// limit: the view must be gone, its job too, and its name free again.
func TestCancelCreateMaterializedView(t *testing.T) {
	db := openMem(t)
	port := startServer(t, db)
	conn := pgxCancelConn(t, port)
	mustExec(t, db, "CREATE TABLE big (id int PRIMARY KEY, v int)")
	mustExec(t, db, "INSERT INTO big SELECT g, g % 100 FROM generate_series(1, 50000) AS g")
	for _, limit := range []string{"1000", "0"} {
		if _, err := conn.Exec(context.Background(), "SET backfill_rate_limit = "+limit); err != nil {
			t.Fatal(err)
		}
		cancelAfter(t, conn, 700*time.Millisecond, "CREATE MATERIALIZED VIEW mv AS SELECT v, count(*) AS n FROM big GROUP BY v")
		checkViewGone(t, db, conn, "mv")
	}
	if _, err := conn.Exec(context.Background(), "SET backfill_rate_limit = DEFAULT"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(context.Background(), "CREATE MATERIALIZED VIEW mv AS SELECT v, count(*) AS n FROM big GROUP BY v"); err != nil {
		t.Fatalf("re-creating the cancelled view: %v", err)
	}
	if got := queryRows(t, db, "SELECT count(*), sum(n) FROM mv"); fmt.Sprint(got) != "[100|50000]" {
		t.Fatalf("re-created view: %v", got)
	}
}

// checkViewGone checks that a cancelled view left nothing behind.
func checkViewGone(t *testing.T, db *streamdb.DB, conn *pgx.Conn, name string) {
	t.Helper()
	ctx := context.Background()
	_, err := conn.Exec(ctx, "SELECT * FROM "+name)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "42P01" {
		t.Fatalf("SELECT from the cancelled view: %v, want 42P01", err)
	}
	if got := queryRows(t, db, "SHOW JOBS"); len(got) != 0 {
		t.Fatalf("jobs after the cancel: %v", got)
	}
	if got := queryRows(t, db, "SHOW MATERIALIZED VIEWS"); len(got) != 0 {
		t.Fatalf("views after the cancel: %v", got)
	}
}

// TestCancelPsql interrupts psql (SIGINT, as Ctrl-C does), which sends a
// CancelRequest, during a long SELECT and a long CREATE MATERIALIZED VIEW.
func TestCancelPsql(t *testing.T) {
	requirePsql(t)
	db := openMem(t)
	port := startServer(t, db)
	mustExec(t, db, "CREATE TABLE big (id int PRIMARY KEY, v int)")
	mustExec(t, db, "INSERT INTO big SELECT g, g % 100 FROM generate_series(1, 20000) AS g")
	for _, script := range []string{
		"SELECT count(*) FROM generate_series(1, 1000000000);",
		"SELECT pg_sleep(60);",
		"CREATE MATERIALIZED VIEW mv WITH (backfill_rate_limit = 1000) AS SELECT v, count(*) AS n FROM big GROUP BY v;",
	} {
		out := interruptPsql(t, port, script)
		if !strings.Contains(out, "Cancel request sent") || !strings.Contains(out, "ERROR:  canceling statement due to user request") {
			t.Fatalf("psql output after SIGINT:\n%s", out)
		}
	}
	if got := queryRows(t, db, "SHOW MATERIALIZED VIEWS"); len(got) != 0 {
		t.Fatalf("views after the cancel: %v", got)
	}
}

// interruptPsql runs script in psql, sends it SIGINT once the server runs
// its last statement, and returns what psql printed.
func interruptPsql(t *testing.T, port int, script string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, psqlPath, "-X", "-h", "127.0.0.1", "-p", fmt.Sprint(port), "-U", "tester", "-d", "dev", "-c", script)
	cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=5", "PAGER=cat", "PGPASSWORD=")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("psql took %v to end after SIGINT:\n%s", d, out.String())
	}
	return out.String()
}

// TestCancelPgSleep: pg_sleep waits on its statement, so a CancelRequest
// (simple and extended protocol), statement_timeout and a cancelled
// library context each end it with 57014, and a short one returns void.
func TestCancelPgSleep(t *testing.T) {
	db := openMem(t)
	port := startServer(t, db)
	conn := pgxCancelConn(t, port)
	cancelAfter(t, conn, 300*time.Millisecond, "SELECT pg_sleep(60)")
	cancelAfter(t, conn, 300*time.Millisecond, "SELECT pg_sleep_for('1 minute')")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var v string
	err := conn.QueryRow(ctx, "SELECT pg_sleep($1)::text", 60.0).Scan(&v)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "57014" {
		t.Fatalf("cancelled prepared pg_sleep: %v, want 57014", err)
	}
	bg := context.Background()
	if _, err := conn.Exec(bg, "SET statement_timeout = 200"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = conn.Exec(bg, "SELECT pg_sleep(60)")
	if !errors.As(err, &pgErr) || pgErr.Code != "57014" || pgErr.Message != "canceling statement due to statement timeout" {
		t.Fatalf("pg_sleep past statement_timeout: %v after %v", err, time.Since(start))
	}
	if err := conn.QueryRow(bg, "SELECT pg_sleep(0.01)::text").Scan(&v); err != nil || v != "" {
		t.Fatalf("pg_sleep(0.01) under the timeout: %q, %v", v, err)
	}
	lctx, lcancel := context.WithCancel(bg)
	timer := time.AfterFunc(200*time.Millisecond, lcancel)
	defer timer.Stop()
	rows, err := db.Query(lctx, "SELECT pg_sleep(60)")
	if err == nil { // the rows are pulled as they are read
		for rows.Next() {
		}
		err = rows.Err()
		rows.Close()
	}
	var se *streamdb.Error
	if !errors.As(err, &se) || se.Code != "57014" {
		t.Fatalf("library pg_sleep with a cancelled context: %v, want 57014", err)
	}
}
