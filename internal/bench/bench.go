//go:build linux

// Package bench is `streamdb bench`: scenarios run side by side on
// streamdb and, with Compare, on a PostgreSQL server started for the run,
// through the same client code (pgx over the Postgres protocol), so the
// figures compare like with like. streamdb runs in-process on a fresh
// on-disk data dir per scenario, served on a loopback port.
package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/pgserver"
	"github.com/streamdb/streamdb/pgwire"
)

// IsolationPhases are the isolation scenario's phases, in the order it
// runs them (Config.IsolationPhases picks some).
var IsolationPhases = []string{"idle", "group-by-limited", "group-by", "group-by-adaptive", "join", "live-join", "busy", "busy-group-by", "busy-group-by-adaptive"}

// Scenarios are the scenario names, in the order they run.
var Scenarios = []string{"load", "backfill", "freshness", "isolation", "nexmark", "windowed", "api", "subscribe", "kafka"}

// Config sizes a run.
type Config struct {
	Scenarios []string // nil: all
	Rows      int64    // rows of the load and backfill tables
	Freshness int      // single-row INSERTs of the freshness scenario
	// BarrierInterval is streamdb's barrier interval (zero: its default,
	// one second): how long a source's rows wait at most for a barrier.
	BarrierInterval time.Duration
	// PGFreshness caps the REFRESHes timed on PostgreSQL (each rereads the
	// whole table).
	PGFreshness int
	// NexmarkEvents is the length of the Nexmark event stream per query.
	NexmarkEvents int64
	// IsolationWindow is how long the isolation scenario samples while
	// nothing else runs, and how long its rate-limited backfill is made to
	// last (its backfill_rate_limit is Rows per window).
	IsolationWindow time.Duration
	// IsolationRepeat is how many times the isolation scenario runs its
	// GROUP BY backfills without a fixed limit (group-by,
	// group-by-adaptive), dropping and creating the view again, pooling
	// the samples (the phase's seconds are then all runs'): a 3M-row
	// GROUP BY backfill lasts about half a second, about 200 samples, so
	// one run's p99 is its second-slowest sample. Zero means 1.
	IsolationRepeat int
	// IsolationPhases, when set, names the isolation phases to run, in
	// their usual order (nil: all of them); the join's tables are filled
	// only when a phase named uses them.
	IsolationPhases []string
	// KafkaRows is the messages kafka/ingest produces and loads (zero:
	// a million).
	KafkaRows int64
	// KafkaRate and KafkaWindow pace kafka/latency: writes per second
	// (zero: 200), for how long (zero: 10 s) per step.
	KafkaRate   int
	KafkaWindow time.Duration
	// StateEvery, when not zero, samples the state of the windowed
	// scenario's views this often (each sample scans their state).
	StateEvery time.Duration
	Compare    bool   // also run on PostgreSQL
	TempDir    string // where data dirs go ("": the system's)
	Log        io.Writer
	// CPUProfile, when set, is a path prefix: each streamdb step's measured
	// part is CPU-profiled into PREFIX-<scenario>.pprof.
	CPUProfile string
	// MemProfile, when set, is a path prefix: the heap profile of each
	// streamdb step at its highest resident set goes to
	// PREFIX-<scenario>.heap.
	MemProfile string
	// Trace, when set, is a path prefix: each streamdb step's measured
	// part (each phase of the isolation scenario) gets an execution trace
	// (runtime/trace: where goroutines waited, and on what) in
	// PREFIX-<scenario>.trace, for go tool trace.
	Trace string
	// Progress, when set, is called on Run's goroutine as each step
	// starts, and as each measured part of it (an isolation phase, a
	// load) starts, with the system and the step's or part's name.
	Progress func(system, scenario string)
}

// Result is one measured step.
type Result struct {
	System   string // "streamdb" or "postgres"
	Scenario string // e.g. "load/insert-select"
	Rows     int64
	Elapsed  time.Duration
	PeakRSS  int64 // bytes, of the process doing the work; 0: unknown
	// Events is the length of the Nexmark event stream a nexmark step
	// consumed its tables from (Rows counts the rows of those tables).
	Events   int64
	P50, P99 time.Duration
	// State, for a windowed step, samples its view's state over time,
	// the last one after the whole stream.
	State []StateSample
	// Note, when set, is the step's own comparison, printed in the
	// compared column (api: Append's time over COPY's).
	Note string
	Err  error
}

