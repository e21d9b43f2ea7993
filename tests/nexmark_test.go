//go:build linux

package tests

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/bench"
)

// TestNexmarkQueries: the Nexmark queries streamdb bench runs (q0-q5, q7,
// q8, RisingWave's versions) as views over nexmark tables, created before
// the events flow, end equal to the same queries run as batch SELECTs.
func TestNexmarkQueries(t *testing.T) {
	db, fl := openWatched(t)
	const events = 20_000
	tables := []string{"person", "auction", "bid"}
	for _, tbl := range tables {
		mustExec(t, db, bench.NexmarkDDL(tbl, events, true))
	}
	for _, q := range bench.NexmarkQueries {
		mustExec(t, db, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", q.Name, q.SQL))
	}
	for _, tbl := range tables {
		mustExec(t, db, "ALTER TABLE "+tbl+" SET SOURCE_RATE_LIMIT = DEFAULT")
	}
	waitFor(t, 3*time.Minute, "all events", func() bool {
		for _, tbl := range tables {
			if queryInt(t, db, "SELECT count(*) FROM "+tbl) != bench.NexmarkRows(tbl, events) {
				return false
			}
		}
		return true
	})
	mustExec(t, db, "FLUSH")
	for _, q := range bench.NexmarkQueries {
		want := queryRows(t, db, q.SQL)
		got := queryRows(t, db, "SELECT * FROM "+q.Name)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: view has %d rows, query %d", q.Name, len(got), len(want))
		}
		if len(want) == 0 {
			t.Errorf("%s is empty: the test checks nothing", q.Name)
		}
	}
	fl.check(t)
}
