package tests

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// TestDifferentialCreateUnderWrites: views are created (each backfills on
// its own barriers, then joins the live graph) while a writer keeps
// applying random INSERT, UPDATE and DELETE statements to their tables at
// a steady rate; some backfills are rate-limited (above the write rate,
// or they would never catch up) or adaptive, so each join happens with
// writes in flight. Once the writer stops, every view equals its query
// (I3, I8).
func TestDifferentialCreateUnderWrites(t *testing.T) {
	seed := int64(7)
	if s := os.Getenv("STREAMDB_DIFF_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	db := openMem(t)
	mustExec(t, db, "CREATE TABLE a (id int PRIMARY KEY, k int, v bigint)")
	mustExec(t, db, "CREATE TABLE b (id int PRIMARY KEY, k int, w int)")
	rng := rand.New(rand.NewSource(seed))
	for i := 0; i < 40; i++ {
		applyRandomDML(t, db, rng)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var writes int
	var werr error
	wg.Add(1)
	go func() { // joined below
		defer wg.Done()
		wrng := rand.New(rand.NewSource(seed + 1))
		tick := time.NewTicker(3 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			stmt := randomDML(wrng)
			if _, err := db.Exec(context.Background(), stmt); err != nil && pgerr.Code(err) != pgerr.UniqueViolation {
				werr = fmt.Errorf("%s: %w", stmt, err)
				return
			}
			writes++
		}
	}()
	limits := []string{"", "WITH (backfill_rate_limit = 5000) ", "WITH (backfill_rate_limit = 'adaptive') "}
	for i, v := range diffViews {
		if _, err := db.Exec(context.Background(), fmt.Sprintf("CREATE MATERIALIZED VIEW %s %sAS %s", v.name, limits[i%len(limits)], v.query)); err != nil {
			close(stop)
			wg.Wait()
			t.Fatalf("creating %s under writes: %v", v.name, err)
		}
	}
	time.Sleep(50 * time.Millisecond)
	close(stop)
	wg.Wait()
	if werr != nil {
		t.Fatalf("writer: %v", werr)
	}
	mustExec(t, db, "FLUSH")
	checkViews(t, db, fmt.Sprintf("after %d writes during the creations (seed %d)", writes, seed))
	if writes < 50 {
		t.Fatalf("only %d writes ran during the creations", writes)
	}
}