// Run runs the scenarios and returns their results in order.
func Run(ctx context.Context, cfg Config) ([]Result, error) {
	if cfg.Rows <= 0 {
		cfg.Rows = 10_000_000
	}
	if cfg.Freshness <= 0 {
		cfg.Freshness = 10_000
	}
	if cfg.PGFreshness <= 0 {
		cfg.PGFreshness = 20
	}
	if cfg.NexmarkEvents <= 0 {
		cfg.NexmarkEvents = 10_000_000
	}
	if cfg.IsolationWindow <= 0 {
		cfg.IsolationWindow = 10 * time.Second
	}
	if cfg.KafkaRows <= 0 {
		cfg.KafkaRows = 1_000_000
	}
	if cfg.KafkaRate <= 0 {
		cfg.KafkaRate = 200
	}
	if cfg.KafkaWindow <= 0 {
		cfg.KafkaWindow = 10 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	names := cfg.Scenarios
	if len(names) == 0 {
		names = Scenarios
	}
	// "nexmark/q5" runs one Nexmark query, "windowed/q5" (or
	// "windowed/q5-no-watermark") one windowed step.
	var queries, windowedSteps, kafkaSel []string
	for i, n := range names {
		if k, ok := strings.CutPrefix(n, "kafka/"); ok {
			if !slices.Contains(KafkaSteps, k) {
				return nil, fmt.Errorf("unknown kafka step %q (steps: %s)", k, strings.Join(KafkaSteps, ", "))
			}
			kafkaSel = append(kafkaSel, k)
			names[i] = "kafka"
		}
		if q, ok := strings.CutPrefix(n, "nexmark/"); ok {
			if !slices.ContainsFunc(NexmarkQueries, func(nq NexmarkQuery) bool { return nq.Name == q }) {
				return nil, fmt.Errorf("unknown Nexmark query %q", q)
			}
			queries = append(queries, q)
			names[i] = "nexmark"
		}
		if q, ok := strings.CutPrefix(n, "windowed/"); ok {
			base := strings.TrimSuffix(q, "-no-watermark")
			if !slices.ContainsFunc(WindowedQueries, func(wq NexmarkQuery) bool { return wq.Name == base }) {
				return nil, fmt.Errorf("unknown windowed query %q", q)
			}
			windowedSteps = append(windowedSteps, n)
			names[i] = "windowed"
		}
		if !slices.Contains(Scenarios, names[i]) {
			return nil, fmt.Errorf("unknown scenario %q (scenarios: %s, nexmark/QUERY, windowed/QUERY[-no-watermark], kafka/STEP)", n, strings.Join(Scenarios, ", "))
		}
	}
	names = slices.Compact(names)
	for _, ph := range cfg.IsolationPhases {
		if !slices.Contains(IsolationPhases, ph) {
			return nil, fmt.Errorf("unknown isolation phase %q (phases: %s)", ph, strings.Join(IsolationPhases, ", "))
		}
	}
	var pg *pgserver.Server
	if cfg.Compare {
		var err error
		if pg, err = pgserver.Start(pgserver.Options{}); err != nil {
			return nil, fmt.Errorf("--compare postgres: %w", err)
		}
		defer pg.Stop()
	}
	// Each step runs on a fresh target: streamdb, and PostgreSQL where it
	// can do the same work (it has no streams for nexmark).
	type step struct {
		label string
		t     target
		run   func(*session) ([]Result, error)
	}
	var steps []step
	for _, name := range names {
		if name == "windowed" {
			for _, q := range WindowedQueries {
				for _, bounded := range []bool{true, false} {
					label := "windowed/" + q.Name
					if !bounded {
						label += "-no-watermark"
					}
					if windowedSteps != nil && !slices.Contains(windowedSteps, label) {
						continue
					}
					steps = append(steps, step{label, &streamdbTarget{dir: cfg.TempDir, interval: cfg.BarrierInterval},
						func(s *session) ([]Result, error) { return s.windowed(q, bounded) }})
				}
			}
			continue
		}
		if name == "kafka" { // streamdb only: PostgreSQL has no Kafka connectors
			for _, k := range kafkaSteps {
				if kafkaSel == nil || slices.Contains(kafkaSel, k.name) {
					steps = append(steps, step{"kafka/" + k.name, &kafkaTarget{streamdbTarget: streamdbTarget{dir: cfg.TempDir, interval: cfg.BarrierInterval}, topics: k.topics}, k.run})
				}
			}
			continue
		}
		if name == "nexmark" {
			for _, q := range NexmarkQueries {
				if queries != nil && !slices.Contains(queries, q.Name) {
					continue
				}
				steps = append(steps, step{"nexmark/" + q.Name, &streamdbTarget{dir: cfg.TempDir, interval: cfg.BarrierInterval},
					func(s *session) ([]Result, error) { return s.nexmark(q) }})
			}
			continue
		}
		run := map[string]func(*session) ([]Result, error){
			"load": (*session).load, "backfill": (*session).backfill, "freshness": (*session).freshness,
			"isolation": (*session).isolation, "api": (*session).api, "subscribe": (*session).subscribe,
		}[name]
		steps = append(steps, step{name, &streamdbTarget{dir: cfg.TempDir, interval: cfg.BarrierInterval}, run})
		// PostgreSQL has no backfill to be isolated from.
		if pg != nil && name != "isolation" {
			steps = append(steps, step{name, &postgresTarget{srv: pg}, run})
		}
	}
	var results []Result
	for _, st := range steps {
		fmt.Fprintf(cfg.Log, "%s: %s...\n", st.t.name(), st.label)
		cfg.progress(st.t.name(), st.label)
		rs, err := runStep(ctx, cfg, st.t, st.run)
		results = append(results, rs...)
		if err != nil {
			results = append(results, Result{System: st.t.name(), Scenario: st.label, Err: err})
		}
		if ctx.Err() != nil {
			return results, ctx.Err()
		}
	}
	return results, nil
}

// target is a system under test.
type target interface {
	name() string
	// open returns a connection to a fresh, empty database.
	open(ctx context.Context) (*pgx.Conn, error)
	// resetPeak starts a new peak-RSS window; peak reads it.
	resetPeak(c *pgx.Conn)
	peak(c *pgx.Conn) int64
	close() error
}

// runStep runs one scenario step on a fresh database of t.
func runStep(ctx context.Context, cfg Config, t target, run func(*session) ([]Result, error)) (_ []Result, err error) {
	c, err := t.open(ctx)
	if err != nil {
		return nil, err
	}
	defer func() {
		c.Close(context.Background())
		if cerr := t.close(); err == nil {
			err = cerr
		}
	}()
	return run(&session{ctx: ctx, c: c, t: t, cfg: cfg})
}

type session struct {
	ctx context.Context
	c   *pgx.Conn
	t   target
	cfg Config
	out []Result
}

func (s *session) exec(sql string) error {
	_, err := s.c.Exec(s.ctx, sql)
	if err != nil {
		return fmt.Errorf("%s: %w", firstLine(sql), err)
	}
	return nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " ..."
	}
	return s
}

