package tests

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/streamdb/streamdb"
)

// alterViews are the materialized views TestAlterTableUnderViews keeps,
// each with its query as it must be written after the renames so far.
type alterViews map[string]string

// check compares every view with its query run as a batch SELECT.
func (vs alterViews) check(t *testing.T, db *streamdb.DB, step string) {
	t.Helper()
	for name, q := range vs {
		got, want := queryRows(t, db, "SELECT * FROM "+name), queryRows(t, db, q)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: view %s has %d rows %v\nits query %d rows %v", step, name, len(got), got, len(want), want)
		}
		if len(want) == 0 {
			t.Fatalf("%s: view %s is empty: the check proves nothing", step, name)
		}
	}
}

// alterWrites makes n random changes to orders (named table, amount
// column amt) over customers 1..5: inserts of new ids, updates and
// deletes of existing ones; withDisc also sets the disc column.
func alterWrites(t *testing.T, db *streamdb.DB, rng *rand.Rand, next *int, table, amt string, withDisc bool, n int) {
	t.Helper()
	for range n {
		switch k := rng.Intn(10); {
		case k < 6 || *next < 5:
			*next++
			if withDisc {
				mustExec(t, db, fmt.Sprintf("INSERT INTO %s (id, cust, %s, disc) VALUES (%d, %d, %d, %d)", table, amt, *next, 1+rng.Intn(5), rng.Intn(100), rng.Intn(4)))
			} else {
				mustExec(t, db, fmt.Sprintf("INSERT INTO %s (id, cust, %s) VALUES (%d, %d, %d)", table, amt, *next, 1+rng.Intn(5), rng.Intn(100)))
			}
		case k < 9:
			set := fmt.Sprintf("%s = %s + %d, cust = %d", amt, amt, rng.Intn(10), 1+rng.Intn(5))
			if withDisc {
				set += fmt.Sprintf(", disc = %d", rng.Intn(4))
			}
			mustExec(t, db, fmt.Sprintf("UPDATE %s SET %s WHERE id = %d", table, set, 1+rng.Intn(*next)))
		default:
			mustExec(t, db, fmt.Sprintf("DELETE FROM %s WHERE id = %d", table, 1+rng.Intn(*next)))
		}
	}
}

// TestAlterTableUnderViews alters a table that two materialized views (a
// GROUP BY and a join) read while it takes writes: ADD COLUMN with a
// default, writes that use the new column, DROP COLUMN of a column no
// view reads, RENAME COLUMN and RENAME TO. At every step, and after the
// database is reopened, each view equals its query run as a batch
// SELECT; a view created after the ADD over the new column does too.
// With parallelism 4 the table's changes reach each view through a hash
// exchange (4 scan actors), with 1 straight.
func TestAlterTableUnderViews(t *testing.T) {
	for _, par := range []int{1, 4} {
		t.Run(fmt.Sprintf("parallelism=%d", par), func(t *testing.T) { testAlterTableUnderViews(t, par) })
	}
}

