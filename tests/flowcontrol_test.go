package tests

// End-to-end tests of backfill flow control (issue 4): ALTER MATERIALIZED
// VIEW ... PAUSE | RESUME | SET BACKFILL_RATE_LIMIT, measured through
// streamdb_catalog.ddl_progress. Run with -tags invariants to turn on the
// I2 check inside the scans; a violation panics in an actor, which the
// graph turns into a recovery whose log these tests watch for.
//
// Longer runs: STREAMDB_RATE_WINDOW=10s, STREAMDB_STORM_OPS=1000,
// STREAMDB_PAUSE_WINDOW=5s.

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/pgerr"
)

func envDuration(t *testing.T, name string, def time.Duration) time.Duration {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, s, err)
	}
	return d
}

// failureLog is a slog handler that keeps warnings and errors (graph
// recoveries, the I2 check's panic among them).
type failureLog struct {
	mu   sync.Mutex
	msgs []string
}

func (f *failureLog) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (f *failureLog) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	f.mu.Lock()
	f.msgs = append(f.msgs, b.String())
	f.mu.Unlock()
	return nil
}
func (f *failureLog) WithAttrs([]slog.Attr) slog.Handler { return f }
func (f *failureLog) WithGroup(string) slog.Handler      { return f }

// check fails the test if anything failed in the graph meanwhile.
func (f *failureLog) check(t *testing.T) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, m := range f.msgs {
		if strings.Contains(m, "invariant I2 violated") {
			t.Fatalf("the I2 check fired: %.2000s", m)
		}
	}
	if len(f.msgs) > 0 {
		t.Fatalf("%d graph failures, first: %.2000s", len(f.msgs), f.msgs[0])
	}
}

