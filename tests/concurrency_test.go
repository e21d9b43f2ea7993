package tests

// Concurrency tests through the public API: DML in many sessions racing
// DDL and SELECTs; every view must end equal to its query, nothing may
// hang, and every error must be a clean, expected SQLSTATE.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/failpoint"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// TestConcurrentDMLAndDDLUnderFailures: the same while the graph fails now
// and then (aggregates, commits, channels that end). It found a hang: a
// CREATE whose Add barrier was made for a graph that a recovery had
// replaced started its actors wired to actors that no longer ran, and
// every barrier after waited for them (see Coordinator.MutateIn).
func TestConcurrentDMLAndDDLUnderFailures(t *testing.T) {
	requireFailpoints(t)
	defer failpoint.Reset()
	for name, spec := range map[string]failpoint.Spec{
		failpoint.ExecHashAggChunk: {Action: failpoint.Error, Prob: 0.01, Seed: 1},
		failpoint.StorageCommit:    {Action: failpoint.Error, Prob: 0.01, Seed: 2},
		failpoint.StreamSend:       {Action: failpoint.End, Prob: 0.0005, Seed: 3},
	} {
		if _, err := failpoint.Enable(name, spec); err != nil {
			t.Fatal(err)
		}
	}
	concurrentDMLAndDDL(t, true)
}

// sqlState returns err's SQLSTATE ("" for nil).
func sqlState(err error) string {
	if err == nil {
		return ""
	}
	return pgerr.As(err).Code
}

// watchdog fails the test with a goroutine dump when done is not closed
// within d (a deadlock or a hang).
func watchdog(t *testing.T, d time.Duration, what string, done <-chan struct{}) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(d):
		var sb strings.Builder
		_ = pprof.Lookup("goroutine").WriteTo(&sb, 1)
		t.Fatalf("%s did not finish within %v (deadlock?); goroutines:\n%s", what, d, sb.String())
	}
}

// errSink collects unexpected errors from worker goroutines.
type errSink struct {
	mu   sync.Mutex
	errs []string
}

func (e *errSink) add(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.errs) < 20 {
		e.errs = append(e.errs, fmt.Sprintf(format, args...))
	}
}

func (e *errSink) check(t *testing.T) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.errs) > 0 {
		t.Fatalf("unexpected errors:\n%s", strings.Join(e.errs, "\n"))
	}
}

// checkViewsEqualQueries checks that every view in defs that exists equals
// its defining query run as a batch SELECT.
func checkViewsEqualQueries(t *testing.T, db *streamdb.DB, defs map[string]string) int {
	t.Helper()
	existing := map[string]bool{}
	for _, n := range queryRows(t, db, "SHOW MATERIALIZED VIEWS") {
		existing[n] = true
	}
	checked := 0
	for name, def := range defs {
		if !existing[name] {
			continue
		}
		got := queryRows(t, db, "SELECT * FROM "+name)
		want := queryRows(t, db, def)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("view %s (%s) differs from its query:\nview:  %v\nquery: %v", name, def, got, want)
		}
		checked++
	}
	return checked
}

// viewDefs are the queries the DDL workers create views of.
var viewDefs = []string{
	"SELECT g, count(*) AS n, sum(v) AS s FROM a GROUP BY g",
	"SELECT a.id, a.v, b.w FROM a JOIN b ON a.id = b.id",
	"SELECT id, v FROM a WHERE v % 3 = 0",
	"SELECT g, max(w) AS m, min(w) AS mi FROM b GROUP BY g",
	"SELECT count(*) AS n, sum(w) AS s FROM b",
	"SELECT a.g, count(*) AS n FROM a LEFT JOIN b ON a.id = b.id GROUP BY a.g",
	"SELECT a.id, m.label FROM a JOIN (VALUES (0, 'zero'), (1, 'one'), (1, 'uno')) AS m(g, label) ON a.g = m.g UNION ALL SELECT -1, 'const'",
}

// TestConcurrentDMLAndDDL: writers insert, update and delete in their own
// sessions on two tables while other goroutines create and drop views over
// them and run SELECTs. At the end every remaining view equals its query.
func TestConcurrentDMLAndDDL(t *testing.T) { concurrentDMLAndDDL(t, false) }

