package tests

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/failpoint"
)

// windowCloseViews are the views of TestWindowCloseRandom, each with the
// batch query it must equal and how its windows close: eowc views hold
// the windows that closed (window_start below the bound the watermark
// gives), the others every window (their closed groups' state is
// dropped, their rows stay).
var windowCloseViews = []struct {
	name, with, query string
	eowc              bool
	hop               bool // HOP(5 s slide, 15 s size); else TUMBLE(10 s)
	// closedBy, for an eowc view, is the output column its rows close
	// by: window_start (by hop or TUMBLE(10 s)) when empty, else this
	// column of the table's time, closed by the watermark itself.
	closedBy string
	late     bool // created after the first rows (a backfill)
	slack    int  // state keys the open windows may hold beyond 4
	// keeps: its state is not bounded (window functions keep every row
	// of a partition).
	keeps bool
}{
	{name: "t_eowc", query: "SELECT window_start, window_end, count(*) AS n, sum(price) AS s, min(price) AS lo, max(price) AS hi " +
		"FROM TUMBLE(bids, ts, INTERVAL '10 seconds') GROUP BY window_start, window_end", eowc: true},
	{name: "h_eowc", with: " WITH (streaming_parallelism = 2)", query: "SELECT window_start, count(*) AS n, sum(price) AS s " +
		"FROM HOP(bids, ts, INTERVAL '5 seconds', INTERVAL '15 seconds') GROUP BY window_start", eowc: true, hop: true, late: true},
	{name: "t_keyed_eowc", with: " WITH (streaming_parallelism = 3)", query: "SELECT price % 3 AS k, window_start, count(*) AS n " +
		"FROM TUMBLE(bids, ts, INTERVAL '10 seconds') GROUP BY price % 3, window_start", eowc: true},
	{name: "t_all", query: "SELECT window_start, count(*) AS n, count(DISTINCT price) AS d, max(price) AS hi " +
		"FROM TUMBLE(bids, ts, INTERVAL '10 seconds') GROUP BY window_start"},
	{name: "h_all", with: " WITH (streaming_parallelism = 2)", query: "SELECT window_end, sum(price) AS s " +
		"FROM HOP(bids, ts, INTERVAL '5 seconds', INTERVAL '15 seconds') GROUP BY window_end", hop: true, late: true},
	// An aggregate over a windowed aggregate closes too: the watermark
	// bounds the groups of the first, so its changes.
	{name: "top_eowc", query: "SELECT window_start, max(n) AS top, count(*) AS keys FROM (" +
		"SELECT price % 4 AS k, window_start, count(*) AS n FROM TUMBLE(bids, ts, INTERVAL '10 seconds') " +
		"GROUP BY price % 4, window_start) x GROUP BY window_start", eowc: true, slack: 8},
	// A union of two windowed branches of the table, aggregated.
	{name: "both_eowc", query: "SELECT window_start, count(*) AS n, sum(v) AS s FROM (" +
		"SELECT window_start, price AS v FROM TUMBLE(bids, ts, INTERVAL '10 seconds') WHERE price % 2 = 0 " +
		"UNION ALL SELECT window_start, id AS v FROM TUMBLE(bids, ts, INTERVAL '10 seconds') WHERE price % 3 = 0) u " +
		"GROUP BY window_start", eowc: true},
	// The top rows of each window (a group Top-N) close too.
	{name: "top2", with: " WITH (streaming_parallelism = 2)", query: "SELECT window_start, id, price, rn FROM (" +
		"SELECT window_start, id, price, row_number() OVER (PARTITION BY window_start ORDER BY price DESC, id) AS rn " +
		"FROM TUMBLE(bids, ts, INTERVAL '10 seconds')) t WHERE rn <= 2"},
	// The same, emitted once each window closed.
	{name: "top2_eowc", with: " WITH (streaming_parallelism = 2)", query: "SELECT window_start, id, price, rn FROM (" +
		"SELECT window_start, id, price, row_number() OVER (PARTITION BY window_start ORDER BY price DESC, id) AS rn " +
		"FROM TUMBLE(bids, ts, INTERVAL '10 seconds')) t WHERE rn <= 2", eowc: true},
	// Window functions ordered by the table's time, emitted once no row
	// can come before them.
	{name: "running_eowc", query: "SELECT id, ts, price, " +
		"sum(price) OVER (PARTITION BY price % 3 ORDER BY ts, id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS run, " +
		"lag(price) OVER (ORDER BY ts, id) AS prev, row_number() OVER (ORDER BY ts, id) AS rn FROM bids",
		eowc: true, closedBy: "ts", keeps: true},
	// Nexmark q5's shape: the hottest keys of each HOP window, a join
	// of two windowed aggregates on the window, whose state closes.
	{name: "hot", with: " WITH (streaming_parallelism = 2)", query: "SELECT a.k, a.num, a.window_start FROM (" +
		"SELECT price % 5 AS k, count(*) AS num, window_start FROM HOP(bids, ts, INTERVAL '5 seconds', INTERVAL '15 seconds') " +
		"GROUP BY price % 5, window_start) a JOIN (" +
		"SELECT max(num) AS maxn, window_start FROM (SELECT count(*) AS num, window_start " +
		"FROM HOP(bids, ts, INTERVAL '5 seconds', INTERVAL '15 seconds') GROUP BY price % 5, window_start) c " +
		"GROUP BY window_start) m ON a.window_start = m.window_start AND a.num >= m.maxn", hop: true, slack: 40},
}

