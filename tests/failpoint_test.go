package tests

// Failpoint tests: each failpoint of internal/failpoint fires (a couple of
// times) in each phase where it applies: while views follow their tables
// (steady), while a view backfills from its snapshot, and while it
// replays its log store. Whatever fails, the graph recovers from
// committed state and afterwards every view equals its query, every
// acknowledged write is there and every statement that failed left
// nothing behind; no statement hangs, and each fails only with a
// retryable SQLSTATE (40001 or 57P01). They need -tags invariants.

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/failpoint"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// fpViews are the views of the failpoint tests: together they run every
// executor with a failpoint (scan, project/filter, hash join, hash agg,
// materialize) with two actors per fragment (exchanges and merges).
var fpViews = map[string]string{
	"fp_all":  "SELECT a.k, count(*) AS n, sum(a.v + b.w) AS s FROM a JOIN b ON a.k = b.k WHERE a.v % 5 <> 1 GROUP BY a.k",
	"fp_agg":  "SELECT k, count(*) AS n, sum(v) AS s, max(v) AS hi FROM a GROUP BY k",
	"fp_proj": "SELECT id, v * 2 AS v2, k FROM a WHERE v % 3 <> 0",
	// Constant rows (stream.Values), a join's lookup table and a branch
	// of their own: emitted once, whatever fails.
	"fp_values": "SELECT a.id, m.name FROM a JOIN (VALUES (1, 'one'), (2, 'two'), (2, 'deux')) AS m(k, name) ON a.k = m.k UNION ALL VALUES (-1, 'const'), (-1, 'const')",
}

var fpViewOrder = []string{"fp_all", "fp_agg", "fp_proj", "fp_values"}

type fpPhase string

const (
	fpSteady   fpPhase = "steady"
	fpSnapshot fpPhase = "snapshot"
	fpLogStore fpPhase = "log store"
)

// fpPhases lists the phases where each failpoint applies.
var fpPhases = map[string][]fpPhase{
	failpoint.StorageCommit:          {fpSteady, fpSnapshot, fpLogStore},
	failpoint.StreamSend:             {fpSteady, fpSnapshot, fpLogStore},
	failpoint.StreamUpstreamEnd:      {fpSteady, fpSnapshot, fpLogStore},
	failpoint.ExecScanChunk:          {fpSteady, fpSnapshot, fpLogStore},
	failpoint.ExecScanBarrier:        {fpSteady, fpSnapshot, fpLogStore},
	failpoint.ExecHashAggChunk:       {fpSteady, fpSnapshot, fpLogStore},
	failpoint.ExecHashAggBarrier:     {fpSteady, fpSnapshot, fpLogStore},
	failpoint.ExecHashJoinChunk:      {fpSteady, fpSnapshot, fpLogStore},
	failpoint.ExecHashJoinBarrier:    {fpSteady, fpSnapshot, fpLogStore},
	failpoint.ExecMaterializeChunk:   {fpSteady, fpSnapshot, fpLogStore},
	failpoint.ExecMaterializeBarrier: {fpSteady, fpSnapshot, fpLogStore},
	failpoint.ExecProjectChunk:       {fpSteady, fpSnapshot, fpLogStore},
	failpoint.ExecProjectBarrier:     {fpSteady, fpSnapshot, fpLogStore},
	failpoint.BackfillSnapshotRead:   {fpSnapshot},
	failpoint.BackfillLogRead:        {fpLogStore},
	// A creating job's own checkpoint, and the switch to the live graph.
	failpoint.BackfillJobCommit: {fpSnapshot, fpLogStore},
	failpoint.BackfillJoin:      {fpSnapshot, fpLogStore},
	// storage/sync stops the store: TestFailpointStorageSync; storage/ingest
	// too: TestKill9DuringIngest, storage.TestIngestCrashBeforeIngest.
}

// fpAction is the action a point fires with in a phase: each phase tries
// another, so every point is tried with each where it means something.
func fpAction(name string, phase fpPhase) failpoint.Action {
	switch {
	case name == failpoint.StorageCommit || name == failpoint.BackfillJobCommit:
		return failpoint.Error // a panic there is a crash of the process
	case name == failpoint.StreamSend || name == failpoint.StreamUpstreamEnd:
		if phase == fpSnapshot {
			return failpoint.Panic
		}
		return failpoint.End
	case phase == fpSteady:
		return failpoint.Error
	case phase == fpSnapshot:
		return failpoint.Panic
	}
	return failpoint.End
}

func requireFailpoints(t *testing.T) {
	t.Helper()
	if !failpoint.Enabled {
		t.Skip("failpoints need -tags invariants")
	}
}

