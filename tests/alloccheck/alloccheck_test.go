// Package alloccheck runs a database whose every chunk buffer comes from
// a memory.CheckedAllocator (chunk.SetAllocator) and checks that each is
// freed exactly once: none left once the database is closed (a chunk an
// executor forgot to release), none freed twice (the count would end
// below zero; with the scan's recycling pool, which the check replaces,
// a buffer freed twice would be handed to two chunks). It is a package
// of its own because the allocator is the process's: no other test may
// build chunks beside it.
package alloccheck

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/chunk"
)

// views covers the executors a view's graph is made of: filters and
// projections (vectorized and not), grouped and global aggregates,
// joins (inner, outer, on a non-key), Top-N, window functions, set
// operations, DISTINCT, HOP windows (Expand), decorrelated subqueries,
// unnest.
var views = []string{
	"SELECT id, k * 2 + 1 AS k2, upper(s) AS s FROM a WHERE v > 10 AND s LIKE 'x%'",
	"SELECT k, count(*) AS n, sum(v) AS total, min(s) AS lo, max(ts) AS hi, avg(d) AS av FROM a GROUP BY k",
	"SELECT count(*) AS n, sum(d) AS total FROM a",
	"SELECT a.id, a.v, b.w FROM a JOIN b ON a.id = b.id",
	"SELECT a.k, b.w, a.s FROM a LEFT JOIN b ON a.k = b.k",
	"SELECT id, v FROM a ORDER BY v DESC, id LIMIT 5",
	"SELECT id, k, row_number() OVER (PARTITION BY k ORDER BY v, id) AS rn, sum(v) OVER (PARTITION BY k) AS kt FROM a",
	"SELECT k FROM a UNION ALL SELECT k FROM b",
	"SELECT k, s FROM a EXCEPT SELECT k, x FROM b",
	"SELECT DISTINCT k, length(s) AS l FROM a",
	"SELECT window_start, count(*) AS n FROM hop(a, ts, INTERVAL '1 hour', INTERVAL '2 hours') GROUP BY window_start",
	"SELECT id, v FROM a WHERE v > (SELECT avg(w) FROM b)",
	"SELECT id, e FROM a, unnest(ARRAY[k, v]) AS e",
}