// TestWindowCloseRandom is the differential test of windows that close
// (issue 19): random inserts into an append-only table with a watermark,
// some rows late, through restarts, a rescale and (with -tags
// invariants) a recovery. After every statement each EMIT ON WINDOW
// CLOSE view equals its query without it over the windows the watermark
// closed (so a window's row appears once, final, and is never
// retracted), and each plain windowed view equals its query, although
// its closed windows' state is gone; at the end the closed windows'
// state is gone from every view.
func TestWindowCloseRandom(t *testing.T) {
	dir := t.TempDir()
	open := func() *streamdb.DB {
		db, err := streamdb.Open(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open()
	defer func() { db.Close() }()
	mustExec(t, db, "CREATE TABLE bids (id bigint, ts timestamp, price bigint, "+
		"WATERMARK FOR ts AS ts - INTERVAL '4 seconds') APPEND ONLY")
	create := func(late bool) {
		for _, v := range windowCloseViews {
			if v.late != late {
				continue
			}
			q := "CREATE MATERIALIZED VIEW " + v.name + v.with + " AS " + v.query
			if v.eowc {
				q += " EMIT ON WINDOW CLOSE"
			}
			mustExec(t, db, q)
		}
	}
	create(false)
	// The state each view keeps before any row: what it keeps at the end,
	// once every window but the newest closed, must be little more.
	internalKeys := func(view string) int {
		t.Helper()
		got := queryRows(t, db, "SELECT coalesce(sum(keys), 0) FROM streamdb_catalog.state_sizes WHERE relation = '"+view+"' AND kind = 'internal'")
		n, err := strconv.Atoi(got[0])
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	empty := map[string]int{}
	for _, v := range windowCloseViews {
		if !v.late && !v.keeps {
			empty[v.name] = internalKeys(v.name)
		}
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewSource(19))
	check := func(step int) {
		t.Helper()
		wm := queryRows(t, db, "SELECT watermark FROM streamdb_catalog.watermarks WHERE name = 'bids'")
		if len(wm) != 1 {
			t.Fatalf("step %d: watermarks %v", step, wm)
		}
		var tumble, hop string
		if wm[0] != "NULL" {
			w, err := time.Parse("2006-01-02 15:04:05", wm[0])
			if err != nil {
				t.Fatal(err)
			}
			tumble = w.Truncate(10 * time.Second).Format("2006-01-02 15:04:05")
			hop = w.Truncate(5 * time.Second).Add(-10 * time.Second).Format("2006-01-02 15:04:05")
		}
		for _, v := range windowCloseViews {
			if v.late && !created(db, t, v.name) {
				continue
			}
			want := v.query
			if v.eowc {
				bound := tumble
				if v.hop {
					bound = hop
				}
				col := "window_start"
				if v.closedBy != "" {
					col, bound = v.closedBy, wm[0]
				}
				if wm[0] == "NULL" {
					want = "SELECT * FROM (" + v.query + ") q WHERE false"
				} else {
					want = "SELECT * FROM (" + v.query + ") q WHERE " + col + " < '" + bound + "'"
				}
			}
			got, exp := queryRows(t, db, "SELECT * FROM "+v.name), queryRows(t, db, want)
			if !slices.Equal(got, exp) {
				t.Fatalf("step %d (watermark %s): %s has\n%s\nwant\n%s", step, wm[0], v.name,
					strings.Join(got, "\n"), strings.Join(exp, "\n"))
			}
		}
	}
	id, clock := 0, 0 // clock: seconds after base, the newest time written
	retried := 0
	for step := 0; step < 70; step++ {
		switch {
		case step == 8:
			create(true)
		case step == 25 || step == 50:
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			db = open()
		case step == 33:
			mustExec(t, db, "ALTER MATERIALIZED VIEW t_all SET PARALLELISM = 3")
			mustExec(t, db, "ALTER MATERIALIZED VIEW t_eowc SET PARALLELISM = 2")
		case step == 40 && failpoint.Enabled:
			if _, err := failpoint.Enable(failpoint.ExecHashAggBarrier, failpoint.Spec{Action: failpoint.Error, Times: 1}); err != nil {
				t.Fatal(err)
			}
		}
		var vals []string
		for k := 1 + rng.Intn(8); k > 0; k-- {
			id++
			clock += rng.Intn(3)
			ts := clock - rng.Intn(8) // late now and then (the watermark lags 4 s)
			vals = append(vals, fmt.Sprintf("(%d, '%s', %d)", id, base.Add(time.Duration(ts)*time.Second).Format("2006-01-02 15:04:05"), rng.Intn(50)))
		}
		stmt := "INSERT INTO bids VALUES " + strings.Join(vals, ", ")
		for attempt := 0; ; attempt++ {
			_, err := db.Exec(context.Background(), stmt)
			if err == nil {
				break
			}
			if attempt == 20 {
				t.Fatalf("step %d: %v", step, err)
			}
			retried++
		}
		check(step)
	}
	if failpoint.Enabled && retried == 0 {
		t.Error("the failed barrier refused no statement")
	}
	// Far ahead: every window of the rows so far closes.
	mustExec(t, db, fmt.Sprintf("INSERT INTO bids VALUES (0, '%s', 1)", base.Add(time.Duration(clock+100)*time.Second).Format("2006-01-02 15:04:05")))
	check(70)
	windows := queryRows(t, db, "SELECT count(*) FROM t_all")
	if n, _ := strconv.Atoi(windows[0]); n < 20 {
		t.Fatalf("only %d windows", n)
	}
	for name, keys := range empty {
		// One window is open, with one row (and its min/max and
		// distinct entries).
		slack := 4
		for _, v := range windowCloseViews {
			if v.name == name {
				slack += v.slack
			}
		}
		if n := internalKeys(name); n > keys+slack {
			t.Errorf("%s keeps %d state keys after %s windows, %d when empty: closed windows kept", name, n, windows[0], keys)
		}
	}
}

// created reports whether relation name exists.
func created(db *streamdb.DB, t *testing.T, name string) bool {
	t.Helper()
	return len(queryRows(t, db, "SELECT 1 FROM pg_class WHERE relname = '"+name+"'")) > 0
}
