package tests

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// TestUniqueConcurrentWriters inserts and updates overlapping keys of a
// UNIQUE column from several sessions at once: every key ends up in one
// row, and exactly the statements that succeeded wrote.
func TestUniqueConcurrentWriters(t *testing.T) {
	db := openMem(t)
	mustExec(t, db, "CREATE TABLE u (id serial PRIMARY KEY, k int UNIQUE, w int)")
	const workers, keys = 6, 120
	var mu sync.Mutex
	inserted := map[int]int{}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			s := db.NewSession()
			defer s.Close()
			rng := rand.New(rand.NewSource(int64(w)))
			for _, k := range rng.Perm(keys) {
				_, err := s.Exec(context.Background(), fmt.Sprintf("INSERT INTO u (k, w) VALUES (%d, %d)", k, w))
				switch {
				case err == nil:
					mu.Lock()
					inserted[k]++
					mu.Unlock()
				case pgerr.Code(err) != pgerr.UniqueViolation:
					errs <- err
					return
				}
				// Moving a key onto another row's fails the same way.
				_, err = s.Exec(context.Background(), fmt.Sprintf("UPDATE u SET k = %d WHERE k = %d", rng.Intn(keys), keys+1000))
				if err != nil && pgerr.Code(err) != pgerr.UniqueViolation {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for k := 0; k < keys; k++ {
		if inserted[k] != 1 {
			t.Fatalf("key %d was inserted %d times", k, inserted[k])
		}
	}
	got := queryRows(t, db, "SELECT count(*), count(DISTINCT k), min(k), max(k) FROM u")
	if want := fmt.Sprintf("%d|%d|0|%d", keys, keys, keys-1); got[0] != want {
		t.Fatalf("table holds %s, want %s", got[0], want)
	}
}

// TestUniqueBulkLoads checks UNIQUE constraints on bulk INSERT ... SELECT
// and COPY: a duplicate anywhere in the load, or with a stored row,
// fails it whole.
func TestUniqueBulkLoads(t *testing.T) {
	db := openMem(t)
	ctx := context.Background()
	mustExec(t, db, "CREATE TABLE u (id bigserial PRIMARY KEY, k int UNIQUE)")
	mustExec(t, db, "INSERT INTO u (k) SELECT g FROM generate_series(1, 20000) g")
	for _, c := range []string{
		"INSERT INTO u (k) SELECT g FROM generate_series(20001, 30000) g UNION ALL SELECT 20500",
		"INSERT INTO u (k) SELECT g FROM generate_series(20001, 30000) g UNION ALL SELECT 7",
	} {
		if _, err := db.Exec(ctx, c); pgerr.Code(err) != pgerr.UniqueViolation {
			t.Fatalf("%s: got %v, want a unique violation", c, err)
		}
	}
	var in strings.Builder
	for k := 30001; k <= 35000; k++ {
		fmt.Fprintf(&in, "%d\n", k)
	}
	if _, err := db.CopyFrom(ctx, "COPY u (k) FROM STDIN", strings.NewReader(in.String()+"30002\n")); pgerr.Code(err) != pgerr.UniqueViolation {
		t.Fatalf("COPY with a repeated key: %v", err)
	}
	if _, err := db.CopyFrom(ctx, "COPY u (k) FROM STDIN", strings.NewReader(in.String()+"15\n")); pgerr.Code(err) != pgerr.UniqueViolation {
		t.Fatalf("COPY of a stored key: %v", err)
	}
	if _, err := db.CopyFrom(ctx, "COPY u (k) FROM STDIN", strings.NewReader(in.String()+"\\N\n\\N\n")); err != nil {
		t.Fatal(err)
	}
	got := queryRows(t, db, "SELECT count(*), count(DISTINCT k), count(DISTINCT id) FROM u")
	if got[0] != "25002|25000|25002" {
		t.Fatalf("table holds %s", got[0])
	}
}

// TestCreateUniqueIndexUnderWrites builds a unique index while sessions
// insert: writes wait for it rather than fail, the index is built, and
// from then on the sessions' duplicates fail with 23505 and no duplicate
// is stored.
func TestCreateUniqueIndexUnderWrites(t *testing.T) {
	db := openMem(t)
	ctx := context.Background()
	mustExec(t, db, "CREATE TABLE u (id bigserial PRIMARY KEY, k int)")
	mustExec(t, db, "INSERT INTO u (k) SELECT g FROM generate_series(1, 5000) g")
	var next atomic.Int64
	next.Store(5001)
	var created atomic.Bool
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	var dupsRefused atomic.Int64
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			s := db.NewSession()
			defer s.Close()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				k := next.Add(1)
				dup := created.Load() && i%3 == 0
				if dup {
					k = int64(1 + i%5000)
				}
				_, err := s.Exec(ctx, fmt.Sprintf("INSERT INTO u (k) VALUES (%d)", k))
				switch {
				case dup && pgerr.Code(err) == pgerr.UniqueViolation:
					dupsRefused.Add(1)
				case err != nil:
					errs <- fmt.Errorf("insert %d (duplicate %v): %w", k, dup, err)
					return
				}
			}
		}(w)
	}
	time.Sleep(50 * time.Millisecond)
	if _, err := db.Exec(ctx, "CREATE UNIQUE INDEX u_k ON u (k)"); err != nil {
		close(stop)
		wg.Wait()
		t.Fatal(err)
	}
	created.Store(true)
	time.Sleep(200 * time.Millisecond)
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if dupsRefused.Load() == 0 {
		t.Fatal("no duplicate was attempted after the index was created")
	}
	got := queryRows(t, db, "SELECT count(*) - count(DISTINCT k) FROM u")
	if got[0] != "0" {
		t.Fatalf("%s duplicate keys stored", got[0])
	}
}
