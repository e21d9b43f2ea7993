package tests

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/failpoint"
)

// CREATE TABLE AS is atomic: its table appears with every row of its
// query or not at all, to other sessions and across a kill -9.

// ctasCount returns the rows of table c after a restart, or -1 when c
// does not exist (42P01).
func ctasCount(t *testing.T, p *serverProc) int64 {
	t.Helper()
	c := p.connect(t)
	defer c.Close(context.Background())
	var n int64
	err := c.QueryRow(context.Background(), "SELECT count(*) FROM c").Scan(&n)
	if code, msg := pgErrCode(err); err != nil && code == "42P01" {
		return -1
	} else if err != nil {
		t.Fatalf("SELECT count(*) FROM c: %s %s", code, msg)
	}
	return n
}

// TestKill9DuringCreateTableAs: the server dies (ddl/create-table-as-
// filled=exit) after the rows of CREATE TABLE AS committed and before the
// table was published. After the restart the table is gone, its name
// free, and a new CREATE TABLE AS of it complete. Needs -tags invariants.
func TestKill9DuringCreateTableAs(t *testing.T) {
	if !failpoint.Enabled {
		t.Skip("failpoints need -tags invariants")
	}
	dir := t.TempDir()
	p := startProcOpts(t, dir, []string{"STREAMDB_FAILPOINTS=ddl/create-table-as-filled=exit"}, os.Stderr)
	c := p.connect(t)
	execAll(t, c, "CREATE TABLE src (id int PRIMARY KEY, v int)",
		"INSERT INTO src SELECT g, g % 10 FROM generate_series(1, 3000) AS g")
	if _, err := c.Exec(context.Background(), "CREATE TABLE c AS SELECT id, v * 2 AS w FROM src"); err == nil {
		t.Fatal("CREATE TABLE AS succeeded: the failpoint did not stop the server")
	}
	if err := p.cmd.Wait(); err == nil {
		t.Fatal("the server exited cleanly")
	}

	p = startProc(t, dir)
	if n := ctasCount(t, p); n != -1 {
		t.Fatalf("table c after a crash before it was published: %d rows, want none", n)
	}
	c = p.connect(t)
	defer c.Close(context.Background())
	execAll(t, c, "CREATE TABLE c AS SELECT id, v * 2 AS w FROM src",
		"CREATE MATERIALIZED VIEW cv AS SELECT w, count(*) AS n FROM c GROUP BY w")
	var n, groups int64
	if err := c.QueryRow(context.Background(), "SELECT sum(n), count(*) FROM cv").Scan(&n, &groups); err != nil || n != 3000 || groups != 10 {
		t.Fatalf("view over the new table: %d rows in %d groups, %v", n, groups, err)
	}
}

// TestKill9DuringCreateTableAsAnyTime kills the server with SIGKILL at an
// arbitrary moment of a large CREATE TABLE AS: after the restart the
// table has all its rows or does not exist.
func TestKill9DuringCreateTableAsAnyTime(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	dir := t.TempDir()
	p := startProc(t, dir)
	c := p.connect(t)
	const rows = 200000
	execAll(t, c, "CREATE TABLE src (id int PRIMARY KEY, v int)",
		"INSERT INTO src SELECT g, g % 10 FROM generate_series(1, 200000) AS g")
	done := make(chan error, 1)
	go func() {
		_, err := c.Exec(context.Background(), "CREATE TABLE c AS SELECT id, v FROM src")
		done <- err
	}()
	time.Sleep(150 * time.Millisecond)
	p.kill()
	err := <-done
	c.Close(context.Background())

	p = startProc(t, dir)
	n := ctasCount(t, p)
	switch {
	case err == nil && n != rows:
		t.Fatalf("CREATE TABLE AS returned, then the table had %d rows after the kill, want %d", n, rows)
	case n != -1 && n != rows:
		t.Fatalf("table c after a kill during CREATE TABLE AS: %d rows, want %d or no table", n, rows)
	}
	t.Logf("after the kill: %d rows (-1: no table), statement error %v", n, err)
}
