package tests

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb"
)

// The functions of the current time in batch statements, as PostgreSQL
// 15 has them, under a clock the test moves (Options.Clock): now() and
// its synonyms are the start of the transaction, statement_timestamp()
// of the statement, clock_timestamp() the clock at each call.

// testClock is a clock the test sets, or that ticks a microsecond on at
// every read.
type testClock struct {
	us   atomic.Int64
	tick atomic.Bool
}

func newTestClock(at time.Time) *testClock {
	c := &testClock{}
	c.set(at)
	return c
}

func (c *testClock) now() time.Time {
	if c.tick.Load() {
		return time.UnixMicro(c.us.Add(1)).UTC()
	}
	return time.UnixMicro(c.us.Load()).UTC()
}

func (c *testClock) set(at time.Time) { c.us.Store(at.UnixMicro()) }

// openClocked opens an in-memory database reading clock.
func openClocked(t *testing.T, clock *testClock) *streamdb.DB {
	t.Helper()
	db, err := streamdb.Open(":memory:", &streamdb.Options{NoSync: true, Clock: clock.now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return db
}

// queryValues returns the values of the one row of query, run on q.
func queryValues(t *testing.T, q rowQuerier, query string) []any {
	t.Helper()
	rows, err := q.Query(context.Background(), query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	if !rows.Next() {
		t.Fatalf("%s: no row, want 1 (%v)", query, rows.Err())
	}
	vals := rows.Values()
	if rows.Next() || rows.Err() != nil {
		t.Fatalf("%s: more than 1 row (%v)", query, rows.Err())
	}
	return vals
}

// wantTimes checks that the values of query's one row are the times want.
func wantTimes(t *testing.T, q rowQuerier, query string, want ...time.Time) {
	t.Helper()
	got := queryValues(t, q, query)
	for i, v := range got {
		if tm, ok := v.(time.Time); !ok || !tm.Equal(want[i]) {
			t.Errorf("%s: column %d is %v, want %v", query, i+1, v, want[i])
		}
	}
}

// TestNowTransactionTime: now() changes with each statement outside a
// transaction block and stays at the block's start inside one, while
// statement_timestamp() moves with each statement.
func TestNowTransactionTime(t *testing.T) {
	t0 := time.Date(2024, 3, 31, 20, 0, 0, 0, time.UTC)
	clock := newTestClock(t0)
	db := openClocked(t, clock)
	const all = "SELECT now(), current_timestamp, transaction_timestamp(), statement_timestamp()"
	wantTimes(t, db, all, t0, t0, t0, t0)
	t1 := t0.Add(time.Second)
	clock.set(t1)
	wantTimes(t, db, all, t1, t1, t1, t1)

	mustExec(t, db, "CREATE TABLE ev (id int PRIMARY KEY, ts timestamptz, st timestamptz)")
	s := db.NewSession()
	defer s.Close()
	t2 := t1.Add(time.Minute)
	clock.set(t2)
	sessionExec(t, s, "BEGIN")
	t3 := t2.Add(time.Second)
	clock.set(t3)
	wantTimes(t, s, all, t2, t2, t2, t3)
	t4 := t3.Add(time.Second)
	clock.set(t4)
	sessionExec(t, s, "INSERT INTO ev VALUES (1, now(), statement_timestamp()), (2, current_timestamp, statement_timestamp())")
	t5 := t4.Add(time.Second)
	clock.set(t5)
	sessionExec(t, s, "INSERT INTO ev SELECT g, transaction_timestamp(), statement_timestamp() FROM generate_series(3, 5) AS g")
	t6 := t5.Add(time.Second)
	clock.set(t6)
	wantTimes(t, s, all, t2, t2, t2, t6)
	sessionExec(t, s, "COMMIT")
	got := queryRows(t, db, "SELECT id, ts, st FROM ev")
	want := []string{"1|2024-03-31 20:01:01+00|2024-03-31 20:01:03+00", "2|2024-03-31 20:01:01+00|2024-03-31 20:01:03+00",
		"3|2024-03-31 20:01:01+00|2024-03-31 20:01:04+00", "4|2024-03-31 20:01:01+00|2024-03-31 20:01:04+00",
		"5|2024-03-31 20:01:01+00|2024-03-31 20:01:04+00"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows written in the block:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	t7 := t6.Add(time.Hour)
	clock.set(t7)
	wantTimes(t, s, all, t7, t7, t7, t7)
	sessionExec(t, s, "UPDATE ev SET ts = now() WHERE id <= 2")
	if got := queryRows(t, db, "SELECT id FROM ev WHERE ts = '2024-03-31 21:01:05+00'"); strings.Join(got, ",") != "1,2" {
		t.Errorf("UPDATE SET ts = now() set rows %v, want 1,2", got)
	}
}

// TestNowLocalTime: current_date, localtimestamp and age(x) read the
// transaction's time, in the session's zone.
func TestNowLocalTime(t *testing.T) {
	clock := newTestClock(time.Date(2024, 3, 31, 20, 0, 0, 0, time.UTC))
	db := openClocked(t, clock)
	s := db.NewSession()
	defer s.Close()
	sessionExec(t, s, "SET TIME ZONE 'Asia/Tokyo'")
	got, err := sortedTextRows(s, "SELECT now(), current_date, localtimestamp, age(timestamp '2024-01-01'), age(timestamptz '2024-02-01 00:00+09')")
	if err != nil {
		t.Fatal(err)
	}
	want := "2024-04-01 05:00:00+09|2024-04-01|2024-04-01 05:00:00|3 mons|2 mons"
	if len(got) != 1 || got[0] != want {
		t.Errorf("got %v, want %s", got, want)
	}
}

// TestNowOneValuePerStatement: under a clock that moves at every read,
// now(), statement_timestamp() and a DEFAULT now() have one value for
// all the rows of a statement, and clock_timestamp() one per call.
func TestNowOneValuePerStatement(t *testing.T) {
	clock := newTestClock(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	clock.tick.Store(true)
	db := openClocked(t, clock)
	mustExec(t, db, "CREATE TABLE ticks (id int PRIMARY KEY, ts timestamptz, st timestamptz, ct timestamptz, d timestamptz DEFAULT now(), dc timestamptz DEFAULT clock_timestamp())")
	mustExec(t, db, "INSERT INTO ticks (id, ts, st, ct) SELECT g, now(), statement_timestamp(), clock_timestamp() FROM generate_series(1, 1000) AS g")
	const counts = "SELECT count(DISTINCT ts), count(DISTINCT st), count(DISTINCT ct), count(DISTINCT d), count(DISTINCT dc), " +
		"count(*) FILTER (WHERE ts = d AND ts = st AND ct > ts AND dc > ts) FROM ticks"
	if got := queryRows(t, db, counts); strings.Join(got, "") != "1|1|1000|1|1000|1000" {
		t.Errorf("distinct values of now(), statement_timestamp(), clock_timestamp() and the defaults: %v", got)
	}
	mustExec(t, db, "UPDATE ticks SET ts = now(), ct = clock_timestamp()")
	if got := queryRows(t, db, "SELECT count(DISTINCT ts), count(DISTINCT ct), count(*) FILTER (WHERE ct > ts) FROM ticks"); strings.Join(got, "") != "1|1000|1000" {
		t.Errorf("after UPDATE SET ts = now(), ct = clock_timestamp(): %v", got)
	}
	if _, err := db.CopyFrom(context.Background(), "COPY ticks (id) FROM STDIN", strings.NewReader("1001\n1002\n1003\n")); err != nil {
		t.Fatal(err)
	}
	if got := queryRows(t, db, "SELECT count(DISTINCT d), count(DISTINCT dc) FROM ticks WHERE id > 1000"); strings.Join(got, "") != "1|3" {
		t.Errorf("COPY's defaults now() and clock_timestamp(): %v", got)
	}
	if got := queryRows(t, db, "SELECT count(DISTINCT now()), count(DISTINCT clock_timestamp()) FROM generate_series(1, 500)"); strings.Join(got, "") != "1|500" {
		t.Errorf("SELECT now(), clock_timestamp() over 500 rows: %v", got)
	}
}

// TestNowPrepared: a prepared statement's now() is its execution's time,
// not its preparation's, and inside a block the block's.
func TestNowPrepared(t *testing.T) {
	t0 := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	clock := newTestClock(t0)
	db := openClocked(t, clock)
	conn := pgxConnect(t, startServer(t, db), pgx.QueryExecModeCacheStatement)
	ctx := context.Background()
	if _, err := conn.Prepare(ctx, "times", "SELECT now(), statement_timestamp()"); err != nil {
		t.Fatal(err)
	}
	check := func(want, wantStmt time.Time) {
		t.Helper()
		var now, st time.Time
		if err := conn.QueryRow(ctx, "times").Scan(&now, &st); err != nil {
			t.Fatal(err)
		}
		if !now.Equal(want) || !st.Equal(wantStmt) {
			t.Errorf("now(), statement_timestamp() = %v, %v, want %v, %v", now, st, want, wantStmt)
		}
	}
	t1 := t0.Add(time.Second)
	clock.set(t1)
	check(t1, t1)
	t2 := t1.Add(time.Second)
	clock.set(t2)
	check(t2, t2)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t3 := t2.Add(time.Second)
	clock.set(t3)
	check(t2, t3)
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}
