package tests

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// parallelViews are views over big and dim whose plans have every kind of
// fragment: scans, aggregates (grouped and global), joins (inner and
// outer), a view over a view, and a filter/projection materialized in its
// scan's actors.
var parallelViews = []struct{ name, query string }{
	{"agg", "SELECT k, count(*) AS n, sum(v) AS s, min(v) AS lo, max(v) AS hi FROM big GROUP BY k"},
	{"glob", "SELECT count(*) AS n, sum(v) AS s FROM big"},
	{"flt", "SELECT id, v * 2 AS v2 FROM big WHERE v % 3 = 1"},
	{"jn", "SELECT big.id, big.v, dim.name FROM big JOIN dim ON big.k = dim.k"},
	{"fj", "SELECT big.id, dim.name FROM big FULL JOIN dim ON big.k = dim.k"},
	{"lagg", "SELECT dim.name, count(big.id) AS n FROM dim LEFT JOIN big ON big.k = dim.k GROUP BY dim.name"},
	{"vov", "SELECT n % 7 AS m, count(*) AS c, sum(s) AS t FROM %s GROUP BY n % 7"},
}

// TestParallelViewsAgree creates the same views at parallelism 1, 2 and 4
// over the same table while a writer changes it during every backfill;
// each view must equal its query, and the views of every parallelism must
// equal each other, after the backfill and after more writes.
func TestParallelViewsAgree(t *testing.T) {
	rows := backfillRows() / 10 // 5,000 by default
	db := openMem(t)
	loadBig(t, db, rows)
	s := db.NewSession()
	ctx := context.Background()
	// Slow the backfills down so that the writes land in every phase.
	if _, err := s.Exec(ctx, "SET backfill_rate_limit = 20000"); err != nil {
		t.Fatal(err)
	}
	pars := []int{1, 2, 4}
	for i, p := range pars {
		if _, err := s.Exec(ctx, fmt.Sprintf("SET streaming_parallelism = %d", p)); err != nil {
			t.Fatal(err)
		}
		for j, v := range parallelViews {
			w := startWriter(db, rows, int64(10*i+j))
			if _, err := s.Exec(ctx, fmt.Sprintf("CREATE MATERIALIZED VIEW %s_%d AS %s", v.name, p, viewQuery(v.query, p))); err != nil {
				t.Fatal(err)
			}
			w.halt(t)
		}
		checkParallelViews(t, db, pars[:i+1])
	}
	// Updates of dim's key move its rows between vnodes and join keys.
	w := startWriter(db, rows, 99)
	for k := range 40 {
		mustExec(t, db, fmt.Sprintf("UPDATE dim SET k = k + 50 WHERE k = %d", k))
	}
	for k := 0; k < 40; k += 2 {
		mustExec(t, db, fmt.Sprintf("UPDATE dim SET k = k - 50, name = name || '!' WHERE k = %d", k+50))
	}
	w.halt(t)
	checkParallelViews(t, db, pars)
	for _, p := range pars {
		if n := len(queryRows(t, db, fmt.Sprintf("SELECT actor FROM streamdb_catalog.actors WHERE relation = 'agg_%d' AND kind = 'agg'", p))); n != p {
			t.Errorf("agg_%d has %d agg actors, want %d", p, n, p)
		}
	}
}

// viewQuery fills in the upstream of the view over a view.
func viewQuery(q string, p int) string {
	if strings.Contains(q, "%s") {
		return strings.ReplaceAll(q, "%s", fmt.Sprintf("agg_%d", p))
	}
	return q
}

func checkParallelViews(t *testing.T, db *streamdb.DB, pars []int) {
	t.Helper()
	for _, v := range parallelViews {
		var first []string
		for _, p := range pars {
			name := fmt.Sprintf("%s_%d", v.name, p)
			checkView(t, db, name, viewQuery(v.query, p))
			got := queryRows(t, db, "SELECT * FROM "+name)
			if v.name == "vov" {
				continue // over agg_p, equal to its own query
			}
			if first == nil {
				first = got
			} else if strings.Join(got, "\n") != strings.Join(first, "\n") {
				t.Fatalf("%s differs from %s_%d", name, v.name, pars[0])
			}
		}
	}
}

