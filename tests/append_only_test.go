package tests

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb"
)

// appendOnlyViews are GROUP BY views with min and max, and Top-N views
// (ORDER BY ... LIMIT [OFFSET], row_number, rank and dense_rank), over
// append-only inputs (an APPEND ONLY table, an inner join and a UNION ALL
// of two, a global aggregate) and over inputs that are not (an outer
// join, a table with updates and deletes); appendOnly says which the
// planner must mark append-only.
var appendOnlyViews = []struct {
	name, query string
	appendOnly  bool
}{
	{"m_a", "SELECT g, min(v) AS lo, max(v) AS hi, min(s) AS ls, max(s) AS hs, count(*) AS n FROM a GROUP BY g", true},
	{"m_join", "SELECT a.g, max(a.v + b.w) AS hi, min(b.w) AS lo, count(*) AS n FROM a JOIN b ON a.g = b.g GROUP BY a.g", true},
	{"m_union", "SELECT g, max(x) AS hi, min(x) AS lo FROM (SELECT g, v AS x FROM a UNION ALL SELECT g, w FROM b) AS u GROUP BY g", true},
	{"m_global", "SELECT max(v) AS hi, min(v) AS lo FROM a WHERE v % 3 = 0", true},
	{"m_left", "SELECT b.g, max(a.v) AS hi, count(*) AS n FROM b LEFT JOIN a ON a.g = b.g AND a.v > 90 GROUP BY b.g", false},
	{"m_c", "SELECT g, max(v) AS hi, min(v) AS lo FROM c GROUP BY g", false},
	{"t_lim", "SELECT id, g, v FROM a ORDER BY v DESC, id LIMIT 5", true},
	{"t_off", "SELECT id, v FROM a ORDER BY v, id LIMIT 3 OFFSET 2", true},
	{"t_rn", "SELECT id, g, v, rn FROM (SELECT id, g, v, row_number() OVER (PARTITION BY g ORDER BY v DESC, id) AS rn FROM a) AS x WHERE rn <= 3", true},
	{"t_rank", "SELECT g, v, r FROM (SELECT g, v, rank() OVER (PARTITION BY g ORDER BY v) AS r FROM a) AS x WHERE r <= 2", true},
	{"t_dense", "SELECT g, w, d FROM (SELECT b.g, b.w, dense_rank() OVER (PARTITION BY b.g ORDER BY b.w DESC) AS d FROM a JOIN b ON a.id = b.id) AS x WHERE d <= 2", true},
	{"t_c", "SELECT id, v FROM c ORDER BY v DESC, id LIMIT 4", false},
}

