package tests

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// queryInt runs a query returning one integer (NULL: -1).
func queryInt(t testing.TB, db *streamdb.DB, q string) int64 {
	t.Helper()
	rows := queryRows(t, db, q)
	if len(rows) != 1 {
		t.Fatalf("%s: %d rows, want 1", q, len(rows))
	}
	if rows[0] == "NULL" {
		return -1
	}
	n, err := strconv.ParseInt(rows[0], 10, 64)
	if err != nil {
		t.Fatalf("%s: %q: %v", q, rows[0], err)
	}
	return n
}

// waitFor polls cond until it holds or the timeout passes.
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestDatagenSourceSequence: a source created held (source_rate_limit 0)
// produces nothing; once released, a view over it ends holding every row
// of the sequence exactly once.
func TestDatagenSourceSequence(t *testing.T) {
	db, fl := openWatched(t)
	const n = 3000
	mustExec(t, db, fmt.Sprintf(`CREATE SOURCE s (id bigint, k int, name varchar, x double precision, ok boolean, at timestamp)
		WITH (connector = 'datagen', fields.id.kind = 'sequence', fields.id.start = '1', fields.id.end = '%d',
		      fields.k.min = 0, fields.k.max = 9, fields.k.seed = 7, fields.name.length = 4,
		      datagen.rows.per.second = '0', source_rate_limit = 0) FORMAT PLAIN ENCODE JSON`, n))
	mustExec(t, db, "CREATE MATERIALIZED VIEW all_rows AS SELECT * FROM s")
	mustExec(t, db, "CREATE MATERIALIZED VIEW per_k AS SELECT k, count(*) AS c, sum(id) AS total FROM s GROUP BY k")
	time.Sleep(200 * time.Millisecond)
	if got := queryInt(t, db, "SELECT count(*) FROM all_rows"); got != 0 {
		t.Fatalf("a held source produced %d rows", got)
	}
	mustExec(t, db, "ALTER SOURCE s SET SOURCE_RATE_LIMIT = DEFAULT")
	waitFor(t, 30*time.Second, "all rows", func() bool {
		return queryInt(t, db, "SELECT count(*) FROM all_rows") == n
	})
	mustExec(t, db, "FLUSH")
	if got, want := queryInt(t, db, "SELECT count(DISTINCT id) FROM all_rows"), int64(n); got != want {
		t.Fatalf("distinct ids = %d, want %d", got, want)
	}
	if got, want := queryInt(t, db, "SELECT sum(id) FROM all_rows"), int64(n*(n+1)/2); got != want {
		t.Fatalf("sum(id) = %d, want %d", got, want)
	}
	// The aggregate view equals its query over the rows the source made.
	want := queryRows(t, db, "SELECT k, count(*), sum(id) FROM all_rows GROUP BY k")
	if got := queryRows(t, db, "SELECT * FROM per_k"); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("per_k = %v, want %v", got, want)
	}
	if len(want) != 10 {
		t.Fatalf("k took %d values, want 10 (min 0, max 9): %v", len(want), want)
	}
	if got := queryInt(t, db, "SELECT count(*) FROM all_rows WHERE length(name) <> 4 OR k < 0 OR k > 9"); got != 0 {
		t.Fatalf("%d rows break the field options", got)
	}
	if got := queryRows(t, db, "SELECT name, kind, connector, rows_generated, paused FROM streamdb_catalog.sources"); len(got) != 1 || got[0] != fmt.Sprintf("s|source|datagen|%d|f", n) {
		t.Fatalf("streamdb_catalog.sources = %v", got)
	}
	fl.check(t)
}

// TestDatagenDeterministic: the same options give the same rows.
func TestDatagenDeterministic(t *testing.T) {
	db, _ := openWatched(t)
	for _, name := range []string{"a", "b"} {
		mustExec(t, db, fmt.Sprintf(`CREATE TABLE %s (id int PRIMARY KEY, v int, s text, d date, n numeric(8,2))
			WITH (connector = 'datagen', fields.id.kind = 'sequence', fields.id.end = 499,
			      fields.v.seed = 42, fields.s.seed = 3, datagen.rows.per.second = 0)`, name))
	}
	waitFor(t, 30*time.Second, "both tables", func() bool {
		return queryInt(t, db, "SELECT count(*) FROM a") == 500 && queryInt(t, db, "SELECT count(*) FROM b") == 500
	})
	if got := queryInt(t, db, "SELECT count(*) FROM a JOIN b ON a.id = b.id AND a.v = b.v AND a.s = b.s AND a.d = b.d AND a.n = b.n"); got != 500 {
		t.Fatalf("%d of 500 rows are equal in two tables with the same options", got)
	}
	if got := queryInt(t, db, "SELECT count(DISTINCT v) FROM a"); got < 400 {
		t.Fatalf("random v took only %d distinct values in 500 rows", got)
	}
}

