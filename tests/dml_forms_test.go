//go:build linux

package tests

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb"
)

// dmlFormsSchema: t is upserted and updated through FROM, u (no primary
// key) and t deleted from through USING, k looked up by both.
var dmlFormsSchema = []string{
	"CREATE TABLE t (id int PRIMARY KEY, g int NOT NULL, v int, s text)",
	"CREATE TABLE u (id int, g int, w int)",
	"CREATE TABLE k (g int PRIMARY KEY, label text)",
	"INSERT INTO k VALUES (0, 'l0'), (1, 'l1'), (2, 'l2'), (3, 'l3')",
}

// dmlFormsViews are kept over the targets: aggregates and joins.
var dmlFormsViews = []struct{ name, sql string }{
	{"t_by_g", "SELECT g, count(*) AS n, sum(v) AS sv, max(s) AS ms FROM t GROUP BY g"},
	{"t_with_k", "SELECT t.id, t.v, k.label FROM t JOIN k ON t.g = k.g"},
	{"u_by_g", "SELECT g, count(*) AS n, sum(w) AS sw FROM u GROUP BY g"},
	{"u_left_t", "SELECT u.id, u.w, t.v FROM u LEFT JOIN t ON u.id = t.id"},
	{"total", "SELECT count(*) AS n, sum(v) AS sv FROM t"},
}

// dmlFormsOp returns a random upsert, UPDATE ... FROM or DELETE ...
// USING (or a plain write that feeds them), each with a result
// PostgreSQL defines exactly: UPDATE ... FROM only joins on unique keys.
func dmlFormsOp(r *rand.Rand) string {
	id := func() int { return r.Intn(40) }
	switch r.Intn(10) {
	case 0, 1:
		n := 1 + r.Intn(4)
		vals := ""
		for i := 0; i < n; i++ {
			if i > 0 {
				vals += ", "
			}
			// Keys may repeat within the statement: DO UPDATE then
			// fails with 21000 on both sides.
			vals += fmt.Sprintf("(%d, %d, %d, 's%d')", id(), r.Intn(4), r.Intn(100), r.Intn(10))
		}
		switch r.Intn(4) {
		case 0:
			return "INSERT INTO t VALUES " + vals + " ON CONFLICT DO NOTHING"
		case 3:
			// Moves the existing row to another key, which may be taken
			// (23505 on both sides).
			return "INSERT INTO t VALUES " + vals + " ON CONFLICT (id) DO UPDATE SET id = t.id + 40, v = excluded.v RETURNING id, v"
		case 1:
			return "INSERT INTO t VALUES " + vals + " ON CONFLICT (id) DO UPDATE SET v = t.v + excluded.v, s = excluded.s"
		}
		return fmt.Sprintf("INSERT INTO t AS x VALUES %s ON CONFLICT (id) DO UPDATE SET g = excluded.g, v = x.v - 1 WHERE x.v > %d RETURNING id, g, v", vals, r.Intn(100))
	case 2:
		return fmt.Sprintf("INSERT INTO t (id, g, v) SELECT id, max(g), sum(w) FROM u WHERE g = %d AND id IS NOT NULL AND g IS NOT NULL GROUP BY id ON CONFLICT (id) DO UPDATE SET v = excluded.v", r.Intn(4))
	case 3:
		return fmt.Sprintf("INSERT INTO u VALUES (%d, %d, %d), (%d, %d, %d)", id(), r.Intn(4), r.Intn(50), id(), r.Intn(4), r.Intn(50))
	case 4:
		return fmt.Sprintf("UPDATE t SET s = k.label, v = t.v + %d FROM k WHERE t.g = k.g AND k.g = %d", r.Intn(5), r.Intn(4))
	case 5:
		return fmt.Sprintf("UPDATE t SET v = o.v FROM t AS o WHERE t.id = o.id + 1 AND t.g = %d RETURNING t.id, t.v, o.id", r.Intn(4))
	case 6:
		return fmt.Sprintf("UPDATE t SET v = a.sw FROM (SELECT id, sum(w) AS sw FROM u GROUP BY id) AS a WHERE a.id = t.id AND a.sw > %d", r.Intn(50))
	case 7:
		return fmt.Sprintf("DELETE FROM u USING t WHERE u.id = t.id AND t.v > %d RETURNING u.id, t.v", r.Intn(120))
	case 8:
		return fmt.Sprintf("DELETE FROM t USING k WHERE t.g = k.g AND k.label = 'l%d' AND t.id %% 3 = %d", r.Intn(4), r.Intn(3))
	}
	return fmt.Sprintf("UPDATE k SET label = 'l%d' WHERE g = %d", r.Intn(4), r.Intn(4))
}