// progress reports a step or part starting to c.Progress.
func (c *Config) progress(system, scenario string) {
	if c.Progress != nil {
		c.Progress(system, scenario)
	}
}

// timed runs f as the measured step scenario over rows rows.
func (s *session) timed(scenario string, rows int64, f func() error) error {
	s.cfg.progress(s.t.name(), scenario)
	s.t.resetPeak(s.c)
	stop, err := s.startProfile(scenario)
	if err != nil {
		return err
	}
	start := time.Now()
	err = f()
	elapsed := time.Since(start)
	if perr := stop(); err == nil {
		err = perr
	}
	r := Result{System: s.t.name(), Scenario: scenario, Rows: rows, Elapsed: elapsed, PeakRSS: s.t.peak(s.c), Err: err}
	s.out = append(s.out, r)
	return err
}

// startProfile starts the profiles of a streamdb step that the run asks
// for: the CPU profile, and the heap profile taken whenever the process's
// resident set reaches a new high during the step (sampled every 200 ms);
// stop ends them.
func (s *session) startProfile(scenario string) (stop func() error, err error) {
	if s.t.name() != "streamdb" || s.cfg.CPUProfile == "" && s.cfg.MemProfile == "" && s.cfg.Trace == "" {
		return func() error { return nil }, nil
	}
	name := strings.ReplaceAll(scenario, "/", "-")
	var stops []func() error
	stopAll := func() error {
		var err error
		for _, f := range stops {
			err = errors.Join(err, f())
		}
		return err
	}
	if s.cfg.CPUProfile != "" {
		f, err := os.Create(s.cfg.CPUProfile + "-" + name + ".pprof")
		if err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return nil, err
		}
		stops = append(stops, func() error {
			pprof.StopCPUProfile()
			return f.Close()
		})
	}
	if s.cfg.Trace != "" {
		f, err := os.Create(s.cfg.Trace + "-" + name + ".trace")
		if err != nil {
			return nil, errors.Join(err, stopAll())
		}
		if err := trace.Start(f); err != nil {
			f.Close()
			return nil, errors.Join(err, stopAll())
		}
		stops = append(stops, func() error {
			trace.Stop()
			return f.Close()
		})
	}
	if s.cfg.MemProfile != "" {
		path := s.cfg.MemProfile + "-" + name + ".heap"
		done, exited := make(chan struct{}), make(chan error, 1)
		go func() {
			var high int64
			var err error
			tick := time.NewTicker(200 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-done:
					exited <- err
					return
				case <-tick.C:
				}
				if rss := currentRSS(os.Getpid()); rss > high {
					high = rss
					err = writeHeapProfile(path)
				}
			}
		}()
		stops = append(stops, func() error {
			close(done)
			return <-exited
		})
	}
	return stopAll, nil
}

// writeHeapProfile writes the in-use heap profile to path.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

const tableDDL = "CREATE TABLE %s (id bigint PRIMARY KEY, k int, v bigint)"

// fill loads rows into table with one INSERT ... SELECT.
func (s *session) fill(table string, rows int64) error {
	return s.exec(fmt.Sprintf("INSERT INTO %s SELECT g, g %% 1000, g * 7 FROM generate_series(1, %d) AS g", table, rows))
}

// load: the rows by INSERT ... SELECT generate_series, and by COPY FROM
// STDIN (text format, streamed from a generator).
func (s *session) load() ([]Result, error) {
	n := s.cfg.Rows
	if err := s.exec(fmt.Sprintf(tableDDL, "t")); err != nil {
		return s.out, err
	}
	if err := s.timed("load/insert-select", n, func() error { return s.fill("t", n) }); err != nil {
		return s.out, err
	}
	if err := s.exec(fmt.Sprintf(tableDDL, "c")); err != nil {
		return s.out, err
	}
	err := s.timed("load/copy", n, func() error {
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(writeCopyText(pw, n)) }()
		tag, err := s.c.PgConn().CopyFrom(s.ctx, pr, "COPY c FROM STDIN")
		pr.CloseWithError(io.ErrClosedPipe)
		if err == nil && tag.RowsAffected() != n {
			err = fmt.Errorf("COPY loaded %d rows, want %d", tag.RowsAffected(), n)
		}
		return err
	})
	return s.out, err
}