// TestDatagenSourceRateAndPause: SOURCE_RATE_LIMIT paces the connector
// within 10%, PAUSE stops it exactly while views stay readable, and
// RESUME restarts it.
func TestDatagenSourceRateAndPause(t *testing.T) {
	window := envDuration(t, "STREAMDB_RATE_WINDOW", 3*time.Second)
	db, fl := openWatched(t)
	mustExec(t, db, `CREATE SOURCE fast (id bigint, v int) WITH (connector = 'datagen',
		fields.id.kind = 'sequence', fields.id.end = 1000000000, datagen.rows.per.second = 1000000,
		source_rate_limit = 0)`)
	mustExec(t, db, "CREATE MATERIALIZED VIEW counted AS SELECT count(*) AS c FROM fast")
	const limit = 1000
	mustExec(t, db, fmt.Sprintf("ALTER SOURCE fast SET SOURCE_RATE_LIMIT TO %d", limit))
	generated := func() int64 {
		return queryInt(t, db, "SELECT rows_generated FROM streamdb_catalog.sources WHERE name = 'fast'")
	}
	time.Sleep(300 * time.Millisecond) // the limit's barrier has passed
	start, t0 := generated(), time.Now()
	time.Sleep(window)
	end, t1 := generated(), time.Now()
	rate := float64(end-start) / t1.Sub(t0).Seconds()
	t.Logf("source_rate_limit %d: %.0f rows/s over %v", limit, rate, t1.Sub(t0).Round(time.Millisecond))
	if rate < limit*0.9 || rate > limit*1.1 {
		t.Fatalf("rate %.0f rows/s, want %d +/- 10%%", rate, limit)
	}

	mustExec(t, db, "ALTER SOURCE fast PAUSE")
	mustExec(t, db, "FLUSH")
	held := generated()
	viewHeld := queryInt(t, db, "SELECT c FROM counted")
	mustExec(t, db, "CREATE TABLE other (a int)")
	mustExec(t, db, "CREATE MATERIALIZED VIEW other_n AS SELECT count(*) AS n FROM other")
	for i := 1; i <= 5; i++ {
		mustExec(t, db, "INSERT INTO other VALUES (1)")
		if got := queryInt(t, db, "SELECT n FROM other_n"); got != int64(i) {
			t.Fatalf("another view is stale while the source is paused: %d, want %d", got, i)
		}
		time.Sleep(window / 10)
	}
	if got := generated(); got != held {
		t.Fatalf("paused source went on: %d rows, then %d", held, got)
	}
	if got := queryInt(t, db, "SELECT c FROM counted"); got != viewHeld || got != held {
		t.Fatalf("view over a paused source: %d rows, then %d (source made %d)", viewHeld, got, held)
	}
	rows := queryRows(t, db, "SELECT relation, kind, rate_limit, paused FROM streamdb_catalog.rate_limits")
	if len(rows) != 1 || rows[0] != fmt.Sprintf("fast|source|%d|t", limit) {
		t.Fatalf("rate_limits = %v", rows)
	}

	mustExec(t, db, "ALTER SOURCE fast RESUME")
	waitFor(t, 10*time.Second, "the resumed source", func() bool { return generated() > held+limit/10 })
	mustExec(t, db, "ALTER SOURCE fast PAUSE")
	mustExec(t, db, "FLUSH")
	if got, want := queryInt(t, db, "SELECT c FROM counted"), generated(); got != want {
		t.Fatalf("view counted %d rows, the source made %d", got, want)
	}
	fl.check(t)
}

