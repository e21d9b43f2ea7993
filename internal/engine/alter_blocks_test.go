package engine

import (
	"fmt"
	"testing"

	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/storage"
)

// TestAddColumnOverBlocks: rows bulk-loaded into an empty table are
// stored as columnar blocks (storage/block.go); a column added after
// them with a DEFAULT reads as that default in every one of them -- in
// a batch SELECT, a point read, a view backfilled after the ADD (the
// snapshot scan's block path) and after writes to some of them -- and
// a column added without one reads as NULL.
func TestAddColumnOverBlocks(t *testing.T) {
	db, err := Open(":memory:", &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s := db.NewSession()
	const n = 40_000
	query := func(q string) string { t.Helper(); return queryText(t, s, q) }
	mustExec(t, s,
		"CREATE TABLE t (id bigint PRIMARY KEY, k int, v bigint)",
		fmt.Sprintf("INSERT INTO t SELECT g, g %% 10, g FROM generate_series(1, %d) AS g", n))
	var blocks int64
	for _, r := range []string{query("SELECT keys FROM streamdb_catalog.state_sizes WHERE relation = 't' AND kind = 'rows'")} {
		fmt.Sscanf(r, "[[%d]]", &blocks)
	}
	if blocks <= 0 || blocks >= n/10 {
		t.Fatalf("t holds %d keys for %d rows: the load was not stored as blocks", blocks, n)
	}
	mustExec(t, s,
		"ALTER TABLE t ADD COLUMN c int DEFAULT 5",
		"ALTER TABLE t ADD COLUMN d text",
		"ALTER TABLE t ADD COLUMN e text DEFAULT 'x'",
		"INSERT INTO t VALUES (0, 0, 0, 7, 'new', 'y')")
	want := fmt.Sprintf("[[%d %d 1 %d]]", n+1, 5*n+7, n+1)
	if got := query("SELECT count(*), sum(c), count(d), count(e) FROM t"); got != want {
		t.Fatalf("after ADD COLUMN: %s, want %s", got, want)
	}
	if got := query("SELECT id, c, d, e FROM t WHERE id IN (0, 1, 20000) ORDER BY id"); got != "[[0 7 new y] [1 5 <nil> x] [20000 5 <nil> x]]" {
		t.Fatalf("point reads after ADD COLUMN: %s", got)
	}
	mustExec(t, s,
		"CREATE MATERIALIZED VIEW mv AS SELECT k, sum(c) AS sc, count(d) AS nd, count(*) FILTER (WHERE e = 'x') AS nx FROM t GROUP BY k",
		"CREATE MATERIALIZED VIEW mv_all AS SELECT * FROM t WHERE id % 1000 = 0")
	check := func(when string) {
		t.Helper()
		for _, pair := range [][2]string{
			{"SELECT sum(sc), sum(nd), sum(nx) FROM mv", "SELECT sum(c), count(d), count(*) FILTER (WHERE e = 'x') FROM t"},
			{"SELECT * FROM mv_all ORDER BY id", "SELECT * FROM t WHERE id % 1000 = 0 ORDER BY id"},
		} {
			if got, want := query(pair[0]), query(pair[1]); got != want {
				t.Fatalf("%s: %s = %s, its query gives %s", when, pair[0], got, want)
			}
		}
	}
	check("after the backfill")
	if got := query("SELECT sum(sc) FROM mv"); got != fmt.Sprintf("[[%d]]", 5*n+7) {
		t.Fatalf("the view sums c to %s, want %d", got, 5*n+7)
	}
	mustExec(t, s,
		"UPDATE t SET c = 1 WHERE id <= 10",
		"DELETE FROM t WHERE id = 2000",
		"UPDATE t SET d = 'set' WHERE id = 3000")
	check("after writes")
}

// TestAlterTypeOverBlocks: ALTER ... TYPE rewrites a table whose rows
// were bulk-loaded as columnar blocks, the primary key's type too (the
// rows move to other vnodes): every row reads its converted values, the
// old rows' state is purged, and a view over other columns created
// before a later ALTER ... TYPE keeps equal to its query.
func TestAlterTypeOverBlocks(t *testing.T) {
	db, err := Open(":memory:", &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s := db.NewSession()
	const n = 40_000
	query := func(q string) string { t.Helper(); return queryText(t, s, q) }
	mustExec(t, s,
		"CREATE TABLE t (id int PRIMARY KEY, k int, v bigint)",
		fmt.Sprintf("INSERT INTO t SELECT g, g %% 10, g FROM generate_series(1, %d) AS g", n))
	var keys int64
	fmt.Sscanf(query("SELECT keys FROM streamdb_catalog.state_sizes WHERE relation = 't' AND kind = 'rows'"), "[[%d]]", &keys)
	if keys <= 0 || keys >= n/10 {
		t.Fatalf("t holds %d keys for %d rows: the load was not stored as blocks", keys, n)
	}
	mustExec(t, s,
		"UPDATE t SET v = -v WHERE id % 1000 = 0", // rows over the blocks
		"ALTER TABLE t ALTER id TYPE text USING 'k' || id, ALTER v TYPE numeric(12,1) USING v / 2.0")
	if got := query("SELECT count(*), count(DISTINCT id), sum(v), min(id), max(id) FROM t"); got != "[[40000 40000 399190000.0 k1 k9999]]" {
		t.Fatalf("after ALTER ... TYPE: %s", got)
	}
	if got := query("SELECT id, k, v FROM t WHERE id IN ('k1', 'k2000', 'k39999') ORDER BY v"); got != "[[k2000 0 -1000.0] [k1 1 0.5] [k39999 9 19999.5]]" {
		t.Fatalf("point reads after ALTER ... TYPE: %s", got)
	}
	if got := query("SELECT sum(keys) FROM streamdb_catalog.state_sizes WHERE relation = 't' AND kind = 'rows'"); got != fmt.Sprintf("[[%d]]", n) {
		t.Fatalf("t keeps %s keys of rows for %d rows: the old rows were not purged", got, n)
	}
	mustExec(t, s, "CREATE MATERIALIZED VIEW mv AS SELECT k, count(*) AS n, sum(v) AS s FROM t GROUP BY k")
	wantCode(t, s, "ALTER TABLE t ALTER k TYPE bigint USING k * 2", "0A000", "cannot alter type of a column used by a view or rule")
	wantCode(t, s, "ALTER TABLE t ALTER id TYPE varchar(10)", "0A000", `cannot alter the type of primary key column "id" of table "t" while other objects read the table`)
	check := func(when string) {
		t.Helper()
		if got, want := query("SELECT * FROM mv ORDER BY k"), query("SELECT k, count(*), sum(v) FROM t GROUP BY k ORDER BY k"); got != want {
			t.Fatalf("%s: mv = %s, its query gives %s", when, got, want)
		}
	}
	check("ALTER of a column mv reads is refused")
	mustExec(t, s, "ALTER TABLE t ADD COLUMN w text",
		"ALTER TABLE t ALTER w TYPE int USING length(id)")
	check("after ALTER of a column mv does not read")
	mustExec(t, s, "INSERT INTO t VALUES ('new', 3, 1.5, 7)", "DELETE FROM t WHERE id = 'k5'", "UPDATE t SET v = v + 1, w = 2 WHERE id < 'k2'")
	check("after writes")
	if got := query("SELECT sum(w), count(w) FROM t"); got != "[[185689 40000]]" {
		t.Fatalf("w: %s", got)
	}
}

// TestAlterTypeFailureLeavesNoRows: an ALTER ... TYPE that fails after
// part of its rewrite was written (batches of several MiB already
// committed) leaves the table as it was, and neither a key of the new
// storage nor its record to purge behind; one that succeeds leaves no key
// of the old storage. An index holding the column refuses the change.
func TestAlterTypeFailureLeavesNoRows(t *testing.T) {
	db, err := Open(":memory:", &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s := db.NewSession()
	query := func(q string) string { t.Helper(); return queryText(t, s, q) }
	mustExec(t, s, "CREATE TABLE t (id int PRIMARY KEY, a text, pad text)",
		"INSERT INTO t SELECT g, g::text, repeat('x', 2000) FROM generate_series(1, 6000) AS g")
	r, ok := db.Relation("t")
	if !ok {
		t.Fatal("no table t")
	}
	// The row the rewrite reads last fails it, once ~12 MiB are written.
	snap := db.store.Snapshot()
	it := planner.TableLayout(r).Scan(snap)
	var last int64
	for it.Next() {
		last = it.Row()[0].(int64)
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	snap.Close()
	mustExec(t, s, fmt.Sprintf("UPDATE t SET a = 'bad' WHERE id = %d", last))
	keys := func(id uint32) int64 {
		t.Helper()
		snap := db.store.Snapshot()
		defer snap.Close()
		sizes, err := storage.TableSizes(snap, []uint32{id})
		if err != nil {
			t.Fatal(err)
		}
		return sizes[0].Keys
	}
	scratch := db.nextID
	wantCode(t, s, "ALTER TABLE t ALTER a TYPE int USING a::int", "22P02", `invalid input syntax for type integer: "bad"`)
	if n := keys(scratch); n != 0 || db.nextID != scratch+1 {
		t.Fatalf("after a failed ALTER: %d keys under table %d (next id %d)", n, scratch, db.nextID)
	}
	if _, ok, err := db.store.GetMeta(dropKey(scratch)); ok || err != nil {
		t.Fatalf("the failed ALTER left its record to purge (%v)", err)
	}
	if got := query("SELECT count(*), max(a), pg_typeof(max(a))::text FROM t"); got != "[[6000 bad text]]" {
		t.Fatalf("t after a failed ALTER: %s", got)
	}
	mustExec(t, s, fmt.Sprintf("DELETE FROM t WHERE id = %d", last), "ALTER TABLE t ALTER a TYPE int USING a::int")
	if n := keys(r.ID); n != 0 {
		t.Fatalf("after ALTER ... TYPE the old storage keeps %d keys", n)
	}
	if got := query("SELECT count(*), sum(a) FROM t"); got != fmt.Sprintf("[[5999 %d]]", 6000*6001/2-int(last)) {
		t.Fatalf("t after ALTER ... TYPE: %s", got)
	}
	mustExec(t, s, "CREATE INDEX t_a ON t (a)")
	wantCode(t, s, "ALTER TABLE t ALTER a TYPE bigint", "0A000", "cannot alter type of a column used by an index")
}
