package tests

import (
	"context"
	"fmt"
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

// backfillRows is the size of the table views are backfilled over:
// STREAMDB_BACKFILL_ROWS runs bigger (e.g. 1000000).
func backfillRows() int {
	if s := os.Getenv("STREAMDB_BACKFILL_ROWS"); s != "" {
		n, _ := strconv.Atoi(s)
		return n
	}
	return 50_000
}

// writer runs random INSERT/UPDATE/DELETE statements on table big until
// stopped.
type writer struct {
	db     *streamdb.DB
	rows   int
	stop   chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	err    error
	writes int
}

func startWriter(db *streamdb.DB, rows int, seed int64) *writer {
	w := &writer{db: db, rows: rows, stop: make(chan struct{})}
	w.wg.Add(1)
	go w.run(seed)
	return w
}

func (w *writer) run(seed int64) {
	defer w.wg.Done()
	rng := rand.New(rand.NewSource(seed))
	s := w.db.NewSession()
	ctx := context.Background()
	for {
		select {
		case <-w.stop:
			return
		default:
		}
		id := rng.Intn(w.rows * 2)
		var q string
		switch rng.Intn(3) {
		case 0:
			q = fmt.Sprintf("INSERT INTO big VALUES (%d, %d, %d)", id, rng.Intn(50), rng.Intn(1000))
		case 1:
			q = fmt.Sprintf("UPDATE big SET v = v + 1, k = %d WHERE id = %d", rng.Intn(50), id)
		default:
			q = fmt.Sprintf("DELETE FROM big WHERE id = %d", id)
		}
		if _, err := s.Exec(ctx, q); err != nil && pgerr.Code(err) != pgerr.UniqueViolation {
			w.mu.Lock()
			w.err = fmt.Errorf("%s: %w", q, err)
			w.mu.Unlock()
			return
		}
		w.mu.Lock()
		w.writes++
		w.mu.Unlock()
	}
}

// halt stops the writer and reports its error and write count.
func (w *writer) halt(t *testing.T) int {
	t.Helper()
	close(w.stop)
	w.wg.Wait()
	if w.err != nil {
		t.Fatal(w.err)
	}
	return w.writes
}

func loadBig(t *testing.T, db *streamdb.DB, rows int) {
	t.Helper()
	mustExec(t, db, "CREATE TABLE big (id int PRIMARY KEY, k int, v bigint)")
	mustExec(t, db, fmt.Sprintf("INSERT INTO big SELECT g, g %% 50, g %% 1000 FROM generate_series(0, %d) AS g", rows-1))
	mustExec(t, db, "CREATE TABLE dim (k int PRIMARY KEY, name text)")
	mustExec(t, db, "INSERT INTO dim SELECT g, 'k' || g FROM generate_series(0, 39) AS g")
}

var backfillViews = []struct{ name, query string }{
	{"b_agg", "SELECT k, count(*) AS n, sum(v) AS s, min(v) AS lo, max(v) AS hi FROM big GROUP BY k"},
	{"b_join", "SELECT big.id, big.v, dim.name FROM big JOIN dim ON big.k = dim.k"},
	{"b_left", "SELECT dim.name, count(big.id) AS n FROM dim LEFT JOIN big ON big.k = dim.k GROUP BY dim.name"},
	{"b_vov", "SELECT count(*) AS groups_n, sum(n) AS total FROM b_agg"},
}

func checkView(t *testing.T, db *streamdb.DB, name, query string) {
	t.Helper()
	got := queryRows(t, db, "SELECT * FROM "+name)
	want := queryRows(t, db, query)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		n := min(len(got), 5)
		m := min(len(want), 5)
		t.Fatalf("view %s differs from its query: %d rows vs %d; first %v vs %v", name, len(got), len(want), got[:n], want[:m])
	}
}

