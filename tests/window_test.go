package tests

import (
	"context"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/streamdb/streamdb"
)

// windowViews are window-function views whose results do not depend on
// how peers are ordered (each ORDER BY is total where the function sees
// row order), so the view must equal its query exactly.
var windowViews = map[string]string{
	"w_rank": `SELECT id, row_number() OVER (PARTITION BY g ORDER BY v, id) AS rn, rank() OVER w AS rk,
		dense_rank() OVER w AS dr, percent_rank() OVER w AS pr, cume_dist() OVER w AS cd,
		ntile(3) OVER (PARTITION BY g ORDER BY v, id) AS nt
		FROM t WINDOW w AS (PARTITION BY g ORDER BY v)`,
	"w_lag": `SELECT id, lag(v, 2, 0) OVER w AS l2, lead(v) OVER w AS l1, lag(s) OVER w AS ls
		FROM t WINDOW w AS (PARTITION BY g ORDER BY v DESC NULLS LAST, id)`,
	"w_running": `SELECT id, sum(v) OVER w AS s, count(v) OVER w AS c, count(*) OVER w AS cs,
		min(v) OVER w AS mn, max(v) OVER w AS mx, avg(v) OVER w AS av, first_value(v) OVER w AS fv,
		last_value(v) OVER w AS lv
		FROM t WINDOW w AS (PARTITION BY g ORDER BY v)`,
	"w_sliding": `SELECT id, sum(v) OVER w AS s, first_value(v) OVER w AS fv, last_value(v) OVER w AS lv,
		nth_value(v, 2) OVER w AS nv, max(v) OVER w AS mx
		FROM t WINDOW w AS (PARTITION BY g ORDER BY id ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING)`,
	"w_suffix": `SELECT id, count(v) OVER (PARTITION BY g ORDER BY v, id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS c,
		sum(v) OVER (PARTITION BY g ORDER BY v RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS s,
		max(v) OVER (PARTITION BY g) AS mx
		FROM t`,
	// The regression family over frames (bound as max(marker) OVER).
	"w_regr": `SELECT id, regr_count(v, id) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 3 PRECEDING AND CURRENT ROW) AS n,
		corr(v, id % 7) OVER (PARTITION BY g ORDER BY v, id)::numeric AS c FROM t`,
	"w_global": `SELECT id, row_number() OVER (ORDER BY v, id) AS rn, sum(v) OVER () AS total,
		lag(id) OVER (ORDER BY id) AS prev FROM t`,
	"w_grouped": `SELECT g, sum(v) AS s, rank() OVER (ORDER BY sum(v) DESC) AS rk,
		sum(sum(v)) OVER (ORDER BY g) AS run FROM t GROUP BY g`,
	// Top-N: planned as TopN operators.
	"w_filtered":  `SELECT id, g, rn FROM (SELECT id, g, row_number() OVER (PARTITION BY g ORDER BY v DESC, id) AS rn FROM t) x WHERE rn <= 3`,
	"w_top_rank":  `SELECT * FROM (SELECT id, g, v, rank() OVER (PARTITION BY g ORDER BY v DESC NULLS LAST) AS r FROM t) x WHERE r <= 3 AND id % 2 = 0`,
	"w_top_dense": `SELECT * FROM (SELECT id, g, v, dense_rank() OVER (PARTITION BY g ORDER BY v) AS r FROM t) x WHERE 3 > r`,
	"w_top_first": `SELECT id, g, s FROM (SELECT id, g, s, row_number() OVER (PARTITION BY g ORDER BY s NULLS FIRST, id DESC) AS rn FROM t) x WHERE rn = 1`,
	"w_top_limit": `SELECT id, v FROM t ORDER BY v DESC NULLS LAST, id LIMIT 7 OFFSET 2`,
	// RANGE frames with offsets: the changed partition is recomputed.
	"w_range": `SELECT id, sum(v) OVER (PARTITION BY g ORDER BY v RANGE BETWEEN 10 PRECEDING AND 5 FOLLOWING) AS s,
		count(*) OVER (PARTITION BY g ORDER BY v DESC RANGE BETWEEN CURRENT ROW AND 3 FOLLOWING) AS c FROM t`,
	"w_distinct_on": `SELECT DISTINCT ON (g) g, id, v FROM t ORDER BY g, v DESC NULLS LAST, id`,
}

