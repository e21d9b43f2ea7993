package tests

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamdb/streamdb"
)

// Indexes: lookups through an index return what the same query returns
// reading the whole table (enable_indexscan = off), over a seeded random
// workload that writes while the indexes backfill and after; indexes
// survive a restart, one still backfilling included.

// sessionRows runs a query on a session and returns its rows as sorted
// text lines.
func sessionRows(t testing.TB, s *streamdb.Session, sql string) []string {
	t.Helper()
	out, err := sortedTextRows(s, sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

func sessionExec(t testing.TB, s *streamdb.Session, sql string) {
	t.Helper()
	if _, err := s.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// indexWorkload generates the rows, writes and lookups of the
// differential test: few distinct values, NULLs, and values that are
// equal but print differently (numeric 1 and 1.00, float -0 and 0).
type indexWorkload struct {
	rng    *rand.Rand
	nextID int
}

func (w *indexWorkload) pick(vals ...string) string { return vals[w.rng.Intn(len(vals))] }

func (w *indexWorkload) a() string {
	if w.rng.Intn(10) == 0 {
		return "NULL"
	}
	return fmt.Sprint(w.rng.Intn(26) - 5)
}

func (w *indexWorkload) b() string {
	return w.pick("NULL", "''", "'a'", "'ab'", "'b'", "'B'", "'ba'", "'z'", "'a b'")
}

func (w *indexWorkload) c() string {
	return w.pick("NULL", "1", "1.0", "1.00", "2.5", "-3", "0", "0.000", "100")
}

func (w *indexWorkload) d() string {
	return w.pick("NULL", "'-0'", "0", "1.5", "-2", "'NaN'", "'Infinity'", "'-Infinity'", "3")
}

func (w *indexWorkload) ts() string {
	return w.pick("NULL", "'2024-01-01'", "'2024-01-01 00:00:01'", "'2023-12-31 23:59:59'", "'2024-06-01'")
}

func (w *indexWorkload) row() string {
	w.nextID++
	return fmt.Sprintf("(%d, %s, %s, %s, %s, %s)", w.nextID, w.a(), w.b(), w.c(), w.d(), w.ts())
}

// write returns a random INSERT, UPDATE or DELETE.
func (w *indexWorkload) write() string {
	id := w.rng.Intn(w.nextID + 1)
	switch w.rng.Intn(5) {
	case 0, 1:
		rows := make([]string, 1+w.rng.Intn(20))
		for i := range rows {
			rows[i] = w.row()
		}
		return "INSERT INTO dt VALUES " + strings.Join(rows, ", ")
	case 2:
		col, val := w.pick("a", "b", "c", "d", "ts"), ""
		switch col {
		case "a":
			val = w.a()
		case "b":
			val = w.b()
		case "c":
			val = w.c()
		case "d":
			val = w.d()
		default:
			val = w.ts()
		}
		return fmt.Sprintf("UPDATE dt SET %s = %s WHERE id BETWEEN %d AND %d", col, val, id, id+w.rng.Intn(30))
	case 3:
		return fmt.Sprintf("UPDATE dt SET a = a + 1, b = b || 'x' WHERE a = %d", w.rng.Intn(20))
	}
	return fmt.Sprintf("DELETE FROM dt WHERE id BETWEEN %d AND %d", id, id+w.rng.Intn(10))
}

// lookup returns a random query whose filter an index may serve.
func (w *indexWorkload) lookup() string {
	var cond string
	switch w.rng.Intn(12) {
	case 0:
		cond = "a = " + w.a()
	case 1:
		cond = fmt.Sprintf("a IN (%s, %s, %s)", w.a(), w.a(), w.a())
	case 2:
		cond = fmt.Sprintf("a %s %s", w.pick("<", "<=", ">", ">="), w.a())
	case 3:
		cond = fmt.Sprintf("a BETWEEN %s AND %s", w.a(), w.a())
	case 4:
		cond = fmt.Sprintf("b = %s AND a %s %s", w.b(), w.pick("<", ">=", "="), w.a())
	case 5:
		cond = fmt.Sprintf("b %s %s", w.pick("<", "<=", ">", ">=", "="), w.b())
	case 6:
		cond = fmt.Sprintf("c = %s AND d %s %s", w.c(), w.pick("=", "<", ">"), w.d())
	case 7:
		cond = "c = " + w.c()
	case 8:
		cond = fmt.Sprintf("d %s %s", w.pick("=", "<", "<=", ">", ">="), w.d())
	case 9:
		cond = fmt.Sprintf("ts %s %s", w.pick("=", "<", ">="), w.ts())
	case 10:
		cond = fmt.Sprintf("c IN (%s, %s) AND d IN (%s, %s)", w.c(), w.c(), w.d(), w.d())
	default:
		cond = fmt.Sprintf("a > %s AND a < %s AND id %% 3 = 0", w.a(), w.a())
	}
	cols := w.pick("*", "id, a", "id, b, a, c", "count(*)", "id, c, d", "id, ts")
	return fmt.Sprintf("SELECT %s FROM dt WHERE %s", cols, cond)
}

const indexTestTable = "CREATE TABLE dt (id int PRIMARY KEY, a int, b text, c numeric, d float8, ts timestamp)"

var indexTestIndexes = []string{
	"CREATE INDEX ON dt (a)",
	"CREATE INDEX dt_b ON dt (b DESC, a) INCLUDE (c)",
	"CREATE INDEX ON dt (c, d DESC NULLS LAST)",
	"CREATE INDEX ON dt (d) INCLUDE (a)",
	"CREATE INDEX ON dt (ts DESC)",
}

// compareLookups runs n random lookups through the indexes and without
// them and fails on any difference; it returns how many read an index.
func compareLookups(t *testing.T, w *indexWorkload, idx, scan *streamdb.Session, n int) int {
	t.Helper()
	used := 0
	for i := 0; i < n; i++ {
		q := w.lookup()
		got, want := sessionRows(t, idx, q), sessionRows(t, scan, q)
		if !slices.Equal(got, want) {
			t.Fatalf("%s:\nthrough indexes %d rows %v\nscanning %d rows %v\nplan:\n%s", q, len(got), head(got), len(want), head(want),
				strings.Join(sessionRows(t, idx, "EXPLAIN "+q), "\n"))
		}
		if strings.Contains(strings.Join(sessionRows(t, idx, "EXPLAIN "+q), "\n"), "Index") {
			used++
		}
	}
	return used
}

func head(rows []string) []string { return rows[:min(len(rows), 8)] }

// TestIndexDifferential builds indexes over a table while writers change
// it, then checks random lookups through them against full scans, after
// each of many random writes.
func TestIndexDifferential(t *testing.T) {
	db := openMem(t)
	ctx := context.Background()
	w := &indexWorkload{rng: rand.New(rand.NewSource(20240601))}
	mustExec(t, db, indexTestTable)
	rows := make([]string, 3000)
	for i := range rows {
		rows[i] = w.row()
	}
	mustExec(t, db, "INSERT INTO dt VALUES "+strings.Join(rows, ", "))

	// Writers go on while the indexes backfill (slowly: rate-limited,
	// one of them rescaled mid-way).
	const writers = 3
	var (
		stop    = make(chan struct{})
		writes  sync.WaitGroup
		written [writers]int // by each writer, read after writes.Wait
		werr    [writers]error
		wrngs   [writers]*indexWorkload
	)
	for i := range writers {
		wrngs[i] = &indexWorkload{rng: rand.New(rand.NewSource(int64(7 + i))), nextID: 100_000 * (i + 1)}
		writer := db.NewSession()
		defer writer.Close()
		writes.Add(1)
		go func() {
			defer writes.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				q := wrngs[i].write()
				if _, err := writer.Exec(ctx, q); err != nil {
					werr[i] = fmt.Errorf("%s: %w", q, err)
					return
				}
				written[i]++
			}
		}()
	}
	ddl := db.NewSession()
	defer ddl.Close()
	sessionExec(t, ddl, "SET background_ddl = true")
	sessionExec(t, ddl, "SET backfill_rate_limit = 1000")
	for _, q := range indexTestIndexes {
		sessionExec(t, ddl, q)
	}
	if got := sessionRows(t, ddl, "SELECT count(*) FROM streamdb_catalog.ddl_progress WHERE statement LIKE 'CREATE INDEX%'"); got[0] == "0" {
		t.Fatal("no index is backfilling")
	}
	time.Sleep(time.Second) // writes land in the log stores mid-backfill
	sessionExec(t, ddl, "ALTER INDEX dt_b SET PARALLELISM = 3")
	time.Sleep(time.Second)
	for _, name := range []string{"dt_a_idx", "dt_b", "dt_c_d_idx", "dt_d_a_idx", "dt_ts_idx"} {
		sessionExec(t, ddl, "ALTER INDEX "+name+" SET BACKFILL_RATE_LIMIT = DEFAULT")
	}
	sessionExec(t, ddl, "WAIT")
	close(stop)
	writes.Wait()
	for _, err := range werr {
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%v writes during the backfills", written)
	if n := sessionRows(t, ddl, "SELECT count(*) FROM pg_indexes WHERE tablename = 'dt'"); n[0] != "6" {
		t.Fatalf("pg_indexes lists %s indexes on dt, want 6", n[0])
	}

	idx, scan := db.NewSession(), db.NewSession()
	defer idx.Close()
	defer scan.Close()
	sessionExec(t, scan, "SET enable_indexscan = off")
	w.nextID = wrngs[writers-1].nextID
	first, rounds := 200, 40
	if raceEnabled {
		first, rounds = 50, 10
	}
	used := compareLookups(t, w, idx, scan, first)
	for round := 0; round < rounds; round++ {
		for i := 0; i < 5; i++ {
			mustExec(t, db, w.write())
		}
		used += compareLookups(t, w, idx, scan, 15)
	}
	if total := first + 15*rounds; used < total/2 {
		t.Fatalf("only %d of %d lookups read an index", used, total)
	} else {
		t.Logf("%d of %d lookups read an index", used, total)
	}
}

// TestIndexRestart: indexes, one still backfilling (held), survive a
// restart; the held one resumes and both serve lookups equal to scans.
func TestIndexRestart(t *testing.T) {
	dir := t.TempDir()
	open := func() *streamdb.DB {
		t.Helper()
		db, err := streamdb.Open(dir, &streamdb.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open()
	mustExec(t, db, "CREATE TABLE r (id int PRIMARY KEY, k int, s text)")
	mustExec(t, db, "INSERT INTO r SELECT g, g % 100, 's' || (g % 13) FROM generate_series(1, 5000) g")
	mustExec(t, db, "CREATE INDEX ON r (k)")
	s := db.NewSession()
	sessionExec(t, s, "SET background_ddl = true")
	sessionExec(t, s, "CREATE INDEX r_s ON r (s) WITH (backfill_rate_limit = 0)")
	mustExec(t, db, "DELETE FROM r WHERE k = 5")
	mustExec(t, db, "UPDATE r SET s = 'moved' WHERE id % 100 = 7")
	s.Close()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db = open()
	defer func() { db.Close() }()
	check := func(when string) {
		t.Helper()
		want := map[string][]string{
			"SELECT count(*) FROM r WHERE k = 5":             {"0"},
			"SELECT count(*) FROM r WHERE k = 7":             {"50"},
			"SELECT count(*) FROM r WHERE s = 'moved'":       {"50"},
			"SELECT count(*) FROM r WHERE k BETWEEN 1 AND 9": {"400"},
		}
		for q, rows := range want {
			if got := queryRows(t, db, q); !slices.Equal(got, rows) {
				t.Fatalf("%s %s: %v, want %v", when, q, got, rows)
			}
		}
	}
	if got := queryRows(t, db, "SELECT phase, paused FROM streamdb_catalog.ddl_progress"); len(got) != 1 || !strings.HasSuffix(got[0], "|t") {
		t.Fatalf("the held index's job after the restart: %v", got)
	}
	check("after the restart")
	if plan := strings.Join(queryRows(t, db, "EXPLAIN SELECT id FROM r WHERE k = 7"), "\n"); !strings.Contains(plan, "Index Only Scan using r_k_idx on r: k = 7") {
		t.Fatalf("plan after the restart:\n%s", plan)
	}
	mustExec(t, db, "ALTER INDEX r_s SET BACKFILL_RATE_LIMIT = DEFAULT")
	mustExec(t, db, "WAIT")
	check("once resumed")
	if plan := strings.Join(queryRows(t, db, "EXPLAIN SELECT id FROM r WHERE s = 'moved'"), "\n"); !strings.Contains(plan, "using r_s on r") {
		t.Fatalf("plan once resumed:\n%s", plan)
	}
	mustExec(t, db, "DROP INDEX r_k_idx")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = open()
	if got := queryRows(t, db, "SELECT indexname FROM pg_indexes WHERE tablename = 'r'"); !slices.Equal(got, []string{"r_pkey", "r_s"}) {
		t.Fatalf("indexes after a DROP and a restart: %v", got)
	}
	check("after the second restart")
}

// TestIndexErrors checks the SQLSTATEs of CREATE / DROP INDEX errors.
func TestIndexErrors(t *testing.T) {
	db := openMem(t)
	mustExec(t, db, "CREATE TABLE e (id int PRIMARY KEY, a int, j json)")
	mustExec(t, db, "CREATE INDEX e_a ON e (a)")
	mustExec(t, db, "CREATE VIEW ev AS SELECT a FROM e")
	for q, code := range map[string]string{
		"CREATE INDEX e_a ON e (id)":           "42P07",
		"CREATE INDEX e_pkey ON e (a)":         "42P07",
		"CREATE INDEX ON e (nope)":             "42703",
		"CREATE INDEX ON nope (a)":             "42P01",
		"CREATE INDEX ON ev (a)":               "42809",
		"CREATE INDEX ON e (j)":                "42704",
		"CREATE UNIQUE INDEX ON ev (a)":        "42809",
		"CREATE INDEX ON e ((a + 1))":          "0A000",
		"CREATE INDEX ON e (a) WHERE a > 0":    "0A000",
		"CREATE INDEX ON e (a) WITH (foo = 1)": "22023",
		"DROP INDEX nope":                      "42704",
		"DROP INDEX e":                         "42809",
		"DROP TABLE e_a":                       "42809",
		"SELECT * FROM e_a":                    "42809",
		"ALTER INDEX e_a PAUSE":                "55000",
	} {
		_, err := db.Exec(context.Background(), q)
		var se *streamdb.Error
		if !errors.As(err, &se) || se.Code != code {
			t.Errorf("%s: %v, want SQLSTATE %s", q, err, code)
		}
	}
	mustExec(t, db, "DROP INDEX IF EXISTS nope")
	mustExec(t, db, "CREATE INDEX IF NOT EXISTS e_a ON e (id)")
}

// BenchmarkIndexPointLookup looks up one row by an indexed column of a
// 200,000-row table, through the index and (scan) reading the whole
// table; the index run reports its speed-up over the scan as
// "x_faster_than_scan".
func BenchmarkIndexPointLookup(b *testing.B) {
	const rows = 200_000
	db := openMem(b)
	ctx := context.Background()
	mustExec(b, db, "CREATE TABLE bt (id bigint PRIMARY KEY, k bigint, v text)")
	mustExec(b, db, fmt.Sprintf("INSERT INTO bt SELECT g, g * 7 %% %d, 'v' || g FROM generate_series(1, %d) g", rows, rows))
	mustExec(b, db, "CREATE INDEX ON bt (k)")
	lookup := func(s *streamdb.Session, i int) {
		r, err := s.Query(ctx, fmt.Sprintf("SELECT id, v FROM bt WHERE k = %d", i*7919%rows))
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for r.Next() {
			n++
		}
		if n != 1 {
			b.Fatalf("%d rows", n)
		}
	}
	timeOne := func(s *streamdb.Session, n int) time.Duration {
		start := time.Now()
		for i := 0; i < n; i++ {
			lookup(s, i)
		}
		return time.Since(start) / time.Duration(n)
	}
	scan := db.NewSession()
	defer scan.Close()
	if _, err := scan.Exec(ctx, "SET enable_indexscan = off"); err != nil {
		b.Fatal(err)
	}
	b.Run("index", func(b *testing.B) {
		s := db.NewSession()
		defer s.Close()
		scanTime := timeOne(scan, 3)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			lookup(s, i)
		}
		b.StopTimer()
		b.ReportMetric(float64(scanTime)/float64(b.Elapsed()/time.Duration(b.N)), "x_faster_than_scan")
	})
	b.Run("scan", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			lookup(scan, i)
		}
	})
}

// TestIndexDropWhileReading creates and drops an index while readers
// look rows up through it: a query that planned to read an index dropped
// before it ran reads the table instead, never the index's purged state.
func TestIndexDropWhileReading(t *testing.T) {
	db := openMem(t)
	ctx := context.Background()
	mustExec(t, db, "CREATE TABLE dr (id int PRIMARY KEY, k int)")
	mustExec(t, db, "INSERT INTO dr SELECT g, g % 100 FROM generate_series(1, 5000) g")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for r := 0; r < 2; r++ {
		s := db.NewSession()
		defer s.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				rows, err := s.Query(ctx, fmt.Sprintf("SELECT count(*) FROM dr WHERE k = %d", i%100))
				if err != nil {
					errs <- err
					return
				}
				rows.Next()
				if n := *rows.Text()[0]; n != "50" {
					errs <- fmt.Errorf("k = %d: count %s, want 50", i%100, n)
					return
				}
			}
		}()
	}
	for i := 0; i < 15; i++ {
		mustExec(t, db, "CREATE INDEX dr_k ON dr (k)")
		time.Sleep(20 * time.Millisecond)
		mustExec(t, db, "DROP INDEX dr_k")
	}
	close(stop)
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
}

