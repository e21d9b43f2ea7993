package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// readAll reads every committed change of r as "id,v,op" lines and the
// epochs they came with.
// codeOf is err's SQLSTATE ("" for nil).
func codeOf(err error) string {
	if err == nil {
		return ""
	}
	return pgerr.As(err).Code
}

func readAll(t *testing.T, r *subReader) ([]string, []int64) {
	t.Helper()
	var out []string
	var epochs []int64
	_, err := r.read(context.Background(), -1, func(row []types.Datum) error {
		out = append(out, fmt.Sprintf("%v,%v,%v", row[0], row[1], row[2]))
		epochs = append(epochs, row[3].(int64))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, epochs
}

// TestSubscriptionLog: a subscription's log holds every change of its
// table after its creation, in commit order, with nondecreasing epochs;
// a reader from now sees only later changes, SINCE replays, FULL starts
// with the rows; the log survives a restart and is truncated past its
// retention, after which SINCE an older epoch is refused.
func TestSubscriptionLog(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	var now atomic.Int64
	now.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro())
	clock := func() time.Time { return time.UnixMicro(now.Load()) }
	open := func() *DB {
		db, err := Open(dir, &Options{NoSync: true, Clock: clock, BarrierInterval: 20 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open()
	ctx := context.Background()
	exec := func(q string) {
		t.Helper()
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("CREATE TABLE t (id int PRIMARY KEY, v text)")
	exec("INSERT INTO t VALUES (1, 'a')")
	exec("CREATE SUBSCRIPTION s FROM t WITH (retention = '1h')")
	now.Add(time.Minute.Microseconds())
	start := db.store.CommittedEpoch()
	r, err := db.openSubscription(ctx, "s", SubscriptionStart{})
	if err != nil {
		t.Fatal(err)
	}
	exec("INSERT INTO t VALUES (2, 'b')")
	exec("UPDATE t SET v = 'c' WHERE id = 1")
	exec("DELETE FROM t WHERE id = 2")
	got, epochs := readAll(t, r)
	want := []string{"2,b,Insert", "1,a,UpdateDelete", "1,c,UpdateInsert", "2,b,Delete"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("changes %v, want %v", got, want)
	}
	for i := range epochs {
		if epochs[i] <= int64(start) || i > 0 && epochs[i] < epochs[i-1] || epochs[1] != epochs[2] {
			t.Fatalf("epochs %v (start %d)", epochs, start)
		}
	}
	if got, _ := readAll(t, r); len(got) != 0 {
		t.Fatalf("read again: %v", got)
	}
	// SINCE the epoch before the insert replays from there.
	since := uint64(epochs[0] - 1)
	r2, err := db.openSubscription(ctx, "s", SubscriptionStart{Since: &since})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := readAll(t, r2); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("SINCE %d: %v", since, got)
	}
	// SINCE an epoch within the first change's: from the UPDATE on.
	mid := uint64(epochs[1] - 1)
	r3, err := db.openSubscription(ctx, "s", SubscriptionStart{Since: &mid})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := readAll(t, r3); strings.Join(got, " ") != strings.Join(want[1:], " ") {
		t.Fatalf("SINCE %d: %v", mid, got)
	}
	// FULL: the rows, then the changes.
	rf, err := db.openSubscription(ctx, "s", SubscriptionStart{Full: true})
	if err != nil {
		t.Fatal(err)
	}
	exec("INSERT INTO t VALUES (3, 'd')")
	if got, _ := readAll(t, rf); strings.Join(got, " ") != "1,c,Insert 3,d,Insert" {
		t.Fatalf("FULL: %v", got)
	}
	// A FETCH of n at a time: the same changes.
	r4, err := db.openSubscription(ctx, "s", SubscriptionStart{Since: &since})
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for {
		n, err := r4.read(ctx, 1, func(row []types.Datum) error {
			parts = append(parts, fmt.Sprintf("%v,%v,%v", row[0], row[1], row[2]))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	if strings.Join(parts, " ") != strings.Join(append(want, "3,d,Insert"), " ") {
		t.Fatalf("one at a time: %v", parts)
	}
	// The future is refused.
	future := db.store.CommittedEpoch() + 1000
	if _, err := db.openSubscription(ctx, "s", SubscriptionStart{Since: &future}); codeOf(err) != pgerr.InvalidParameterValue {
		t.Fatalf("SINCE the future: %v", err)
	}
	// A FETCH with a timeout waits for the first change.
	done := make(chan error, 1)
	go func() {
		time.Sleep(50 * time.Millisecond)
		_, err := db.Exec(ctx, "INSERT INTO t VALUES (4, 'e')")
		done <- err
	}()
	var waited []string
	if _, err := r.fetch(ctx, 10, 5*time.Second, func(row []types.Datum) error {
		waited = append(waited, fmt.Sprintf("%v,%v,%v", row[0], row[1], row[2]))
		return nil
	}); err != nil || len(waited) == 0 {
		t.Fatalf("fetch with timeout: %v %v", waited, err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	rf.close()

	// A restart keeps the log.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = open()
	r5, err := db.openSubscription(ctx, "s", SubscriptionStart{Since: &since})
	if err != nil {
		t.Fatal(err)
	}
	got, _ = readAll(t, r5)
	if len(got) != 6 || got[5] != "4,e,Insert" {
		t.Fatalf("after a restart: %v", got)
	}
	exec("INSERT INTO t VALUES (5, 'f')")
	if got, _ := readAll(t, r5); strings.Join(got, " ") != "5,f,Insert" {
		t.Fatalf("after a restart, new: %v", got)
	}

	// Two hours later the old epochs are gone.
	now.Add((2 * time.Hour).Microseconds())
	exec("INSERT INTO t VALUES (6, 'g')")
	if err := db.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	exec("INSERT INTO t VALUES (7, 'h')")
	if _, err := db.openSubscription(ctx, "s", SubscriptionStart{Since: &since}); codeOf(err) != pgerr.InvalidParameterValue {
		t.Fatalf("SINCE past retention: %v", err)
	}
	if _, err := r2.read(ctx, -1, func([]types.Datum) error { return nil }); err == nil {
		// r2 had read everything up to the INSERT of 3 only.
		t.Fatal("a reader behind the retention read on")
	}
	if got, _ := readAll(t, r5); strings.Join(got, " ") != "6,g,Insert 7,h,Insert" {
		t.Fatalf("a reader within retention: %v", got)
	}
	exec("DROP TABLE t CASCADE")
	if _, err := r5.read(ctx, -1, func([]types.Datum) error { return nil }); codeOf(err) != pgerr.UndefinedTable || !strings.Contains(err.Error(), "was dropped") {
		t.Fatalf("after the drop: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}