// concurrentDMLAndDDL runs TestConcurrentDMLAndDDL; with failures the
// graph fails now and then (failpoints, enabled by the caller), so a
// statement may also fail with 40001 and a CREATE with the error of a
// job that failed three times (XX000).
func concurrentDMLAndDDL(t *testing.T, failures bool) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	opts := &streamdb.Options{NoSync: true, BarrierInterval: 50 * time.Millisecond}
	if failures {
		opts.Logger = quietLogger()
	}
	db, err := streamdb.Open(":memory:", opts)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	mustExec(t, db, "CREATE TABLE a (id int PRIMARY KEY, g int, v int)")
	mustExec(t, db, "CREATE TABLE b (id int PRIMARY KEY, g int, w int)")
	for i := 0; i < 200; i += 2 {
		mustExec(t, db, fmt.Sprintf("INSERT INTO a VALUES (%d, %d, %d), (%d, %d, %d)", i, i%7, i, i+1, (i+1)%7, i+1))
	}
	mustExec(t, db, "INSERT INTO b VALUES (1, 1, 1), (2, 2, 2), (3, 3, 3)")
	// A view kept throughout, and one over it.
	mustExec(t, db, "CREATE MATERIALIZED VIEW keep_agg AS SELECT g, count(*) AS n, sum(v) AS s FROM a GROUP BY g")
	mustExec(t, db, "CREATE MATERIALIZED VIEW keep_top AS SELECT g, n FROM keep_agg WHERE n > 10")
	defs := map[string]string{
		"keep_agg": "SELECT g, count(*) AS n, sum(v) AS s FROM a GROUP BY g",
		"keep_top": "SELECT g, count(*) AS n FROM a GROUP BY g HAVING count(*) > 10",
	}
	var defsMu sync.Mutex

	var bad errSink
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var dups, stmts atomic.Int64
	const writers = 4
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			s := db.NewSession()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				tbl := []string{"a", "b"}[rng.IntN(2)]
				col := map[string]string{"a": "v", "b": "w"}[tbl]
				id := rng.IntN(300)
				var q string
				var args []any
				switch rng.IntN(5) {
				case 0, 1: // may collide with an existing key: 23505
					q, args = fmt.Sprintf("INSERT INTO %s VALUES ($1, $2, $3)", tbl), []any{id, id % 7, rng.IntN(100)}
				case 2:
					q, args = fmt.Sprintf("UPDATE %s SET %s = %s + 1 WHERE id = $1", tbl, col, col), []any{id}
				case 3:
					q, args = fmt.Sprintf("DELETE FROM %s WHERE id = $1", tbl), []any{id}
				case 4:
					q, args = fmt.Sprintf("UPDATE %s SET %s = %s * 2 %% 1000 WHERE g = $1", tbl, col, col), []any{rng.IntN(7)}
				}
				_, err := s.Exec(ctx, q, args...)
				stmts.Add(1)
				switch code := sqlState(err); {
				case err == nil:
				case failures && code == pgerr.SerializationFailure:
				case code == pgerr.UniqueViolation && strings.HasPrefix(q, "INSERT"):
					dups.Add(1)
					if !strings.Contains(err.Error(), "duplicate key value violates unique constraint") {
						bad.add("writer %d: 23505 with message %q", w, err)
					}
				default:
					bad.add("writer %d: %s %v: [%s] %v", w, q, args, code, err)
				}
			}
		}(w)
	}
	// DDL: create views with fresh names; drop some of them.
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := db.NewSession()
		rng := rand.New(rand.NewPCG(99, 1))
		var live []string
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if len(live) > 0 && rng.IntN(3) == 0 {
				k := rng.IntN(len(live))
				name := live[k]
				live = append(live[:k], live[k+1:]...)
				if _, err := s.Exec(ctx, "DROP MATERIALIZED VIEW "+name); err != nil {
					if failures && sqlState(err) == pgerr.SerializationFailure {
						live = append(live, name) // not dropped
						continue
					}
					bad.add("drop %s: [%s] %v", name, sqlState(err), err)
				}
				continue
			}
			name := fmt.Sprintf("v%d", i)
			def := viewDefs[rng.IntN(len(viewDefs))]
			if _, err := s.Exec(ctx, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", name, def)); err != nil {
				code := sqlState(err)
				if !failures || code != pgerr.SerializationFailure && code != pgerr.Internal {
					bad.add("create %s: [%s] %v", name, code, err)
				}
				continue
			}
			defsMu.Lock()
			defs[name] = def
			defsMu.Unlock()
			live = append(live, name)
		}
	}()
	// Readers: SELECTs on tables and on views that may be dropped meanwhile.
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			s := db.NewSession()
			rng := rand.New(rand.NewPCG(uint64(r), 3))
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				var q string
				switch rng.IntN(4) {
				case 0:
					q = "SELECT count(*), sum(v) FROM a"
				case 1:
					q = "SELECT * FROM keep_agg"
				case 2:
					q = fmt.Sprintf("SELECT * FROM v%d", rng.IntN(40))
				case 3:
					q = viewDefs[rng.IntN(len(viewDefs))]
				}
				_, err := s.Query(ctx, q)
				switch code := sqlState(err); code {
				case "", pgerr.UndefinedTable, pgerr.ObjectNotInPrereqState:
				default:
					bad.add("reader: %s: [%s] %v", q, code, err)
				}
			}
		}(r)
	}

	time.Sleep(2500 * time.Millisecond)
	close(stop)
	all := make(chan struct{})
	go func() { wg.Wait(); close(all) }()
	watchdog(t, 60*time.Second, "workers", all)
	bad.check(t)
	if stmts.Load() < 20 { // a floor that a loaded 2-core machine still clears
		t.Fatalf("only %d DML statements ran", stmts.Load())
	}
	if failures {
		failpoint.Reset()
	}
	fpFlush(t, db)
	n := checkViewsEqualQueries(t, db, defs)
	t.Logf("%d DML statements (%d duplicate keys), %d views checked", stmts.Load(), dups.Load(), n)
	if n < 3 {
		t.Fatalf("only %d views survived to be checked", n)
	}
}

