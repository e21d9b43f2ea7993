//go:build linux

package tests

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/bench"
)

// tpchRounds are the rounds of changes to orders and lineitem after the
// load; the views are checked after each. One under the race detector
// or -short: each check runs the 22 batch queries, about 9 s under the
// race detector.
func tpchRounds() int {
	if raceEnabled || testing.Short() {
		return 1
	}
	return 3
}

// TestTPCHViews: the 22 TPC-H queries as views over a small generated
// data set, the odd ones created before the load (kept up to date row
// by row) and the even ones after it (backfilled), equal to the same
// queries run as batch SELECTs after the load and after each round of
// inserts, updates and deletes on orders and lineitem.
// STREAMDB_TPCH_SCALE multiplies the data set (default 1: 500 orders).
func TestTPCHViews(t *testing.T) {
	w := newTPCHWorkload(tpchScale(t))
	db, fl := openWatched(t)
	tpchExec(t, db, w.schema())
	var early, late []bench.TPCHQuery
	for i, q := range bench.TPCHQueries {
		if i%2 == 0 {
			early = append(early, q)
		} else {
			late = append(late, q)
		}
	}
	createTPCHViews(t, db, early)
	start := time.Now()
	tpchExec(t, db, w.load())
	mustExec(t, db, "FLUSH")
	t.Logf("load: %v", time.Since(start))
	createTPCHViews(t, db, late)
	checkTPCHViews(t, db, "after the load", true)
	for r := 1; r <= tpchRounds(); r++ {
		start = time.Now()
		tpchExec(t, db, w.round())
		mustExec(t, db, "FLUSH")
		t.Logf("round %d: %v", r, time.Since(start))
		checkTPCHViews(t, db, fmt.Sprintf("after round %d", r), false)
	}
	fl.check(t)
}

// TestTPCHPostgres: the 22 queries answer on streamdb what PostgreSQL
// answers over the same data, after the load and after the rounds of
// changes of TestTPCHViews. PostgreSQL runs the specification's text of
// the queries streamdb runs rewritten.
func TestTPCHPostgres(t *testing.T) {
	ctx := context.Background()
	pg := startPostgres(t)
	conn, err := pg.connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	db := openMem(t)
	w := newTPCHWorkload(tpchScale(t))
	both := func(stmts []string) {
		t.Helper()
		tpchExec(t, db, stmts)
		for _, s := range stmts {
			if _, err := conn.Exec(ctx, s); err != nil {
				t.Fatalf("postgres: %.200s: %v", s, err)
			}
		}
	}
	both(w.schema())
	both(w.load())
	for _, q := range bench.TPCHQueries {
		compareTPCHPostgres(t, ctx, conn, db, q, "after the load")
	}
	// After the rounds only: the batch queries with correlated
	// subqueries (q2, q4, q17, q20) take seconds each on streamdb.
	for range tpchRounds() {
		both(w.round())
	}
	for _, q := range bench.TPCHQueries {
		compareTPCHPostgres(t, ctx, conn, db, q, fmt.Sprintf("after %d rounds of changes", tpchRounds()))
	}
}

// compareTPCHPostgres compares q's answers on both systems.
func compareTPCHPostgres(t *testing.T, ctx context.Context, conn *pgx.Conn, db *streamdb.DB, q bench.TPCHQuery, when string) {
	t.Helper()
	want, err := tpchQueryResult(q, func(sql string) ([]string, []string, error) {
		res := runPG(ctx, conn, sql)
		if res.failed() {
			return nil, nil, fmt.Errorf("%s %s", res.code, res.msg)
		}
		return res.cols, rowLines(res.rows, false), nil
	})
	if err != nil {
		t.Fatalf("%s on postgres: %v", q.Name, err)
	}
	got, err := tpchQueryResult(q, sdbRunner(db))
	if err != nil {
		t.Errorf("%s on streamdb: %v", q.Name, err)
		return
	}
	if d := diffTPCH(q, got, want); d != "" {
		t.Errorf("%s %s: streamdb (first) differs from postgres (second): %s", q.Name, when, d)
	}
}