// writeCopyText writes n rows of COPY text format.
func writeCopyText(w io.Writer, n int64) error {
	buf := make([]byte, 0, 64<<10)
	for g := int64(1); g <= n; g++ {
		buf = strconv.AppendInt(buf, g, 10)
		buf = append(buf, '\t')
		buf = strconv.AppendInt(buf, g%1000, 10)
		buf = append(buf, '\t')
		buf = strconv.AppendInt(buf, g*7, 10)
		buf = append(buf, '\n')
		if len(buf) > 60<<10 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	_, err := w.Write(buf)
	return err
}

// backfill: a GROUP BY view over the rows (on streamdb at the default,
// adaptive rate, and again with backfill_rate_limit = 'unlimited'), and a
// join view over two tables of half as many rows each.
func (s *session) backfill() ([]Result, error) {
	n := s.cfg.Rows
	if err := s.exec(fmt.Sprintf(tableDDL, "t")); err != nil {
		return s.out, err
	}
	if err := s.fill("t", n); err != nil {
		return s.out, err
	}
	err := s.timed("backfill/group-by", n, func() error {
		return s.exec("CREATE MATERIALIZED VIEW agg AS SELECT k, count(*) AS n, sum(v) AS total FROM t GROUP BY k")
	})
	if err != nil {
		return s.out, err
	}
	if err := s.checkAgg(n); err != nil {
		return s.out, err
	}
	if err := s.exec("DROP MATERIALIZED VIEW agg"); err != nil {
		return s.out, err
	}
	if _, ok := s.t.(*streamdbTarget); ok {
		// The same without a limit (the default is an adaptive rate),
		// nothing else running: issue 16 wants the adaptive one at 70%
		// of its speed or better.
		err := s.timed("backfill/group-by-unlimited", n, func() error {
			return s.exec("CREATE MATERIALIZED VIEW agg WITH (backfill_rate_limit = 'unlimited') AS SELECT k, count(*) AS n, sum(v) AS total FROM t GROUP BY k")
		})
		if err == nil {
			err = s.checkAgg(n)
		}
		if err == nil {
			err = s.exec("DROP MATERIALIZED VIEW agg")
		}
		if err != nil {
			return s.out, err
		}
	}
	if err := s.exec("DROP TABLE t"); err != nil {
		return s.out, err
	}
	half := n / 2
	for _, tbl := range []string{"a", "b"} {
		if err := s.exec(fmt.Sprintf(tableDDL, tbl)); err != nil {
			return s.out, err
		}
		if err := s.fill(tbl, half); err != nil {
			return s.out, err
		}
	}
	err = s.timed("backfill/join", 2*half, func() error {
		return s.exec("CREATE MATERIALIZED VIEW j AS SELECT a.id, a.k, a.v AS av, b.v AS bv FROM a JOIN b ON a.id = b.id")
	})
	if err != nil {
		return s.out, err
	}
	var got int64
	if err := s.c.QueryRow(s.ctx, "SELECT count(*) FROM j").Scan(&got); err != nil || got != half {
		return s.out, fmt.Errorf("join view holds %d rows (%v), want %d", got, err, half)
	}
	return s.out, nil
}

// checkAgg checks the GROUP BY view's totals against the generator.
func (s *session) checkAgg(n int64) error {
	var count, total, wantN, want int64
	if err := s.c.QueryRow(s.ctx, "SELECT sum(n)::bigint, sum(total)::bigint FROM agg").Scan(&count, &total); err != nil {
		return fmt.Errorf("reading the view: %w", err)
	}
	// The table holds its n loaded rows and those isolation added.
	if err := s.c.QueryRow(s.ctx, "SELECT count(*), sum(v)::bigint FROM t").Scan(&wantN, &want); err != nil {
		return fmt.Errorf("reading the table: %w", err)
	}
	if wantN < n || count != wantN || total != want {
		return fmt.Errorf("view totals %d rows, sum %d; the table %d, %d (%d loaded)", count, total, wantN, want, n)
	}
	return nil
}

// freshness: single-row INSERTs into the loaded table, one at a time;
// each is timed until a read of the GROUP BY view reflects it. On
// PostgreSQL a view reflects an insert after REFRESH MATERIALIZED VIEW.
func (s *session) freshness() ([]Result, error) {
	n := s.cfg.Rows
	if err := s.exec(fmt.Sprintf(tableDDL, "t")); err != nil {
		return s.out, err
	}
	if err := s.fill("t", n); err != nil {
		return s.out, err
	}
	if err := s.exec("CREATE MATERIALIZED VIEW agg AS SELECT k, count(*) AS n, sum(v) AS total FROM t GROUP BY k"); err != nil {
		return s.out, err
	}
	_, isPG := s.t.(*postgresTarget)
	inserts := s.cfg.Freshness
	if isPG {
		inserts = min(inserts, s.cfg.PGFreshness)
	}
	lat := make([]time.Duration, 0, inserts)
	err := s.timed("freshness", int64(inserts), func() error {
		for i := 0; i < inserts; i++ {
			d, err := s.visible("t", "agg", n+1+int64(i), isPG)
			if err != nil {
				return err
			}
			lat = append(lat, d)
		}
		return nil
	})
	if len(lat) > 0 {
		r := &s.out[len(s.out)-1]
		r.P50, r.P99 = percentiles(lat)
	}
	return s.out, err
}

// visible inserts row id into table (of tableDDL's shape, its rows made as
// fill makes them) and times it until a read of view, a GROUP BY k view
// counting its rows into n, reflects it. refresh: REFRESH the view after
// the insert (PostgreSQL).
func (s *session) visible(table, view string, id int64, refresh bool) (time.Duration, error) {
	k := id % 1000
	read := fmt.Sprintf("SELECT n FROM %s WHERE k = $1", view)
	var before int64
	if err := s.c.QueryRow(s.ctx, read, k).Scan(&before); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("reading the view: %w", err)
	}
	start := time.Now()
	if _, err := s.c.Exec(s.ctx, fmt.Sprintf("INSERT INTO %s VALUES ($1, $2, $3)", table), id, k, id*7); err != nil {
		return 0, err
	}
	if refresh {
		if err := s.exec("REFRESH MATERIALIZED VIEW " + view); err != nil {
			return 0, err
		}
	}
	for {
		var now int64
		if err := s.c.QueryRow(s.ctx, read, k).Scan(&now); err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return 0, fmt.Errorf("reading the view: %w", err)
		}
		if now == before+1 {
			break
		}
		if time.Since(start) > time.Minute {
			return 0, fmt.Errorf("the view did not reflect insert %d within a minute", id)
		}
	}
	return time.Since(start), nil
}

// percentiles sorts lat and returns its p50 and p99.
func percentiles(lat []time.Duration) (p50, p99 time.Duration) {
	slices.Sort(lat)
	return lat[len(lat)/2], lat[min(len(lat)-1, len(lat)*99/100)]
}

