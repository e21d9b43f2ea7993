package tests

// The failure policy of a view's job (job_failures.go): failures are
// retried from the job's progress; identical failures in a row quarantine
// the job (paused, reported in SHOW JOBS, kept across a restart) instead
// of looping; RESUME clears it. Needs -tags invariants (failpoints).

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/failpoint"
	"github.com/streamdb/streamdb/internal/pgerr"
)

const jfView = "SELECT k, count(*) AS n, sum(v) AS s FROM a GROUP BY k"

func openJobFailureDB(t *testing.T, dir string) *streamdb.DB {
	t.Helper()
	db, err := streamdb.Open(dir, &streamdb.Options{NoSync: true, BarrierInterval: 20 * time.Millisecond,
		Parallelism: 2, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// jobHealth reads the failure columns of the job of view.
func jobHealth(t *testing.T, db *streamdb.DB, view string) (failures int64, lastErr string, quarantined bool, ok bool) {
	t.Helper()
	rows, err := db.Query(context.Background(),
		"SELECT failures, last_error, quarantined, paused, statement FROM streamdb_catalog.ddl_progress")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		v := rows.Values()
		if !strings.Contains(v[4].(string), " "+view+" ") {
			continue
		}
		if s, isText := v[1].(string); isText {
			lastErr = s
		}
		if v[2].(bool) && !v[3].(bool) {
			t.Errorf("job of %s is quarantined but not paused", view)
		}
		return v[0].(int64), lastErr, v[2].(bool), true
	}
	return 0, "", false, false
}

func recoveryCount(t *testing.T, db *streamdb.DB) string {
	t.Helper()
	return queryRows(t, db, "SELECT count(*) FROM streamdb_catalog.recoveries")[0]
}

// TestJobQuarantine: a background job whose snapshot read always fails
// is retried, then quarantined after three identical failures: SHOW JOBS
// says so with the error, the graph stops failing, DML goes on, WAIT
// fails instead of waiting, and a restart keeps the quarantine. RESUME
// (the failure gone) finishes the view, equal to its query.
func TestJobQuarantine(t *testing.T) {
	requireFailpoints(t)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	defer failpoint.Reset()
	dir := t.TempDir()
	db := openJobFailureDB(t, dir)
	defer func() { db.Close() }()
	defer hangWatch(t, 60*time.Second, "the quarantine test")()
	mustExec(t, db, "CREATE TABLE a (id int PRIMARY KEY, k int, v int)")
	mustExec(t, db, "INSERT INTO a SELECT g, g % 10, g FROM generate_series(1, 500) AS g")
	mustExec(t, db, "CREATE MATERIALIZED VIEW other AS SELECT count(*) AS n FROM a")
	if _, err := failpoint.Enable(failpoint.BackfillSnapshotRead, failpoint.Spec{Action: failpoint.Error}); err != nil {
		t.Fatal(err)
	}
	s := db.NewSession()
	fpExec(t, s, "SET background_ddl = true")
	start := time.Now()
	fpExec(t, s, "CREATE MATERIALIZED VIEW jq AS "+jfView)
	waitFor(t, 20*time.Second, "the job's quarantine", func() bool {
		_, _, q, _ := jobHealth(t, db, "jq")
		return q
	})
	t.Logf("quarantined %v after the CREATE", time.Since(start).Round(time.Millisecond))
	n, lastErr, _, _ := jobHealth(t, db, "jq")
	if n != 3 || !strings.Contains(lastErr, "failpoint backfill/snapshot-read") {
		t.Fatalf("quarantined job: %d failures, last error %q; want 3 and the failpoint", n, lastErr)
	}
	// The graph no longer fails; DML and other views go on. (The job is
	// quarantined during the third recovery, which is recorded when its
	// rebuild ends: wait for that record.)
	waitFor(t, 20*time.Second, "the third recovery's record", func() bool { return recoveryCount(t, db) == "3" })
	before := recoveryCount(t, db)
	mustExec(t, db, "INSERT INTO a VALUES (1000, 1, 1)")
	time.Sleep(100 * time.Millisecond)
	if after := recoveryCount(t, db); after != before {
		t.Fatalf("recoveries went on after the quarantine: %s, then %s", before, after)
	}
	_, err := db.Exec(context.Background(), "WAIT")
	if code := sqlState(err); code != pgerr.ObjectNotInPrereqState || !strings.Contains(err.Error(), "quarantined") {
		t.Fatalf("WAIT with a quarantined job: [%s] %v", code, err)
	}

	// A restart keeps it quarantined, and paused.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openJobFailureDB(t, dir)
	time.Sleep(100 * time.Millisecond)
	if n, lastErr, q, ok := jobHealth(t, db, "jq"); !ok || !q || n != 3 || lastErr == "" {
		t.Fatalf("after a restart: job found %v, quarantined %v, %d failures, %q", ok, q, n, lastErr)
	}
	if got := recoveryCount(t, db); got != "0" {
		t.Fatalf("%s recoveries after reopening a quarantined job", got)
	}

	failpoint.Disable(failpoint.BackfillSnapshotRead)
	mustExec(t, db, "INSERT INTO a VALUES (1001, 2, 2)")
	mustExec(t, db, "ALTER MATERIALIZED VIEW jq RESUME")
	mustExec(t, db, "WAIT")
	checkView(t, db, "jq", jfView)
	checkView(t, db, "other", "SELECT count(*) AS n FROM a")
	if got := queryRows(t, db, "SHOW JOBS"); len(got) != 0 {
		t.Fatalf("jobs left: %v", got)
	}
}

// TestJobFailureForeground: a foreground CREATE whose job fails the same
// way three times fails with the error, promptly, and leaves no view; a
// job that fails once and then goes on is retried and the CREATE
// succeeds.
func TestJobFailureForeground(t *testing.T) {
	requireFailpoints(t)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	defer failpoint.Reset()
	db := openJobFailureDB(t, ":memory:")
	defer db.Close()
	defer hangWatch(t, 60*time.Second, "the foreground job failure test")()
	mustExec(t, db, "CREATE TABLE a (id int PRIMARY KEY, k int, v int)")
	mustExec(t, db, "INSERT INTO a SELECT g, g % 10, g FROM generate_series(1, 500) AS g")
	if _, err := failpoint.Enable(failpoint.ExecHashAggChunk, failpoint.Spec{Action: failpoint.Panic}); err != nil {
		t.Fatal(err)
	}
	_, err := db.Exec(context.Background(), "CREATE MATERIALIZED VIEW jf AS "+jfView)
	if code := sqlState(err); code != pgerr.Internal || !strings.Contains(err.Error(), "failed 3 times in a row") ||
		!strings.Contains(err.Error(), "failpoint exec/hash-agg/chunk") {
		t.Fatalf("CREATE whose job always fails: [%s] %v", code, err)
	}
	if got := queryRows(t, db, "SHOW MATERIALIZED VIEWS"); len(got) != 0 {
		t.Fatalf("views left by the failed CREATE: %v", got)
	}
	if _, err := failpoint.Enable(failpoint.ExecHashAggChunk, failpoint.Spec{Action: failpoint.Error, Times: 1}); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, "CREATE MATERIALIZED VIEW jf AS "+jfView)
	checkView(t, db, "jf", jfView)
	if got := queryRows(t, db, "SELECT count(*) FROM streamdb_catalog.recoveries WHERE relation = 'jf'"); got[0] != "4" {
		t.Fatalf("recoveries of jf: %s, want 4 (3 that quarantined it, 1 retried)", got[0])
	}
}

// TestPersistentFailureNoHang: a created view's aggregate fails on every
// chunk, so every statement that writes its table fails the graph. No
// statement hangs: each writer gets 40001 promptly, FLUSH succeeds or
// gets 40001, other tables' writes commit, and Close returns, failing the
// statements it interrupts with 57P01 (or 40001).
func TestPersistentFailureNoHang(t *testing.T) {
	requireFailpoints(t)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	defer failpoint.Reset()
	db := openJobFailureDB(t, ":memory:")
	closed := false
	defer func() {
		if !closed {
			db.Close()
		}
	}()
	mustExec(t, db, "CREATE TABLE a (id int PRIMARY KEY, k int, v int)")
	mustExec(t, db, "CREATE TABLE u (id int PRIMARY KEY)")
	mustExec(t, db, "CREATE MATERIALIZED VIEW jp AS "+jfView)
	if _, err := failpoint.Enable(failpoint.ExecHashAggChunk, failpoint.Spec{Action: failpoint.Error}); err != nil {
		t.Fatal(err)
	}
	var bad errSink
	stop := make(chan struct{})
	done := make(chan struct{})
	counts := map[string]int{}
	var slowest time.Duration
	go func() {
		defer close(done)
		s := db.NewSession()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			q := fmt.Sprintf("INSERT INTO a VALUES (%d, 1, 1)", i)
			switch i % 3 {
			case 1:
				q = fmt.Sprintf("INSERT INTO u VALUES (%d)", i)
			case 2:
				q = "FLUSH"
			}
			t0 := time.Now()
			_, err := s.Exec(context.Background(), q)
			slowest = max(slowest, time.Since(t0))
			code := sqlState(err)
			counts[strings.Fields(q)[0]+" "+code]++
			switch {
			case code == "", code == pgerr.SerializationFailure, code == pgerr.AdminShutdown:
			default:
				bad.add("%s: [%s] %v", q, code, err)
			}
		}
	}()
	time.Sleep(1500 * time.Millisecond)
	closeDone := make(chan struct{})
	go func() { defer close(closeDone); db.Close() }()
	watchdog(t, 20*time.Second, "Close during a persistent failure", closeDone)
	closed = true
	close(stop)
	watchdog(t, 20*time.Second, "the writer", done)
	bad.check(t)
	t.Logf("statements by outcome: %v; slowest %v", counts, slowest.Round(time.Millisecond))
	if counts["INSERT 40001"] == 0 {
		t.Fatal("no INSERT failed: the failpoint did not fire")
	}
	if slowest > 10*time.Second {
		t.Fatalf("a statement took %v", slowest)
	}
}