// TestViewBackfillUnderWrites: views are created over tables that a writer
// changes during the whole backfill; each view ends equal to its query.
func TestViewBackfillUnderWrites(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	db, err := streamdb.Open(":memory:", &streamdb.Options{NoSync: true, BarrierInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	mustExec(t, db, "CREATE TABLE a (id int PRIMARY KEY, g int, v int)")
	mustExec(t, db, "CREATE TABLE b (id int PRIMARY KEY, g int, w int)")
	const rows = 4000
	for i := 0; i < rows; i += 500 {
		var vals []string
		for j := i; j < i+500; j++ {
			vals = append(vals, fmt.Sprintf("(%d, %d, %d)", j, j%13, j%101))
		}
		mustExec(t, db, "INSERT INTO a VALUES "+strings.Join(vals, ", "))
		mustExec(t, db, "INSERT INTO b VALUES "+strings.Join(vals, ", "))
	}

	var bad errSink
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var writes atomic.Int64
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			s := db.NewSession()
			rng := rand.New(rand.NewPCG(uint64(w), 11))
			next := rows + w*1_000_000
			for {
				select {
				case <-stop:
					return
				default:
				}
				tbl := []string{"a", "b"}[rng.IntN(2)]
				col := map[string]string{"a": "v", "b": "w"}[tbl]
				var q string
				switch rng.IntN(4) {
				case 0:
					next++
					q = fmt.Sprintf("INSERT INTO %s VALUES (%d, %d, %d), (%d, %d, %d)", tbl, next, next%13, rng.IntN(100), next+500_000, 3, 7)
				case 1:
					q = fmt.Sprintf("UPDATE %s SET %s = %s + 1 WHERE id = %d", tbl, col, col, rng.IntN(rows))
				case 2:
					q = fmt.Sprintf("DELETE FROM %s WHERE id = %d", tbl, rng.IntN(rows))
				case 3:
					q = fmt.Sprintf("UPDATE %s SET g = (g + 1) %% 13 WHERE id >= %d AND id < %d", tbl, rng.IntN(rows), rng.IntN(rows))
				}
				if _, err := s.Exec(ctx, q); err != nil {
					bad.add("writer: %s: [%s] %v", q, sqlState(err), err)
					return
				}
				writes.Add(1)
			}
		}(w)
	}
	defs := map[string]string{
		"bf_agg":    "SELECT g, count(*) AS n, sum(v) AS s FROM a GROUP BY g",
		"bf_filter": "SELECT id, g, v FROM a WHERE v > 50",
		"bf_join":   "SELECT a.id, a.v, b.w FROM a JOIN b ON a.id = b.id",
		"bf_count":  "SELECT count(*) AS n FROM b",
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, name := range []string{"bf_agg", "bf_filter", "bf_join", "bf_count"} {
			before := writes.Load()
			if _, err := db.Exec(ctx, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", name, defs[name])); err != nil {
				bad.add("create %s: [%s] %v", name, sqlState(err), err)
				return
			}
			t.Logf("%s created; %d writes committed during its backfill", name, writes.Load()-before)
		}
	}()
	watchdog(t, 90*time.Second, "creating the views", done)
	time.Sleep(100 * time.Millisecond)
	close(stop)
	all := make(chan struct{})
	go func() { wg.Wait(); close(all) }()
	watchdog(t, 30*time.Second, "writers", all)
	bad.check(t)
	if writes.Load() < 10 {
		t.Fatalf("only %d writes ran during the backfills", writes.Load())
	}
	if _, err := db.Exec(ctx, "FLUSH"); err != nil {
		t.Fatal(err)
	}
	if n := checkViewsEqualQueries(t, db, defs); n != len(defs) {
		t.Fatalf("%d of %d views exist", n, len(defs))
	}
}