// isolation (issue 16): how much a view's backfill slows work that has
// nothing to do with it. In each phase it times, one statement at a time
// on one connection and alternating, a single-row INSERT into a table with
// no views ("insert"), and an INSERT into the small upstream of a GROUP BY
// view until a read of that view reflects it ("fresh"), and an INSERT into
// the table the phase's view backfills from until a read of another view
// over that table reflects it ("same"). The phases: idle
// (nothing else runs, for IsolationWindow); while a GROUP BY view over the
// Rows-row table backfills at backfill_rate_limit = Rows per window
// ("group-by-limited"); while the same backfills without a limit
// ("group-by"), and with an adaptive one ("group-by-adaptive", at the
// default backfill_latency_target); while a join view over two tables of Rows/2 rows backfills
// without a limit ("join"); while that join view, created before the
// phase, takes range UPDATEs of 20,000 rows of b one after another for
// IsolationWindow ("live-join": slow work of the running graph itself,
// not a backfill); and with live work that wants every core running
// ("busy", then "busy-group-by" and "busy-group-by-adaptive" with the
// GROUP BY backfills next to it; isolation/busy-load rows give the live
// work's rows per second next to the busy phase's and, fairer, next to
// the live work alone for as long right after the phase, see
// isolation_busy.go). A backfill phase samples from when its CREATE
// is issued, on a second connection, until it returns. Each step's Rows
// are the statements timed, Elapsed the phase's length; Print shows each
// phase's p50 and p99 over the idle phase's.
func (s *session) isolation() ([]Result, error) {
	st, ok := s.t.(*streamdbTarget)
	if !ok {
		return s.out, errors.New("isolation runs on streamdb only")
	}
	n, half, window := s.cfg.Rows, s.cfg.Rows/2, s.cfg.IsolationWindow
	const small = 1000 // rows of the fresh view's upstream
	const loadRows = 20_000
	joinRows := half // a and b's, when a phase named uses them
	if ph := s.cfg.IsolationPhases; ph != nil && !slices.Contains(ph, "join") && !slices.Contains(ph, "live-join") {
		joinRows = 0
	}
	for _, tbl := range []struct {
		name string
		rows int64
	}{{"t", n}, {"a", joinRows}, {"b", joinRows}, {"up", small}, {"u", 0}} {
		if err := s.exec(fmt.Sprintf(tableDDL, tbl.name)); err != nil {
			return s.out, err
		}
		if tbl.rows > 0 {
			if err := s.fill(tbl.name, tbl.rows); err != nil {
				return s.out, err
			}
		}
	}
	for _, v := range []string{"fresh AS SELECT k, count(*) AS n FROM up GROUP BY k",
		"fresh_t AS SELECT k, count(*) AS n FROM t GROUP BY k", "fresh_a AS SELECT k, count(*) AS n FROM a GROUP BY k"} {
		if err := s.exec("CREATE MATERIALIZED VIEW " + v); err != nil {
			return s.out, err
		}
	}
	bg, err := st.connect(s.ctx)
	if err != nil {
		return s.out, err
	}
	defer bg.Close(context.Background())

	rate := max(1, int64(float64(n)/window.Seconds()))
	const groupBy = "AS SELECT k, count(*) AS n, sum(v) AS total FROM t GROUP BY k"
	phases := []struct {
		name, create, drop string
		check              func() error
		upstream           string // the table the view backfills from
		// setup, when set, runs before the phase, untimed; load then runs
		// on bg, statement after statement, for the phase's window.
		setup, load string
		// busy: the live work of startBusy runs during the phase.
		busy bool
	}{
		{name: "idle", upstream: "t"},
		{"group-by-limited", fmt.Sprintf("CREATE MATERIALIZED VIEW agg WITH (backfill_rate_limit = %d) %s", rate, groupBy),
			"DROP MATERIALIZED VIEW agg", func() error { return s.checkAgg(n) }, "t", "", "", false},
		{"group-by", "CREATE MATERIALIZED VIEW agg WITH (backfill_rate_limit = 'unlimited') " + groupBy, "DROP MATERIALIZED VIEW agg", func() error { return s.checkAgg(n) }, "t", "", "", false},
		{"group-by-adaptive", "CREATE MATERIALIZED VIEW agg WITH (backfill_rate_limit = 'adaptive') " + groupBy,
			"DROP MATERIALIZED VIEW agg", func() error { return s.checkAgg(n) }, "t", "", "", false},
		{"join", "CREATE MATERIALIZED VIEW j WITH (backfill_rate_limit = 'unlimited') AS SELECT a.id, a.k, a.v AS av, b.v AS bv FROM a JOIN b ON a.id = b.id",
			"DROP MATERIALIZED VIEW j", func() error {
				var got int64
				if err := s.c.QueryRow(s.ctx, "SELECT count(*) FROM j").Scan(&got); err != nil || got != half {
					return fmt.Errorf("join view holds %d rows (%v), want %d", got, err, half)
				}
				return nil
			}, "a", "", "", false},
		// Not a backfill: the join view, created before, takes range
		// UPDATEs of loadRows rows of b, statement after statement, in
		// the running graph (issue 16: a slow join must not hold
		// unrelated tables' commits).
		{name: "live-join", drop: "DROP MATERIALIZED VIEW j", upstream: "a",
			setup: "CREATE MATERIALIZED VIEW j AS SELECT a.id, a.k, a.v AS av, b.v AS bv FROM a JOIN b ON a.id = b.id",
			load:  "UPDATE b SET v = v + 1 WHERE id >= $1 AND id < $2"},
		// The live work alone, then next to a GROUP BY backfill without
		// a limit and with an adaptive one (see isolation_busy.go).
		{name: "busy", upstream: "t", busy: true},
		{name: "busy-group-by", create: "CREATE MATERIALIZED VIEW agg WITH (backfill_rate_limit = 'unlimited') " + groupBy, drop: "DROP MATERIALIZED VIEW agg",
			check: func() error { return s.checkAgg(n) }, upstream: "t", busy: true},
		{name: "busy-group-by-adaptive", create: "CREATE MATERIALIZED VIEW agg WITH (backfill_rate_limit = 'adaptive') " + groupBy,
			drop: "DROP MATERIALIZED VIEW agg", check: func() error { return s.checkAgg(n) }, upstream: "t", busy: true},
	}
	if names := s.cfg.IsolationPhases; names != nil {
		kept := phases[:0]
		for _, ph := range phases {
			if slices.Contains(names, ph.name) {
				kept = append(kept, ph)
			}
		}
		if len(kept) != len(names) { // Run checked them against IsolationPhases
			return s.out, fmt.Errorf("isolation phases %q: not all of them are phases", names)
		}
		phases = kept
	}
	var busyRows []Result // the live work's rows per busy phase
	// alone is the live work's rows/s alone for as long as the busy
	// phase of busyRows' index ran, right after it (busyAlone).
	alone := map[int]float64{}
	var hotID atomic.Int64
	hotID.Store(1)
	for _, q := range []string{fmt.Sprintf(tableDDL, "hot"), busyDDL} {
		if err := s.exec(q); err != nil {
			return s.out, err
		}
	}
	var inserts, fresh, same []Result
	// Rows added to the backfilled tables get ids past the loaded ones
	// (and, in a, past b's: the join's result stays the loaded rows).
	insertID, freshID, sameID := int64(0), int64(small), 4*n+1_000_000
	for _, ph := range phases {
		var insLat, freshLat, sameLat []time.Duration
		sample := func() error {
			insertID++
			start := time.Now()
			if _, err := s.c.Exec(s.ctx, "INSERT INTO u VALUES ($1, $2, $3)", insertID, insertID%1000, insertID*7); err != nil {
				return err
			}
			insLat = append(insLat, time.Since(start))
			freshID++
			d, err := s.visible("up", "fresh", freshID, false)
			if err != nil {
				return err
			}
			freshLat = append(freshLat, d)
			sameID++
			if d, err = s.visible(ph.upstream, "fresh_"+ph.upstream, sameID, false); err != nil {
				return err
			}
			sameLat = append(sameLat, d)
			return nil
		}
		if ph.setup != "" {
			if err := s.exec(ph.setup); err != nil {
				return s.out, err
			}
		}
		s.t.resetPeak(s.c)
		s.cfg.progress(s.t.name(), "isolation/"+ph.name)
		stopProfile, err := s.startProfile("isolation/" + ph.name)
		if err != nil {
			return s.out, err
		}
		var busy *busyLoad
		if ph.busy {
			if busy, err = startBusy(s.ctx, st, &hotID); err != nil {
				return s.out, err
			}
		}
		start := time.Now()
		switch {
		case ph.load != "":
			// The load runs on bg in a goroutine owned here, stopped and
			// joined after the window.
			stop, done := make(chan struct{}), make(chan error, 1)
			go func() {
				for lo := int64(1); ; lo = (lo-1+loadRows)%max(half, 1) + 1 {
					select {
					case <-stop:
						done <- nil
						return
					default:
					}
					if _, err := bg.Exec(s.ctx, ph.load, lo, lo+loadRows); err != nil {
						done <- fmt.Errorf("%s: %w", ph.load, err)
						return
					}
				}
			}()
			for err == nil && time.Since(start) < window {
				err = sample()
			}
			close(stop)
			err = errors.Join(err, <-done)
		case ph.create == "":
			for err == nil && time.Since(start) < window {
				err = sample()
			}
		default:
			// The backfill runs on bg in a goroutine owned here and joined
			// below, whatever sampling returns; at least one sample is
			// taken, so a backfill too short to see still gives a row.
			// The short GROUP BY backfills run IsolationRepeat times.
			reps := 1
			if ph.name == "group-by" || ph.name == "group-by-adaptive" {
				reps = max(1, s.cfg.IsolationRepeat)
			}
			for rep := 0; rep < reps && err == nil; rep++ {
				if rep > 0 {
					if err = s.exec(ph.drop); err != nil {
						break
					}
				}
				done := make(chan error, 1)
				go func() {
					_, err := bg.Exec(s.ctx, ph.create)
					done <- err
				}()
				var cerr error
				for finished := false; !finished; {
					if err = sample(); err != nil {
						cerr = <-done
						break
					}
					select {
					case cerr = <-done:
						finished = true
					default:
					}
				}
				if cerr != nil {
					cerr = fmt.Errorf("%s: %w", firstLine(ph.create), cerr)
				}
				err = errors.Join(err, cerr)
			}
		}
		elapsed := time.Since(start)
		if busy != nil {
			rows, berr := busy.finish()
			err = errors.Join(err, berr)
			busyRows = append(busyRows, Result{System: s.t.name(), Scenario: "isolation/busy-load/" + ph.name,
				Rows: rows, Elapsed: elapsed, Err: berr})
		}
		err = errors.Join(err, stopProfile())
		rss := s.t.peak(s.c)
		for _, m := range []struct {
			out *[]Result
			lat []time.Duration
			key string
		}{{&inserts, insLat, "insert"}, {&fresh, freshLat, "fresh"}, {&same, sameLat, "same"}} {
			r := Result{System: s.t.name(), Scenario: "isolation/" + m.key + "/" + ph.name, Rows: int64(len(m.lat)), Elapsed: elapsed, PeakRSS: rss, Err: err}
			if len(m.lat) > 0 {
				r.P50, r.P99 = percentiles(m.lat)
			}
			*m.out = append(*m.out, r)
		}
		if err == nil && ph.check != nil {
			err = ph.check()
		}
		if err == nil && ph.drop != "" {
			err = s.exec(ph.drop)
		}
		if err == nil && busy != nil && ph.create != "" {
			// The live work alone again, for as long as the phase ran:
			// what the phase's live work is compared with. The busy
			// phase's window (5 s) is shorter than a backfill beside
			// it (26 s for a 3M-row adaptive one), and the live work
			// alone slows as hot and hot_v grow over a longer phase:
			// only the same length, right after, is a fair yardstick.
			var rows int64
			rows, err = s.busyAlone(st, &hotID, elapsed)
			alone[len(busyRows)-1] = float64(rows) / elapsed.Seconds()
		}
		if err != nil {
			s.out = append(append(append(append(s.out, inserts...), fresh...), same...), busyRows...)
			return s.out, err
		}
	}
	if len(busyRows) > 0 && busyRows[0].Err == nil && busyRows[0].Rows > 0 && strings.HasSuffix(busyRows[0].Scenario, "/busy") {
		base := float64(busyRows[0].Rows) / busyRows[0].Elapsed.Seconds()
		busyRows[0].Note = "live work alone"
		for i := range busyRows[1:] {
			r := &busyRows[i+1]
			rate := float64(r.Rows) / r.Elapsed.Seconds()
			r.Note = fmt.Sprintf("%.2fx of the busy phase; live rows/s %.2fx of busy alone", rate/base, rate/alone[i+1])
		}
	}
	s.out = append(append(append(append(s.out, inserts...), fresh...), same...), busyRows...)
	return s.out, nil
}