// TestDMLFormsDifferential runs random upserts, UPDATE ... FROM and
// DELETE ... USING on streamdb and on PostgreSQL (when installed): each
// statement's result (tag, RETURNING rows, SQLSTATE) and the tables
// must agree, and every view over the targets must equal its query,
// during the run and after the database is reopened.
func TestDMLFormsDifferential(t *testing.T) {
	ctx := context.Background()
	pg := eqkPostgres(t, ctx)
	dir := t.TempDir()
	db, err := streamdb.Open(dir, &streamdb.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { db.Close() }()
	for _, s := range dmlFormsSchema {
		mustExec(t, db, s)
		if pg != nil {
			if _, err := pg.Exec(ctx, s); err != nil {
				t.Fatalf("postgres: %s: %v", s, err)
			}
		}
	}
	for i, v := range dmlFormsViews {
		with := ""
		if i%2 == 1 {
			with = " WITH (streaming_parallelism = 3)"
		}
		mustExec(t, db, fmt.Sprintf("CREATE MATERIALIZED VIEW %s%s AS %s", v.name, with, v.sql))
	}
	// An index on the upserted table: the checks' lookups by g read it.
	mustExec(t, db, "CREATE INDEX t_g ON t (g)")
	r := rand.New(rand.NewSource(20))
	failures := 0
	codes := map[string]int{}
	for i := 0; i < 300; i++ {
		q := dmlFormsOp(r)
		sdb := runSDB(ctx, db, q)
		if sdb.failed() {
			failures++
			codes[sdb.code]++
		}
		if pg != nil {
			if d := diffResults(runPG(ctx, pg, q), sdb, false, false); d != "" {
				t.Fatalf("op %d: %s\n%s", i, q, d)
			}
		} else if sdb.failed() && sdb.code != "21000" && sdb.code != "23505" {
			t.Fatalf("op %d: %s: %s %s", i, q, sdb.code, sdb.msg)
		}
		if i%50 == 49 {
			dmlFormsCheck(t, ctx, db, pg, fmt.Sprintf("after op %d", i))
		}
	}
	t.Logf("failed statements by SQLSTATE: %v", codes)
	if codes["21000"] == 0 || failures > 100 {
		t.Errorf("%d of 300 statements failed (%v): the mix should fail some (21000) and not most", failures, codes)
	}
	dmlFormsCheck(t, ctx, db, pg, "at the end")
	// CREATE TABLE AS and SELECT INTO copy the targets; a view over a
	// copy works at once and after the reopen.
	for _, q := range []string{
		"CREATE TABLE t_copy AS SELECT * FROM t",
		"SELECT id, v, 'hi' AS tag INTO t_hi FROM t WHERE v > 50",
	} {
		if pg == nil {
			mustExec(t, db, q)
		} else if d := diffResults(runPG(ctx, pg, q), runSDB(ctx, db, q), false, false); d != "" {
			t.Fatalf("%s\n%s", q, d)
		}
	}
	mustExec(t, db, "CREATE MATERIALIZED VIEW copy_hi AS SELECT c.g, count(*) AS n, max(h.tag) AS tag FROM t_copy c JOIN t_hi h ON c.id = h.id GROUP BY c.g")
	copies := func(when string) {
		t.Helper()
		for _, q := range []string{"SELECT * FROM t_copy", "SELECT * FROM t_hi"} {
			got := queryRows(t, db, q)
			if pg != nil {
				if want := eqkPGRows(t, ctx, pg, q); !slices.Equal(got, want) {
					t.Errorf("%s %s:\n  postgres %v\n  streamdb %v", q, when, want, got)
				}
			}
		}
		view := queryRows(t, db, "SELECT * FROM copy_hi")
		query := queryRows(t, db, "SELECT c.g, count(*), max(h.tag) FROM t_copy c JOIN t_hi h ON c.id = h.id GROUP BY c.g")
		if !slices.Equal(view, query) || len(view) == 0 {
			t.Errorf("copy_hi %s: view %v, query %v", when, view, query)
		}
	}
	copies("at the end")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = streamdb.Open(dir, &streamdb.Options{NoSync: true}); err != nil {
		t.Fatal(err)
	}
	dmlFormsCheck(t, ctx, db, pg, "after reopening")
	copies("after reopening")
	// Writes after the reopen reach the views too.
	for i := 0; i < 40; i++ {
		q := dmlFormsOp(r)
		sdb := runSDB(ctx, db, q)
		if pg != nil {
			if d := diffResults(runPG(ctx, pg, q), sdb, false, false); d != "" {
				t.Fatalf("op %d after reopening: %s\n%s", i, q, d)
			}
		}
	}
	dmlFormsCheck(t, ctx, db, pg, "after writes after reopening")
}

// dmlFormsCheck compares each view with its query, and the tables and
// queries with PostgreSQL.
func dmlFormsCheck(t *testing.T, ctx context.Context, db *streamdb.DB, pg *pgx.Conn, when string) {
	t.Helper()
	for _, q := range []string{"SELECT * FROM t", "SELECT * FROM u", "SELECT * FROM k", "SELECT id, v FROM t WHERE g = 2"} {
		got := queryRows(t, db, q)
		if pg != nil {
			if want := eqkPGRows(t, ctx, pg, q); !slices.Equal(got, want) {
				t.Fatalf("%s %s:\n  postgres %v\n  streamdb %v", q, when, want, got)
			}
		}
	}
	nonEmpty := 0
	for _, v := range dmlFormsViews {
		batch := queryRows(t, db, v.sql)
		view := queryRows(t, db, "SELECT * FROM "+v.name)
		if !slices.Equal(view, batch) {
			t.Errorf("view %s %s differs from its query\n  view  %v\n  query %v", v.name, when, view, batch)
		}
		if pg != nil {
			if want := eqkPGRows(t, ctx, pg, v.sql); !slices.Equal(batch, want) {
				t.Errorf("query of %s %s:\n  postgres %v\n  streamdb %v", v.name, when, want, batch)
			}
		}
		if len(batch) > 1 {
			nonEmpty++
		}
	}
	if nonEmpty < 2 {
		t.Errorf("%s: most views are (nearly) empty: the test checks little", when)
	}
}
