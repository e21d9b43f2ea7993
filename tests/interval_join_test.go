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

// intervalJoinViews are the views of TestIntervalJoinRandom: joins whose
// condition bounds the time of one side by the other's (issue 19, item
// 4), over one append-only table with a watermark, each with the batch
// query it must equal. Their join keys never close; their state is let
// go by the interval (stream.IntervalWatermark).
var intervalJoinViews = []struct {
	name, with, query string
	late              bool // created after the first rows (a backfill)
	// bounded: its join state must stay within intervalJoinBound keys.
	bounded bool
}{
	{name: "ij_near", with: " WITH (streaming_parallelism = 2)", query: "SELECT a.id AS aid, b.id AS bid, a.ts AS ats, b.ts AS bts " +
		"FROM bids a JOIN bids b ON a.k = b.k AND a.ts BETWEEN b.ts - INTERVAL '10 seconds' AND b.ts", bounded: true},
	// Nexmark q7's shape: the interval in WHERE, the join on a price.
	{name: "ij_q7", with: " WITH (streaming_parallelism = 3)", query: "SELECT B.id, B.price, B.ts FROM bids B JOIN (" +
		"SELECT max(price) AS maxprice, window_end AS wend FROM TUMBLE(bids, ts, INTERVAL '10 seconds') GROUP BY window_end) B1 " +
		"ON B.price = B1.maxprice WHERE B.ts BETWEEN B1.wend - INTERVAL '10 seconds' AND B1.wend", bounded: true},
	// Strict bounds, sides in either order, an expression on each side.
	{name: "ij_after", query: "SELECT a.id AS aid, b.id AS bid FROM bids a JOIN bids b " +
		"ON a.k = b.k AND b.ts > a.ts AND a.ts + INTERVAL '5 seconds' >= b.ts - INTERVAL '1 second'", bounded: true},
	// Outer joins keep their padded rows right as the state goes.
	{name: "ij_left", with: " WITH (streaming_parallelism = 2)", query: "SELECT a.id AS aid, b.id AS bid FROM bids a LEFT JOIN bids b " +
		"ON a.k = b.k AND b.ts BETWEEN a.ts AND a.ts + INTERVAL '6 seconds'", bounded: true},
	{name: "ij_full", query: "SELECT a.id AS aid, b.id AS bid FROM bids a FULL OUTER JOIN bids b " +
		"ON a.k = b.k AND b.ts > a.ts AND b.ts - INTERVAL '3 seconds' <= a.ts", bounded: true},
	{name: "ij_semi", with: " WITH (streaming_parallelism = 2)", query: "SELECT a.id, a.ts FROM bids a WHERE EXISTS (" +
		"SELECT 1 FROM bids b WHERE b.k = a.k AND b.ts > a.ts AND b.ts <= a.ts + INTERVAL '5 seconds')", bounded: true},
	{name: "ij_anti", query: "SELECT a.id, a.ts FROM bids a WHERE NOT EXISTS (" +
		"SELECT 1 FROM bids b WHERE b.k = a.k AND b.ts > a.ts AND b.ts <= a.ts + INTERVAL '5 seconds')", bounded: true},
	// Only one side's state goes (no upper bound on a.ts - b.ts): the
	// join is still right.
	{name: "ij_once", query: "SELECT a.id AS aid, b.id AS bid FROM bids a JOIN bids b ON a.k = b.k AND a.ts >= b.ts + INTERVAL '20 seconds'"},
	{name: "ij_late", with: " WITH (streaming_parallelism = 2)", query: "SELECT a.id AS aid, b.id AS bid " +
		"FROM bids a JOIN bids b ON a.k = b.k AND a.ts BETWEEN b.ts - INTERVAL '4 seconds' AND b.ts + INTERVAL '4 seconds'", late: true},
}

// intervalJoinBound is the most keys the join state of a bounded view
// of TestIntervalJoinRandom may hold at the end: the rows of about the
// last 20 seconds (one a second on average) on each side, let go once a
// side stored a quarter as many as it kept, and the window aggregate's
// open groups; without the cleaning they hold every row, twice.
const intervalJoinBound = 150

