//go:build linux

package tests

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/bench"
)

// TestNexmarkSourcePruned: a nexmark SOURCE generates only the columns
// the views over it read (exec/stream/source_prune.go), and each view
// still holds exactly the rows of its query: views reading different
// columns, one created before the events flow, one created while they
// flow (it reads text columns nobody read before), end equal to the same
// queries over a TABLE of the same events, which stores every column.
// Event times depend on when a source is created, so they are only
// checked to be there.
func TestNexmarkSourcePruned(t *testing.T) {
	db, fl := openWatched(t)
	const events = 20_000
	rows := bench.NexmarkRows("bid", events)
	mustExec(t, db, bench.NexmarkDDL("bid", events, false))
	mustExec(t, db, strings.Replace(bench.NexmarkDDL("bid", events, true), "TABLE bid", "TABLE bid_t", 1))
	mustExec(t, db, "CREATE MATERIALIZED VIEW narrow AS SELECT auction, bidder, 0.908 * price AS price, date_time FROM bid")
	mustExec(t, db, "CREATE MATERIALIZED VIEW chan AS SELECT auction, channel FROM bid WHERE price > 1000")
	mustExec(t, db, "ALTER TABLE bid_t SET SOURCE_RATE_LIMIT = DEFAULT")
	// Slow enough that the late view is created while the rows flow.
	mustExec(t, db, fmt.Sprintf("ALTER SOURCE bid SET SOURCE_RATE_LIMIT = %d", rows/4))
	generated := func() int64 {
		return queryInt(t, db, "SELECT rows_generated FROM streamdb_catalog.sources WHERE name = 'bid'")
	}
	waitFor(t, time.Minute, "the first bids", func() bool { return generated() > 0 })
	mustExec(t, db, "CREATE MATERIALIZED VIEW late AS SELECT auction, bidder, price, channel, url, extra FROM bid")
	if generated() >= rows {
		t.Fatal("every bid was generated before the late view: it checks nothing")
	}
	mustExec(t, db, "ALTER SOURCE bid SET SOURCE_RATE_LIMIT = DEFAULT")
	waitFor(t, 2*time.Minute, "all bids", func() bool {
		return generated() >= rows && queryInt(t, db, "SELECT count(*) FROM bid_t") == rows
	})
	mustExec(t, db, "FLUSH")

	same := func(view, query string) {
		t.Helper()
		got, err := sortedTextRows(db, view)
		if err != nil {
			t.Fatal(err)
		}
		want, err := sortedTextRows(db, query)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 || strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: %d rows, want %d: %s", view, len(got), len(want), firstDiff(got, want))
		}
	}
	same("SELECT auction, bidder, price FROM narrow", "SELECT auction, bidder, 0.908 * price FROM bid_t")
	if n := queryInt(t, db, "SELECT count(*) FROM narrow WHERE date_time IS NULL"); n != 0 {
		t.Errorf("narrow: %d rows without their event time", n)
	}
	same("SELECT * FROM chan", "SELECT auction, channel FROM bid_t WHERE price > 1000")

	// The late view holds the bids made after it was created: each one
	// of the table's, with every text column.
	late, err := sortedTextRows(db, "SELECT * FROM late")
	if err != nil {
		t.Fatal(err)
	}
	all, err := sortedTextRows(db, "SELECT auction, bidder, price, channel, url, extra FROM bid_t")
	if err != nil {
		t.Fatal(err)
	}
	if len(late) == 0 || len(late) >= len(all) {
		t.Fatalf("late: %d rows of %d: want some, not all", len(late), len(all))
	}
	if n := queryInt(t, db, "SELECT count(*) FROM late WHERE channel IS NULL OR url IS NULL OR extra IS NULL"); n != 0 {
		t.Errorf("late: %d rows with a NULL text column", n)
	}
	i := 0
	for _, r := range late {
		j, found := slices.BinarySearch(all[i:], r)
		if !found {
			t.Fatalf("late: row %q is not one of the table's", r)
		}
		i += j + 1 // each of the table's rows matches once
	}
	fl.check(t)
}