// TestDatagenTableRestart: a table fed by a connector resumes after a
// restart at its committed position: the sequence ends complete, each
// row once, and its views equal their queries.
func TestDatagenTableRestart(t *testing.T) {
	dir := t.TempDir()
	const n = 4000
	db, err := streamdb.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, fmt.Sprintf(`CREATE TABLE events (id int, k int)
		WITH (connector = 'datagen', fields.id.kind = 'sequence', fields.id.start = 1, fields.id.end = %d,
		      fields.k.max = 4, datagen.rows.per.second = 4000)`, n))
	mustExec(t, db, "CREATE MATERIALIZED VIEW by_k AS SELECT k, count(*) AS c, sum(id) AS s FROM events GROUP BY k")
	waitFor(t, 10*time.Second, "some rows", func() bool { return queryInt(t, db, "SELECT count(*) FROM events") > 200 })
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = streamdb.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	before := queryInt(t, db, "SELECT count(*) FROM events")
	if before < 200 || before >= n {
		t.Fatalf("after restart the table holds %d rows, want some but not all", before)
	}
	waitFor(t, 30*time.Second, "the whole sequence", func() bool { return queryInt(t, db, "SELECT count(*) FROM events") == n })
	mustExec(t, db, "FLUSH")
	if got := queryInt(t, db, "SELECT count(DISTINCT id) FROM events"); got != n {
		t.Fatalf("%d distinct ids, want %d", got, n)
	}
	want := queryRows(t, db, "SELECT k, count(*), sum(id) FROM events GROUP BY k")
	if got := queryRows(t, db, "SELECT * FROM by_k"); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("by_k = %v, want %v", got, want)
	}
	// DML goes into a connector table beside the generated rows.
	mustExec(t, db, "INSERT INTO events VALUES (-1, 9)")
	if got := queryRows(t, db, "SELECT c, s FROM by_k WHERE k = 9"); len(got) != 1 || got[0] != "1|-1" {
		t.Fatalf("by_k after an INSERT = %v", got)
	}
}

// TestDatagenErrors: bad sources and bad commands get clear errors.
func TestDatagenErrors(t *testing.T) {
	db := openMem(t)
	mustExec(t, db, "CREATE SOURCE s (a int) WITH (connector = 'datagen')")
	mustExec(t, db, "CREATE TABLE plain (a int)")
	for _, c := range []struct{ sql, code, msg string }{
		{"CREATE SOURCE x (a int)", "22023", "a source needs a connector"},
		{"CREATE SOURCE x (a int) WITH (connector = 'kinesis')", "0A000", `connector "kinesis" is not supported`},
		{"CREATE SOURCE x (a int) WITH (connector = 'kafka')", "22023", `invalid value for connector option "topic"`},
		{"CREATE SOURCE x (a int) WITH (connector = 'datagen', fields.b.kind = 'random')", "42703", `column "b"`},
		{"CREATE SOURCE x (a int) WITH (connector = 'datagen', fields.a.kind = 'zigzag')", "22023", "kind"},
		{"CREATE SOURCE x (a int) WITH (connector = 'datagen', fields.a.min = 10, fields.a.max = 1)", "22023", "max"},
		{"CREATE SOURCE x (a smallint) WITH (connector = 'datagen', fields.a.kind = 'sequence', fields.a.end = 100000)", "22003", "out of range"},
		{"CREATE SOURCE x (a text) WITH (connector = 'datagen', fields.a.kind = 'sequence')", "0A000", "sequence"},
		{"CREATE SOURCE x (a int) WITH (connector = 'datagen', datagen.rows.per.second = 'fast')", "22023", "datagen.rows.per.second"},
		{"CREATE SOURCE x (a int) WITH (connector = 'datagen', source_rate_limit = -1)", "22023", "source_rate_limit"},
		{"CREATE SOURCE x (a int PRIMARY KEY) WITH (connector = 'datagen')", "0A000", "primary key"},
		{"CREATE SOURCE x (a int) WITH (connector = 'datagen') FORMAT UPSERT ENCODE JSON", "0A000", "FORMAT UPSERT"},
		{"CREATE TABLE x (a int) WITH (source_rate_limit = 5)", "22023", "source_rate_limit"},
		{"SELECT * FROM s", "0A000", "cannot read source"},
		{"INSERT INTO s VALUES (1)", "42809", `cannot change source "s"`},
		{"ALTER SOURCE s SET SOURCE_RATE_LIMIT = -5", "22023", "at least 0"},
		{"ALTER SOURCE nope PAUSE", "42P01", `source "nope" does not exist`},
		{"ALTER SOURCE plain PAUSE", "42809", `"plain" is not a source`},
		{"ALTER TABLE plain SET SOURCE_RATE_LIMIT = 5", "55000", "no connector"},
		{"ALTER SOURCE s SET BACKFILL_RATE_LIMIT = 5", "0A000", "backfill_rate_limit"},
		{"DROP TABLE s", "42809", `"s" is not a table`},
		{"SET source_rate_limit = 'lots'", "22023", "source_rate_limit"},
	} {
		_, err := db.Exec(context.Background(), c.sql)
		if err == nil {
			t.Errorf("%s: no error", c.sql)
			continue
		}
		if code := pgerr.Code(err); code != c.code || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %s %v, want %s containing %q", c.sql, code, err, c.code, c.msg)
		}
	}
	mustExec(t, db, "CREATE MATERIALIZED VIEW v AS SELECT a FROM s")
	if _, err := db.Exec(context.Background(), "DROP SOURCE s"); pgerr.Code(err) != "2BP01" {
		t.Fatalf("DROP SOURCE with a view over it: %v, want 2BP01", err)
	}
	mustExec(t, db, "DROP SOURCE s CASCADE")
	if got := queryRows(t, db, "SHOW SOURCES"); len(got) != 0 {
		t.Fatalf("SHOW SOURCES after drop = %v", got)
	}
}