// TestIntervalJoinRandom is the differential test of interval joins:
// random inserts into an append-only table with a watermark (some rows
// late), through a restart, a rescale and (with -tags invariants) a
// recovery. After every statement each view equals its query run as a
// batch SELECT, although the rows its join let go are gone from its
// state; at the end the join state of each bounded view holds the rows
// of the last seconds only.
func TestIntervalJoinRandom(t *testing.T) {
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
	mustExec(t, db, "CREATE TABLE bids (id bigint, k bigint, ts timestamp, price bigint, "+
		"WATERMARK FOR ts AS ts - INTERVAL '4 seconds') APPEND ONLY")
	create := func(late bool) {
		for _, v := range intervalJoinViews {
			if v.late == late {
				mustExec(t, db, "CREATE MATERIALIZED VIEW "+v.name+v.with+" AS "+v.query)
			}
		}
	}
	create(false)
	empty := map[string]int{}
	for _, v := range intervalJoinViews {
		if !v.late {
			empty[v.name] = internalStateKeys(t, db, v.name)
		}
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewSource(4))
	check := func(step int) {
		t.Helper()
		for _, v := range intervalJoinViews {
			if v.late && len(queryRows(t, db, "SELECT 1 FROM pg_class WHERE relname = '"+v.name+"'")) == 0 {
				continue
			}
			got, want := queryRows(t, db, "SELECT * FROM "+v.name), queryRows(t, db, v.query)
			if !slices.Equal(got, want) {
				wm := queryRows(t, db, "SELECT watermark FROM streamdb_catalog.watermarks WHERE name = 'bids'")
				t.Fatalf("step %d (watermark %v): %s has\n%s\nwant\n%s", step, wm, v.name,
					strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
	}
	id, clock, retried := 0, 0, 0 // clock: seconds after base, the newest time written
	const steps = 110
	for step := 0; step < steps; step++ {
		switch {
		case step == 8:
			create(true)
		case step == 30:
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			db = open()
		case step == 45:
			mustExec(t, db, "ALTER MATERIALIZED VIEW ij_near SET PARALLELISM = 3")
			mustExec(t, db, "ALTER MATERIALIZED VIEW ij_q7 SET PARALLELISM = 1")
		case step == 60 && failpoint.Enabled:
			if _, err := failpoint.Enable(failpoint.ExecHashJoinBarrier, failpoint.Spec{Action: failpoint.Error, Times: 1}); err != nil {
				t.Fatal(err)
			}
		}
		var vals []string
		for n := 1 + rng.Intn(8); n > 0; n-- {
			id++
			clock += rng.Intn(3)
			ts := clock - rng.Intn(8) // late now and then (the watermark lags 4 s)
			vals = append(vals, fmt.Sprintf("(%d, %d, '%s', %d)", id, rng.Intn(4),
				base.Add(time.Duration(ts)*time.Second).Format("2006-01-02 15:04:05"), rng.Intn(20)))
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
	rows := queryRows(t, db, "SELECT count(*) FROM bids")
	for _, v := range intervalJoinViews {
		if !v.bounded {
			continue
		}
		n := internalStateKeys(t, db, v.name) - empty[v.name]
		t.Logf("%s: %d join state keys over %s rows", v.name, n, rows[0])
		if n > intervalJoinBound {
			t.Errorf("%s keeps %d state keys over %s rows: its join let nothing go", v.name, n, rows[0])
		}
	}
}

// internalStateKeys returns the keys of view's operator state.
func internalStateKeys(t *testing.T, db *streamdb.DB, view string) int {
	t.Helper()
	got := queryRows(t, db, "SELECT coalesce(sum(keys), 0) FROM streamdb_catalog.state_sizes WHERE relation = '"+view+"' AND kind = 'internal'")
	n, err := strconv.Atoi(got[0])
	if err != nil {
		t.Fatal(err)
	}
	return n
}