// TestBackfillUnderWrites creates views over a loaded table while a writer
// changes it the whole time; each view must equal its query once created
// and after more writes.
func TestBackfillUnderWrites(t *testing.T) {
	rows := backfillRows()
	db := openMem(t)
	loadBig(t, db, rows)
	for i, v := range backfillViews {
		w := startWriter(db, rows, int64(i))
		start := time.Now()
		mustExec(t, db, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", v.name, v.query))
		elapsed := time.Since(start)
		n := w.halt(t)
		t.Logf("%s: backfilled over %d rows in %v with %d concurrent writes", v.name, rows, elapsed, n)
		for _, done := range backfillViews[:i+1] {
			checkView(t, db, done.name, done.query)
		}
	}
	w := startWriter(db, rows, 99)
	time.Sleep(200 * time.Millisecond)
	w.halt(t)
	for _, v := range backfillViews {
		checkView(t, db, v.name, v.query)
	}
}

type jobRow struct {
	phase            string
	read, total, lag int64
}

func jobProgress(t *testing.T, db *streamdb.DB, view string) (jobRow, bool) {
	t.Helper()
	rows, err := db.Query(context.Background(),
		"SELECT phase, rows_read, rows_total, log_lag, statement FROM streamdb_catalog.ddl_progress")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		v := rows.Values()
		if strings.Contains(v[4].(string), " "+view+" ") {
			return jobRow{v[0].(string), v[1].(int64), v[2].(int64), v[3].(int64)}, true
		}
	}
	return jobRow{}, false
}

