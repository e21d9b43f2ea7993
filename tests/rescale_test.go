package tests

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// rescaleViews are the views TestRescale* rescale: a grouped aggregate
// (with a view over it, rebuilt with it), a global aggregate, a join and a
// filter materialized in its scan's actors.
var rescaleViews = []struct{ name, query string }{
	{"r_agg", "SELECT k, count(*) AS n, sum(v) AS s, min(v) AS lo, max(v) AS hi FROM big GROUP BY k"},
	{"r_jn", "SELECT big.id, big.v, dim.name FROM big JOIN dim ON big.k = dim.k"},
	{"r_glob", "SELECT count(*) AS n, sum(v) AS s FROM big"},
	{"r_flt", "SELECT id, v * 2 AS v2 FROM big WHERE v % 3 = 1"},
}

// rescaleSteps are the parallelisms each test goes through, up and down.
var rescaleSteps = []int{3, 1, 4, 2}

// bulkWriter updates many rows of big per statement, faster than a
// rate-limited backfill replays them, so a job stays in its log-store
// phase while it runs; and it inserts and deletes rows as it goes.
type bulkWriter struct {
	stop chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	err  error
	n    int
}

func startBulkWriter(db *streamdb.DB, rows int) *bulkWriter {
	w := &bulkWriter{stop: make(chan struct{})}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		s := db.NewSession()
		ctx := context.Background()
		for i := 0; ; i++ {
			select {
			case <-w.stop:
				return
			default:
			}
			qs := []string{
				fmt.Sprintf("UPDATE big SET v = v + 1, k = (k + 1) %% 50 WHERE id %% 97 = %d", i%97),
				fmt.Sprintf("INSERT INTO big VALUES (%d, %d, %d)", rows+i, i%50, i%1000),
				fmt.Sprintf("DELETE FROM big WHERE id = %d", (i*7919)%rows),
			}
			for _, q := range qs {
				if _, err := s.Exec(ctx, q); err != nil {
					w.mu.Lock()
					w.err = fmt.Errorf("%s: %w", q, err)
					w.mu.Unlock()
					return
				}
			}
			w.mu.Lock()
			w.n++
			w.mu.Unlock()
		}
	}()
	return w
}

func (w *bulkWriter) halt(t *testing.T) {
	t.Helper()
	close(w.stop)
	w.wg.Wait()
	if w.err != nil {
		t.Fatal(w.err)
	}
	t.Logf("bulk writer: %d rounds", w.n)
}

// jobPhase returns the backfill phase of view's job ("" once created).
func jobPhase(t *testing.T, db *streamdb.DB, view string) string {
	t.Helper()
	rows := queryRows(t, db, fmt.Sprintf("SELECT phase FROM streamdb_catalog.ddl_progress WHERE statement LIKE '%% %s %%'", view))
	if len(rows) == 0 {
		return ""
	}
	return rows[0]
}