func testAlterTableUnderViews(t *testing.T, par int) {
	dir := t.TempDir()
	opts := &streamdb.Options{NoSync: true, Parallelism: par}
	db, err := streamdb.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { db.Close() }()
	rng := rand.New(rand.NewSource(19))
	next := 0
	mustExec(t, db, "CREATE TABLE orders (id int PRIMARY KEY, cust int, amt int, note text)")
	mustExec(t, db, "CREATE TABLE custs (id int PRIMARY KEY, name text)")
	mustExec(t, db, "INSERT INTO custs VALUES (1, 'ann'), (2, 'bob'), (3, 'cy'), (4, 'dee'), (5, 'eve')")
	alterWrites(t, db, rng, &next, "orders", "amt", false, 40)
	// A row the writes never touch (they pick ids up to next).
	mustExec(t, db, "INSERT INTO orders VALUES (100000, 1, 7, 'kept')")
	mustExec(t, db, "CREATE MATERIALIZED VIEW per_cust AS SELECT cust, count(*) AS n, sum(amt) AS total FROM orders GROUP BY cust")
	mustExec(t, db, "CREATE MATERIALIZED VIEW named AS SELECT o.id, c.name, o.amt FROM orders o JOIN custs c ON o.cust = c.id")
	views := alterViews{
		"per_cust": "SELECT cust, count(*), sum(amt) FROM orders GROUP BY cust",
		"named":    "SELECT o.id, c.name, o.amt FROM orders o JOIN custs c ON o.cust = c.id",
	}
	alterWrites(t, db, rng, &next, "orders", "amt", false, 40)
	views.check(t, db, "before ADD")

	mustExec(t, db, "ALTER TABLE orders ADD COLUMN disc int DEFAULT 3")
	views.check(t, db, "after ADD")
	if got := queryRows(t, db, "SELECT count(*) FROM orders WHERE disc = 3"); !slices.Equal(got, queryRows(t, db, "SELECT count(*) FROM orders")) {
		t.Fatalf("rows stored before the ADD do not all read the default: %v", got)
	}
	alterWrites(t, db, rng, &next, "orders", "amt", true, 60)
	views.check(t, db, "writes with the new column")
	mustExec(t, db, "CREATE MATERIALIZED VIEW discounted AS SELECT cust, sum(amt * disc) AS value, count(*) AS n FROM orders GROUP BY cust")
	views["discounted"] = "SELECT cust, sum(amt * disc), count(*) FROM orders GROUP BY cust"
	alterWrites(t, db, rng, &next, "orders", "amt", true, 40)
	views.check(t, db, "view over the new column")

	mustExec(t, db, "ALTER TABLE orders DROP COLUMN note")
	alterWrites(t, db, rng, &next, "orders", "amt", true, 30)
	views.check(t, db, "after DROP COLUMN")
	if cols := queryRows(t, db, "SELECT column_name FROM information_schema.columns WHERE table_name = 'orders'"); !slices.Equal(cols, []string{"amt", "cust", "disc", "id"}) {
		t.Fatalf("columns after DROP COLUMN: %v", cols)
	}

	mustExec(t, db, "ALTER TABLE orders RENAME COLUMN amt TO amount")
	mustExec(t, db, "ALTER TABLE orders RENAME TO sales")
	views = alterViews{
		"per_cust":   "SELECT cust, count(*), sum(amount) FROM sales GROUP BY cust",
		"named":      "SELECT o.id, c.name, o.amount FROM sales o JOIN custs c ON o.cust = c.id",
		"discounted": "SELECT cust, sum(amount * disc), count(*) FROM sales GROUP BY cust",
	}
	views.check(t, db, "after RENAME")
	alterWrites(t, db, rng, &next, "sales", "amount", true, 30)
	views.check(t, db, "writes after RENAME")

	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = streamdb.Open(dir, opts); err != nil {
		t.Fatal(err)
	}
	views.check(t, db, "after reopen")
	alterWrites(t, db, rng, &next, "sales", "amount", true, 40)
	views.check(t, db, "writes after reopen")
	// A row stored before the ADD still reads its default.
	if got := queryRows(t, db, "SELECT * FROM sales WHERE id = 100000"); !slices.Equal(got, []string{"100000|1|7|3"}) {
		t.Fatalf("row written before the ADD reads %v", got)
	}
}

// TestAlterTableErrors checks the SQLSTATEs of refused ALTERs.
func TestAlterTableErrors(t *testing.T) {
	db := openMem(t)
	mustExec(t, db, "CREATE TABLE t (id int PRIMARY KEY, a int, b text)")
	mustExec(t, db, "INSERT INTO t VALUES (1, NULL, 'x')")
	mustExec(t, db, "CREATE MATERIALIZED VIEW v AS SELECT a, count(*) AS n FROM t GROUP BY a")
	mustExec(t, db, "CREATE TABLE u (id int PRIMARY KEY)")
	for _, c := range []struct{ sql, code string }{
		{"ALTER TABLE t ADD COLUMN a int", "42701"},
		{"ALTER TABLE t ADD COLUMN c int NOT NULL", "23502"},
		{"ALTER TABLE t ADD COLUMN c float DEFAULT random()", "0A000"},
		{"ALTER TABLE t ADD COLUMN c timestamptz DEFAULT clock_timestamp()", "0A000"},
		{"ALTER TABLE t ADD COLUMN c int DEFAULT 'x'", "22P02"},
		{"ALTER TABLE t DROP COLUMN a", "2BP01"},
		{"ALTER TABLE t DROP COLUMN id", "0A000"},
		{"ALTER TABLE t DROP COLUMN nope", "42703"},
		{"ALTER TABLE t RENAME COLUMN nope TO x", "42703"},
		{"ALTER TABLE t RENAME COLUMN a TO b", "42701"},
		{"ALTER TABLE t RENAME TO u", "42P07"},
		{"ALTER TABLE t RENAME TO v", "42P07"},
		{"ALTER TABLE t ALTER COLUMN a SET NOT NULL", "23502"},
		{"ALTER TABLE t ALTER COLUMN id DROP NOT NULL", "42P16"},
		{"ALTER TABLE t ALTER COLUMN a TYPE bigint", "0A000"},
		{"ALTER TABLE v ADD COLUMN c int", "42809"},
		{"ALTER MATERIALIZED VIEW t RENAME TO w", "42809"},
		{"ALTER TABLE nope ADD COLUMN c int", "42P01"},
		{"ALTER TABLE t ADD COLUMN", "42601"},
	} {
		_, err := db.Exec(context.Background(), c.sql)
		var e *streamdb.Error
		if !errors.As(err, &e) || e.Code != c.code {
			t.Errorf("%s: got %v, want SQLSTATE %s", c.sql, err, c.code)
		}
	}
	// Nothing refused changed anything.
	if got := queryRows(t, db, "SELECT * FROM t"); !slices.Equal(got, []string{"1|NULL|x"}) {
		t.Fatalf("t after refused ALTERs: %v", got)
	}
	if got := queryRows(t, db, "SELECT * FROM v"); !slices.Equal(got, []string{"NULL|1"}) {
		t.Fatalf("v after refused ALTERs: %v", got)
	}
}