// TestAppendOnlyAggregates: min and max over append-only inputs keep only
// their extremes (no input rows in their state), Top-N only its top rows,
// and every view equals
// its query after each step of random writes, with views created before
// and after the data (backfilled), across a close and reopen; views over
// inputs that are not append-only keep their inputs and stay right under
// updates and deletes.
func TestAppendOnlyAggregates(t *testing.T) {
	dir := t.TempDir()
	open := func() *streamdb.DB {
		db, err := streamdb.Open(dir, &streamdb.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open()
	defer func() { db.Close() }()
	mustExec(t, db, "CREATE TABLE a (id int, g int, v int, s varchar) APPEND ONLY")
	mustExec(t, db, "CREATE TABLE b (id int PRIMARY KEY, g int, w int) APPEND ONLY")
	mustExec(t, db, "CREATE TABLE c (id int PRIMARY KEY, g int, v int)")

	for _, v := range appendOnlyViews {
		plan := strings.Join(queryRows(t, db, "EXPLAIN CREATE MATERIALIZED VIEW x AS "+v.query), "\n")
		if got := strings.Contains(plan, "[append-only]"); got != v.appendOnly {
			t.Fatalf("%s: planned append-only %v, want %v:\n%s", v.name, got, v.appendOnly, plan)
		}
	}
	created := map[string]bool{}
	create := func(half int) {
		for i, v := range appendOnlyViews {
			if i%2 == half {
				mustExec(t, db, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", v.name, v.query))
				created[v.name] = true
			}
		}
	}
	check := func(step string) {
		t.Helper()
		for _, v := range appendOnlyViews {
			if !created[v.name] {
				continue
			}
			got, want := queryRows(t, db, "SELECT * FROM "+v.name), queryRows(t, db, v.query)
			if !slices.Equal(got, want) {
				t.Fatalf("%s: view %s\n got %v\nwant %v", step, v.name, got, want)
			}
		}
	}

	rng := rand.New(rand.NewPCG(23, 5))
	var nextA, nextB, nextC int
	var cIDs []int
	write := func() {
		var sb strings.Builder
		sb.WriteString("INSERT INTO a VALUES ")
		for i := range 1 + rng.IntN(40) {
			if i > 0 {
				sb.WriteString(", ")
			}
			nextA++
			s := "NULL"
			if rng.IntN(6) > 0 {
				s = fmt.Sprintf("'s%d'", rng.IntN(50))
			}
			fmt.Fprintf(&sb, "(%d, %d, %d, %s)", nextA, rng.IntN(8), rng.IntN(100), s)
		}
		mustExec(t, db, sb.String())
		if rng.IntN(3) == 0 {
			nextB++
			mustExec(t, db, fmt.Sprintf("INSERT INTO b VALUES (%d, %d, %d)", nextB, rng.IntN(8), rng.IntN(1000)-500))
		}
		for range 1 + rng.IntN(6) {
			switch k := rng.IntN(4); {
			case k < 2 || len(cIDs) == 0:
				nextC++
				cIDs = append(cIDs, nextC)
				mustExec(t, db, fmt.Sprintf("INSERT INTO c VALUES (%d, %d, %d)", nextC, rng.IntN(8), rng.IntN(100)))
			case k == 2:
				mustExec(t, db, fmt.Sprintf("UPDATE c SET v = %d WHERE id = %d", rng.IntN(100), cIDs[rng.IntN(len(cIDs))]))
			default:
				i := rng.IntN(len(cIDs))
				mustExec(t, db, fmt.Sprintf("DELETE FROM c WHERE id = %d", cIDs[i]))
				cIDs = slices.Delete(cIDs, i, i+1)
			}
		}
	}

	create(0)
	for range 20 {
		write()
	}
	create(1) // these backfill
	check("after the backfills")
	for step := range 60 {
		write()
		check(fmt.Sprintf("step %d", step))
		if step == 30 {
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			db = open()
			check("after reopening")
		}
	}

	// The append-only views' state holds their groups, not their input
	// rows; a min/max over the table with deletes keeps one row per input.
	rowsA := countOf(t, db, "SELECT count(*) FROM a")
	if st := stateOf(t, db, "m_a", "internal"); st.keys >= rowsA/2 {
		t.Fatalf("m_a keeps %d state keys for %d input rows in 8 groups", st.keys, rowsA)
	}
	for _, v := range []string{"t_lim", "t_off", "t_rn", "t_rank"} {
		if st := stateOf(t, db, v, "internal"); st.keys >= rowsA/4 {
			t.Fatalf("%s keeps %d state keys for %d input rows", v, st.keys, rowsA)
		}
	}
	rowsC := countOf(t, db, "SELECT count(*) FROM c")
	if st := stateOf(t, db, "t_c", "internal"); st.keys < rowsC {
		t.Fatalf("t_c keeps %d state keys for %d input rows: the rows past its top missing", st.keys, rowsC)
	}
	if st := stateOf(t, db, "m_c", "internal"); st.keys < rowsC {
		t.Fatalf("m_c keeps %d state keys for %d input rows: min/max inputs missing", st.keys, rowsC)
	}
	if _, err := db.Exec(t.Context(), "DELETE FROM a WHERE id = 1"); err == nil {
		t.Fatal("DELETE on an APPEND ONLY table succeeded")
	}
}