// TestIndexDML: UPDATE and DELETE find their rows through an index, and
// what they change is there for the next statement's index read: random
// statements on a table with indexes and on a twin without leave both
// with the same rows. Updates move rows between index keys (SET k = ...)
// so that the next statement reads the keys the last one wrote.
func TestIndexDML(t *testing.T) {
	db := openMem(t)
	mustExec(t, db, "CREATE TABLE xi (id int PRIMARY KEY, k int, v int)")
	mustExec(t, db, "CREATE TABLE xn (id int PRIMARY KEY, k int, v int)")
	mustExec(t, db, "INSERT INTO xi SELECT g, g % 20, g FROM generate_series(1, 400) g")
	mustExec(t, db, "INSERT INTO xn SELECT * FROM xi")
	mustExec(t, db, "CREATE INDEX ON xi (k)")
	mustExec(t, db, "CREATE INDEX ON xi (v) INCLUDE (k)")
	for _, q := range []string{"EXPLAIN UPDATE xi SET v = 0 WHERE k = 3", "EXPLAIN DELETE FROM xi WHERE v BETWEEN 1 AND 5"} {
		if plan := strings.Join(queryRows(t, db, q), "\n"); !strings.Contains(plan, "Scan using xi_") {
			t.Fatalf("%s:\n%s", q, plan)
		}
	}
	rng := rand.New(rand.NewSource(11))
	nextID := 1000
	steps := 300
	if raceEnabled {
		steps = 80
	}
	for i := 0; i < steps; i++ {
		k, v := rng.Intn(22), rng.Intn(500)
		var q string
		switch rng.Intn(6) {
		case 0:
			q = fmt.Sprintf("UPDATE %%s SET k = %d WHERE k = %d", rng.Intn(22), k)
		case 1:
			q = fmt.Sprintf("UPDATE %%s SET v = v + 7, k = k + 1 WHERE v BETWEEN %d AND %d", v, v+20)
		case 2:
			q = fmt.Sprintf("DELETE FROM %%s WHERE k = %d AND v > %d", k, v)
		case 3:
			q = fmt.Sprintf("DELETE FROM %%s WHERE v = %d", v)
		case 4:
			q = fmt.Sprintf("UPDATE %%s SET id = id + 10000 WHERE k = %d AND v < %d", k, v)
		default:
			nextID++
			q = fmt.Sprintf("INSERT INTO %%s VALUES (%d, %d, %d)", nextID, k, v)
		}
		mustExec(t, db, fmt.Sprintf(q, "xi"))
		mustExec(t, db, fmt.Sprintf(q, "xn"))
		if i%10 == 9 || i == steps-1 {
			got := queryRows(t, db, "SELECT * FROM xi ORDER BY id")
			want := queryRows(t, db, "SELECT * FROM xn ORDER BY id")
			if !slices.Equal(got, want) {
				t.Fatalf("after step %d (%s): the indexed table has %d rows, its twin %d; first rows %v / %v",
					i, q, len(got), len(want), head(got), head(want))
			}
		}
	}
}
