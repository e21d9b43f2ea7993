package tests

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// copyRows is the size of the large COPY tests: STREAMDB_COPY_ROWS, or
// 200k rows (a few seconds; 20k under the race detector).
func copyRows(t *testing.T) int {
	if v := os.Getenv("STREAMDB_COPY_ROWS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("STREAMDB_COPY_ROWS=%q: %v", v, err)
		}
		return n
	}
	if raceEnabled {
		return 20_000
	}
	return 200_000
}

// heapPeak samples the heap in use until stop is called, which returns
// the peak.
func heapPeak() (stop func() uint64) {
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak
	}
}

// textRows generates text COPY data, one line at a time.
type textRows struct {
	i, n  int
	line  []byte
	bytes int64
}

func (r *textRows) Read(p []byte) (int, error) {
	k := 0
	for k < len(p) {
		if len(r.line) == 0 {
			if r.i >= r.n {
				break
			}
			r.line = fmt.Appendf(r.line[:0], "%d\t%d\tname-%d\t%d.25\n", r.i, r.i%1000, r.i, r.i%100)
			r.i++
		}
		c := copy(p[k:], r.line)
		r.line = r.line[c:]
		k += c
	}
	r.bytes += int64(k)
	if k == 0 {
		return 0, io.EOF
	}
	return k, nil
}

// TestCopyLarge loads a large COPY in text (pgconn) and binary (pgx's
// CopyFrom) and checks the views over the tables; it logs the rate and
// the peak heap.
func TestCopyLarge(t *testing.T) {
	n := copyRows(t)
	db := openMem(t)
	conn := pgxConnect(t, startServer(t, db), pgx.QueryExecModeCacheStatement)
	ctx := context.Background()
	for _, table := range []string{"big_text", "big_bin"} {
		pgxExec(t, conn, fmt.Sprintf("CREATE TABLE %s (id bigint PRIMARY KEY, k int, name text, amount numeric(10,2))", table))
		pgxExec(t, conn, fmt.Sprintf("CREATE MATERIALIZED VIEW %s_sum AS SELECT count(*) AS n, sum(k) AS k FROM %s", table, table))
	}
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)

	src := &textRows{n: n}
	stop := heapPeak()
	start := time.Now()
	tag, err := conn.PgConn().CopyFrom(ctx, src, "COPY big_text FROM STDIN")
	elapsed := time.Since(start)
	peak := stop()
	if err != nil || tag.RowsAffected() != int64(n) {
		t.Fatalf("text COPY: %v, %v", tag, err)
	}
	t.Logf("text COPY of %d rows (%.1f MB): %v, %.0f rows/s, peak heap in use %.1f MB (%.1f MB before)",
		n, float64(src.bytes)/(1<<20), elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds(),
		float64(peak)/(1<<20), float64(base.HeapInuse)/(1<<20))

	stop = heapPeak()
	start = time.Now()
	i := 0
	rows, err := conn.CopyFrom(ctx, pgx.Identifier{"big_bin"}, []string{"id", "k", "name", "amount"},
		pgx.CopyFromFunc(func() ([]any, error) {
			if i >= n {
				return nil, nil
			}
			i++
			return []any{int64(i - 1), int32((i - 1) % 1000), fmt.Sprintf("name-%d", i-1), fmt.Sprintf("%d.25", (i-1)%100)}, nil
		}))
	elapsed = time.Since(start)
	peak = stop()
	if err != nil || rows != int64(n) {
		t.Fatalf("binary COPY: %d, %v", rows, err)
	}
	t.Logf("binary COPY of %d rows: %v, %.0f rows/s, peak heap in use %.1f MB",
		n, elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds(), float64(peak)/(1<<20))

	sumK := 0
	for j := 0; j < n; j++ {
		sumK += j % 1000
	}
	want := fmt.Sprintf("[%d|%d]", n, sumK)
	for _, view := range []string{"big_text_sum", "big_bin_sum"} {
		if got := fmt.Sprint(queryRows(t, db, "SELECT * FROM "+view)); got != want {
			t.Errorf("%s = %s, want %s", view, got, want)
		}
	}
	// The same rows again: every one is a duplicate, and nothing loads.
	_, err = conn.PgConn().CopyFrom(ctx, &textRows{n: n}, "COPY big_text FROM STDIN")
	checkPgxCode(t, err, "23505")
	if got := fmt.Sprint(queryRows(t, db, "SELECT * FROM big_text_sum")); got != want {
		t.Errorf("after the failed COPY: %s, want %s", got, want)
	}
}