// TestFailpoints runs every failpoint in every phase where it applies.
func TestFailpoints(t *testing.T) {
	requireFailpoints(t)
	fpRebuilds = nil
	defer func() {
		if len(fpRebuilds) == 0 {
			return
		}
		sort.Float64s(fpRebuilds)
		t.Logf("%d recoveries; graph rebuild: median %.2f ms, max %.2f ms", len(fpRebuilds),
			fpRebuilds[len(fpRebuilds)/2], fpRebuilds[len(fpRebuilds)-1])
	}()
	for _, name := range failpoint.Names {
		for _, phase := range fpPhases[name] {
			t.Run(strings.ReplaceAll(name, "/", "_")+"/"+strings.ReplaceAll(string(phase), " ", "_"), func(t *testing.T) {
				runFailpoint(t, name, phase)
			})
		}
	}
}

func openFailpointDB(t *testing.T) *streamdb.DB {
	t.Helper()
	logger := quietLogger()
	if os.Getenv("STREAMDB_FP_LOG") != "" {
		logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	db, err := streamdb.Open(":memory:", &streamdb.Options{NoSync: true, BarrierInterval: 20 * time.Millisecond,
		Parallelism: 2, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// runFailpoint fires point name twice in phase, then checks the views.
func runFailpoint(t *testing.T, name string, phase fpPhase) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	defer failpoint.Reset()
	db := openFailpointDB(t)
	defer db.Close()
	mustExec(t, db, "CREATE TABLE a (id int PRIMARY KEY, k int, v int)")
	mustExec(t, db, "CREATE TABLE b (id int PRIMARY KEY, k int, w int)")
	spec := failpoint.Spec{Action: fpAction(name, phase), After: 2, Times: 2}
	defer hangWatch(t, 60*time.Second, fmt.Sprintf("%s in the %s phase", name, phase))()
	var dml *fpWriters
	switch phase {
	case fpSteady:
		dml = fpSteadyPhase(t, db, name, spec)
	case fpSnapshot:
		fpSnapshotPhase(t, db, name, spec)
	case fpLogStore:
		fpLogStorePhase(t, db, name, spec)
	}
	failpoint.Disable(name)
	_, fired := failpoint.Stats(name)
	if fired == 0 {
		t.Fatalf("%s never fired in the %s phase", name, phase)
	}
	fpFlush(t, db)
	if dml != nil {
		dml.check(t, db)
	}
	if n := checkViewsEqualQueries(t, db, fpViews); n != len(fpViews) {
		t.Fatalf("%d of %d views exist", n, len(fpViews))
	}
	var n int
	rows, err := db.Query(context.Background(), "SELECT rebuild_ms FROM streamdb_catalog.recoveries")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		fpRebuilds = append(fpRebuilds, rows.Values()[0].(float64))
		n++
	}
	t.Logf("%s (%s) fired %d times; %d recoveries", name, spec.Action, fired, n)
}

// fpRebuilds collects the rebuild times of the recoveries (ms).
var fpRebuilds []float64

// hangWatch panics with every goroutine's stack when the function it
// returns is not called within d: a hang (a panic, as t.Fatal cannot
// stop the test goroutine from another one).
func hangWatch(t *testing.T, d time.Duration, what string) (stop func()) {
	timer := time.AfterFunc(d, func() {
		var sb strings.Builder
		_ = pprof.Lookup("goroutine").WriteTo(&sb, 1)
		panic(fmt.Sprintf("%s: %s did not finish within %v (a hang?); goroutines:\n%s", t.Name(), what, d, sb.String()))
	})
	return func() { timer.Stop() }
}

// fpFlush runs FLUSH until it succeeds: it may fail with 40001 while the
// graph recovers, never otherwise.
func fpFlush(t *testing.T, db *streamdb.DB) {
	t.Helper()
	for i := 0; ; i++ {
		_, err := db.Exec(context.Background(), "FLUSH")
		if err == nil {
			return
		}
		if code := sqlState(err); code != pgerr.SerializationFailure || i == 20 {
			t.Fatalf("FLUSH: [%s] %v", code, err)
		}
	}
}

// fpSteadyPhase creates the views over empty tables and fires the point
// while writers and flushers run.
func fpSteadyPhase(t *testing.T, db *streamdb.DB, name string, spec failpoint.Spec) *fpWriters {
	for _, v := range fpViewOrder {
		mustExec(t, db, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", v, fpViews[v]))
	}
	mustExec(t, db, "INSERT INTO b SELECT g, g % 10, g FROM generate_series(1, 30) AS g")
	if _, err := failpoint.Enable(name, spec); err != nil {
		t.Fatal(err)
	}
	w := startFPWriters(db, 2)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if _, fired := failpoint.Stats(name); fired >= spec.Times {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // some writes after the last recovery
	w.halt()
	return w
}

// fpSnapshotPhase loads the tables, then creates the views, firing the
// point while they backfill from their snapshots (rate-limited, so a
// backfill spans several chunks and epochs).
func fpSnapshotPhase(t *testing.T, db *streamdb.DB, name string, spec failpoint.Spec) {
	mustExec(t, db, "INSERT INTO a SELECT g, g % 10, g FROM generate_series(1, 600) AS g")
	mustExec(t, db, "INSERT INTO b SELECT g, g % 10, g FROM generate_series(1, 30) AS g")
	if _, err := failpoint.Enable(name, spec); err != nil {
		t.Fatal(err)
	}
	s := db.NewSession()
	for i, v := range fpViewOrder {
		with := ""
		if i == 0 {
			with = "WITH (backfill_rate_limit = 6000) "
		}
		fpExec(t, s, fmt.Sprintf("CREATE MATERIALIZED VIEW %s %sAS %s", v, with, fpViews[v]))
	}
}

// fpLogStorePhase creates the views over empty tables with their
// backfills held, writes the rows (all logged), then fires the point
// while the views replay their log stores.
func fpLogStorePhase(t *testing.T, db *streamdb.DB, name string, spec failpoint.Spec) {
	s := db.NewSession()
	fpExec(t, s, "SET background_ddl = true")
	fpExec(t, s, "SET backfill_rate_limit = 0")
	for _, v := range fpViewOrder {
		fpExec(t, s, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", v, fpViews[v]))
	}
	fpExec(t, s, "INSERT INTO a SELECT g, g % 10, g FROM generate_series(1, 400) AS g")
	fpExec(t, s, "INSERT INTO b SELECT g, g % 10, g FROM generate_series(1, 30) AS g")
	fpExec(t, s, "UPDATE a SET v = v + 1, k = k + 1 WHERE id % 7 = 0")
	fpExec(t, s, "DELETE FROM a WHERE id % 11 = 0")
	fpExec(t, s, "INSERT INTO a SELECT g, g % 10, g FROM generate_series(401, 600) AS g")
	if _, err := failpoint.Enable(name, spec); err != nil {
		t.Fatal(err)
	}
	for i, v := range fpViewOrder {
		limit := "DEFAULT"
		if i == 0 {
			limit = "6000"
		}
		fpExec(t, s, fmt.Sprintf("ALTER MATERIALIZED VIEW %s SET BACKFILL_RATE_LIMIT = %s", v, limit))
	}
	fpExec(t, s, "WAIT")
}

// fpExec runs a statement, retrying it while it fails with 40001 (the
// graph failed under it and it changed nothing).
func fpExec(t *testing.T, s *streamdb.Session, sql string) {
	t.Helper()
	for i := 0; ; i++ {
		_, err := s.Exec(context.Background(), sql)
		if err == nil {
			return
		}
		if code := sqlState(err); code != pgerr.SerializationFailure || i == 20 {
			t.Fatalf("%s: [%s] %v", sql, code, err)
		}
	}
}

// fpWriters insert rows with unique ids into a and update them, and run
// FLUSH, each in its own session, recording which inserts were
// acknowledged and which failed.
type fpWriters struct {
	stop   chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	acked  map[int]bool
	failed map[int]bool
	bad    errSink
}

func startFPWriters(db *streamdb.DB, n int) *fpWriters {
	w := &fpWriters{stop: make(chan struct{}), acked: map[int]bool{}, failed: map[int]bool{}}
	for i := 0; i < n; i++ {
		w.wg.Add(1)
		go w.write(db, i)
	}
	w.wg.Add(1)
	go w.flush(db)
	return w
}

func (w *fpWriters) stopped() bool {
	select {
	case <-w.stop:
		return true
	default:
		return false
	}
}

func (w *fpWriters) write(db *streamdb.DB, n int) {
	defer w.wg.Done()
	s := db.NewSession()
	ctx := context.Background()
	for i := 0; !w.stopped(); i++ {
		id := n*1_000_000 + i
		_, err := s.Exec(ctx, "INSERT INTO a VALUES ($1, $2, $3)", id, i%10, i)
		w.record(id, err)
		if err == nil && i%3 == 0 {
			_, err = s.Exec(ctx, "UPDATE a SET v = v + 7 WHERE id = $1", id)
			w.record(-1, err)
		}
	}
}

func (w *fpWriters) flush(db *streamdb.DB) {
	defer w.wg.Done()
	for !w.stopped() {
		_, err := db.Exec(context.Background(), "FLUSH")
		w.record(-1, err)
		time.Sleep(10 * time.Millisecond)
	}
}

// record books the outcome of a statement (id -1: not an insert).
func (w *fpWriters) record(id int, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch code := sqlState(err); code {
	case "":
		if id >= 0 {
			w.acked[id] = true
		}
	case pgerr.SerializationFailure, pgerr.AdminShutdown:
		if id >= 0 {
			w.failed[id] = true
		}
	default:
		w.bad.add("[%s] %v", code, err)
	}
}

func (w *fpWriters) halt() {
	close(w.stop)
	w.wg.Wait()
}

// check: every acknowledged insert is there, none that failed is.
func (w *fpWriters) check(t *testing.T, db *streamdb.DB) {
	t.Helper()
	w.bad.check(t)
	present := map[int]bool{}
	rows, err := db.Query(context.Background(), "SELECT id FROM a")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		present[int(rows.Values()[0].(int64))] = true
	}
	for id := range w.acked {
		if !present[id] {
			t.Errorf("acknowledged INSERT of a.id=%d is lost", id)
		}
	}
	for id := range w.failed {
		if present[id] {
			t.Errorf("INSERT of a.id=%d failed but its row is there", id)
		}
	}
	if len(w.acked) == 0 {
		t.Errorf("no insert was acknowledged")
	}
}

// TestFailpointStorageSync: a failed WAL sync (storage/sync) leaves the
// epoch's durability unknown, so the store stops taking writes: the
// statement that waited on it and every write after it fail with 58030
// (not a retryable 40001, and at once, not after a hang), reads go on,
// and after a reopen every acknowledged write is there, the unknown
// statement is there whole or not at all, and the views equal their
// queries.
func TestFailpointStorageSync(t *testing.T) {
	requireFailpoints(t)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	defer failpoint.Reset()
	defer hangWatch(t, 60*time.Second, "the storage/sync test")()
	dir := t.TempDir()
	open := func() *streamdb.DB {
		db, err := streamdb.Open(dir, &streamdb.Options{NoSync: true, BarrierInterval: 20 * time.Millisecond,
			Parallelism: 2, Logger: quietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open()
	mustExec(t, db, "CREATE TABLE a (id int PRIMARY KEY, k int, v int)")
	mustExec(t, db, "CREATE TABLE b (id int PRIMARY KEY, k int, w int)")
	for _, v := range fpViewOrder {
		mustExec(t, db, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", v, fpViews[v]))
	}
	mustExec(t, db, "INSERT INTO a SELECT g, g % 10, g FROM generate_series(1, 200) AS g")
	mustExec(t, db, "INSERT INTO b SELECT g, g % 10, g FROM generate_series(1, 30) AS g")
	if _, err := failpoint.Enable(failpoint.StorageSync, failpoint.Spec{Action: failpoint.Error, Times: 1}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, err := db.Exec(ctx, "INSERT INTO a VALUES (1000, 1, 1)")
	if code := sqlState(err); code != pgerr.IOError {
		t.Fatalf("INSERT whose epoch's sync failed: [%s] %v; want 58030", code, err)
	}
	for _, q := range []string{"INSERT INTO a VALUES (1001, 1, 1)", "FLUSH", "CREATE TABLE c (id int PRIMARY KEY)",
		"CREATE MATERIALIZED VIEW late AS SELECT count(*) FROM a"} {
		if _, err := db.Exec(ctx, q); sqlState(err) != pgerr.IOError {
			t.Fatalf("%s after the store failed: [%s] %v; want 58030", q, sqlState(err), err)
		}
	}
	if got := queryRows(t, db, "SELECT count(*) FROM a WHERE id < 1000"); got[0] != "200" {
		t.Fatalf("reads after the store failed: %v", got)
	}
	_ = db.Close()

	failpoint.Disable(failpoint.StorageSync)
	db = open()
	defer db.Close()
	got := queryRows(t, db, "SELECT id FROM a WHERE id >= 1000")
	if len(got) > 1 || len(got) == 1 && got[0] != "1000" {
		t.Fatalf("rows after the reopen: %v; want at most the unknown one (1000)", got)
	}
	if got := queryRows(t, db, "SELECT count(*) FROM a WHERE id < 1000"); got[0] != "200" {
		t.Fatalf("acknowledged rows after the reopen: %v", got)
	}
	checkViewsEqualQueries(t, db, fpViews)
	mustExec(t, db, "INSERT INTO a VALUES (1002, 2, 2)")
	checkViewsEqualQueries(t, db, fpViews)
	t.Logf("the unknown INSERT is there after the reopen: %v", len(got) == 1)
}
