package engine

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/planner"
)

// TestPruneDifferential: column pruning (planner/prune.go) never changes
// a result. Random queries over subsets of the columns of wide tables of
// several types run as batch SELECTs with pruning on and off, and as
// materialized views created over existing data (some backfills
// rate-limited, while writes go on, so their log stores replay changes),
// one view built with pruning and one without per query; random DML then
// follows, and after every step each pair of views and the query with
// pruning on and off all agree.
func TestPruneDifferential(t *testing.T) {
	steps := 60
	if s := os.Getenv("STREAMDB_PRUNE_STEPS"); s != "" {
		steps, _ = strconv.Atoi(s)
	}
	seed := int64(1)
	if s := os.Getenv("STREAMDB_PRUNE_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	defer planner.SetPruning(planner.SetPruning(true))
	rng := rand.New(rand.NewSource(seed))
	db, err := Open(":memory:", &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s := db.NewSession()
	mustExec(t, s,
		"CREATE TABLE p (id int PRIMARY KEY, k int, a bigint, b text, c numeric, d double precision, e text, f boolean, ts timestamp)",
		"CREATE TABLE q (id int PRIMARY KEY, k int, g text, h int, m numeric)",
		"CREATE TABLE r (k int, x text, y int)") // a hidden row id
	for range 120 {
		pruneDML(t, s, rng)
	}
	queries := make([]string, 0, 24)
	for len(queries) < cap(queries) {
		queries = append(queries, randomPruneQuery(rng))
	}
	for _, q := range queries {
		checkPrunedQuery(t, s, q, "before the views")
	}
	if t.Failed() {
		return
	}
	stop, wg, werr := startPruneWriter(db, seed)
	limits := []string{"", "WITH (backfill_rate_limit = 2000) "}
	for i, q := range queries {
		for _, on := range []bool{true, false} {
			planner.SetPruning(on)
			name := fmt.Sprintf("%s%d", map[bool]string{true: "pv", false: "uv"}[on], i)
			if _, err := s.Exec(context.Background(), fmt.Sprintf("CREATE MATERIALIZED VIEW %s %sAS %s", name, limits[i%2], q)); err != nil {
				close(stop)
				wg.Wait()
				t.Fatalf("%s: %s: %v", name, q, err)
			}
		}
	}
	planner.SetPruning(true)
	close(stop)
	wg.Wait()
	if *werr != nil {
		t.Fatal(*werr)
	}
	// A view over a pruned view, and over its unpruned twin.
	mustExec(t, s, "CREATE MATERIALIZED VIEW pvv AS SELECT count(*) AS n FROM pv0",
		"CREATE MATERIALIZED VIEW uvv AS SELECT count(*) AS n FROM uv0", "FLUSH")
	checkPrunedViews(t, s, queries, "after creation under writes")
	for step := 0; step < steps && !t.Failed(); step++ {
		stmt := pruneDML(t, s, rng)
		mustExec(t, s, "FLUSH")
		checkPrunedViews(t, s, queries, fmt.Sprintf("step %d (seed %d): %s", step, seed, stmt))
	}
}

// checkPrunedQuery runs q with pruning on and off and compares.
func checkPrunedQuery(t *testing.T, s *Session, q, when string) []string {
	t.Helper()
	planner.SetPruning(false)
	want := textRows(t, s, q)
	planner.SetPruning(true)
	got := textRows(t, s, q)
	if !slices.Equal(got, want) {
		t.Errorf("%s: %s\npruned:   %v\nunpruned: %v", when, q, got, want)
	}
	return want
}

// checkPrunedViews compares each query's pruned and unpruned views with
// the query, pruned and not.
func checkPrunedViews(t *testing.T, s *Session, queries []string, when string) {
	t.Helper()
	for i, q := range queries {
		want := checkPrunedQuery(t, s, q, when)
		for _, v := range []string{"pv", "uv"} {
			got := textRows(t, s, fmt.Sprintf("SELECT * FROM %s%d", v, i))
			if !slices.Equal(got, want) {
				t.Errorf("%s: view %s%d differs from %s\nview:  %v\nquery: %v", when, v, i, q, got, want)
			}
		}
	}
	if a, b := textRows(t, s, "SELECT * FROM pvv"), textRows(t, s, "SELECT * FROM uvv"); !slices.Equal(a, b) {
		t.Errorf("%s: pvv %v, uvv %v", when, a, b)
	}
}

// textRows runs q and returns its rows as sorted text lines.
func textRows(t *testing.T, s *Session, q string) []string {
	t.Helper()
	rows, err := s.Query(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	var out []string
	for rows.Next() {
		var parts []string
		for _, v := range rows.Text() {
			if v == nil {
				parts = append(parts, "NULL")
			} else {
				parts = append(parts, *v)
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	slices.Sort(out)
	return out
}

// startPruneWriter applies random DML until stop is closed.
func startPruneWriter(db *DB, seed int64) (chan struct{}, *sync.WaitGroup, *error) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var werr error
	wg.Add(1)
	go func() { // joined by the caller
		defer wg.Done()
		s := db.NewSession()
		rng := rand.New(rand.NewSource(seed + 1))
		for {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
			stmt := randomPruneDML(rng)
			if _, err := s.Exec(context.Background(), stmt); err != nil && pgerr.Code(err) != pgerr.UniqueViolation {
				werr = fmt.Errorf("%s: %w", stmt, err)
				return
			}
		}
	}()
	return stop, &wg, &werr
}

func pruneDML(t *testing.T, s *Session, rng *rand.Rand) string {
	t.Helper()
	stmt := randomPruneDML(rng)
	if _, err := s.Exec(context.Background(), stmt); err != nil && pgerr.Code(err) != pgerr.UniqueViolation {
		t.Fatalf("%s: %v", stmt, err)
	}
	return stmt
}

func orNull(rng *rand.Rand, v string) string {
	if rng.Intn(7) == 0 {
		return "NULL"
	}
	return v
}

func pText(rng *rand.Rand) string {
	return orNull(rng, fmt.Sprintf("'%s%d'", []string{"x", "yy", "zzz-long-text-value-", ""}[rng.Intn(4)], rng.Intn(5)))
}

func pInt(rng *rand.Rand, n int) string { return orNull(rng, strconv.Itoa(rng.Intn(n)-n/4)) }

func pNum(rng *rand.Rand) string {
	return orNull(rng, fmt.Sprintf("%d.%02d", rng.Intn(200)-50, rng.Intn(100)))
}

// randomPruneDML returns one random INSERT, UPDATE or DELETE of p, q or r.
func randomPruneDML(rng *rand.Rand) string {
	switch table := rng.Intn(3); {
	case table == 0:
		switch r := rng.Intn(10); {
		case r < 5:
			var vals []string
			for range 1 + rng.Intn(4) {
				vals = append(vals, fmt.Sprintf("(%d, %s, %s, %s, %s, %s, %s, %s, %s)", rng.Intn(80),
					pInt(rng, 6), pInt(rng, 1000), pText(rng), pNum(rng),
					orNull(rng, fmt.Sprintf("%d.5", rng.Intn(50))), pText(rng),
					orNull(rng, []string{"true", "false"}[rng.Intn(2)]),
					orNull(rng, fmt.Sprintf("'2024-01-%02d 10:00:00'", 1+rng.Intn(28)))))
			}
			return "INSERT INTO p VALUES " + strings.Join(vals, ", ")
		case r < 7:
			col, val := pUpdate(rng)
			return fmt.Sprintf("UPDATE p SET %s = %s WHERE id = %d", col, val, rng.Intn(80))
		case r < 8:
			col, val := pUpdate(rng)
			return fmt.Sprintf("UPDATE p SET %s = %s WHERE k = %d", col, val, rng.Intn(6))
		default:
			return fmt.Sprintf("DELETE FROM p WHERE id = %d", rng.Intn(80))
		}
	case table == 1:
		switch r := rng.Intn(10); {
		case r < 5:
			return fmt.Sprintf("INSERT INTO q VALUES (%d, %s, %s, %s, %s)", rng.Intn(40), pInt(rng, 6), pText(rng), pInt(rng, 100), pNum(rng))
		case r < 8:
			return fmt.Sprintf("UPDATE q SET %s WHERE id = %d", []string{
				"k = " + pInt(rng, 6), "g = " + pText(rng), "h = " + pInt(rng, 100), "m = " + pNum(rng)}[rng.Intn(4)], rng.Intn(40))
		default:
			return fmt.Sprintf("DELETE FROM q WHERE id = %d", rng.Intn(40))
		}
	default:
		switch r := rng.Intn(10); {
		case r < 6:
			return fmt.Sprintf("INSERT INTO r VALUES (%s, %s, %s)", pInt(rng, 6), pText(rng), pInt(rng, 100))
		case r < 8:
			return fmt.Sprintf("UPDATE r SET y = %s WHERE k = %d", pInt(rng, 100), rng.Intn(6))
		default:
			return fmt.Sprintf("DELETE FROM r WHERE y = %d", rng.Intn(100))
		}
	}
}

func pUpdate(rng *rand.Rand) (string, string) {
	switch rng.Intn(8) {
	case 0:
		return "k", pInt(rng, 6)
	case 1:
		return "a", pInt(rng, 1000)
	case 2:
		return "b", pText(rng)
	case 3:
		return "c", pNum(rng)
	case 4:
		return "d", orNull(rng, fmt.Sprintf("%d.25", rng.Intn(50)))
	case 5:
		return "e", pText(rng)
	case 6:
		return "f", orNull(rng, "true")
	default:
		return "ts", orNull(rng, "'2024-02-02 12:00:00'")
	}
}

// pCols are p's columns other than its key, by kind.
var (
	pAll     = []string{"k", "a", "b", "c", "d", "e", "f", "ts"}
	pGroupBy = []string{"k", "b", "f", "e"}
	pSum     = []string{"a", "c", "k"}
	pMax     = []string{"a", "b", "c", "e", "ts", "d"}
	pFilters = []string{"a > 100", "b LIKE 'x%'", "c < 10", "d > 20", "e IS NULL", "f", "ts > '2024-01-15'", "k = 2", "b || e = 'x1x1'"}
)

// subset returns 1 to max distinct random entries of cols, in order.
func subset(rng *rand.Rand, cols []string, max int) []string {
	var out []string
	for _, i := range rng.Perm(len(cols))[:1+rng.Intn(max)] {
		out = append(out, cols[i])
	}
	return out
}

func where(rng *rand.Rand, prefix string) string {
	if rng.Intn(2) == 0 {
		return ""
	}
	f := pFilters[rng.Intn(len(pFilters))]
	if prefix != "" {
		f = prefix + f // simple: the filters start with a column name
	}
	return " WHERE " + f
}

// randomPruneQuery returns a random query over a subset of the columns.
func randomPruneQuery(rng *rand.Rand) string {
	switch rng.Intn(9) {
	case 0: // projection
		return fmt.Sprintf("SELECT id, %s FROM p%s", strings.Join(subset(rng, pAll, 3), ", "), where(rng, ""))
	case 1: // grouped aggregate
		g := pGroupBy[rng.Intn(len(pGroupBy))]
		return fmt.Sprintf("SELECT %s, count(*) AS n, sum(%s) AS s, max(%s) AS hi FROM p%s GROUP BY %s",
			g, pSum[rng.Intn(len(pSum))], pMax[rng.Intn(len(pMax))], where(rng, ""), g)
	case 2: // global aggregate
		return fmt.Sprintf("SELECT count(*) AS n, count(%s) AS nn, min(%s) AS lo FROM p%s",
			pAll[rng.Intn(len(pAll))], pMax[rng.Intn(len(pMax))], where(rng, ""))
	case 3: // join
		return fmt.Sprintf("SELECT p.id, q.id AS qid, p.%s, q.%s FROM p JOIN q ON p.k = q.k%s",
			pAll[rng.Intn(len(pAll))], []string{"g", "h", "m"}[rng.Intn(3)], where(rng, "p."))
	case 4: // left join with an aggregate over it
		return fmt.Sprintf("SELECT q.g, count(p.id) AS n, sum(p.%s) AS s FROM q LEFT JOIN p ON p.k = q.k AND p.%s IS NOT NULL GROUP BY q.g",
			pSum[rng.Intn(len(pSum))], pAll[rng.Intn(len(pAll))])
	case 5: // semi join
		return fmt.Sprintf("SELECT id, %s FROM p WHERE k IN (SELECT k FROM q WHERE h > %d)", pAll[rng.Intn(len(pAll))], rng.Intn(60))
	case 6: // top-n
		c := pMax[rng.Intn(len(pMax))]
		return fmt.Sprintf("SELECT id, %s FROM p ORDER BY %s, id LIMIT %d", c, c, 1+rng.Intn(6))
	case 7: // window function
		return fmt.Sprintf("SELECT id, %s, row_number() OVER (PARTITION BY k ORDER BY %s, id) AS rn FROM p",
			pAll[rng.Intn(len(pAll))], pMax[rng.Intn(len(pMax))])
	default: // a table with a hidden row id, and DISTINCT
		return fmt.Sprintf("SELECT DISTINCT k, %s FROM r", []string{"x", "y"}[rng.Intn(2)])
	}
}
