package tests

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/streamdb/streamdb"
)

// TestDMLFormsErrors checks the SQLSTATE (and, where PostgreSQL gives
// one, the position) of the errors of ON CONFLICT, UPDATE ... FROM,
// DELETE ... USING and CREATE TABLE AS, as PostgreSQL 15 reports them.
func TestDMLFormsErrors(t *testing.T) {
	db := openMem(t)
	for _, s := range []string{
		"CREATE TABLE t (id int PRIMARY KEY, v text)",
		"CREATE TABLE u (id int, w text)",
		"CREATE TABLE ao (id int, v int) APPEND ONLY",
		"CREATE TABLE aok (id int PRIMARY KEY, v int) APPEND ONLY",
		"CREATE MATERIALIZED VIEW mv AS SELECT id, v FROM t",
		"INSERT INTO t VALUES (1, 'a')",
	} {
		mustExec(t, db, s)
	}
	for _, c := range []struct {
		sql, code string
		at        string // the text the error points at; "" for no position
	}{
		{"INSERT INTO t VALUES (1,'a'),(1,'b') ON CONFLICT (id) DO UPDATE SET v = excluded.v", "21000", ""},
		{"INSERT INTO t VALUES (2,'a'),(2,'b') ON CONFLICT (id) DO UPDATE SET v = excluded.v", "21000", ""},
		{"INSERT INTO t VALUES (1,'a') ON CONFLICT (v) DO NOTHING", "42P10", ""},
		{"INSERT INTO u VALUES (1,'a') ON CONFLICT (id) DO NOTHING", "42P10", ""},
		{"INSERT INTO t VALUES (1,'a') ON CONFLICT ON CONSTRAINT nope DO NOTHING", "42704", "nope"},
		{"INSERT INTO t VALUES (1,'a') ON CONFLICT DO UPDATE SET v = 'x'", "42601", "ON CONFLICT"},
		{"INSERT INTO t VALUES (1,'a') ON CONFLICT (nope) DO NOTHING", "42703", "(nope)"},
		{"INSERT INTO t VALUES (1,'a') ON CONFLICT (id) DO UPDATE SET v = excluded.nope", "42703", "excluded.nope"},
		{"INSERT INTO t VALUES (1,'a') ON CONFLICT (id) DO UPDATE SET v = t.v WHERE excluded.id", "42804", "excluded.id"},
		{"INSERT INTO t AS x VALUES (1,'a') ON CONFLICT (id) DO UPDATE SET v = t.v", "42P01", "t.v"},
		{"INSERT INTO t VALUES (1,'a') ON CONFLICT (id) DO UPDATE SET nope = 'x'", "42703", "nope"},
		{"INSERT INTO t VALUES (1,'a') ON CONFLICT (id) DO UPDATE SET v = 'x', v = 'y'", "42601", ""},
		{"INSERT INTO t VALUES (1,'a') ON CONFLICT (id) DO", "42601", ""},
		{"INSERT INTO t VALUES (1,'a') ON CONFLICT (id) DO UPDATE SET v = 'x' WHERE", "42601", ""},
		{"INSERT INTO mv VALUES (1,'a') ON CONFLICT DO NOTHING", "42809", "mv"},
		{"INSERT INTO aok VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET v = 2", "55000", "aok"},
		{"UPDATE t SET v = 'x' FROM t WHERE t.id = 1", "42712", ""},
		{"UPDATE t SET v = 'x' FROM u WHERE id = 1", "42702", "id = 1"},
		{"UPDATE t SET v = nope.w FROM u", "42P01", "nope.w"},
		{"UPDATE t SET v = u.nope FROM u", "42703", "u.nope"},
		{"UPDATE ao SET v = 1 FROM u WHERE ao.id = u.id", "55000", ""},
		{"UPDATE mv SET v = 'x' FROM u WHERE mv.id = u.id", "42809", "mv"},
		{"DELETE FROM t USING nope", "42P01", "nope"},
		{"DELETE FROM t USING u WHERE id = 1", "42702", "id = 1"},
		{"DELETE FROM ao USING u WHERE ao.id = u.id", "55000", ""},
		{"CREATE TABLE t AS SELECT 1", "42P07", ""},
		{"CREATE TABLE c (a, b) AS SELECT 1", "42601", ""},
		{"CREATE TABLE c AS SELECT 1 AS a, 2 AS a", "42701", ""},
		{"CREATE TABLE c AS SELECT * FROM nope", "42P01", "nope"},
		{"CREATE TABLE c AS SELECT 1 / 0 AS x", "22012", ""},
		{"SELECT 1 AS a INTO t", "42P07", ""},
		{"SELECT 1 AS a INTO UNLOGGED c", "0A000", "UNLOGGED"},
		{"WITH d AS (DELETE FROM t RETURNING *) INSERT INTO t SELECT * FROM d", "0A000", "DELETE"},
		// MySQL's forms are not PostgreSQL's.
		{"INSERT INTO t VALUES (1,'a') ON DUPLICATE KEY UPDATE v = 'x'", "42601", "KEY"},
		{"UPDATE t, u SET v = 'x'", "0A000", ""},
	} {
		_, err := db.Exec(context.Background(), c.sql)
		var se *streamdb.Error
		if !errors.As(err, &se) {
			t.Errorf("%s: got %v, want SQLSTATE %s", c.sql, err, c.code)
			continue
		}
		if se.Code != c.code {
			t.Errorf("%s: got %s %s, want %s", c.sql, se.Code, se.Message, c.code)
		}
		if c.at != "" {
			if want := strings.Index(c.sql, c.at) + 1; se.Position != want {
				t.Errorf("%s: %s at %d, want %d (%q)", c.sql, se.Message, se.Position, want, c.at)
			}
		}
	}
	// DO NOTHING only inserts: an append-only table takes it.
	mustExec(t, db, "INSERT INTO aok VALUES (1, 1), (1, 2), (2, 2) ON CONFLICT DO NOTHING")
	if got := strings.Join(queryRows(t, db, "SELECT * FROM aok"), ","); got != "1|1,2|2" {
		t.Errorf("aok = %s", got)
	}
	// The failed statements changed nothing, and the database works on.
	if got := queryRows(t, db, "SELECT * FROM t"); strings.Join(got, ",") != "1|a" {
		t.Errorf("t after the errors: %v", got)
	}
	if got := queryRows(t, db, "SELECT count(*) FROM information_schema.tables WHERE table_name = 'c'"); got[0] != "0" {
		t.Errorf("a failed CREATE TABLE AS left its table: %v", got)
	}
}

