package tests

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"go.uber.org/goleak"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// The catalog statements (SHOW CREATE, DESCRIBE, SHOW INDEXES, COMMENT
// ON, TRUNCATE) beyond what tests/slt/catalog_statements.slt shows: their
// SQLSTATEs, comments across a restart, SHOW CREATE's statements run
// again, TRUNCATE over views of every kind, and psql's \d+ and \dt+.

// TestCatalogStatementErrors checks the SQLSTATE of each refusal.
func TestCatalogStatementErrors(t *testing.T) {
	db := openMem(t)
	mustExec(t, db, "CREATE TABLE t (a int PRIMARY KEY, b text)")
	mustExec(t, db, "CREATE TABLE ao (a int) APPEND ONLY")
	mustExec(t, db, "CREATE MATERIALIZED VIEW v AS SELECT a FROM t")
	mustExec(t, db, "CREATE SOURCE s (x int) WITH (connector = 'datagen', datagen.rows.per.second = '1')")
	for _, tc := range []struct{ sql, code string }{
		{"SHOW CREATE TABLE nope", pgerr.UndefinedTable},
		{"SHOW CREATE MATERIALIZED VIEW t", pgerr.WrongObjectType},
		{"SHOW CREATE SINK v", pgerr.WrongObjectType},
		{"DESCRIBE nope", pgerr.UndefinedTable},
		{"SHOW COLUMNS FROM nope", pgerr.UndefinedTable},
		{"SHOW INDEXES FROM nope", pgerr.UndefinedTable},
		{"COMMENT ON TABLE nope IS 'x'", pgerr.UndefinedTable},
		{"COMMENT ON TABLE v IS 'x'", pgerr.WrongObjectType},
		{"COMMENT ON COLUMN t.nope IS 'x'", pgerr.UndefinedColumn},
		{"COMMENT ON COLUMN t IS 'x'", pgerr.SyntaxError},
		{"COMMENT ON TABLE t IS 42", pgerr.SyntaxError},
		{"TRUNCATE nope", pgerr.UndefinedTable},
		{"TRUNCATE v", pgerr.WrongObjectType},
		{"TRUNCATE s", pgerr.WrongObjectType},
		{"TRUNCATE ao", pgerr.ObjectNotInPrereqState},
		{"SHOW CREATE TABLE", pgerr.SyntaxError},
	} {
		_, err := db.Exec(context.Background(), tc.sql)
		var pe *pgerr.Error
		if !errors.As(err, &pe) || pe.Code != tc.code {
			t.Errorf("%s: got %v, want SQLSTATE %s", tc.sql, err, tc.code)
		}
	}
	// A refused TRUNCATE of several tables empties none of them.
	mustExec(t, db, "INSERT INTO t VALUES (1, 'x')")
	if _, err := db.Exec(context.Background(), "TRUNCATE t, v"); err == nil {
		t.Fatal("TRUNCATE t, v: no error")
	}
	if got := queryRows(t, db, "SELECT count(*) FROM t"); !slices.Equal(got, []string{"1"}) {
		t.Errorf("t after a refused TRUNCATE: %v", got)
	}
}