// subqueryViews are views over subqueries, each planned as joins (see
// planner/decorrelate.go): scalar ones, correlated or not, NOT IN with
// NULLs on both sides, and EXISTS and IN as values and under OR; and
// views over set-returning functions.
var subqueryViews = map[string]string{
	"q_above_avg": `SELECT id, v FROM t WHERE v > (SELECT avg(v) FROM t)`,
	"q_correlated": `SELECT id, (SELECT count(*) FROM t t2 WHERE t2.g = t.g AND t2.v > 50) AS c,
		(SELECT max(v) FROM t t2 WHERE t2.s = t.s) AS m FROM t`,
	"q_not_in": `SELECT id, g NOT IN (SELECT v FROM t WHERE v < 5 OR v IS NULL AND id % 7 = 0) AS ni,
		v IN (SELECT g * 30 FROM t) AS i FROM t`,
	"q_or_exists": `SELECT id FROM t WHERE g IN (SELECT g FROM t WHERE v > 110)
		OR EXISTS (SELECT 1 FROM t t2 WHERE t2.v = t.g AND t2.s = 's3')`,
	// Set-returning functions (a ProjectSet): in the select list, and in
	// FROM over the row, grouped by.
	"q_series":      `SELECT id, generate_series(1, g) AS k, v FROM t`,
	"q_words":       `SELECT w, count(*) AS c, sum(v) AS sv FROM t, unnest(string_to_array(s || ',x', ',')) AS w GROUP BY w`,
	"q_left_series": `SELECT id, k FROM t LEFT JOIN generate_series(1, t.g) AS k ON k > 1`,
	"q_ordinality":  `SELECT n, count(*) AS c, max(w) AS mw FROM t, unnest(string_to_array(s || ',y', ',')) WITH ORDINALITY AS u(w, n) GROUP BY n`,
	// Several in lockstep, LEFT JOIN LATERAL WITH ORDINALITY, jsonb_each.
	"q_lockstep":     `SELECT id, generate_series(1, g) AS k, unnest(string_to_array(s, '1')) AS w, v FROM t`,
	"q_left_ordinal": `SELECT id, w, n FROM t LEFT JOIN LATERAL unnest(string_to_array(s, '1')) WITH ORDINALITY AS u(w, n) ON n > 1`,
	"q_each": `SELECT e.key, count(*) AS c, sum(e.value::int) AS sv FROM t,
		jsonb_each_text(jsonb_build_object('g', g, 'v', v)) AS e GROUP BY e.key`,
	// LATERAL subqueries: a Top-N per key, and an aggregate per key.
	"q_lateral_top": `SELECT a.id, x.id AS xid, x.v FROM t a LEFT JOIN LATERAL
		(SELECT id, v FROM t b WHERE b.g = a.g AND b.s = a.s ORDER BY v DESC NULLS LAST, id LIMIT 2) x ON true`,
	"q_lateral_agg": `SELECT a.id, x.n, x.mx FROM t a CROSS JOIN LATERAL
		(SELECT count(*) AS n, max(v) AS mx FROM t b WHERE b.s = a.s AND b.v > 100) x`,
}

// listViews keep each group's inputs as a list (string_agg, array_agg):
// ordered, DISTINCT, filtered, and over the whole table.
var listViews = map[string]string{
	"l_grouped": `SELECT g, string_agg(s, ',' ORDER BY v DESC NULLS LAST, id) AS ss, array_agg(DISTINCT v) AS dv,
		array_agg(id ORDER BY id) FILTER (WHERE v > 100) AS hi FROM t GROUP BY g`,
	"l_global": `SELECT array_agg(DISTINCT s ORDER BY s DESC) AS ds, count(*) AS c FROM t`,
	// Not lists, but aggregates the parser reads as calls too.
	"l_bool": `SELECT g, bool_and(v < 116) AS a, bool_or(v > 115) AS o, every(DISTINCT s IS NOT NULL) AS e FROM t GROUP BY g`,
	"l_stats": `SELECT g, variance(v) AS vv, stddev_pop(CASE WHEN v % 3 = 0 THEN v * 0.25 ELSE v END) AS sn,
		stddev(v::float8 / 3)::numeric AS sf, sum(CASE WHEN v % 7 = 0 THEN v * 0.125 ELSE v END) AS s7 FROM t GROUP BY g`,
	"l_bits": `SELECT g, bit_and(v + 64) AS a, bit_or(v) AS o, bit_xor(v) AS x FROM t GROUP BY g`,
	// Grouping sets (one aggregate over an Expand) and ordered-set
	// aggregates (lists).
	"l_rollup": `SELECT g, s, count(*) AS c, sum(v) AS sv, max(v) AS mx, grouping(g, s) AS gr FROM t GROUP BY ROLLUP (g, s)`,
	"l_cube":   `SELECT g, v % 3 AS m, count(DISTINCT s) AS ds FROM t GROUP BY CUBE (g, v % 3)`,
	"l_pct": `SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY v) AS med, percentile_disc(0.9) WITHIN GROUP (ORDER BY v DESC) AS p90,
		mode() WITHIN GROUP (ORDER BY s) AS common FROM t GROUP BY g`,
	"l_bits_distinct": `SELECT g, bit_xor(DISTINCT v) AS x, count(v ORDER BY id) AS c FROM t GROUP BY g`,
	// Two-argument aggregates: the pair packed into one argument.
	"l_regr": `SELECT g, corr(v, id)::numeric AS c, regr_slope(v, id % 17)::numeric AS sl, regr_count(v, id) AS n,
		covar_samp(v::float8 / 3, id)::numeric AS cs, regr_sxx(DISTINCT v, v % 5)::numeric AS sxx FROM t GROUP BY g`,
	"l_object": `SELECT g, jsonb_object_agg(coalesce(s, '-'), v ORDER BY id) AS jo,
		json_object_agg(id % 5, v ORDER BY id) FILTER (WHERE v > 50) AS js FROM t GROUP BY g`,
	"l_jsonb": `SELECT jsonb_build_object('g', g, 'odd', v % 2 = 1) AS k, jsonb_agg(v ORDER BY id) FILTER (WHERE v > 90) AS big,
		sum((jsonb_build_object('v', v) ->> 'v')::int) AS s FROM t GROUP BY 1`,
}