// TestDMLFormsExplain: EXPLAIN shows the join that UPDATE ... FROM and
// DELETE ... USING read, and ON CONFLICT's resolution and arbiter.
func TestDMLFormsExplain(t *testing.T) {
	db := openMem(t)
	mustExec(t, db, "CREATE TABLE t (id int PRIMARY KEY, v text)")
	mustExec(t, db, "CREATE TABLE u (id int, w text)")
	for q, want := range map[string][]string{
		"EXPLAIN UPDATE t SET v = u.w FROM u WHERE t.id = u.id":                        {"Update on t", "join", "Scan u"},
		"EXPLAIN DELETE FROM t USING u WHERE t.id = u.id":                              {"Delete on t", "join", "Scan u"},
		"EXPLAIN INSERT INTO t VALUES (1, 'a') ON CONFLICT DO NOTHING":                 {"Conflict Resolution: NOTHING", "Arbiter Indexes: t_pkey"},
		"EXPLAIN INSERT INTO t VALUES (1, 'a') ON CONFLICT (id) DO UPDATE SET v = 'b'": {"Conflict Resolution: UPDATE"},
	} {
		rows, err := db.Query(context.Background(), q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var plan []string
		for rows.Next() {
			plan = append(plan, *rows.Text()[0])
		}
		rows.Close()
		text := strings.Join(plan, "\n")
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: no %q in\n%s", q, w, text)
			}
		}
	}
}