// streamdbTarget is streamdb in-process on a fresh data dir, served on a
// loopback port.
type streamdbTarget struct {
	dir      string
	interval time.Duration // Options.BarrierInterval (zero: its default)
	url      string        // the server's connection string
	data     string
	db       *streamdb.DB
	srv      *pgwire.Server
	done     chan error
}

func (t *streamdbTarget) name() string { return "streamdb" }

func (t *streamdbTarget) open(ctx context.Context) (*pgx.Conn, error) {
	data, err := os.MkdirTemp(t.dir, "streamdb-bench")
	if err != nil {
		return nil, err
	}
	t.data = data
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	if t.db, err = streamdb.Open(filepath.Join(data, "db"), &streamdb.Options{Logger: quiet, BarrierInterval: t.interval}); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	t.srv = pgwire.NewServer(t.db.Backend(), pgwire.Options{Logger: quiet})
	t.done = make(chan error, 1)
	go func() { t.done <- t.srv.Serve(ln) }()
	t.url = fmt.Sprintf("postgres://bench@%s/bench?sslmode=disable", ln.Addr())
	return pgx.Connect(ctx, t.url)
}

// connect opens another connection to the database open returned.
func (t *streamdbTarget) connect(ctx context.Context) (*pgx.Conn, error) {
	return pgx.Connect(ctx, t.url)
}