// TestParallelVnodeOwnership checks that in every fragment of parallel
// jobs the actors own disjoint vnode sets covering all 256 vnodes, with
// the job's parallelism (1 for a global aggregate), and that a reopened
// database rebuilds the same actors' vnode sets.
func TestParallelVnodeOwnership(t *testing.T) {
	dir := t.TempDir()
	db, err := streamdb.Open(dir, &streamdb.Options{NoSync: true, Parallelism: 3})
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, "CREATE TABLE t (id int PRIMARY KEY, k int, v int)")
	mustExec(t, db, "CREATE TABLE d (k int PRIMARY KEY, name text)")
	mustExec(t, db, "INSERT INTO t SELECT g, g % 10, g FROM generate_series(1, 1000) AS g")
	mustExec(t, db, "CREATE MATERIALIZED VIEW a AS SELECT k, count(*) AS n FROM t GROUP BY k")
	mustExec(t, db, "CREATE MATERIALIZED VIEW j WITH (streaming_parallelism = 5) AS SELECT t.id, d.name FROM t FULL JOIN d ON t.k = d.k")
	mustExec(t, db, "CREATE MATERIALIZED VIEW g AS SELECT count(*) AS n FROM a")
	before := checkOwnership(t, db, map[string]int{"a": 3, "j": 5, "g": 3})
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = streamdb.Open(dir, &streamdb.Options{NoSync: true, Parallelism: 3})
	if err != nil {
		t.Fatal(err)
	}
	after := checkOwnership(t, db, map[string]int{"a": 3, "j": 5, "g": 3})
	if strings.Join(before, "\n") != strings.Join(after, "\n") {
		t.Fatalf("vnode ownership changed across a restart:\n%s\nvs\n%s", strings.Join(before, "\n"), strings.Join(after, "\n"))
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// Views created without a parallelism are adaptive: they follow the
	// default of the database that runs them; j's stays fixed.
	db, err = streamdb.Open(dir, &streamdb.Options{NoSync: true, Parallelism: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	checkOwnership(t, db, map[string]int{"a": 2, "j": 5, "g": 2})
	mustExec(t, db, "INSERT INTO t SELECT g, g % 13, g FROM generate_series(1001, 2000) AS g")
	mustExec(t, db, "INSERT INTO d VALUES (1, 'one'), (12, 'twelve')")
	checkView(t, db, "a", "SELECT k, count(*) AS n FROM t GROUP BY k")
	checkView(t, db, "j", "SELECT t.id, d.name FROM t FULL JOIN d ON t.k = d.k")
	checkView(t, db, "g", "SELECT count(*) AS n FROM a")
}

// checkOwnership checks every fragment of the views in want (view ->
// parallelism) and returns the views' fragments as "view|fragment|kind|vnodes"
// lines, by actor position.
func checkOwnership(t *testing.T, db *streamdb.DB, want map[string]int) []string {
	t.Helper()
	rows, err := db.Query(context.Background(), "SELECT relation, fragment, kind, vnode_count, vnodes FROM streamdb_catalog.actors ORDER BY relation, fragment, vnodes")
	if err != nil {
		t.Fatal(err)
	}
	type frag struct {
		kind   string
		owners [256]int
		actors int
		vnodes []string
	}
	frags := map[string]*frag{}
	var order []string
	for rows.Next() {
		v := rows.Values()
		rel, kind, ranges := v[0].(string), v[2].(string), v[4].(string)
		if _, ok := want[rel]; !ok {
			continue
		}
		key := fmt.Sprintf("%s|%d", rel, v[1])
		f := frags[key]
		if f == nil {
			f = &frag{kind: kind}
			frags[key] = f
			order = append(order, key)
		}
		f.actors++
		f.vnodes = append(f.vnodes, ranges)
		n := 0
		for _, vn := range parseRanges(t, ranges) {
			if f.owners[vn] != 0 {
				t.Errorf("%s: vnode %d owned by actors %d and %d", key, vn, f.owners[vn], f.actors)
			}
			f.owners[vn] = f.actors
			n++
		}
		if int64(n) != v[3].(int64) {
			t.Errorf("%s: vnode_count %d for %q", key, v[3], ranges)
		}
	}
	var out []string
	for _, key := range order {
		f := frags[key]
		for vn, o := range f.owners {
			if o == 0 {
				t.Errorf("%s: vnode %d has no owner", key, vn)
			}
		}
		rel := key[:strings.Index(key, "|")]
		wantActors := want[rel]
		if f.kind == "agg" && rel == "g" {
			wantActors = 1 // a global aggregate
		}
		if f.actors != wantActors {
			t.Errorf("%s (%s): %d actors, want %d", key, f.kind, f.actors, wantActors)
		}
		out = append(out, fmt.Sprintf("%s|%s|%s", key, f.kind, strings.Join(f.vnodes, " ")))
	}
	if len(order) < len(want) {
		t.Errorf("fragments %v, want some of every view in %v", order, want)
	}
	return out
}

func parseRanges(t *testing.T, s string) []int {
	t.Helper()
	var out []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			t.Fatalf("vnodes %q: %v", s, err)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				t.Fatalf("vnodes %q: %v", s, err)
			}
		}
		for v := a; v <= b; v++ {
			out = append(out, v)
		}
	}
	return out
}