// alterStep is the i-th ALTER of TestKill9DuringAlterTable: columns are
// added (with a default), renamed and dropped in turn.
func alterStep(i int) string {
	switch i % 3 {
	case 0:
		return fmt.Sprintf("ALTER TABLE t ADD COLUMN c%d int DEFAULT %d", i, i)
	case 1:
		return fmt.Sprintf("ALTER TABLE t RENAME COLUMN c%d TO r%d", i-1, i-1)
	}
	return fmt.Sprintf("ALTER TABLE t DROP COLUMN r%d", i-2)
}

// alterColumns are t's columns after n steps.
func alterColumns(n int) []string {
	cols := []string{"id", "k", "v"}
	switch n % 3 {
	case 1:
		cols = append(cols, fmt.Sprintf("c%d", n-1))
	case 2:
		cols = append(cols, fmt.Sprintf("r%d", n-2))
	}
	return cols
}

// TestKill9DuringAlterTable runs ALTERs that add, rename and drop columns
// of a table while another connection inserts into it and two views read
// it, kills the server with SIGKILL at an arbitrary moment, and checks
// after a restart that the table has the columns of the acknowledged
// ALTERs (or of one more, in flight at the kill), every acknowledged
// insert, and views equal to their queries that keep being maintained.
// An insert bound before an ALTER that changed the columns may fail with
// 40001; it is retried.
func TestKill9DuringAlterTable(t *testing.T) {
	dir := t.TempDir()
	p := startProc(t, dir)
	ctx := context.Background()
	c := p.connect(t)
	execAll(t, c, "CREATE TABLE t (id int PRIMARY KEY, k int, v int)",
		"CREATE MATERIALIZED VIEW agg AS SELECT k, count(*) AS n, sum(v) AS s FROM t GROUP BY k",
		"CREATE MATERIALIZED VIEW star AS SELECT * FROM t")
	w := p.connect(t)
	var acked atomic.Int64
	retried := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; {
			_, err := w.Exec(ctx, fmt.Sprintf("INSERT INTO t (id, k, v) VALUES (%d, %d, %d)", i, i%7, i))
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Code == "40001" {
				retried++
				continue
			}
			if err != nil {
				return
			}
			i++
			acked.Store(int64(i))
		}
	}()
	alters := 0
	kill := time.After(1500 * time.Millisecond)
loop:
	for {
		select {
		case <-kill:
			break loop
		default:
		}
		if _, err := c.Exec(ctx, alterStep(alters)); err != nil {
			t.Fatalf("%s: %v", alterStep(alters), err)
		}
		alters++
	}
	p.kill()
	<-done
	c.Close(ctx)
	w.Close(ctx)
	if alters < 3 || acked.Load() == 0 {
		t.Fatalf("only %d ALTERs and %d inserts acknowledged before the kill", alters, acked.Load())
	}
	t.Logf("%d ALTERs, %d inserts acknowledged (%d retried after 40001)", alters, acked.Load(), retried)

	p = startProc(t, dir)
	c = p.connect(t)
	defer c.Close(ctx)
	var cols []string
	rows, err := c.Query(ctx, "SELECT column_name FROM information_schema.columns WHERE table_name = 't' ORDER BY ordinal_position")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		cols = append(cols, s)
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	if !slices.Equal(cols, alterColumns(alters)) && !slices.Equal(cols, alterColumns(alters+1)) {
		t.Fatalf("after %d acknowledged ALTERs t has columns %v, want %v (or %v)", alters, cols, alterColumns(alters), alterColumns(alters+1))
	}
	var n, maxID int64
	if err := c.QueryRow(ctx, "SELECT count(*), coalesce(max(id), -1) FROM t").Scan(&n, &maxID); err != nil {
		t.Fatal(err)
	}
	if n < acked.Load() || maxID < acked.Load()-1 {
		t.Fatalf("after kill -9: %d rows (max id %d), but %d inserts were acknowledged", n, maxID, acked.Load())
	}
	checkAggView(t, c)
	checkStarView(t, c)
	execAll(t, c, "INSERT INTO t (id, k, v) VALUES (-1, 100, 5)", "UPDATE t SET v = v + 1 WHERE id % 5 = 0")
	checkAggView(t, c)
	checkStarView(t, c)
}

// checkStarView compares star (SELECT * FROM t when t had id, k, v) with
// those columns of t.
func checkStarView(t *testing.T, c *pgx.Conn) {
	t.Helper()
	var diff int
	q := `SELECT count(*) FROM (SELECT id, k, v FROM t) q FULL JOIN star ON q.id = star.id AND q.k = star.k AND q.v = star.v
	      WHERE q.id IS NULL OR star.id IS NULL`
	if err := c.QueryRow(context.Background(), q).Scan(&diff); err != nil {
		t.Fatal(err)
	}
	if diff != 0 {
		t.Fatalf("view star differs from t in %d rows", diff)
	}
}