func (t *streamdbTarget) resetPeak(*pgx.Conn) { resetPeakRSS(os.Getpid()) }
func (t *streamdbTarget) peak(*pgx.Conn) int64 {
	return peakRSS(os.Getpid())
}

func (t *streamdbTarget) close() error {
	var errs []error
	if t.srv != nil {
		errs = append(errs, t.srv.Close())
		if err := <-t.done; err != nil && !errors.Is(err, net.ErrClosed) && !errors.Is(err, pgwire.ErrServerClosed) {
			errs = append(errs, err)
		}
	}
	if t.db != nil {
		errs = append(errs, t.db.Close())
	}
	if t.data != "" {
		errs = append(errs, os.RemoveAll(t.data))
	}
	return errors.Join(errs...)
}

// postgresTarget is a fresh database in the run's PostgreSQL cluster.
type postgresTarget struct {
	srv  *pgserver.Server
	db   string
	pid  int
	base *pgx.Conn
}

var pgSeq int

func (t *postgresTarget) name() string { return "postgres" }

func (t *postgresTarget) open(ctx context.Context) (*pgx.Conn, error) {
	base, err := pgx.Connect(ctx, t.srv.ConnString())
	if err != nil {
		return nil, err
	}
	t.base = base
	pgSeq++
	t.db = fmt.Sprintf("bench%d", pgSeq)
	if _, err := base.Exec(ctx, "CREATE DATABASE "+t.db); err != nil {
		return nil, err
	}
	cfg, err := pgx.ParseConfig(strings.Replace(t.srv.ConnString(), "dbname=postgres", "dbname="+t.db, 1))
	if err != nil {
		return nil, err
	}
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := c.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&t.pid); err != nil {
		c.Close(ctx)
		return nil, err
	}
	return c, nil
}

func (t *postgresTarget) resetPeak(*pgx.Conn) { resetPeakRSS(t.pid) }
func (t *postgresTarget) peak(*pgx.Conn) int64 {
	return peakRSS(t.pid)
}

func (t *postgresTarget) close() error {
	if t.base == nil {
		return nil
	}
	ctx := context.Background()
	_, err := t.base.Exec(ctx, "DROP DATABASE IF EXISTS "+t.db+" WITH (FORCE)")
	t.base.Close(ctx)
	t.base = nil
	return err
}

// resetPeakRSS starts a new peak-RSS window for process pid (Linux:
// writing 5 to clear_refs resets VmHWM).
func resetPeakRSS(pid int) {
	_ = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
}