// TestDropTableRacingDML: DROP TABLE while sessions write to it. Each
// statement either succeeds or fails cleanly with 42P01; nothing hangs;
// a table re-created with the same name starts empty and works.
func TestDropTableRacingDML(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	db, err := streamdb.Open(":memory:", &streamdb.Options{NoSync: true, BarrierInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for round := 0; round < 4; round++ {
		mustExec(t, db, "CREATE TABLE d (id int PRIMARY KEY, v int)")
		if got := queryRows(t, db, "SELECT count(*) FROM d"); got[0] != "0" {
			t.Fatalf("round %d: re-created table holds %s rows", round, got[0])
		}
		if round%2 == 1 {
			mustExec(t, db, "CREATE MATERIALIZED VIEW dv AS SELECT count(*) AS n FROM d")
		}
		var bad errSink
		var wg sync.WaitGroup
		var ok, gone atomic.Int64
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				s := db.NewSession()
				for i := 0; i < 10_000; i++ {
					var q string
					switch i % 3 {
					case 0:
						q = fmt.Sprintf("INSERT INTO d VALUES (%d, %d)", w*100_000+i, i)
					case 1:
						q = fmt.Sprintf("UPDATE d SET v = v + 1 WHERE id = %d", w*100_000+i-1)
					case 2:
						q = "SELECT count(*) FROM d"
					}
					_, err := s.Exec(ctx, q)
					switch code := sqlState(err); code {
					case "":
						ok.Add(1)
					case pgerr.UndefinedTable:
						gone.Add(1)
						return // the table is gone for good
					default:
						bad.add("round %d: %s: [%s] %v", round, q, code, err)
						return
					}
				}
			}(w)
		}
		time.Sleep(time.Duration(30+round*40) * time.Millisecond)
		drop := "DROP TABLE d"
		if round%2 == 1 {
			drop += " CASCADE"
		}
		dropped := make(chan error, 1)
		go func() { _, err := db.Exec(ctx, drop); dropped <- err }()
		var derr error
		doneDrop := make(chan struct{})
		go func() { derr = <-dropped; close(doneDrop) }()
		watchdog(t, 30*time.Second, "DROP TABLE", doneDrop)
		if derr != nil {
			t.Fatalf("round %d: %s: %v", round, drop, derr)
		}
		all := make(chan struct{})
		go func() { wg.Wait(); close(all) }()
		watchdog(t, 30*time.Second, "writers", all)
		bad.check(t)
		if gone.Load() != 4 {
			t.Fatalf("round %d: %d of 4 writers saw the table go (others finished first?)", round, gone.Load())
		}
		if len(queryRows(t, db, "SHOW TABLES")) != 0 || len(queryRows(t, db, "SHOW MATERIALIZED VIEWS")) != 0 {
			t.Fatalf("round %d: relations left after the drop", round)
		}
		t.Logf("round %d: %d statements succeeded before the drop", round, ok.Load())
	}
	mustExec(t, db, "CREATE TABLE d (id int PRIMARY KEY, v int)")
	mustExec(t, db, "INSERT INTO d VALUES (1, 1)")
	if got := queryRows(t, db, "SELECT * FROM d"); strings.Join(got, ",") != "1|1" {
		t.Fatalf("table after the drops: %v", got)
	}
}