func TestChunksReleasedOnce(t *testing.T) {
	mem := newTracked()
	restore := chunk.SetAllocator(mem)
	defer restore()

	ctx := context.Background()
	db, err := streamdb.Open(t.TempDir(), &streamdb.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rows := func(q string) []string {
		t.Helper()
		rs, err := db.Query(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rs.Close()
		var out []string
		for rs.Next() {
			var parts []string
			for _, v := range rs.Text() {
				if v == nil {
					parts = append(parts, "NULL")
				} else {
					parts = append(parts, *v)
				}
			}
			out = append(out, strings.Join(parts, "|"))
		}
		if err := rs.Err(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return out
	}
	exec("CREATE TABLE a (id bigint PRIMARY KEY, k int, v bigint, s text, d numeric, ts timestamp)")
	exec("CREATE TABLE b (id bigint PRIMARY KEY, k int, w bigint, x text)")
	// Rows before the views: their backfills read snapshots (the scan's
	// chunks), some of them as one bulk load.
	exec(`INSERT INTO a SELECT g, g % 17, g * 7 % 1000, 'x' || (g % 29), g / 3.0,
		TIMESTAMP '2026-01-01' + g * INTERVAL '1 minute' FROM generate_series(1, 6000) AS g`)
	exec("INSERT INTO b SELECT g, g % 13, g % 500, 'x' || (g % 31) FROM generate_series(1, 4000, 3) AS g")
	for i, v := range views {
		exec(fmt.Sprintf("CREATE MATERIALIZED VIEW v%d AS %s", i, v))
	}
	r := rand.New(rand.NewPCG(7, 22))
	next := 10000
	for range writes {
		id := r.IntN(8000)
		switch r.IntN(5) {
		case 0, 1:
			next++
			exec("INSERT INTO a VALUES ($1, $2, $3, $4, $5, TIMESTAMP '2026-01-01' + $6 * INTERVAL '1 minute')",
				next, r.IntN(17), r.IntN(1000), fmt.Sprintf("x%d", r.IntN(29)), float64(r.IntN(100))/4, r.IntN(50000))
		case 2:
			exec("UPDATE a SET v = v + 1, s = s || 'y' WHERE k = $1 AND id < $2", r.IntN(17), id)
		case 3:
			exec("DELETE FROM a WHERE id BETWEEN $1 AND $1 + 50", id)
		case 4:
			exec("UPDATE b SET w = w + 3 WHERE id % 97 = $1", r.IntN(97))
		}
	}
	// Batch queries: scans, filters, joins, aggregates, sorts.
	for i, v := range views {
		got, want := rows(fmt.Sprintf("SELECT * FROM v%d", i)), rows(v)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("view %d (%s): %d rows, its query %d; they differ", i, v, len(got), len(want))
		}
	}
	rows("SELECT k, count(*) FROM a JOIN b USING (k) GROUP BY k ORDER BY 2 DESC LIMIT 3")
	for i := range views {
		exec(fmt.Sprintf("DROP MATERIALIZED VIEW v%d", i))
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := mem.check(); err != nil {
		t.Fatal(err)
	}
}

// tracked is a memory.Allocator that knows every buffer it handed out
// and not yet got back: memory.CheckedAllocator's check without its
// stack trace per buffer (which made the test minutes long under the
// race detector). To see where a leaked buffer was made, replace it by
// memory.NewCheckedAllocator and call its AssertSize.
type tracked struct {
	mem memory.Allocator

	mu     sync.Mutex
	live   map[*byte]int // first byte -> size
	allocs int           // buffers handed out
	bad    int           // frees of buffers not live: freed twice (or never ours)
}

func newTracked() *tracked {
	return &tracked{mem: memory.NewGoAllocator(), live: map[*byte]int{}}
}

func (a *tracked) Allocate(size int) []byte {
	b := a.mem.Allocate(size)
	if size > 0 {
		a.mu.Lock()
		a.live[unsafe.SliceData(b)] = size
		a.allocs++
		a.mu.Unlock()
	}
	return b
}

func (a *tracked) Reallocate(size int, b []byte) []byte {
	nb := a.Allocate(size)
	copy(nb, b)
	a.Free(b)
	return nb
}

func (a *tracked) Free(b []byte) {
	if len(b) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	p := unsafe.SliceData(b)
	if _, ok := a.live[p]; !ok {
		a.bad++
		return
	}
	delete(a.live, p)
}

// check reports buffers never freed or freed twice, and a test that
// made too few buffers to prove anything.
func (a *tracked) check() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	bytes := 0
	for _, n := range a.live {
		bytes += n
	}
	switch {
	case len(a.live) > 0 || a.bad > 0:
		return fmt.Errorf("%d buffers (%d bytes) never freed, %d frees of buffers not live (of %d allocated)", len(a.live), bytes, a.bad, a.allocs)
	case a.allocs < 1000:
		return fmt.Errorf("only %d buffers allocated through the tracked allocator: the chunks did not come from it", a.allocs)
	}
	return nil
}

// TestTracked proves the check itself: a buffer kept and one freed twice
// are both reported.
func TestTracked(t *testing.T) {
	a := newTracked()
	var kept [][]byte
	for range 1000 {
		b := a.Allocate(64)
		a.Free(b)
	}
	kept = append(kept, a.Allocate(128))
	if err := a.check(); err == nil || !strings.Contains(err.Error(), "1 buffers (128 bytes) never freed") {
		t.Fatalf("a kept buffer: %v", err)
	}
	a.Free(kept[0])
	if err := a.check(); err != nil {
		t.Fatalf("all freed: %v", err)
	}
	a.Free(kept[0])
	if err := a.check(); err == nil || !strings.Contains(err.Error(), "1 frees of buffers not live") {
		t.Fatalf("a buffer freed twice: %v", err)
	}
}
