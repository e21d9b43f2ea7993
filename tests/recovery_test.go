package tests

// Recovery tests: an actor fails at runtime because a view's expression
// fails on a row (division by zero). What happens today, pinned down:
//
//   - the INSERT that carries the row fails, and changes nothing; but it
//     fails with 40001 (serialization_failure: "the streaming graph failed
//     and was restarted", now with the cause in the message), not with the
//     evaluation error 22012 that Postgres semantics call for. A client
//     that retries on 40001 retries forever. Statements of other sessions
//     that committed with the same barrier fail with 40001 too (retryable,
//     and they really were not committed).
//   - the graph is rebuilt from committed state: every acknowledged write
//     stays, every statement that got 40001 left nothing behind, and every
//     view equals its query afterwards.
//
// Correct behaviour would be 22012 for the poisoning statement only; that
// is a design question (which statement owns a failed row) for the lead.

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// TestViewEvalErrorFailsDML: an INSERT that makes a view's expression fail
// gets an error and changes nothing, while other sessions keep writing to
// another table; no acknowledged write is lost, no failed one is half
// applied, and all views equal their queries afterwards.
func TestViewEvalErrorFailsDML(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	db, err := streamdb.Open(":memory:", &streamdb.Options{NoSync: true, BarrierInterval: 50 * time.Millisecond,
		Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	mustExec(t, db, "CREATE TABLE t (id int PRIMARY KEY, v int)")
	mustExec(t, db, "CREATE TABLE u (id int PRIMARY KEY, v int)")
	mustExec(t, db, "INSERT INTO t VALUES (1, 2), (2, 5)")
	defs := map[string]string{
		"q":  "SELECT id, 10 / v AS r FROM t",
		"qa": "SELECT count(*) AS n, sum(v) AS s FROM t",
		"c":  "SELECT count(*) AS n, sum(v) AS s FROM u",
		"cj": "SELECT t.id, u.v FROM t JOIN u ON t.id = u.id",
	}
	for _, name := range []string{"q", "qa", "c", "cj"} {
		mustExec(t, db, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", name, defs[name]))
	}

	// Innocent writers: unique keys into u. A statement either commits
	// (acked) or fails with 40001 (failed); nothing else is acceptable.
	var mu sync.Mutex
	acked, failed := map[int]bool{}, map[int]bool{}
	var bad errSink
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			s := db.NewSession()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				id := w*1_000_000 + i
				_, err := s.Exec(ctx, "INSERT INTO u VALUES ($1, $2)", id, i%10)
				mu.Lock()
				switch sqlState(err) {
				case "":
					acked[id] = true
				case pgerr.SerializationFailure:
					failed[id] = true
				default:
					bad.add("writer %d: [%s] %v", w, sqlState(err), err)
				}
				mu.Unlock()
			}
		}(w)
	}

	s := db.NewSession()
	for i := 0; i < 5; i++ {
		done := make(chan struct{})
		var perr error
		go func() { defer close(done); _, perr = s.Exec(ctx, "INSERT INTO t VALUES ($1, 0)", 100+i) }()
		watchdog(t, 20*time.Second, "the poisoning INSERT", done)
		if perr == nil {
			t.Fatalf("INSERT of a row whose view expression divides by zero succeeded")
		}
		code := sqlState(perr)
		if code != pgerr.DivisionByZero && code != pgerr.SerializationFailure {
			t.Fatalf("poisoning INSERT: [%s] %v; want 22012 (or, today, 40001)", code, perr)
		}
		if !strings.Contains(perr.Error(), "division by zero") {
			t.Errorf("poisoning INSERT's error does not say why: %v", perr)
		}
		if i == 0 {
			t.Logf("poisoning INSERT fails with [%s] %v", code, perr)
		}
		// A good statement on the same table works right after.
		if _, err := s.Exec(ctx, "INSERT INTO t VALUES ($1, 3)", 200+i); err != nil {
			t.Fatalf("INSERT after the recovery: [%s] %v", sqlState(err), err)
		}
		time.Sleep(30 * time.Millisecond)
	}
	close(stop)
	all := make(chan struct{})
	go func() { wg.Wait(); close(all) }()
	watchdog(t, 30*time.Second, "writers", all)
	bad.check(t)
	if _, err := db.Exec(ctx, "FLUSH"); err != nil {
		t.Fatal(err)
	}

	if got := queryRows(t, db, "SELECT count(*) FROM t WHERE v = 0"); got[0] != "0" {
		t.Fatalf("%s poisoning rows were committed", got[0])
	}
	if got := queryRows(t, db, "SELECT count(*) FROM t"); got[0] != "7" {
		t.Fatalf("t holds %s rows, want 7", got[0])
	}
	present := map[int]bool{}
	rows, err := db.Query(ctx, "SELECT id FROM u")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		present[int(rows.Values()[0].(int64))] = true
	}
	for id := range acked {
		if !present[id] {
			t.Errorf("acknowledged INSERT of u.id=%d is lost", id)
		}
	}
	for id := range failed {
		if present[id] {
			t.Errorf("INSERT of u.id=%d failed with 40001 but its row is there", id)
		}
	}
	if len(present) != len(acked) {
		t.Errorf("u holds %d rows, %d inserts were acknowledged", len(present), len(acked))
	}
	t.Logf("innocent inserts: %d acknowledged, %d failed with 40001", len(acked), len(failed))
	if n := checkViewsEqualQueries(t, db, defs); n != len(defs) {
		t.Fatalf("%d of %d views exist", n, len(defs))
	}
	// Each poisoning INSERT cost one recovery, logged with its cause and
	// the view whose actor failed.
	rec := queryRows(t, db, "SELECT count(*), max(seq), min(rebuild_ms) >= 0 FROM streamdb_catalog.recoveries WHERE relation = 'q' AND cause LIKE '%division by zero%'")
	if len(rec) != 1 || rec[0] != "5|5|t" {
		t.Errorf("streamdb_catalog.recoveries: %v, want 5 recoveries of view q", rec)
	}
}

