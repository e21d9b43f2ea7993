package engine

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// TestCreateViewRecoveryBeforeJobStarts: a graph failure and rebuild
// right after a new view's actors started, before its job's goroutine
// runs, must not leave CREATE waiting on the progress of scans that no
// longer run (it hung there: the rebuild resumed the view with new
// scans, and the job, registered after the rebuild, watched the old
// ones).
func TestCreateViewRecoveryBeforeJobStarts(t *testing.T) {
	db, err := Open(":memory:", &Options{NoSync: true, BarrierInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE t (id int PRIMARY KEY, k int, v int)",
		"INSERT INTO t SELECT g, g % 7, g FROM generate_series(1, 2000) AS g",
	} {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	fired := false
	testHookViewAdded = func(db *DB) {
		if fired {
			return
		}
		fired = true
		gen := db.coord.Generation()
		db.coord.Abort(errors.New("test: failure right after the view's actors started"))
		for db.coord.Generation() == gen {
			time.Sleep(time.Millisecond)
		}
	}
	defer func() { testHookViewAdded = nil }()
	done := make(chan error, 1)
	go func() {
		_, err := db.Exec(ctx, "CREATE MATERIALIZED VIEW m AS SELECT k, count(*) AS n, sum(v) AS s FROM t GROUP BY k")
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("CREATE after a recovery: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("CREATE MATERIALIZED VIEW hangs after a recovery that came before its job started")
	}
	if !fired {
		t.Fatal("the hook never ran")
	}
	rows, err := db.Query(ctx, "SELECT count(*), sum(n), sum(s) FROM m")
	if err != nil {
		t.Fatal(err)
	}
	if !rows.Next() {
		t.Fatal("no row")
	}
	got := fmt.Sprint(rows.Values())
	if got != "[7 2000 2001000]" {
		t.Fatalf("view after the recovery: %v, want 7 groups over 2000 rows", got)
	}
}
