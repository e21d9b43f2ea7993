package tests

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

const psqlPath = "/usr/bin/psql"

// runPsql feeds script to real psql connected to the server on port and
// returns everything it printed.
func runPsql(t *testing.T, port int, script string, extra ...string) string {
	t.Helper()
	args := append([]string{"-X", "-h", "127.0.0.1", "-p", fmt.Sprint(port), "-U", "tester", "-d", "dev", "-f", "-"}, extra...)
	cmd := exec.Command(psqlPath, args...)
	cmd.Stdin = strings.NewReader(script)
	cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=5", "PAGER=cat")
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		t.Logf("psql exited: %v", err)
	}
	return out.String()
}

func requirePsql(t *testing.T) {
	if _, err := os.Stat(psqlPath); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("psql is required in CI: %v", err)
		}
		t.Skipf("skipping: %s not installed", psqlPath)
	}
}

// TestPsql drives the real psql client through DDL, DML, views, errors
// and multi-statement queries, and compares its output with what
// PostgreSQL's psql prints for the same session.
func TestPsql(t *testing.T) {
	requirePsql(t)
	db := openMem(t)
	port := startServer(t, db)
	script := `CREATE TABLE t (id int PRIMARY KEY, name text, amount numeric(10,2));
INSERT INTO t VALUES (1, 'a', 1.50), (2, 'b', NULL), (3, NULL, 2.25);
CREATE MATERIALIZED VIEW mv AS SELECT count(*) AS n, sum(amount) AS total FROM t;
SELECT * FROM mv;
INSERT INTO t VALUES (1, 'dup', 0);
SELECT * FROM nope;
SELECT id, name FROM t ORDER BY id;
UPDATE t SET amount = amount * 2 WHERE id = 1;
DELETE FROM t WHERE id = 3;
SELECT * FROM mv;
SELECT 1 AS one; SELECT 'x' AS two;
SELEC 1;
DROP TABLE t;
SHOW TABLES;
`
	got := runPsql(t, port, script)
	want := `CREATE TABLE
INSERT 0 3
CREATE MATERIALIZED VIEW
 n | total 
---+-------
 3 |  3.75
(1 row)

psql:<stdin>:5: ERROR:  duplicate key value violates unique constraint "t_pkey"
DETAIL:  Key (id)=(1) already exists.
psql:<stdin>:6: ERROR:  relation "nope" does not exist
LINE 1: SELECT * FROM nope;
                      ^
 id | name 
----+------
  1 | a
  2 | b
  3 | 
(3 rows)

UPDATE 1
DELETE 1
 n | total 
---+-------
 2 |  3.00
(1 row)

 one 
-----
   1
(1 row)

 two 
-----
 x
(1 row)

psql:<stdin>:12: ERROR:  syntax error at or near "SELEC"
LINE 1: SELEC 1;
        ^
psql:<stdin>:13: ERROR:  cannot drop table t because other objects depend on it
DETAIL:  materialized view mv depends on table t
HINT:  Use DROP ... CASCADE to drop the dependent objects too.
 Name 
------
 t
(1 row)

`
	if got != want {
		t.Errorf("psql output differs\n--- got\n%s\n--- want\n%s", got, want)
	}
}

// TestPsqlCommandString checks that several statements in one -c string all
// run and, as psql 15 does with PostgreSQL, each shows its result.
func TestPsqlCommandString(t *testing.T) {
	requirePsql(t)
	db := openMem(t)
	port := startServer(t, db)
	cmd := exec.Command(psqlPath, "-X", "-h", "127.0.0.1", "-p", fmt.Sprint(port), "-d", "dev", "-At",
		"-c", "CREATE TABLE x (a int); INSERT INTO x VALUES (1), (2); SELECT sum(a) FROM x")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("psql: %v\n%s", err, out)
	}
	if want := "CREATE TABLE\nINSERT 0 2\n3\n"; string(out) != want {
		t.Errorf("got %q, want %q", out, want)
	}
}