// tpchScale is STREAMDB_TPCH_SCALE, 1 by default.
func tpchScale(t *testing.T) int {
	s := os.Getenv("STREAMDB_TPCH_SCALE")
	if s == "" {
		return 1
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("STREAMDB_TPCH_SCALE=%q: want a positive integer", s)
	}
	return n
}

func tpchExec(t *testing.T, db *streamdb.DB, stmts []string) {
	t.Helper()
	for _, s := range stmts {
		start := time.Now()
		if _, err := db.Exec(context.Background(), s); err != nil {
			t.Fatalf("%.200s: %v", s, err)
		}
		if d := time.Since(start); d > time.Second {
			t.Logf("%v: %.100s", d, s)
		}
	}
}

func tpchView(q bench.TPCHQuery) string { return "tpch_" + q.Name }

func createTPCHViews(t *testing.T, db *streamdb.DB, qs []bench.TPCHQuery) {
	t.Helper()
	for _, q := range qs {
		start := time.Now()
		mustExec(t, db, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", tpchView(q), q.SQL))
		t.Logf("%s: created in %v", q.Name, time.Since(start).Round(time.Millisecond))
	}
}

// tpchResult is a result as compared: its column names and its rows
// (sorted lines), and for a query with a LIMIT, a way to run the query
// without it.
type tpchResult struct {
	cols, rows []string
	unlimited  func() ([]string, error)
}

// tpchRunner runs a query and returns its column names and rows.
type tpchRunner func(sql string) (cols, rows []string, err error)

// tpchQueryResult runs q.
func tpchQueryResult(q bench.TPCHQuery, run tpchRunner) (tpchResult, error) {
	cols, rows, err := run(q.SQL)
	res := tpchResult{cols: cols, rows: rows}
	if q.OrderBy != "" {
		res.unlimited = func() ([]string, error) {
			_, rows, err := run(q.SQL[:strings.LastIndex(q.SQL, "\nlimit ")])
			return rows, err
		}
	}
	return res, err
}

// sdbRunner runs queries on db.
func sdbRunner(db *streamdb.DB) tpchRunner {
	return func(sql string) ([]string, []string, error) {
		rows, err := db.Query(context.Background(), sql)
		if err != nil {
			return nil, nil, err
		}
		var cols []string
		for _, c := range rows.Columns {
			cols = append(cols, c.Name)
		}
		var lines [][]*string
		for rows.Next() {
			lines = append(lines, rows.Text())
		}
		return cols, rowLines(lines, false), nil
	}
}

// diffTPCH describes how got differs from want (q's results), or
// returns "". Results of a query with a LIMIT also agree when they hold
// the same ORDER BY values and got's rows are rows of the query without
// its limit: rows tied on the ORDER BY columns may fall on either side
// of the limit.
func diffTPCH(q bench.TPCHQuery, got, want tpchResult) string {
	d := diffLines(got.rows, want.rows)
	if d == "" || q.OrderBy == "" {
		return d
	}
	keys := strings.Split(q.OrderBy, ", ")
	if dk := diffLines(projectLines(got, keys), projectLines(want, keys)); dk != "" {
		return d
	}
	unlimited, err := want.unlimited()
	if err != nil {
		return fmt.Sprintf("%s (and without its limit the query failed: %v)", d, err)
	}
	if extra := missingLines(got.rows, unlimited); len(extra) > 0 {
		return fmt.Sprintf("rows not in the query's result without its limit: %s", clip(extra))
	}
	return ""
}

// projectLines are res's rows cut to the columns named (sorted).
func projectLines(res tpchResult, names []string) []string {
	var idx []int
	for _, n := range names {
		idx = append(idx, slices.Index(res.cols, n))
	}
	out := make([]string, len(res.rows))
	for i, l := range res.rows {
		fields := strings.Split(l, "|")
		parts := make([]string, len(idx))
		for j, k := range idx {
			if k >= 0 && k < len(fields) {
				parts[j] = fields[k]
			}
		}
		out[i] = strings.Join(parts, "|")
	}
	slices.Sort(out)
	return out
}

func diffLines(got, want []string) string {
	if slices.Equal(got, want) {
		return ""
	}
	return fmt.Sprintf("only in the first: %s; only in the second: %s (%d and %d rows)",
		clip(missingLines(got, want)), clip(missingLines(want, got)), len(got), len(want))
}

// missingLines are the lines of a (a multiset) that b lacks.
func missingLines(a, b []string) []string {
	n := map[string]int{}
	for _, l := range b {
		n[l]++
	}
	var out []string
	for _, l := range a {
		if n[l] == 0 {
			out = append(out, l)
			continue
		}
		n[l]--
	}
	return out
}

// checkTPCHViews checks every view (and with notEmpty, that every query
// returns something), and logs the rows each query returned.
func checkTPCHViews(t *testing.T, db *streamdb.DB, when string, notEmpty bool) {
	t.Helper()
	start := time.Now()
	var counts []string
	for _, q := range bench.TPCHQueries {
		rows := checkTPCHView(t, db, q, when)
		if notEmpty {
			checkTPCHNotEmpty(t, q, rows)
		}
		counts = append(counts, fmt.Sprintf("%s:%d", q.Name, len(rows)))
	}
	t.Logf("%s: checked in %v; rows %s", when, time.Since(start).Round(time.Millisecond), strings.Join(counts, " "))
}

// checkTPCHView checks that q's view holds what q returns, and returns
// what q returned.
func checkTPCHView(t *testing.T, db *streamdb.DB, q bench.TPCHQuery, when string) []string {
	t.Helper()
	run := sdbRunner(db)
	want, err := tpchQueryResult(q, run)
	if err != nil {
		t.Errorf("%s: batch query: %v", q.Name, err)
		return nil
	}
	var got tpchResult
	if got.cols, got.rows, err = run("SELECT * FROM " + tpchView(q)); err != nil {
		t.Errorf("%s: view: %v", q.Name, err)
		return want.rows
	}
	if d := diffTPCH(q, got, want); d != "" {
		t.Errorf("%s %s: the view (first) differs from its query (second): %s", q.Name, when, d)
	}
	return want.rows
}

// checkTPCHNotEmpty fails when q returns no rows or only NULLs (an
// aggregate over no rows) over the loaded data: the generator must give
// every query something to check.
func checkTPCHNotEmpty(t *testing.T, q bench.TPCHQuery, rows []string) {
	t.Helper()
	if len(rows) == 0 || strings.Trim(strings.ReplaceAll(rows[0], "NULL", ""), "|") == "" {
		t.Errorf("%s returns nothing over the loaded data (%v): the test checks nothing", q.Name, rows)
	}
}

// tpchWorkload is the statements of the tests: the schema, the load,
// and rounds of changes to orders and lineitem, the same text for every
// run (and for streamdb and PostgreSQL). It tracks the keys of orders
// and lineitems.
type tpchWorkload struct {
	gen  *bench.TPCHGen
	rng  *rand.Rand
	keys []int64         // order keys, ascending
	line map[int64][]int // line numbers of each order
}

func newTPCHWorkload(scale int) *tpchWorkload {
	gen := bench.NewTPCHGen(scale, 1)
	return &tpchWorkload{gen: gen, rng: gen.Rand(), line: map[int64][]int{}}
}

func (w *tpchWorkload) schema() []string {
	var out []string
	for _, tbl := range bench.TPCHTables {
		out = append(out, bench.TPCHDDL(tbl))
	}
	return append(out, bench.TPCHPlainViews...)
}

// load inserts every table, 200 rows a statement.
func (w *tpchWorkload) load() []string {
	data := w.gen.Tables()
	w.track(data["lineitem"])
	var out []string
	for _, tbl := range bench.TPCHTables {
		out = append(out, tpchInserts(tbl, data[tbl])...)
	}
	return out
}

func tpchInserts(table string, rows [][]string) []string {
	var out []string
	for len(rows) > 0 {
		n := min(len(rows), 200)
		out = append(out, bench.TPCHInsert(table, rows[:n]))
		rows = rows[n:]
	}
	return out
}

// track records the keys of new lineitems (and so of their orders).
func (w *tpchWorkload) track(lineitems [][]string) {
	for _, l := range lineitems {
		o, _ := strconv.ParseInt(l[0], 10, 64)
		n, _ := strconv.Atoi(l[3])
		if len(w.line[o]) == 0 {
			w.keys = append(w.keys, o)
		}
		w.line[o] = append(w.line[o], n)
	}
}

// round is one round of changes, each touching about 1 in 40 orders:
// new orders, deleted orders and lineitems, and updates of the columns
// the queries filter, join and group on.
func (w *tpchWorkload) round() []string {
	n := max(len(w.keys)/40, 2)
	orders, lineitems := w.gen.Orders(n)
	out := []string{bench.TPCHInsert("orders", orders), bench.TPCHInsert("lineitem", lineitems)}
	w.track(lineitems)
	out = append(out, w.updates(n)...)
	out = append(out, w.lineDeletes(n)...)
	return append(out, w.orderDeletes(n)...)
}

func (w *tpchWorkload) updates(n int) []string {
	return []string{
		// q18's threshold, q6's and q19's ranges
		"UPDATE lineitem SET l_quantity = l_quantity + 7, l_extendedprice = l_extendedprice + 100.00, l_discount = 0.06 WHERE l_orderkey IN " + w.someOrders(n),
		// the date windows, late lineitems (q4, q12, q21)
		"UPDATE lineitem SET l_shipdate = l_shipdate + 40, l_receiptdate = l_receiptdate + 40 WHERE l_orderkey IN " + w.someOrders(n),
		"UPDATE lineitem SET l_returnflag = 'R', l_shipmode = 'AIR', l_shipinstruct = 'DELIVER IN PERSON' WHERE l_orderkey IN " + w.someOrders(n),
		"UPDATE orders SET o_orderpriority = '1-URGENT', o_orderstatus = 'F', o_totalprice = o_totalprice * 1.015 WHERE o_orderkey IN " + w.someOrders(n),
		"UPDATE orders SET o_orderdate = o_orderdate - 200 WHERE o_orderkey IN " + w.someOrders(n),
		// q13's filter
		"UPDATE orders SET o_comment = 'carefully special pending requests' WHERE o_orderkey IN " + w.someOrders(n),
		// join keys: another customer (perhaps one of q22's without orders), another part
		fmt.Sprintf("UPDATE orders SET o_custkey = %d WHERE o_orderkey IN %s", 1+w.rng.Intn(w.gen.Customers()), w.someOrders(n)),
		w.partChange(),
	}
}

// partChange moves a lineitem to another part and one of its suppliers.
func (w *tpchWorkload) partChange() string {
	o := w.keys[w.rng.Intn(len(w.keys))]
	p := 1 + w.rng.Intn(w.gen.Parts())
	return fmt.Sprintf("UPDATE lineitem SET l_partkey = %d, l_suppkey = %d WHERE l_orderkey = %d AND l_linenumber = %d",
		p, w.gen.PartSuppliers(p)[w.rng.Intn(4)], o, w.line[o][0])
}

// someOrders is an IN list of n random order keys.
func (w *tpchWorkload) someOrders(n int) string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = strconv.FormatInt(w.keys[w.rng.Intn(len(w.keys))], 10)
	}
	return "(" + strings.Join(keys, ", ") + ")"
}

// lineDeletes deletes the last lineitem of n orders that have two or
// more.
func (w *tpchWorkload) lineDeletes(n int) []string {
	var out []string
	for range n {
		o := w.keys[w.rng.Intn(len(w.keys))]
		ls := w.line[o]
		if len(ls) < 2 {
			continue
		}
		out = append(out, fmt.Sprintf("DELETE FROM lineitem WHERE l_orderkey = %d AND l_linenumber = %d", o, ls[len(ls)-1]))
		w.line[o] = ls[:len(ls)-1]
	}
	return out
}

// orderDeletes deletes n orders and their lineitems.
func (w *tpchWorkload) orderDeletes(n int) []string {
	var keys []string
	for range n {
		i := w.rng.Intn(len(w.keys))
		keys = append(keys, strconv.FormatInt(w.keys[i], 10))
		delete(w.line, w.keys[i])
		w.keys = slices.Delete(w.keys, i, i+1)
	}
	in := "(" + strings.Join(keys, ", ") + ")"
	return []string{"DELETE FROM lineitem WHERE l_orderkey IN " + in, "DELETE FROM orders WHERE o_orderkey IN " + in}
}
