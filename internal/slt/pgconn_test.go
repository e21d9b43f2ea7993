package slt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// pgURLEnv names a Postgres(-protocol) server for TestDialPG, e.g.
// postgres://postgres@127.0.0.1:5432/postgres. The test is skipped without it.
const pgURLEnv = "SLT_PG_URL"

func pgURL(t *testing.T) string {
	url := os.Getenv(pgURLEnv)
	if url == "" {
		t.Skipf("set %s to run against a server", pgURLEnv)
	}
	return url
}

func TestDialPG(t *testing.T) {
	url := pgURL(t)
	open := func(ctx context.Context) (Conn, error) { return DialPG(ctx, url) }
	dir := writeFiles(t, map[string]string{"pg.slt": `
statement ok
CREATE TEMP TABLE t (a INT PRIMARY KEY, b TEXT, c FLOAT8, d BOOL, e TIMESTAMP)

statement count 3
INSERT INTO t VALUES (1, 'x y', 1.5, true, '2024-01-02 03:04:05.5'), (2, '', NULL, false, NULL), (3, NULL, 0.1, NULL, NULL)

query ITRTT rowsort
SELECT * FROM t
----
1 x y 1.5 t 2024-01-02 03:04:05.5
2 (empty) NULL f NULL
3 NULL 0.1 NULL NULL

query I
SELECT 1; SELECT a FROM t WHERE a > 1 ORDER BY a
----
2
3

statement error relation "nope" does not exist
SELECT * FROM nope

query error
SELECT 1/0
----
division by zero


connection other
statement error does not exist
SELECT * FROM t

statement count 1
UPDATE t SET b = 'z' WHERE a = 1
`})
	s, err := Run(context.Background(), open, []string{filepath.Join(dir, "pg.slt")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	expectCounts(t, s, 8, 0, 0)
}

func TestDialPGErrors(t *testing.T) {
	url := pgURL(t)
	ctx := context.Background()
	c, err := DialPG(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = c.Exec(ctx, "SELECT * FROM nope")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "42P01" || err.Error() != `relation "nope" does not exist` {
		t.Fatalf("err = %v (%T)", err, err)
	}
	rows, err := c.Query(ctx, "CREATE TEMP TABLE u (a INT)")
	if err != nil || rows != nil {
		t.Fatalf("query without columns = %v, %v", rows, err)
	}
}

func TestDialPGUnreachable(t *testing.T) {
	_, err := DialPG(context.Background(), "postgres://nobody@127.0.0.1:1/db?connect_timeout=2")
	if err == nil {
		t.Fatal("connected to a closed port")
	}
}