// peakRSS is process pid's peak resident set since the last reset, in
// bytes (0 when unknown).
func peakRSS(pid int) int64 { return procStatus(pid, "VmHWM:") }

// currentRSS is process pid's resident set, in bytes (0 when unknown).
func currentRSS(pid int) int64 { return procStatus(pid, "VmRSS:") }

// procStatus reads a size in kB from /proc/pid/status, in bytes.
func procStatus(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// Print writes results as a table. Its last column compares: with
// PostgreSQL results, each streamdb row gets the ratio of its time to
// PostgreSQL's for the same step (below 1: streamdb is faster); an
// isolation phase its latencies over the idle phase's; a Nexmark query its
// events per second per core.
func Print(w io.Writer, results []Result) error {
	pgTime := map[string]Result{}
	for _, r := range results {
		if r.System == "postgres" && r.Err == nil {
			pgTime[r.Scenario] = r
		}
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "system\tscenario\trows\tseconds\trows/s\tp50\tp99\tpeak RSS\tcompared\t")
	nexmarkNote, isolationNote := false, false
	idle := map[string]Result{}
	adaptive := map[string]Result{}  // backfill/group-by (the default, adaptive), under its unlimited variant's key
	unbounded := map[string]Result{} // windowed/Q-no-watermark, under windowed/Q
	for _, r := range results {
		if q, ok := strings.CutSuffix(r.Scenario, "-no-watermark"); ok && r.Err == nil {
			unbounded[q] = r
		}
		if r.Scenario == "backfill/group-by" && r.Err == nil {
			adaptive[r.System+" backfill/group-by-unlimited"] = r
		}
		if m, ok := strings.CutSuffix(r.Scenario, "/idle"); ok && strings.HasPrefix(m, "isolation/") && r.Err == nil && r.P50 > 0 {
			idle[r.System+" "+m] = r
		}
	}
	for _, r := range results {
		if r.Err != nil {
			fmt.Fprintf(tw, "%s\t%s\terror: %v\t\t\t\t\t\t\t\n", r.System, r.Scenario, r.Err)
			continue
		}
		rate, p50, p99, rss, ratio := "", "", "", "", r.Note
		if secs := r.Elapsed.Seconds(); secs > 0 {
			rate = fmt.Sprintf("%.0f", float64(r.Rows)/secs)
		}
		if r.P50 > 0 {
			p50, p99 = fmtDur(r.P50), fmtDur(r.P99)
		}
		if r.PeakRSS > 0 {
			rss = fmt.Sprintf("%.0f MiB", float64(r.PeakRSS)/(1<<20))
		}
		if (strings.HasPrefix(r.Scenario, "nexmark/") || strings.HasPrefix(r.Scenario, "windowed/")) && r.Elapsed > 0 {
			// Events per second per core, against the figures the issue cites.
			ratio = fmt.Sprintf("%.0f ev/s/core", perCore(float64(r.Events)/r.Elapsed.Seconds()))
			nexmarkNote = true
			if u, ok := unbounded[r.Scenario]; ok && len(u.State) > 0 && len(r.State) > 0 && r.Elapsed > 0 {
				// Cleaning's cost and gain, next to the same view
				// without a watermark.
				ratio = fmt.Sprintf("speed %.2fx state %.2fx of no watermark, %s", u.Elapsed.Seconds()/r.Elapsed.Seconds(),
					float64(r.State[len(r.State)-1].Bytes)/float64(max(1, u.State[len(u.State)-1].Bytes)), ratio)
			}
		}
		if i := strings.LastIndexByte(r.Scenario, '/'); strings.HasPrefix(r.Scenario, "isolation/") && i > 0 {
			if base, ok := idle[r.System+" "+r.Scenario[:i]]; ok && r.P50 > 0 {
				ratio = fmt.Sprintf("p50 %.2fx p99 %.2fx", r.P50.Seconds()/base.P50.Seconds(), r.P99.Seconds()/base.P99.Seconds())
				isolationNote = true
			}
		}
		if a, ok := adaptive[r.System+" "+r.Scenario]; ok && a.Elapsed > 0 {
			ratio = fmt.Sprintf("backfill/group-by (adaptive, the default) at %.2fx of this speed", r.Elapsed.Seconds()/a.Elapsed.Seconds())
		}
		if pg, ok := pgTime[r.Scenario]; ok && r.System == "streamdb" {
			mine, theirs := r.Elapsed.Seconds(), pg.Elapsed.Seconds()
			if r.P50 > 0 && pg.P50 > 0 { // latency: compare the medians
				mine, theirs = r.P50.Seconds(), pg.P50.Seconds()
			}
			if theirs > 0 {
				ratio = fmt.Sprintf("%.3gx", mine/theirs)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.3f\t%s\t%s\t%s\t%s\t%s\t\n", r.System, r.Scenario, r.Rows, r.Elapsed.Seconds(), rate, p50, p99, rss, ratio)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if isolationNote {
		if _, err := fmt.Fprintln(w, "isolation: rows are the statements timed in each phase, seconds its length; the last column is the\n"+
			"phase's p50 and p99 over the idle phase's"); err != nil {
			return err
		}
	}
	if err := printKafkaNote(w, results); err != nil {
		return err
	}
	if err := printStates(w, results); err != nil {
		return err
	}
	if nexmarkNote {
		_, err := fmt.Fprintf(w, "nexmark: rows are the rows of the tables a query reads; ev/s/core counts the events of the whole stream\n"+
			"(persons, auctions and bids) those rows come from, per second, divided by GOMAXPROCS (%d)\n", runtime.GOMAXPROCS(0))
		return err
	}
	return nil
}

func fmtDur(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%.0fµs", float64(d)/float64(time.Microsecond))
	case d < time.Second:
		return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}
