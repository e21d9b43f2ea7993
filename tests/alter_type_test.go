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

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/streamdb/streamdb"
)

// TestAlterColumnTypeUnderViews changes the types of columns of a table
// that materialized views (a GROUP BY and a join over other columns)
// read while it takes writes: each view equals its query before, after
// each ALTER ... TYPE, after writes, and after the database is reopened;
// the columns they read cannot change type; a view created after the
// change reads the new type. With parallelism 4 the table's changes reach
// each view through a hash exchange, with 1 straight.
func TestAlterColumnTypeUnderViews(t *testing.T) {
	for _, par := range []int{1, 4} {
		t.Run(fmt.Sprintf("parallelism=%d", par), func(t *testing.T) { testAlterColumnTypeUnderViews(t, par) })
	}
}

func testAlterColumnTypeUnderViews(t *testing.T, par int) {
	dir := t.TempDir()
	opts := &streamdb.Options{NoSync: true, Parallelism: par}
	db, err := streamdb.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { db.Close() }()
	rng := rand.New(rand.NewSource(23))
	next := 0
	mustExec(t, db, "CREATE TABLE orders (id int PRIMARY KEY, cust int, amt int, disc text DEFAULT '1', note int)")
	mustExec(t, db, "CREATE TABLE custs (id int PRIMARY KEY, name text)")
	mustExec(t, db, "INSERT INTO custs VALUES (1, 'ann'), (2, 'bob'), (3, 'cy'), (4, 'dee'), (5, 'eve')")
	alterWrites(t, db, rng, &next, "orders", "amt", false, 60)
	mustExec(t, db, "UPDATE orders SET note = id * 3 WHERE id % 2 = 0")
	mustExec(t, db, "CREATE MATERIALIZED VIEW per_cust AS SELECT cust, count(*) AS n, sum(amt) AS total FROM orders GROUP BY cust")
	mustExec(t, db, "CREATE MATERIALIZED VIEW named AS SELECT o.id, c.name, o.amt FROM orders o JOIN custs c ON o.cust = c.id")
	views := alterViews{
		"per_cust": "SELECT cust, count(*), sum(amt) FROM orders GROUP BY cust",
		"named":    "SELECT o.id, c.name, o.amt FROM orders o JOIN custs c ON o.cust = c.id",
	}
	alterWrites(t, db, rng, &next, "orders", "amt", false, 40)
	views.check(t, db, "before ALTER ... TYPE")
	before := queryRows(t, db, "SELECT id, cust, amt, note FROM orders")

	for _, c := range []struct{ sql, code string }{
		{"ALTER TABLE orders ALTER amt TYPE bigint", "0A000"},  // per_cust and named read it
		{"ALTER TABLE orders ALTER cust TYPE bigint", "0A000"}, // per_cust groups by it
		{"ALTER TABLE orders ALTER id TYPE bigint", "0A000"},   // the views key their rows by it
		{"ALTER TABLE orders ALTER disc TYPE int", "42804"},    // text to int needs USING
		{"ALTER TABLE orders ALTER disc TYPE int USING disc::int, ADD x int", "0A000"},
	} {
		_, err := db.Exec(context.Background(), c.sql)
		var e *streamdb.Error
		if !errors.As(err, &e) || e.Code != c.code {
			t.Fatalf("%s: got %v, want SQLSTATE %s", c.sql, err, c.code)
		}
	}
	mustExec(t, db, "ALTER TABLE orders ALTER disc TYPE numeric(4,1) USING disc::numeric / 2, ALTER note SET DATA TYPE text")
	views.check(t, db, "after ALTER ... TYPE")
	if got := queryRows(t, db, "SELECT id, cust, amt, note FROM orders"); !slices.Equal(got, before) {
		t.Fatalf("rows changed by ALTER ... TYPE:\n%v\nwere\n%v", got, before)
	}
	if got := queryRows(t, db, "SELECT DISTINCT pg_typeof(disc)::text || ' ' || disc::text || ' ' || pg_typeof(note)::text FROM orders"); !slices.Equal(got, []string{"numeric 0.5 text"}) {
		t.Fatalf("disc and note after ALTER ... TYPE: %v", got)
	}
	alterWrites(t, db, rng, &next, "orders", "amt", false, 40)
	mustExec(t, db, "UPDATE orders SET disc = disc + 0.25, note = note || '!' WHERE id % 3 = 0")
	views.check(t, db, "writes after ALTER ... TYPE")
	mustExec(t, db, "CREATE MATERIALIZED VIEW discounted AS SELECT cust, sum(amt * disc) AS value, count(note) AS notes FROM orders GROUP BY cust")
	views["discounted"] = "SELECT cust, sum(amt * disc), count(note) FROM orders GROUP BY cust"
	alterWrites(t, db, rng, &next, "orders", "amt", false, 40)
	views.check(t, db, "view over the new types")
	// A generated column added is computed for the stored rows too.
	mustExec(t, db, "ALTER TABLE orders ADD COLUMN twice int GENERATED ALWAYS AS (amt * 2) STORED")
	views.check(t, db, "after ADD COLUMN ... GENERATED")
	mustExec(t, db, "CREATE MATERIALIZED VIEW doubled AS SELECT cust, sum(twice) AS s FROM orders GROUP BY cust")
	views["doubled"] = "SELECT cust, sum(amt) * 2 FROM orders GROUP BY cust"
	alterWrites(t, db, rng, &next, "orders", "amt", false, 40)
	views.check(t, db, "writes after ADD COLUMN ... GENERATED")

	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = streamdb.Open(dir, opts); err != nil {
		t.Fatal(err)
	}
	views.check(t, db, "after reopen")
	alterWrites(t, db, rng, &next, "orders", "amt", false, 40)
	views.check(t, db, "writes after reopen")
	// Rows stored before the ALTER read 0.5 (0.8 once updated), rows
	// inserted after it the default re-cast, 1.0.
	if got := queryRows(t, db, "SELECT DISTINCT disc FROM orders"); !slices.Equal(got, []string{"0.5", "0.8", "1.0", "1.3"}) {
		t.Fatalf("disc values after reopen: %v", got)
	}
}