// TestViewEvalErrorFailsUpdate: the same through an UPDATE that moves a
// row into the failing domain; the table and views keep the old row.
func TestViewEvalErrorFailsUpdate(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	db, err := streamdb.Open(":memory:", &streamdb.Options{NoSync: true, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	mustExec(t, db, "CREATE TABLE t (id int PRIMARY KEY, v int)")
	mustExec(t, db, "INSERT INTO t VALUES (1, 2), (2, 5)")
	mustExec(t, db, "CREATE MATERIALIZED VIEW q AS SELECT id, 10 / v AS r FROM t")
	mustExec(t, db, "CREATE MATERIALIZED VIEW qs AS SELECT sum(10 / v) AS s FROM t")
	_, err = db.Exec(ctx, "UPDATE t SET v = v - 2 WHERE id = 1")
	if code := sqlState(err); code != pgerr.DivisionByZero && code != pgerr.SerializationFailure {
		t.Fatalf("UPDATE into the failing domain: [%s] %v", code, err)
	}
	if got := strings.Join(queryRows(t, db, "SELECT * FROM t"), ","); got != "1|2,2|5" {
		t.Fatalf("t after the failed UPDATE: %s", got)
	}
	if got := strings.Join(queryRows(t, db, "SELECT * FROM q"), ","); got != "1|5,2|2" {
		t.Fatalf("q after the failed UPDATE: %s", got)
	}
	if got := strings.Join(queryRows(t, db, "SELECT * FROM qs"), ","); got != "7" {
		t.Fatalf("qs after the failed UPDATE: %s", got)
	}
	// Deleting the row instead works and the views follow.
	mustExec(t, db, "DELETE FROM t WHERE id = 1")
	if got := strings.Join(queryRows(t, db, "SELECT * FROM qs"), ","); got != "2" {
		t.Fatalf("qs after DELETE: %s", got)
	}
}

// TestViewEvalErrorDuringBackfill: CREATE MATERIALIZED VIEW over a table
// that already holds a row the view's expression fails on. The CREATE
// fails with the evaluation error (22012) promptly, no view is left, and
// the database keeps working. (Until 1e1ab76 the creating job was resumed
// by every graph rebuild, failed again on the same row, and the graph
// crash-looped once per barrier interval forever: the CREATE never
// returned and every other statement got 40001.)
func TestViewEvalErrorDuringBackfill(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	db, err := streamdb.Open(":memory:", &streamdb.Options{NoSync: true, BarrierInterval: 50 * time.Millisecond,
		Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	mustExec(t, db, "CREATE TABLE w (id int PRIMARY KEY, v int)")
	mustExec(t, db, "CREATE TABLE u (id int PRIMARY KEY, v int)")
	mustExec(t, db, "INSERT INTO w VALUES (1, 5), (2, 0)")
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, err = db.Exec(ctx, "CREATE MATERIALIZED VIEW wq AS SELECT id, 10 / v AS r FROM w")
	}()
	watchdog(t, 15*time.Second, "CREATE over a failing row", done)
	if code := sqlState(err); code != pgerr.DivisionByZero {
		t.Errorf("CREATE over a failing row: [%s] %v; want 22012", code, err)
	}
	// A later CREATE of a view that does not fail on it works.
	mustExec(t, db, "CREATE MATERIALIZED VIEW wq AS SELECT id, v FROM w")
	if got := strings.Join(queryRows(t, db, "SELECT * FROM wq"), ","); got != "1|5,2|0" {
		t.Errorf("wq: %s", got)
	}
	mustExec(t, db, "DROP MATERIALIZED VIEW wq")
	if got := queryRows(t, db, "SHOW MATERIALIZED VIEWS"); len(got) != 0 {
		t.Errorf("views left: %v", got)
	}
	for i := 0; i < 5; i++ {
		if _, err := db.Exec(ctx, "INSERT INTO u VALUES ($1, 1)", i); err != nil {
			t.Fatalf("INSERT after the failed CREATE: [%s] %v", sqlState(err), err)
		}
	}
}

// quietLogger drops the logs of the expected actor failures.
func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