// TestKill9DatagenSource: a source's position commits with the epoch of
// the rows it produced, so after kill -9 and a restart an aggregate view
// over the source (where a replayed row would count twice) holds every
// row of the sequence exactly once.
func TestKill9DatagenSource(t *testing.T) {
	dir := t.TempDir()
	const n = 6000
	p := startProc(t, dir)
	c := p.connect(t)
	execAll(t, c,
		fmt.Sprintf(`CREATE SOURCE seq (id bigint, k int) WITH (connector = 'datagen', fields.id.kind = 'sequence',
			fields.id.start = 1, fields.id.end = %d, fields.k.max = 7, datagen.rows.per.second = 3000, source_rate_limit = 0)`, n),
		"CREATE MATERIALIZED VIEW seq_agg AS SELECT k, count(*) AS c, sum(id) AS s FROM seq GROUP BY k",
		"CREATE MATERIALIZED VIEW seq_total AS SELECT count(*) AS c, sum(id) AS s, count(DISTINCT id) AS d FROM seq",
		"ALTER SOURCE seq SET SOURCE_RATE_LIMIT = DEFAULT")
	ctx := context.Background()
	total := func(c *pgx.Conn) (cnt, sum, distinct int64) {
		t.Helper()
		if err := c.QueryRow(ctx, "SELECT c, coalesce(s, 0), d FROM seq_total").Scan(&cnt, &sum, &distinct); err != nil {
			t.Fatal(err)
		}
		return
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if cnt, _, _ := total(c); cnt > n/4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the source produced too little")
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("killing at %v", time.Now())
	c.Close(ctx)
	p.kill()

	p = startProc(t, dir)
	c = p.connect(t)
	defer p.kill()
	cnt, _, _ := total(c)
	if cnt >= n {
		t.Fatalf("the source finished before the kill (%d rows); nothing was tested", cnt)
	}
	deadline = time.Now().Add(30 * time.Second)
	t0 := time.Now()
	for cnt < n && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		cnt, _, _ = total(c)
	}
	t.Logf("restart: %d rows, finished %v later", cnt, time.Since(t0))
	cnt, sum, distinct := total(c)
	if cnt != n || distinct != n || sum != n*(n+1)/2 {
		t.Fatalf("after kill -9: count %d, distinct %d, sum %d; want %d, %d, %d", cnt, distinct, sum, n, n, n*(n+1)/2)
	}
	var agg int64
	if err := c.QueryRow(ctx, "SELECT sum(c) FROM seq_agg").Scan(&agg); err != nil || agg != n {
		t.Fatalf("seq_agg counts %d rows (%v), want %d", agg, err, n)
	}
}