// typeStep is the i-th ALTER of TestKill9DuringAlterColumnType; w's type
// after n of them is typeAfter(n).
func typeStep(i int) string {
	return "ALTER TABLE t ALTER COLUMN w TYPE " + typeAfter(i+1)
}

func typeAfter(n int) string {
	if n%2 == 1 {
		return "bigint"
	}
	return "integer"
}

// TestKill9DuringAlterColumnType changes the type of a column of a table
// (bulk-loaded first, so its rows start as columnar blocks) back and forth
// while another connection inserts into it and a view reads its other
// columns, kills the server with SIGKILL at an arbitrary moment, and
// checks after a restart that the column has the type of the
// acknowledged ALTERs (or of one more, in flight at the kill), every row
// its values, every acknowledged insert is there, and the view equals its
// query and keeps being maintained.
func TestKill9DuringAlterColumnType(t *testing.T) {
	dir := t.TempDir()
	p := startProc(t, dir)
	ctx := context.Background()
	c := p.connect(t)
	execAll(t, c, "CREATE TABLE t (id int PRIMARY KEY, k int, v int, w int)",
		"INSERT INTO t SELECT g, g % 7, g, g FROM generate_series(-20000, -1) AS g",
		"CREATE MATERIALIZED VIEW agg AS SELECT k, count(*) AS n, sum(v) AS s FROM t GROUP BY k")
	w := p.connect(t)
	var acked atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; {
			_, err := w.Exec(ctx, fmt.Sprintf("INSERT INTO t (id, k, v, w) VALUES (%d, %d, %d, %d)", i, i%7, i, i))
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Code == "40001" {
				continue // bound before an ALTER
			}
			if err != nil {
				return
			}
			i++
			acked.Store(int64(i))
		}
	}()
	alters := 0
	kill := time.After(time.Duration(800+rand.Intn(800)) * time.Millisecond)
loop:
	for {
		select {
		case <-kill:
			break loop
		default:
		}
		if _, err := c.Exec(ctx, typeStep(alters)); err != nil {
			t.Fatalf("%s: %v", typeStep(alters), err)
		}
		alters++
		time.Sleep(10 * time.Millisecond) // inserts get in between
	}
	p.kill()
	<-done
	c.Close(ctx)
	w.Close(ctx)
	if alters < 2 || acked.Load() == 0 {
		t.Fatalf("only %d ALTERs and %d inserts acknowledged before the kill", alters, acked.Load())
	}
	t.Logf("%d ALTERs, %d inserts acknowledged", alters, acked.Load())

	p = startProc(t, dir)
	c = p.connect(t)
	defer c.Close(ctx)
	var typ string
	if err := c.QueryRow(ctx, "SELECT data_type FROM information_schema.columns WHERE table_name = 't' AND column_name = 'w'").Scan(&typ); err != nil {
		t.Fatal(err)
	}
	if typ != typeAfter(alters) && typ != typeAfter(alters+1) {
		t.Fatalf("after %d acknowledged ALTERs w is %s, want %s (or %s)", alters, typ, typeAfter(alters), typeAfter(alters+1))
	}
	var n, same, maxID int64
	if err := c.QueryRow(ctx, "SELECT count(*), count(*) FILTER (WHERE w = id AND v = id), coalesce(max(id), -1) FROM t").Scan(&n, &same, &maxID); err != nil {
		t.Fatal(err)
	}
	if n < 20000+acked.Load() || maxID < acked.Load()-1 || same != n {
		t.Fatalf("after kill -9: %d rows (%d with their values, max id %d), but 20000 + %d inserts were acknowledged", n, same, maxID, acked.Load())
	}
	checkAggView(t, c)
	execAll(t, c, "INSERT INTO t (id, k, v, w) VALUES (-30000, 100, 5, 5)", "UPDATE t SET v = v + 1 WHERE id % 5 = 0",
		typeStep(alters+1), "DELETE FROM t WHERE id % 11 = 0")
	checkAggView(t, c)
}