// TestJobDoneRacesRecovery: the graph fails just as a job's scans catch
// up (the aggregate fails on the last chunk the scans replay from the log
// store, while the scans go on to follow their upstream). WAIT must not
// return before the view is complete: before the fix the job's checkpoint
// was served by the first barrier of the rebuilt graph, whose scans were
// still replaying, and the view was marked created incomplete (and after
// one more recovery it was rebuilt as created, its backfill never done).
func TestJobDoneRacesRecovery(t *testing.T) {
	requireFailpoints(t)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	defer failpoint.Reset()
	db := openJobFailureDB(t, ":memory:")
	defer db.Close()
	defer hangWatch(t, 60*time.Second, "the job-done race test")()
	mustExec(t, db, "CREATE TABLE a (id int PRIMARY KEY, k int, v int)")
	s := db.NewSession()
	fpExec(t, s, "SET background_ddl = true")
	for i := 0; i < 6; i++ {
		name := fmt.Sprintf("jr%d", i)
		fpExec(t, s, fmt.Sprintf("CREATE MATERIALIZED VIEW %s WITH (backfill_rate_limit = 0) AS %s", name, jfView))
		fpExec(t, s, fmt.Sprintf("INSERT INTO a SELECT g, g %% 10, g FROM generate_series(%d, %d) AS g", i*1000, i*1000+799))
		if _, err := failpoint.Enable(failpoint.ExecHashAggChunk, failpoint.Spec{Action: failpoint.End, Times: 1}); err != nil {
			t.Fatal(err)
		}
		fpExec(t, s, fmt.Sprintf("ALTER MATERIALIZED VIEW %s SET BACKFILL_RATE_LIMIT = DEFAULT", name))
		fpExec(t, s, "WAIT")
		got := queryRows(t, db, "SELECT * FROM "+name)
		want := queryRows(t, db, jfView)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("round %d: WAIT returned, view %s differs from its query: %d groups vs %d\nview:  %v\nquery: %v",
				i, name, len(got), len(want), got, want)
		}
		failpoint.Disable(failpoint.ExecHashAggChunk)
		fpExec(t, s, "DROP MATERIALIZED VIEW "+name)
	}
}