// TestWindowViewsRandom: window-function and subquery views stay equal
// to their queries under random INSERT, UPDATE and DELETE, across a
// backfill cut short by a restart, a rescale and another restart.
func TestWindowViewsRandom(t *testing.T) {
	seed := int64(1)
	if s := os.Getenv("STREAMDB_WINDOW_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	rounds, rows := 12, 2000
	if testing.Short() || raceEnabled {
		// The race detector slows the views' recomputation of large
		// partitions tenfold or more.
		rounds, rows = 5, 300
	}
	rng := rand.New(rand.NewSource(seed))
	dir := t.TempDir()
	ctx := context.Background()
	open := func() *streamdb.DB {
		t.Helper()
		db, err := streamdb.Open(dir, &streamdb.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open()
	defer func() { db.Close() }()
	mustExec(t, db, "CREATE TABLE t (id int PRIMARY KEY, g int, v int, s text)")
	// Few groups, so partitions are large (hundreds of rows) and a change
	// lands in the middle of one.
	mustExec(t, db, fmt.Sprintf("INSERT INTO t SELECT i, i %% 4, (i * 37) %% 101, 's' || (i %% 13) FROM generate_series(1, %d) i", rows))
	views := maps.Clone(windowViews)
	maps.Copy(views, subqueryViews)
	maps.Copy(views, listViews)
	names := slices.Collect(maps.Keys(views))
	slices.Sort(names)
	s := db.NewSession()
	for _, q := range []string{"SET background_ddl = true", "SET backfill_rate_limit = 500"} {
		if _, err := s.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range names {
		if _, err := s.Exec(ctx, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", n, views[n])); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
	}
	nextID := 3000
	write := func() {
		t.Helper()
		for range 1 + rng.Intn(4) {
			var q string
			switch rng.Intn(5) {
			case 0, 1:
				var vals []string
				for range 1 + rng.Intn(20) {
					nextID++
					v := strconv.Itoa(rng.Intn(120))
					if rng.Intn(10) == 0 {
						v = "NULL"
					}
					vals = append(vals, fmt.Sprintf("(%d, %d, %s, 's%d')", nextID, rng.Intn(5), v, rng.Intn(9)))
				}
				q = "INSERT INTO t VALUES " + joinComma(vals)
			case 2:
				q = fmt.Sprintf("UPDATE t SET v = v + %d WHERE id %% 97 = %d", rng.Intn(7)-3, rng.Intn(97))
			case 3:
				q = fmt.Sprintf("UPDATE t SET g = (g + 1) %% 5, s = NULL WHERE id %% 211 = %d", rng.Intn(211))
			default:
				q = fmt.Sprintf("DELETE FROM t WHERE id %% 89 = %d", rng.Intn(89))
			}
			mustExec(t, db, q)
		}
	}
	check := func(when string) {
		t.Helper()
		mustExec(t, db, "WAIT")
		for _, n := range names {
			got := queryRows(t, db, "SELECT * FROM "+n)
			want := queryRows(t, db, views[n])
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d, %s %s: the view differs from its query\n%s", seed, n, when, firstDiff(got, want))
			}
			if len(want) == 0 {
				t.Fatalf("%s %s: its query is empty: the test checks nothing", n, when)
			}
		}
	}
	// Writes land in the log stores while the backfills are held back,
	// then a restart cuts them short.
	write()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = open()
	for _, n := range names {
		mustExec(t, db, fmt.Sprintf("ALTER MATERIALIZED VIEW %s SET BACKFILL_RATE_LIMIT = DEFAULT", n))
	}
	check("after the resumed backfills")
	for r := range rounds {
		write()
		check(fmt.Sprintf("after round %d", r))
		switch r {
		case rounds / 3:
			mustExec(t, db, "ALTER MATERIALIZED VIEW w_rank SET PARALLELISM = 3")
			mustExec(t, db, "ALTER MATERIALIZED VIEW w_global SET PARALLELISM = 1")
			mustExec(t, db, "ALTER MATERIALIZED VIEW q_correlated SET PARALLELISM = 3")
		case 2 * rounds / 3:
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			db = open()
		}
	}
}

func joinComma(parts []string) string {
	out := ""
	for i, p := range parts {
		if i > 0 {
			out += ", "
		}
		out += p
	}
	return out
}

// firstDiff describes the first line where two sorted row lists differ.
func firstDiff(got, want []string) string {
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return fmt.Sprintf("row %d: view %q, query %q (%d and %d rows)", i, g, w, len(got), len(want))
		}
	}
	return "equal"
}
