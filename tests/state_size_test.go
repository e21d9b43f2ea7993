package tests

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/streamdb/streamdb"
)

// stateSize is what streamdb_catalog.state_sizes shows of a relation's
// state tables of one kind, summed.
type stateSize struct{ keys, bytes int64 }

func stateOf(t *testing.T, db *streamdb.DB, relation, kind string) stateSize {
	t.Helper()
	got := queryRows(t, db, fmt.Sprintf(`SELECT coalesce(sum(keys), 0), coalesce(sum(bytes), 0)
		FROM streamdb_catalog.state_sizes WHERE relation = '%s' AND kind = '%s'`, relation, kind))
	parts := strings.Split(got[0], "|")
	keys, err1 := strconv.ParseInt(parts[0], 10, 64)
	bytes, err2 := strconv.ParseInt(parts[1], 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("state of %s (%s): %q", relation, kind, got)
	}
	return stateSize{keys, bytes}
}

func countOf(t *testing.T, db *streamdb.DB, sql string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(queryRows(t, db, sql)[0], 10, 64)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// TestStateSizes: streamdb_catalog.state_sizes follows a table and a
// GROUP BY view over it: the table's rows are its keys, the view's rows
// and its aggregate's state grow by the same number of keys for each
// group and shrink back as groups vanish, bytes move with them, and the
// sizes are the same after a restart (they are measured from committed
// state).
func TestStateSizes(t *testing.T) {
	dir := t.TempDir()
	db, err := streamdb.Open(dir, &streamdb.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, "CREATE TABLE t (id int PRIMARY KEY, g int, v int)")
	mustExec(t, db, "CREATE MATERIALIZED VIEW mv AS SELECT g, count(*) AS n, sum(v) AS s FROM t GROUP BY g")
	if got := stateOf(t, db, "mv", "rows"); got != (stateSize{}) {
		t.Fatalf("empty view's rows: %+v", got)
	}
	base := stateOf(t, db, "mv", "internal") // a group's state comes on top

	// tableRows checks that the table's rows are its keys, and returns them.
	tableRows := func(want int64) stateSize {
		t.Helper()
		rows := stateOf(t, db, "t", "rows")
		if n := countOf(t, db, "SELECT count(*) FROM t"); rows.keys != want || n != want || (want > 0) != (rows.bytes > 0) {
			t.Fatalf("table t: %+v for %d rows, want %d keys and bytes", rows, n, want)
		}
		return rows
	}
	// groups checks the view's rows and state for n groups, and returns its state.
	perGroup := int64(0)
	groups := func(n int64) stateSize {
		t.Helper()
		if rows := stateOf(t, db, "mv", "rows"); rows.keys != n || (n > 0) != (rows.bytes > 0) {
			t.Fatalf("view mv's rows: %+v, want %d groups", rows, n)
		}
		st := stateOf(t, db, "mv", "internal")
		if perGroup == 0 {
			if d := st.keys - base.keys; d <= 0 || d%n != 0 {
				t.Fatalf("%d groups added %d state keys (%d before)", n, d, base.keys)
			}
			perGroup = (st.keys - base.keys) / n
		}
		if st.keys != base.keys+perGroup*n {
			t.Fatalf("state of %d groups: %d keys, want %d + %d a group", n, st.keys, base.keys, perGroup)
		}
		return st
	}

	mustExec(t, db, "INSERT INTO t SELECT x, x % 10, x FROM generate_series(1, 100) AS x")
	t100 := tableRows(100)
	s10 := groups(10)
	mustExec(t, db, "INSERT INTO t SELECT x, x % 30, x FROM generate_series(101, 400) AS x")
	t400 := tableRows(400)
	s30 := groups(30)
	if t400.bytes <= t100.bytes || s30.bytes <= s10.bytes {
		t.Fatalf("bytes did not grow: table %d -> %d, view state %d -> %d", t100.bytes, t400.bytes, s10.bytes, s30.bytes)
	}

	mustExec(t, db, "DELETE FROM t WHERE g >= 2")
	t40 := tableRows(40)
	s2 := groups(2)
	if t40.bytes >= t400.bytes || s2.bytes >= s30.bytes {
		t.Fatalf("bytes did not shrink: table %d -> %d, view state %d -> %d", t400.bytes, t40.bytes, s30.bytes, s2.bytes)
	}

	// A relation's total is its state tables' sum.
	total := queryRows(t, db, "SELECT relation, sum(keys), sum(bytes) FROM streamdb_catalog.state_sizes GROUP BY relation")
	rows := stateOf(t, db, "mv", "rows")
	want := []string{fmt.Sprintf("mv|%d|%d", rows.keys+s2.keys, rows.bytes+s2.bytes), fmt.Sprintf("t|%d|%d", t40.keys, t40.bytes)}
	if strings.Join(total, ",") != strings.Join(want, ",") {
		t.Fatalf("totals %q, want %q", total, want)
	}

	const sizes = "SELECT relation, state_table, kind, keys, bytes FROM streamdb_catalog.state_sizes"
	before := queryRows(t, db, sizes)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = streamdb.Open(dir, &streamdb.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	}()
	if after := queryRows(t, db, sizes); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Fatalf("after a restart:\n%s\nwant\n%s", strings.Join(after, "\n"), strings.Join(before, "\n"))
	}

	mustExec(t, db, "DELETE FROM t")
	tableRows(0)
	groups(0)
}