// waitPhase waits until view's job is in phase.
func waitPhase(t *testing.T, db *streamdb.DB, view, phase string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		got := jobPhase(t, db, view)
		if got == phase {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("view %s: phase %q, waited for %q", view, got, phase)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// rescaleThrough rescales view through rescaleSteps; when phase is not
// empty, the job must still be in that phase at each step. It checks the
// view's actors after each step.
func rescaleThrough(t *testing.T, db *streamdb.DB, view, phase string) {
	t.Helper()
	for _, p := range rescaleSteps {
		if phase != "" {
			// The new scans report "starting" until they have loaded
			// their progress.
			got := jobPhase(t, db, view)
			for deadline := time.Now().Add(10 * time.Second); got == "starting" && time.Now().Before(deadline); {
				time.Sleep(5 * time.Millisecond)
				got = jobPhase(t, db, view)
			}
			if got != phase {
				t.Fatalf("view %s: phase %q before rescaling to %d, want %q", view, got, p, phase)
			}
		}
		mustExec(t, db, fmt.Sprintf("ALTER MATERIALIZED VIEW %s SET PARALLELISM = %d", view, p))
		if got, want := scanActors(t, db, view), fmt.Sprintf("%d|256", p); got != want {
			t.Fatalf("view %s after SET PARALLELISM = %d: %s scan actors and vnodes, want %s", view, p, got, want)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// scanActors returns the number of actors of view's first fragment (a
// scan) and the vnodes they own together.
func scanActors(t *testing.T, db *streamdb.DB, view string) string {
	t.Helper()
	got := queryRows(t, db, fmt.Sprintf("SELECT count(*), sum(vnode_count) FROM streamdb_catalog.actors WHERE relation = '%s' AND fragment = 0", view))
	return strings.Join(got, "")
}

func checkRescaleViews(t *testing.T, db *streamdb.DB) {
	t.Helper()
	for _, v := range rescaleViews {
		checkView(t, db, v.name, v.query)
	}
	checkView(t, db, "r_vov", "SELECT n % 7 AS m, count(*) AS c, sum(s) AS t FROM r_agg GROUP BY n % 7")
}

func createRescaleViews(t *testing.T, db *streamdb.DB, s *streamdb.Session) {
	t.Helper()
	for _, v := range rescaleViews {
		if _, err := s.Exec(context.Background(), fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", v.name, v.query)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Exec(context.Background(), "CREATE MATERIALIZED VIEW r_vov AS SELECT n % 7 AS m, count(*) AS c, sum(s) AS t FROM r_agg GROUP BY n % 7"); err != nil {
		t.Fatal(err)
	}
}

// TestRescaleDuringSnapshot rescales views up and down while their
// backfill reads the snapshot, under concurrent writes.
func TestRescaleDuringSnapshot(t *testing.T) {
	rows := backfillRows() / 10
	db := openMem(t)
	loadBig(t, db, rows)
	s := db.NewSession()
	ctx := context.Background()
	for _, q := range []string{"SET background_ddl = true", "SET streaming_parallelism = 2",
		fmt.Sprintf("SET backfill_rate_limit = %d", rows/4)} {
		if _, err := s.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	w := startWriter(db, rows, 5)
	for _, v := range rescaleViews {
		if _, err := s.Exec(ctx, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", v.name, v.query)); err != nil {
			t.Fatal(err)
		}
	}
	for _, v := range rescaleViews {
		rescaleThrough(t, db, v.name, "snapshot")
	}
	for _, v := range rescaleViews {
		mustExec(t, db, "ALTER MATERIALIZED VIEW "+v.name+" SET BACKFILL_RATE_LIMIT = DEFAULT")
	}
	mustExec(t, db, "WAIT")
	w.halt(t)
	for _, v := range rescaleViews {
		checkView(t, db, v.name, v.query)
	}
}

// TestRescaleDuringLogStore rescales views while they replay their log
// store: a bulk writer logs changes faster than the rate-limited replay
// consumes them.
func TestRescaleDuringLogStore(t *testing.T) {
	rows := backfillRows() / 50 // 1,000
	db := openMem(t)
	loadBig(t, db, rows)
	s := db.NewSession()
	ctx := context.Background()
	for _, q := range []string{"SET background_ddl = true", "SET streaming_parallelism = 2", "SET backfill_rate_limit = 800"} {
		if _, err := s.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	w := startBulkWriter(db, rows)
	for _, v := range rescaleViews {
		if _, err := s.Exec(ctx, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", v.name, v.query)); err != nil {
			t.Fatal(err)
		}
		waitPhase(t, db, v.name, "log store")
		// Hold the replay so the phase lasts while the rescales go on.
		mustExec(t, db, "ALTER MATERIALIZED VIEW "+v.name+" SET BACKFILL_RATE_LIMIT = 1")
		time.Sleep(50 * time.Millisecond)
		rescaleThrough(t, db, v.name, "log store")
		mustExec(t, db, "ALTER MATERIALIZED VIEW "+v.name+" SET BACKFILL_RATE_LIMIT = 800")
	}
	w.halt(t)
	for _, v := range rescaleViews {
		mustExec(t, db, "ALTER MATERIALIZED VIEW "+v.name+" SET BACKFILL_RATE_LIMIT = DEFAULT")
	}
	mustExec(t, db, "WAIT")
	for _, v := range rescaleViews {
		checkView(t, db, v.name, v.query)
	}
}

// TestRescaleCreatedViews rescales created views (and the view over one
// of them, rebuilt with it) under concurrent writes, then reopens the
// database: the parallelism set survives, and ADAPTIVE follows the
// database's default.
func TestRescaleCreatedViews(t *testing.T) {
	rows := backfillRows() / 10
	dir := t.TempDir()
	db, err := streamdb.Open(dir, &streamdb.Options{NoSync: true, Parallelism: 2})
	if err != nil {
		t.Fatal(err)
	}
	loadBig(t, db, rows)
	createRescaleViews(t, db, db.NewSession())
	w := startWriter(db, rows, 7)
	for _, v := range rescaleViews {
		rescaleThrough(t, db, v.name, "")
	}
	w.halt(t)
	checkRescaleViews(t, db)
	mustExec(t, db, "ALTER MATERIALIZED VIEW r_agg SET PARALLELISM TO 3")
	mustExec(t, db, "ALTER MATERIALIZED VIEW r_jn SET PARALLELISM = ADAPTIVE")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = streamdb.Open(dir, &streamdb.Options{NoSync: true, Parallelism: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for view, want := range map[string]string{"r_agg": "3|256", "r_jn": "4|256", "r_flt": "2|256"} {
		if got := scanActors(t, db, view); got != want {
			t.Errorf("%s after reopen: %s scan actors and vnodes, want %s", view, got, want)
		}
	}
	w = startWriter(db, rows, 8)
	time.Sleep(200 * time.Millisecond)
	w.halt(t)
	checkRescaleViews(t, db)
}

// TestRescaleErrors checks bad parallelisms and objects.
func TestRescaleErrors(t *testing.T) {
	db := openMem(t)
	mustExec(t, db, "CREATE TABLE t (id int PRIMARY KEY, k int)")
	mustExec(t, db, "CREATE MATERIALIZED VIEW v AS SELECT k, count(*) FROM t GROUP BY k")
	for q, code := range map[string]string{
		"ALTER MATERIALIZED VIEW v SET PARALLELISM = 0":     pgerr.InvalidParameterValue,
		"ALTER MATERIALIZED VIEW v SET PARALLELISM = -2":    pgerr.InvalidParameterValue,
		"ALTER MATERIALIZED VIEW v SET PARALLELISM = 65":    pgerr.InvalidParameterValue,
		"ALTER MATERIALIZED VIEW v SET PARALLELISM = 1.5":   pgerr.InvalidParameterValue,
		"ALTER MATERIALIZED VIEW v SET PARALLELISM = lots":  pgerr.SyntaxError,
		"ALTER MATERIALIZED VIEW nope SET PARALLELISM = 2":  pgerr.UndefinedTable,
		"ALTER MATERIALIZED VIEW t SET PARALLELISM = 2":     pgerr.WrongObjectType,
		"ALTER TABLE v SET PARALLELISM = 2":                 pgerr.WrongObjectType,
		"ALTER MATERIALIZED VIEW v SET PARALLELISM TO 4":    "",
		"ALTER MATERIALIZED VIEW v SET PARALLELISM DEFAULT": pgerr.SyntaxError,
	} {
		_, err := db.Exec(context.Background(), q)
		if got := pgerr.Code(err); err != nil && got != code || err == nil && code != "" {
			t.Errorf("%s: %v (%s), want %q", q, err, got, code)
		}
	}
}

// TestRescaleTable rescales a table, with views over it (one still
// backfilling), while writers insert, update and delete: its source
// actor's DML and the materializing actors are swapped at one barrier
// with no write lost or applied twice.
func TestRescaleTable(t *testing.T) {
	rows := backfillRows() / 10
	db := openMem(t)
	loadBig(t, db, rows)
	createRescaleViews(t, db, db.NewSession())
	s := db.NewSession()
	ctx := context.Background()
	for _, q := range []string{"SET background_ddl = true", fmt.Sprintf("SET backfill_rate_limit = %d", rows/2),
		"CREATE MATERIALIZED VIEW r_late AS SELECT k % 5 AS k5, count(*) AS n, sum(v) AS s FROM big GROUP BY k % 5"} {
		if _, err := s.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	w := startWriter(db, rows, 11)
	w2 := startWriter(db, rows, 12)
	// An insert-only writer whose acknowledged rows must all be there.
	base := rows * 10
	var acked int
	stop := make(chan struct{})
	done := make(chan error)
	go func() {
		s := db.NewSession()
		for {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			if _, err := s.Exec(ctx, fmt.Sprintf("INSERT INTO big VALUES (%d, 1, 1)", base+acked)); err != nil {
				done <- err
				return
			}
			acked++
		}
	}()
	for _, p := range []int{2, 4, 1, 3} {
		mustExec(t, db, fmt.Sprintf("ALTER TABLE big SET PARALLELISM = %d", p))
		got := queryRows(t, db, "SELECT kind, count(*), sum(vnode_count) FROM streamdb_catalog.actors WHERE relation = 'big' GROUP BY kind ORDER BY kind")
		want := []string{fmt.Sprintf("table|%d|256", p)}
		if p > 1 {
			want = []string{"source|1|256", fmt.Sprintf("table|%d|256", p)}
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("big after SET PARALLELISM = %d: actors %v, want %v", p, got, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if jobPhase(t, db, "r_late") == "" {
		t.Log("r_late finished its backfill before the last rescale")
	}
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	w.halt(t)
	w2.halt(t)
	got := queryRows(t, db, fmt.Sprintf("SELECT count(*), min(id), max(id) FROM big WHERE id >= %d", base))
	if want := fmt.Sprintf("%d|%d|%d", acked, base, base+acked-1); acked == 0 || strings.Join(got, "") != want {
		t.Fatalf("acknowledged inserts: %v, want %s", got, want)
	}
	mustExec(t, db, "ALTER MATERIALIZED VIEW r_late SET BACKFILL_RATE_LIMIT = DEFAULT")
	mustExec(t, db, "WAIT")
	checkRescaleViews(t, db)
	checkView(t, db, "r_late", "SELECT k % 5 AS k5, count(*) AS n, sum(v) AS s FROM big GROUP BY k % 5")
	// The table's rows themselves: every id once.
	if got := queryRows(t, db, "SELECT count(*) = count(DISTINCT id) FROM big"); strings.Join(got, "") != "t" {
		t.Fatalf("duplicate ids in big: %v", got)
	}
	_, err := db.Exec(ctx, "ALTER SOURCE big SET PARALLELISM = 2")
	if pgerr.Code(err) != pgerr.FeatureNotSupported {
		t.Fatalf("ALTER SOURCE ... SET PARALLELISM: %v, want 0A000", err)
	}
}

// TestRescaleConcurrent issues rescales of the same view from several
// sessions at once, with a writer running: they are serialized, never
// mixed, and the running actors end as the catalog says.
func TestRescaleConcurrent(t *testing.T) {
	rows := backfillRows() / 10
	dir := t.TempDir()
	db, err := streamdb.Open(dir, &streamdb.Options{NoSync: true, Parallelism: 2})
	if err != nil {
		t.Fatal(err)
	}
	loadBig(t, db, rows)
	mustExec(t, db, "CREATE MATERIALIZED VIEW r_agg AS "+rescaleViews[0].query)
	w := startWriter(db, rows, 21)
	var wg sync.WaitGroup
	errs := make(chan error, 12)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := db.NewSession()
			for j := range 3 {
				p := 1 + (i+j)%4
				if _, err := s.Exec(context.Background(), fmt.Sprintf("ALTER MATERIALIZED VIEW r_agg SET PARALLELISM = %d", p)); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	w.halt(t)
	checkView(t, db, "r_agg", rescaleViews[0].query)
	// The last rescale to commit wins: the running actors and the catalog
	// (which a reopen rebuilds from) must agree on it.
	running := scanActors(t, db, "r_agg")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = streamdb.Open(dir, &streamdb.Options{NoSync: true, Parallelism: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := scanActors(t, db, "r_agg"); got != running {
		t.Fatalf("r_agg ran with %s scan actors and vnodes, reopened with %s", running, got)
	}
	checkView(t, db, "r_agg", rescaleViews[0].query)
}