// openWatched opens an in-memory database whose graph failures are kept.
func openWatched(t *testing.T) (*streamdb.DB, *failureLog) {
	t.Helper()
	fl := &failureLog{}
	db, err := streamdb.Open(":memory:", &streamdb.Options{NoSync: true, Logger: slog.New(fl)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return db, fl
}

// createBackground starts creating view name in the background with the
// session settings given.
func createBackground(t *testing.T, db *streamdb.DB, name, query string, settings ...string) {
	t.Helper()
	s := db.NewSession()
	qs := append([]string{"SET background_ddl = true"}, settings...)
	qs = append(qs, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", name, query))
	for _, q := range qs {
		if _, err := s.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

const flowAgg = "SELECT k, count(*) AS n, sum(v) AS s FROM big GROUP BY k"

// TestBackfillRateMeasured: at BACKFILL_RATE_LIMIT = 1000 the rows read
// per second, measured between two progress steps over the window, are
// within 10% of 1000.
func TestBackfillRateMeasured(t *testing.T) {
	window := envDuration(t, "STREAMDB_RATE_WINDOW", 3*time.Second)
	const limit = 1000
	rows := max(20_000, int(window.Seconds()*limit*1.5)+2000)
	db, fl := openWatched(t)
	loadBig(t, db, rows)
	createBackground(t, db, "rated", flowAgg, "SET backfill_rate_limit = 0")
	mustExec(t, db, fmt.Sprintf("ALTER MATERIALIZED VIEW rated SET BACKFILL_RATE_LIMIT = %d", limit))

	// Progress moves in steps (one per chunk); time the steps, so the
	// figure is the rows between the first and the last step seen in the
	// window over the time between them.
	type step struct {
		at   time.Time
		read int64
	}
	var steps []step
	warm := time.Now().Add(300 * time.Millisecond)
	end := warm.Add(window)
	last := int64(-1)
	for now := time.Now(); now.Before(end); now = time.Now() {
		p, ok := jobProgress(t, db, "rated")
		if !ok {
			t.Fatal("the rate-limited job finished early")
		}
		if p.read != last && now.After(warm) {
			steps = append(steps, step{now, p.read})
		}
		last = p.read
		time.Sleep(2 * time.Millisecond)
	}
	if len(steps) < 3 {
		t.Fatalf("only %d progress steps in %v", len(steps), window)
	}
	// The first step seen may have happened before it was seen: start at
	// the second.
	first, lastStep := steps[1], steps[len(steps)-1]
	dt := lastStep.at.Sub(first.at).Seconds()
	got := float64(lastStep.read-first.read) / dt
	t.Logf("BACKFILL_RATE_LIMIT = %d: %.1f rows/s (%d rows in %.3f s, %d steps, window %v)",
		limit, got, lastStep.read-first.read, dt, len(steps), window)
	if got < limit*0.9 || got > limit*1.1 {
		t.Fatalf("rate %.1f rows/s, want %d +/- 10%%", got, limit)
	}
	mustExec(t, db, "ALTER MATERIALIZED VIEW rated SET BACKFILL_RATE_LIMIT = DEFAULT")
	mustExec(t, db, "WAIT")
	checkView(t, db, "rated", flowAgg)
	fl.check(t)
}

// TestBackfillThrottleStorm: during a backfill with a concurrent writer,
// two sessions issue random PAUSE / RESUME / rate changes (0 and DEFAULT
// among them), often back to back; after DEFAULT + RESUME and WAIT the
// view equals its query and nothing failed in the graph.
func TestBackfillThrottleStorm(t *testing.T) {
	ops := int(envInt("STREAMDB_STORM_OPS", 150))
	const rows = 20_000
	db, fl := openWatched(t)
	loadBig(t, db, rows)
	createBackground(t, db, "storm", flowAgg, "SET backfill_rate_limit = 2000")
	createBackground(t, db, "storm_join", "SELECT big.id, big.v, dim.name FROM big JOIN dim ON big.k = dim.k",
		"SET backfill_rate_limit = 3000")
	w := startWriter(db, rows, 42)
	ins := startInserter(db)
	time.Sleep(500 * time.Millisecond)
	ins.mu.Lock()
	w.mu.Lock()
	t.Logf("before the storm: %d inserter writes, %d writer writes in 0.5 s", ins.writes, w.writes)
	w.mu.Unlock()
	ins.mu.Unlock()
	start := time.Now()

	var mu sync.Mutex
	applied, finished := 0, 0
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(g + 1)))
			s := db.NewSession()
			for i := g; i < ops; i += 2 {
				view := "storm"
				if rng.Intn(4) == 0 {
					view = "storm_join"
				}
				var q string
				switch k := rng.Intn(20); {
				case k < 6:
					q = "PAUSE"
				case k < 10:
					q = "RESUME"
				case k < 12:
					q = "SET BACKFILL_RATE_LIMIT = 0"
				case k < 13:
					// Unlimited for one statement's time only, so the job
					// stays in its backfill for the whole storm.
					q = "SET BACKFILL_RATE_LIMIT = DEFAULT"
				default:
					q = fmt.Sprintf("SET BACKFILL_RATE_LIMIT = %d", []int{1, 50, 200, 1000}[rng.Intn(4)])
				}
				_, err := s.Exec(context.Background(), fmt.Sprintf("ALTER MATERIALIZED VIEW %s %s", view, q))
				if err == nil && strings.HasSuffix(q, "DEFAULT") {
					_, err = s.Exec(context.Background(), "ALTER MATERIALIZED VIEW "+view+" PAUSE")
				}
				mu.Lock()
				switch {
				case err == nil:
					applied++
				case pgerr.Code(err) == pgerr.ObjectNotInPrereqState:
					finished++ // PAUSE/RESUME after the job finished
				default:
					mu.Unlock()
					errs <- fmt.Errorf("%s %s: %w", view, q, err)
					return
				}
				mu.Unlock()
				if rng.Intn(3) > 0 { // a third go back to back
					time.Sleep(time.Duration(rng.Intn(15)) * time.Millisecond)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	stormTime := time.Since(start)
	p, running := jobProgress(t, db, "storm")
	for _, v := range []string{"storm", "storm_join"} {
		mustExec(t, db, "ALTER MATERIALIZED VIEW "+v+" SET BACKFILL_RATE_LIMIT = DEFAULT")
		if _, err := db.Exec(context.Background(), "ALTER MATERIALIZED VIEW "+v+" RESUME"); err != nil &&
			pgerr.Code(err) != pgerr.ObjectNotInPrereqState {
			t.Fatal(err)
		}
	}
	writes := w.halt(t) + ins.halt(t)
	mustExec(t, db, "WAIT")
	checkView(t, db, "storm", flowAgg)
	checkView(t, db, "storm_join", "SELECT big.id, big.v, dim.name FROM big JOIN dim ON big.k = dim.k")
	mustExec(t, db, "INSERT INTO big VALUES (-7, 7, 7)")
	checkView(t, db, "storm", flowAgg)
	fl.check(t)
	t.Logf("storm: %d ALTERs (%d applied, %d refused after the job finished) in %v with %d concurrent writes; "+
		"at the end of the storm the job was running=%v %+v; total %v",
		ops, applied, finished, stormTime.Round(time.Millisecond), writes, running, p, time.Since(start).Round(time.Millisecond))
}

// TestBackfillPauseHolds: after PAUSE returns, the job's progress stays
// exactly constant while the upstream takes writes (they pile up in the
// log store) and another view stays fresh, read-your-writes.
func TestBackfillPauseHolds(t *testing.T) {
	window := envDuration(t, "STREAMDB_PAUSE_WINDOW", time.Second)
	const rows = 20_000
	db, fl := openWatched(t)
	loadBig(t, db, rows)
	mustExec(t, db, "CREATE MATERIALIZED VIEW fresh AS SELECT count(*) AS n, sum(v) AS s FROM big")
	createBackground(t, db, "held", flowAgg, "SET backfill_rate_limit = 4000")
	for deadline := time.Now().Add(10 * time.Second); ; {
		if p, _ := jobProgress(t, db, "held"); p.read > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("backfill never started")
		}
		time.Sleep(5 * time.Millisecond)
	}
	mustExec(t, db, "ALTER MATERIALIZED VIEW held PAUSE")
	p0, ok := jobProgress(t, db, "held")
	if !ok || p0.phase != "snapshot" || p0.read >= rows {
		t.Fatalf("paused job: %+v (listed %v)", p0, ok)
	}
	samples, inserted := 0, 0
	ctx := context.Background()
	for end := time.Now().Add(window); time.Now().Before(end); {
		inserted++
		mustExec(t, db, fmt.Sprintf("INSERT INTO big VALUES (%d, %d, 1)", -inserted, inserted%50))
		if got := queryRows(t, db, "SELECT n FROM fresh"); got[0] != strconv.Itoa(rows+inserted) {
			t.Fatalf("other view not fresh while a backfill is paused: n = %v after %d inserts", got, inserted)
		}
		p, _ := jobProgress(t, db, "held")
		if p.read != p0.read || p.total != p0.total || p.phase != p0.phase {
			t.Fatalf("paused job moved after %v: %+v then %+v", window, p0, p)
		}
		samples++
	}
	pEnd, _ := jobProgress(t, db, "held")
	if pEnd.lag < p0.lag+int64(inserted) {
		t.Fatalf("writes during the pause not in the log store: lag %d -> %d after %d inserts", p0.lag, pEnd.lag, inserted)
	}
	t.Logf("paused %v at %d rows read: %d samples constant, %d inserts, log lag %d -> %d",
		window, p0.read, samples, inserted, p0.lag, pEnd.lag)
	if _, err := db.Exec(ctx, "ALTER MATERIALIZED VIEW held SET BACKFILL_RATE_LIMIT = DEFAULT"); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, "ALTER MATERIALIZED VIEW held RESUME")
	mustExec(t, db, "WAIT")
	checkView(t, db, "held", flowAgg)
	fl.check(t)
}

// startInserter inserts (and deletes again) rows with fresh negative ids
// into big until halted: cheap writes by pk, many per second.
func startInserter(db *streamdb.DB) *writer {
	w := &writer{db: db, stop: make(chan struct{})}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		rng := rand.New(rand.NewSource(3))
		s := db.NewSession()
		for id := 1_000_000; ; id++ {
			select {
			case <-w.stop:
				return
			default:
			}
			q := fmt.Sprintf("INSERT INTO big VALUES (%d, %d, %d), (%d, %d, %d)",
				-id, rng.Intn(50), rng.Intn(1000), -id-5_000_000, rng.Intn(50), rng.Intn(1000))
			if id%3 == 0 {
				q = fmt.Sprintf("DELETE FROM big WHERE id = %d", -id+1)
			}
			if _, err := s.Exec(context.Background(), q); err != nil {
				w.mu.Lock()
				w.err = fmt.Errorf("%s: %w", q, err)
				w.mu.Unlock()
				return
			}
			w.mu.Lock()
			w.writes++
			w.mu.Unlock()
		}
	}()
	return w
}