// TestCommentAcrossRestart: comments are stored with their relation and
// read back after a restart; one removed stays removed.
func TestCommentAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	open := func() *streamdb.DB {
		t.Helper()
		db, err := streamdb.Open(dir, &streamdb.Options{NoSync: true, Logger: quietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open()
	mustExec(t, db, "CREATE TABLE t (a int PRIMARY KEY, b text)")
	mustExec(t, db, "CREATE MATERIALIZED VIEW v AS SELECT a, b FROM t")
	mustExec(t, db, "COMMENT ON TABLE t IS 'table t'")
	mustExec(t, db, "COMMENT ON COLUMN t.b IS 'column b'")
	mustExec(t, db, "COMMENT ON MATERIALIZED VIEW v IS 'view v'")
	mustExec(t, db, "COMMENT ON COLUMN v.a IS 'gone soon'")
	mustExec(t, db, "COMMENT ON COLUMN v.a IS NULL")
	const q = "SELECT obj_description('t'::regclass, 'pg_class'), col_description('t'::regclass, 2), obj_description('v'::regclass), coalesce(col_description('v'::regclass, 1), '-')"
	want := []string{"table t|column b|view v|-"}
	if got := queryRows(t, db, q); !slices.Equal(got, want) {
		t.Fatalf("before restart: %v", got)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = open()
	defer db.Close()
	if got := queryRows(t, db, q); !slices.Equal(got, want) {
		t.Errorf("after restart: %v, want %v", got, want)
	}
	// The view still runs, and a comment does not disturb its rows.
	mustExec(t, db, "INSERT INTO t VALUES (1, 'x')")
	if got := queryRows(t, db, "SELECT a, b FROM v"); !slices.Equal(got, []string{"1|x"}) {
		t.Errorf("v after restart: %v", got)
	}
}

// TestShowCreateRecreates runs the statements SHOW CREATE gives in a new
// database and checks that SHOW CREATE there gives them back.
func TestShowCreateRecreates(t *testing.T) {
	db := openMem(t)
	objects := []struct{ kind, name, create string }{
		{"TABLE", "t", "CREATE TABLE t (a int PRIMARY KEY, b varchar(10) NOT NULL DEFAULT 'it''s', c numeric(10,2), d timestamptz)"},
		{"TABLE", "k", `CREATE TABLE k ("Odd Name" int, y float8, PRIMARY KEY ("Odd Name", y))`},
		{"TABLE", "n", "CREATE TABLE n (x int, ts timestamp, WATERMARK FOR ts AS ts - interval '1 minute') APPEND ONLY"},
		{"SOURCE", "s", "CREATE SOURCE s (x int) WITH (connector = 'datagen', datagen.rows.per.second = '5', fields.x.kind = 'sequence')"},
		{"MATERIALIZED VIEW", "v", "CREATE MATERIALIZED VIEW v AS SELECT b, count(*) AS n FROM t GROUP BY b"},
		{"VIEW", "pv", "CREATE VIEW pv AS SELECT a FROM t WHERE a > 1"},
		{"INDEX", "ti", "CREATE INDEX ti ON t (c DESC, b) INCLUDE (d)"},
	}
	other := openMem(t)
	for _, o := range objects {
		mustExec(t, db, o.create)
		show := fmt.Sprintf("SHOW CREATE %s %s", o.kind, o.name)
		got := queryRows(t, db, show)
		if len(got) != 1 {
			t.Fatalf("%s: %v", show, got)
		}
		stmt := got[0][len("public."+o.name+"|"):]
		mustExec(t, other, stmt)
		if again := queryRows(t, other, show); !slices.Equal(again, got) {
			t.Errorf("%s after running %q: %v, want %v", show, stmt, again, got)
		}
	}
}

// TestTruncateViews empties tables under views of several kinds (an
// aggregate, a join, a filter, an index, a view of a view) and checks
// that each view equals its query afterwards, and again after new rows.
func TestTruncateViews(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	db, err := streamdb.Open(":memory:", &streamdb.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(t, db, "CREATE TABLE a (id int PRIMARY KEY, k int, v int)")
	mustExec(t, db, "CREATE TABLE b (k int PRIMARY KEY, name text)")
	mustExec(t, db, "INSERT INTO a SELECT g, g % 10, g FROM generate_series(1, 20000) g")
	mustExec(t, db, "INSERT INTO b SELECT g, 'n' || g FROM generate_series(0, 9) g")
	views := map[string]string{
		"agg": "SELECT k, count(*) AS n, sum(v) AS s FROM a GROUP BY k",
		"jn":  "SELECT a.id, b.name FROM a JOIN b ON a.k = b.k WHERE a.id % 100 = 0",
		"flt": "SELECT id, v FROM a WHERE v > 19990",
		"top": "SELECT count(*) AS n FROM agg",
		"bj":  "SELECT b.k, count(a.id) AS n FROM b LEFT JOIN a ON a.k = b.k GROUP BY b.k",
	}
	for _, name := range []string{"agg", "jn", "flt", "top", "bj"} {
		mustExec(t, db, "CREATE MATERIALIZED VIEW "+name+" AS "+views[name])
	}
	mustExec(t, db, "CREATE INDEX ak ON a (k)")
	check := func(when string) {
		t.Helper()
		for name, q := range views {
			if got, want := queryRows(t, db, "SELECT * FROM "+name), queryRows(t, db, q); !slices.Equal(got, want) {
				t.Errorf("%s: view %s = %d rows %v, its query %d rows", when, name, len(got), got[:min(len(got), 5)], len(want))
			}
		}
		if got, want := queryRows(t, db, "SELECT id FROM a WHERE k = 3"), queryRows(t, db, "SELECT id FROM a WHERE k + 0 = 3"); !slices.Equal(got, want) {
			t.Errorf("%s: index read %d rows, scan %d", when, len(got), len(want))
		}
	}
	check("before")
	mustExec(t, db, "TRUNCATE a")
	if got := queryRows(t, db, "SELECT count(*) FROM a"); !slices.Equal(got, []string{"0"}) {
		t.Fatalf("a after TRUNCATE: %v", got)
	}
	check("after TRUNCATE a")
	mustExec(t, db, "INSERT INTO a SELECT g, g % 7, g FROM generate_series(1, 500) g")
	check("after new rows")
	mustExec(t, db, "TRUNCATE TABLE a, b")
	check("after TRUNCATE a, b")
	mustExec(t, db, "INSERT INTO b VALUES (1, 'one')")
	mustExec(t, db, "INSERT INTO a VALUES (100, 1, 1)")
	check("after refill")
}

// TestPsqlComments: psql's \d+ and \dt+ show the comments in their
// Description columns, as they do for PostgreSQL.
func TestPsqlComments(t *testing.T) {
	requirePsql(t)
	db := openMem(t)
	port := startServer(t, db)
	mustExec(t, db, "CREATE TABLE t (id int PRIMARY KEY, name text)")
	mustExec(t, db, "COMMENT ON TABLE t IS 'the t table'")
	mustExec(t, db, "COMMENT ON COLUMN t.name IS 'who'")
	checkPsqlMeta(t, port, []psqlMetaCase{
		{cmds: []string{`\d+ t`}, want: `                                            Table "public.t"
 Column |  Type   | Collation | Nullable | Default | Storage  | Compression | Stats target | Description 
--------+---------+-----------+----------+---------+----------+-------------+--------------+-------------
 id     | integer |           | not null |         | plain    |             |              | 
 name   | text    |           |          |         | extended |             |              | who
Indexes:
    "t_pkey" PRIMARY KEY, btree (id)
Access method: heap

`},
		{cmds: []string{`\dt+`}, want: `                                 List of relations
 Schema | Name | Type  | Owner  | Persistence | Access method | Size | Description 
--------+------+-------+--------+-------------+---------------+------+-------------
 public | t    | table | tester | permanent   | heap          |      | the t table
(1 row)

`},
	})
}
