package tests

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamdb/streamdb"
)

// temporalViews are views with temporal filters, each as its query with
// NOW standing for now(): the test compares a view with the query run as
// a batch SELECT with NOW replaced by the instant the view's last barrier
// carried (the test's clock, which only it moves).
var temporalViews = []struct{ name, query string }{
	{"tf_recent", "SELECT id, g, ts FROM tf WHERE ts > NOW - INTERVAL '30 seconds'"},
	{"tf_arrived", "SELECT id, g FROM tf WHERE ts <= NOW"},
	{"tf_window", "SELECT id, ts FROM tf WHERE ts + INTERVAL '10 seconds' > NOW AND ts <= NOW + INTERVAL '5 seconds'"},
	{"tf_count", "SELECT g, count(*) AS n, max(ts) AS latest FROM tf WHERE ts >= NOW - INTERVAL '20 seconds' GROUP BY g"},
	{"tf_local", "SELECT id FROM tf WHERE lts > NOW::timestamp - INTERVAL '15 seconds' AND g < 3"},
	{"tf_join", "SELECT tf.id, d.label FROM tf JOIN tf_dim d ON tf.g = d.g WHERE tf.ts > NOW - INTERVAL '25 seconds'"},
}

// TestTemporalFilterRandom: views with temporal filters equal their query
// evaluated at the time of the view's last barrier, under random inserts,
// updates and deletes of rows around a clock that the test moves by hand
// (forward, sometimes not at all), across a restart, a rescale, and views
// created (backfilled) while time passes.
func TestTemporalFilterRandom(t *testing.T) {
	var clock atomic.Int64
	start := time.Date(2026, 3, 8, 6, 59, 0, 0, time.UTC) // around a DST change elsewhere
	clock.Store(start.UnixMicro())
	now := func() time.Time { return time.UnixMicro(clock.Load()).UTC() }
	dir := t.TempDir()
	open := func() *streamdb.DB {
		db, err := streamdb.Open(dir, &streamdb.Options{Clock: now})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open()
	defer func() { db.Close() }()
	mustExec(t, db, "CREATE TABLE tf (id int PRIMARY KEY, g int, ts timestamptz, lts timestamp)")
	mustExec(t, db, "CREATE TABLE tf_dim (g int PRIMARY KEY, label text)")
	mustExec(t, db, "INSERT INTO tf_dim VALUES (0, 'zero'), (1, 'one'), (2, 'two'), (3, 'three')")
	rng := rand.New(rand.NewSource(11))
	created := map[string]bool{}
	createView := func(i int) {
		v := temporalViews[i]
		mustExec(t, db, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", v.name, strings.ReplaceAll(v.query, "NOW", "now()")))
		created[v.name] = true
	}
	for i := range 3 {
		createView(i)
	}
	lit := func() string {
		return fmt.Sprintf("'%s'::timestamptz", now().Format("2006-01-02 15:04:05.999999Z07:00"))
	}
	nextID := 0
	randTS := func() string {
		if rng.Intn(12) == 0 {
			return "NULL"
		}
		at := now().Add(time.Duration(rng.Intn(80)-50) * time.Second).Add(time.Duration(rng.Intn(1000)) * time.Millisecond)
		return fmt.Sprintf("'%s'", at.Format("2006-01-02 15:04:05.000Z07:00"))
	}
	for step := 0; step < 40; step++ {
		switch step {
		case 12:
			createView(3)
			createView(4)
		case 20:
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			db = open()
		case 26:
			createView(5)
			mustExec(t, db, "ALTER MATERIALIZED VIEW tf_count SET PARALLELISM = 3")
		}
		for range 1 + rng.Intn(4) {
			switch k := rng.Intn(10); {
			case k < 6 || nextID < 5:
				nextID++
				ts := randTS()
				lts := "NULL"
				if ts != "NULL" {
					lts = ts + "::timestamptz::timestamp"
				}
				mustExec(t, db, fmt.Sprintf("INSERT INTO tf VALUES (%d, %d, %s, %s)", nextID, rng.Intn(4), ts, lts))
			case k < 8:
				mustExec(t, db, fmt.Sprintf("UPDATE tf SET ts = %s, g = %d WHERE id = %d", randTS(), rng.Intn(4), 1+rng.Intn(nextID)))
			default:
				mustExec(t, db, fmt.Sprintf("DELETE FROM tf WHERE id = %d", 1+rng.Intn(nextID)))
			}
		}
		if rng.Intn(5) > 0 {
			clock.Add(int64(rng.Intn(8000)) * 1000) // up to 8 s on
		}
		mustExec(t, db, "FLUSH")
		at := lit()
		for _, v := range temporalViews {
			if !created[v.name] {
				continue
			}
			got := queryRows(t, db, "SELECT * FROM "+v.name)
			want := queryRows(t, db, strings.ReplaceAll(v.query, "NOW", at))
			if !slices.Equal(got, want) {
				t.Fatalf("step %d, %s at %s:\nview:  %v\nquery: %v", step, v.name, at, got, want)
			}
		}
	}
}