// TestStreamingParallelismSetting: the session variable and the WITH
// option take an integer from 1 to 64 (else 22023); ALTER ... SET
// PARALLELISM rescales a view.
func TestStreamingParallelismSetting(t *testing.T) {
	db := openMem(t)
	s := db.NewSession()
	ctx := context.Background()
	mustExec(t, db, "CREATE TABLE t (id int PRIMARY KEY, k int)")
	for _, v := range []string{"0", "65", "-1", "'x'", "1.5"} {
		_, err := s.Exec(ctx, "SET streaming_parallelism = "+v)
		if pgerr.Code(err) != pgerr.InvalidParameterValue {
			t.Errorf("SET streaming_parallelism = %s: %v, want 22023", v, err)
		}
		_, err = s.Exec(ctx, "CREATE MATERIALIZED VIEW bad WITH (streaming_parallelism = "+v+") AS SELECT k, count(*) FROM t GROUP BY k")
		if pgerr.Code(err) != pgerr.InvalidParameterValue {
			t.Errorf("WITH (streaming_parallelism = %s): %v, want 22023", v, err)
		}
	}
	for _, q := range []string{"SET streaming_parallelism = 3", "CREATE MATERIALIZED VIEW v3 AS SELECT k, count(*) FROM t GROUP BY k",
		"SET streaming_parallelism TO DEFAULT", "CREATE MATERIALIZED VIEW v4 WITH (streaming_parallelism = 4) AS SELECT k, count(*) FROM t GROUP BY k"} {
		if _, err := s.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for view, n := range map[string]int{"v3": 3, "v4": 4} {
		if got := len(queryRows(t, db, fmt.Sprintf("SELECT actor FROM streamdb_catalog.actors WHERE relation = '%s' AND kind = 'agg'", view))); got != n {
			t.Errorf("%s: %d agg actors, want %d", view, got, n)
		}
	}
	if got := queryRows(t, db, "SHOW streaming_parallelism"); strings.Join(got, "") != "default" {
		t.Errorf("SHOW streaming_parallelism after SET DEFAULT: %v", got)
	}
	if _, err := s.Exec(ctx, "ALTER MATERIALIZED VIEW v3 SET PARALLELISM = 2"); err != nil {
		t.Errorf("ALTER ... SET PARALLELISM: %v", err)
	}
	if got := len(queryRows(t, db, "SELECT actor FROM streamdb_catalog.actors WHERE relation = 'v3' AND kind = 'agg'")); got != 2 {
		t.Errorf("v3 after SET PARALLELISM = 2: %d agg actors, want 2", got)
	}
}