// TestBackfillResumesAfterRestart closes the database in the middle of a
// rate-limited background backfill, with writes landing in the log store,
// and checks that after reopening the job continues from its progress (not
// from zero) and the view ends equal to its query.
func TestBackfillResumesAfterRestart(t *testing.T) {
	const rows = 20_000
	dir := t.TempDir()
	ctx := context.Background()
	db, err := streamdb.Open(dir, &streamdb.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	loadBig(t, db, rows)
	s := db.NewSession()
	for _, q := range []string{"SET background_ddl = true", "SET backfill_rate_limit = 10000",
		"CREATE MATERIALIZED VIEW r_agg AS SELECT k, count(*) AS n, sum(v) AS s FROM big GROUP BY k"} {
		if _, err := s.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	// Reading a view that is still being created is a clear error.
	if _, err := db.Query(ctx, "SELECT * FROM r_agg"); pgerr.Code(err) != pgerr.ObjectNotInPrereqState {
		t.Errorf("reading a creating view: got %v, want 55000", err)
	}
	w := startWriter(db, rows, 7)
	var before jobRow
	deadline := time.Now().Add(10 * time.Second)
	for {
		p, ok := jobProgress(t, db, "r_agg")
		if !ok {
			t.Fatal("the job finished before the restart; the rate limit did not hold")
		}
		if p.read >= 4000 {
			before = p
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("backfill made no progress: %+v", p)
		}
		time.Sleep(20 * time.Millisecond)
	}
	w.halt(t)
	if before.phase != "snapshot" || before.read >= rows {
		t.Fatalf("progress before restart: %+v", before)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db, err = streamdb.Open(dir, &streamdb.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var after jobRow
	for deadline := time.Now().Add(10 * time.Second); ; {
		p, ok := jobProgress(t, db, "r_agg")
		if !ok {
			t.Fatal("the creating view's job is gone after the restart")
		}
		if p.phase != "starting" {
			after = p
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the resumed job did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if after.read < before.read {
		t.Fatalf("backfill restarted from %d rows, had read %d before the restart", after.read, before.read)
	}
	t.Logf("before restart %+v, after %+v", before, after)
	mustExec(t, db, "SET backfill_rate_limit = DEFAULT")
	mustExec(t, db, "WAIT")
	if _, ok := jobProgress(t, db, "r_agg"); ok {
		t.Fatal("job still listed after WAIT")
	}
	checkView(t, db, "r_agg", "SELECT k, count(*) AS n, sum(v) AS s FROM big GROUP BY k")
	mustExec(t, db, "INSERT INTO big VALUES (-5, 3, 3)")
	checkView(t, db, "r_agg", "SELECT k, count(*) AS n, sum(v) AS s FROM big GROUP BY k")
}

// TestCancelAndDropCreatingView cancels jobs with CANCEL JOBS and DROP.
func TestCancelAndDropCreatingView(t *testing.T) {
	db := openMem(t)
	loadBig(t, db, 5000)
	s := db.NewSession()
	ctx := context.Background()
	for _, q := range []string{"SET background_ddl = true", "SET backfill_rate_limit = 0",
		"CREATE MATERIALIZED VIEW c1 AS SELECT k, count(*) AS n FROM big GROUP BY k",
		"CREATE MATERIALIZED VIEW c2 AS SELECT k, count(*) AS n FROM big GROUP BY k"} {
		if _, err := s.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := s.Query(ctx, "SHOW JOBS")
	if err != nil {
		t.Fatalf("SHOW JOBS: %v", err)
	}
	var ids []int64
	for rows.Next() {
		ids = append(ids, rows.Values()[0].(int64))
	}
	if len(ids) != 2 {
		t.Fatalf("SHOW JOBS: %v, %d rows", rows.Err(), len(ids))
	}
	id := ids[0]
	if _, err := s.Exec(ctx, fmt.Sprintf("CANCEL JOBS %d", id)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Exec(ctx, "DROP MATERIALIZED VIEW c2"); err != nil {
		t.Fatal(err)
	}
	if got := queryRows(t, db, "SHOW MATERIALIZED VIEWS"); len(got) != 0 {
		t.Fatalf("views left: %v", got)
	}
	if jobs, err := sortedTextRows(s, "SHOW JOBS"); err != nil || len(jobs) != 0 {
		t.Fatalf("jobs left: %v %v", jobs, err)
	}
	if _, err := s.Exec(ctx, fmt.Sprintf("CANCEL JOBS %d", id)); pgerr.Code(err) != pgerr.UndefinedObject {
		t.Fatalf("cancel of a finished job: %v", err)
	}
	// The name is free again and a new view works.
	mustExec(t, db, "CREATE MATERIALIZED VIEW c1 AS SELECT k, count(*) AS n FROM big GROUP BY k")
	checkView(t, db, "c1", "SELECT k, count(*) AS n FROM big GROUP BY k")
}

// TestPauseResumeRateLimit pauses a backfill (progress stays exactly
// constant while the table takes writes and other views stay fresh),
// resumes it rate-limited (the rate holds), and checks the view at the end.
func TestPauseResumeRateLimit(t *testing.T) {
	db := openMem(t)
	loadBig(t, db, 30_000)
	mustExec(t, db, "CREATE MATERIALIZED VIEW fresh AS SELECT count(*) AS n FROM big")
	s := db.NewSession()
	ctx := context.Background()
	for _, q := range []string{"SET background_ddl = true",
		"CREATE MATERIALIZED VIEW slow AS SELECT k, count(*) AS n, sum(v) AS s FROM big GROUP BY k",
		"ALTER MATERIALIZED VIEW slow PAUSE"} {
		if _, err := s.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	p1, _ := jobProgress(t, db, "slow")
	mustExec(t, db, "INSERT INTO big VALUES (-1, 1, 1), (-2, 2, 2)")
	time.Sleep(300 * time.Millisecond)
	p2, ok := jobProgress(t, db, "slow")
	if !ok || p2.read != p1.read {
		t.Fatalf("paused backfill moved: %+v then %+v", p1, p2)
	}
	if got := queryRows(t, db, "SELECT n FROM fresh"); got[0] != "30002" {
		t.Fatalf("other view not fresh while a backfill is paused: %v", got)
	}
	mustExec(t, db, "ALTER MATERIALIZED VIEW slow SET BACKFILL_RATE_LIMIT = 20000")
	mustExec(t, db, "ALTER MATERIALIZED VIEW slow RESUME")
	start := time.Now()
	time.Sleep(500 * time.Millisecond)
	p3, _ := jobProgress(t, db, "slow")
	rate := float64(p3.read-p2.read) / time.Since(start).Seconds()
	if rate > 20000*1.25 {
		t.Fatalf("rate limit 20000 rows/s not honoured: %.0f rows/s", rate)
	}
	if _, err := db.Exec(ctx, "ALTER MATERIALIZED VIEW fresh PAUSE"); pgerr.Code(err) != pgerr.ObjectNotInPrereqState {
		t.Fatalf("PAUSE of a finished view: %v", err)
	}
	// The front end rejects the sign itself (42601); a negative value that
	// got through would be 22023.
	if _, err := db.Exec(ctx, "ALTER MATERIALIZED VIEW slow SET BACKFILL_RATE_LIMIT = -1"); err == nil ||
		(pgerr.Code(err) != pgerr.InvalidParameterValue && pgerr.Code(err) != pgerr.SyntaxError) {
		t.Fatalf("negative rate: %v", err)
	}
	mustExec(t, db, "ALTER MATERIALIZED VIEW slow SET BACKFILL_RATE_LIMIT = DEFAULT")
	mustExec(t, db, "WAIT")
	checkView(t, db, "slow", "SELECT k, count(*) AS n, sum(v) AS s FROM big GROUP BY k")
}

// TestPauseIndependentOfRate: PAUSE and a rate limit are separate
// settings: setting a rate keeps a paused job paused, and RESUME keeps a
// job whose rate is 0 held.
func TestPauseIndependentOfRate(t *testing.T) {
	db := openMem(t)
	loadBig(t, db, 3000)
	s := db.NewSession()
	ctx := context.Background()
	held := func() bool {
		rows, err := s.Query(ctx, "SELECT paused FROM streamdb_catalog.ddl_progress")
		if err != nil || !rows.Next() {
			t.Fatalf("ddl_progress: %v", err)
		}
		return rows.Values()[0].(bool)
	}
	// The job starts held (rate 0), so it cannot finish before the PAUSE.
	for _, q := range []string{"SET background_ddl = true", "SET backfill_rate_limit = 0",
		"CREATE MATERIALIZED VIEW pi AS SELECT k, count(*) AS n FROM big GROUP BY k",
		"ALTER MATERIALIZED VIEW pi PAUSE",
		"ALTER MATERIALIZED VIEW pi SET BACKFILL_RATE_LIMIT = 100"} {
		if _, err := s.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if !held() {
		t.Fatal("setting a rate limit resumed a paused job")
	}
	mustExec(t, db, "ALTER MATERIALIZED VIEW pi SET BACKFILL_RATE_LIMIT = 0")
	mustExec(t, db, "ALTER MATERIALIZED VIEW pi RESUME")
	if !held() {
		t.Fatal("RESUME released a job whose rate limit is 0")
	}
	mustExec(t, db, "ALTER MATERIALIZED VIEW pi SET BACKFILL_RATE_LIMIT = DEFAULT")
	mustExec(t, db, "WAIT")
	checkView(t, db, "pi", "SELECT k, count(*) AS n FROM big GROUP BY k")
}

// TestCreateIfNotExistsWaitsForBackfill: a foreground CREATE MATERIALIZED
// VIEW IF NOT EXISTS of a view still being created in the background
// waits for it, as RisingWave does, so the view is complete when it
// returns; in the background it returns at once.
func TestCreateIfNotExistsWaitsForBackfill(t *testing.T) {
	db := openMem(t)
	ctx := context.Background()
	rlFillTable(t, db, "src", 5_000)
	bg := db.NewSession()
	if _, err := bg.Exec(ctx, "SET background_ddl = true"); err != nil {
		t.Fatal(err)
	}
	const create = "CREATE MATERIALIZED VIEW IF NOT EXISTS held AS SELECT id, v FROM src"
	if _, err := bg.Exec(ctx, "CREATE MATERIALIZED VIEW held WITH (backfill_rate_limit = 0) AS SELECT id, v FROM src"); err != nil {
		t.Fatal(err)
	}
	if _, err := bg.Exec(ctx, create); err != nil {
		t.Fatalf("background IF NOT EXISTS: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := db.Exec(ctx, create)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("IF NOT EXISTS returned (%v) while the view was held", err)
	case <-time.After(300 * time.Millisecond):
	}
	mustExec(t, db, "ALTER MATERIALIZED VIEW held SET BACKFILL_RATE_LIMIT = DEFAULT")
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("IF NOT EXISTS did not return once the backfill could finish")
	}
	if got := queryRows(t, db, "SELECT count(*) FROM held"); fmt.Sprint(got) != "[5000]" {
		t.Fatalf("held has %v rows when IF NOT EXISTS returned", got)
	}
}
