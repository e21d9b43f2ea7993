package streamdb_test

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/streamdb/streamdb"
)

const streamRows = 200_000

func openBig(t *testing.T) (*streamdb.DB, context.Context) {
	t.Helper()
	db, err := streamdb.Open(filepath.Join(t.TempDir(), "db"), &streamdb.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE big (id int PRIMARY KEY, pad text)",
		"INSERT INTO big SELECT g, repeat('x', 200) || g FROM generate_series(1, 200000) AS g",
	} {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return db, ctx
}

// TestQueryStreaming checks over one 200,000-row table that a SELECT's
// rows stream (testQueryStreams) in bounded memory
// (testQueryMemoryBounded).
func TestQueryStreaming(t *testing.T) {
	db, ctx := openBig(t)
	t.Run("streams", func(t *testing.T) { testQueryStreams(t, db, ctx) })
	t.Run("memory", func(t *testing.T) { testQueryMemoryBounded(t, db, ctx) })
}

// testQueryStreams: a SELECT's rows reach the caller while the executor
// is still producing them. The query fails on one row of the table
// (division by zero): with the rows collected first, Query would fail;
// streamed, the rows before it arrive, then Err reports the failure.
func testQueryStreams(t *testing.T, db *streamdb.DB, ctx context.Context) {
	rows, err := db.Query(ctx, "SELECT id, 1 / (id - 150000) FROM big")
	if err != nil {
		t.Fatalf("Query failed before its first row: %v", err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id, q int
		if err := rows.Scan(&id, &q); err != nil {
			t.Fatal(err)
		}
		n++
	}
	var pe *streamdb.Error
	if !errors.As(rows.Err(), &pe) || pe.Code != "22012" {
		t.Fatalf("after %d rows: %v", n, rows.Err())
	}
	if n == 0 || n >= streamRows {
		t.Fatalf("%d rows before the failing one", n)
	}
	t.Logf("%d rows arrived before the executor reached the failing row", n)

	// Closing early lets go of the rest; the tag counts what was read.
	rows, err = db.Query(ctx, "SELECT id FROM big")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10 && rows.Next(); i++ {
	}
	rows.Close()
	if rows.Next() || rows.Err() != nil || rows.Tag != "SELECT 10" {
		t.Fatalf("after Close: tag %q err %v", rows.Tag, rows.Err())
	}
}

// testQueryMemoryBounded: reading a 200,000-row (40 MiB) result to the
// end with Next and Scan keeps the heap's growth far below what the
// same rows take collected in memory.
func testQueryMemoryBounded(t *testing.T, db *streamdb.DB, ctx context.Context) {
	defer debug.SetGCPercent(debug.SetGCPercent(5)) // little garbage slack: the peak is what is live
	read := func(keep bool) (peak uint64, kept [][]any) {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base := ms.HeapInuse
		rows, err := db.Query(ctx, "SELECT id, pad FROM big")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			var id int
			var pad string
			if err := rows.Scan(&id, &pad); err != nil {
				t.Fatal(err)
			}
			if keep {
				kept = append(kept, []any{id, pad})
			}
			if n++; n%2048 == 0 {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse-min(base, ms.HeapInuse))
			}
		}
		if rows.Err() != nil || n != streamRows {
			t.Fatalf("%d rows: %v", n, rows.Err())
		}
		return peak, kept
	}
	// The store's background work (a flush, a compaction) also takes
	// heap: the collecting read goes first, and the streaming one's
	// figure is the lower of two runs.
	collected, _ := read(true)
	streamed, _ := read(false)
	if again, _ := read(false); again < streamed {
		streamed = again
	}
	t.Logf("heap growth: streamed %d MiB, collected %d MiB", streamed>>20, collected>>20)
	if streamed*4 > collected {
		t.Fatalf("streaming grew the heap by %d bytes, collecting by %d", streamed, collected)
	}
}
