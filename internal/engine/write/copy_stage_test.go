package write_test

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/engine"
	"github.com/streamdb/streamdb/internal/engine/write"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// genReader generates the text COPY data of rows "i\ti*2\tpad" for i in
// [from, to), holding no more than one line: a COPY of it streams.
type genReader struct {
	i, to int
	line  func(i int) string
	buf   []byte
	first func() // if set, called at the first Read
}

func (g *genReader) Read(p []byte) (int, error) {
	if g.first != nil {
		g.first()
		g.first = nil
	}
	n := 0
	for n < len(p) {
		if len(g.buf) == 0 {
			if g.i >= g.to {
				break
			}
			g.buf = []byte(g.line(g.i))
			g.i++
		}
		k := copy(p[n:], g.buf)
		g.buf = g.buf[k:]
		n += k
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

func genRows(from, to int) *genReader {
	return &genReader{i: from, to: to, line: func(i int) string {
		return fmt.Sprintf("%d\t%d\tpadding-%08d\n", i, i*2, i)
	}}
}

func openCopyDB(t *testing.T) *engine.DB {
	t.Helper()
	return openCopyDBAt(t, ":memory:")
}

// openCopyDBAt opens a database in dir with table t and view t_sum.
func openCopyDBAt(t *testing.T, dir string) *engine.DB {
	t.Helper()
	db, err := engine.Open(dir, &engine.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	for _, q := range []string{"CREATE TABLE t (id int PRIMARY KEY, v bigint, s text)",
		"CREATE MATERIALIZED VIEW t_sum AS SELECT count(*) AS n, sum(v) AS total FROM t"} {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

func viewRow(t *testing.T, db *engine.DB) string {
	t.Helper()
	rows, err := db.Query(context.Background(), "SELECT n, total FROM t_sum")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		for _, v := range rows.Text() {
			if v == nil {
				out = append(out, "NULL")
			} else {
				out = append(out, *v)
			}
		}
	}
	return strings.Join(out, "|")
}

func copyTempDirs(t *testing.T) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(os.TempDir(), "streamdb-copy-*"))
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// TestCopySpilled loads a COPY whose rows and keys spill to disk: many
// key runs merge, duplicates across runs are found, and the files go;
// ingested by one goroutine, and by three over ranges of vnodes (where
// the first bad line of all ranges is reported).
func TestCopySpilled(t *testing.T) {
	for _, parts := range []int{1, 3} {
		t.Run(fmt.Sprintf("parts=%d", parts), func(t *testing.T) {
			write.SetIngestParts(t, 1000, parts, 1)
			used := 0
			write.SetIngestPartsHook(t, func(n int) { used = max(used, n) })
			testCopySpilled(t)
			if used != parts {
				t.Fatalf("bulk ingests used up to %d ranges, want %d", used, parts)
			}
		})
	}
}

func testCopySpilled(t *testing.T) {
	write.SetStagingLimits(t, 64<<10, 64<<10)
	// A temporary directory of its own: other test processes (go test
	// runs packages in parallel) stage COPYs in the shared one.
	t.Setenv("TMPDIR", t.TempDir())
	db := openCopyDB(t)
	ctx := context.Background()
	before := len(copyTempDirs(t))
	if before != 0 {
		t.Fatalf("%d staging directories in a new TMPDIR", before)
	}
	const n = 60000
	res, err := db.CopyFrom(ctx, "COPY t FROM STDIN", genRows(0, n))
	if err != nil || res.RowsAffected != n {
		t.Fatalf("COPY: %+v, %v", res, err)
	}
	if got, want := viewRow(t, db), fmt.Sprintf("%d|%d", n, n*(n-1)); got != want {
		t.Fatalf("view %s, want %s", got, want)
	}
	// A duplicate far from its first occurrence, in another run, and a
	// later line that repeats a committed key: the earlier line is
	// reported.
	data := io.MultiReader(genRows(n, 2*n), strings.NewReader(fmt.Sprintf("%d\t0\tdup\n", n+5)),
		genRows(2*n, 2*n+100), strings.NewReader("7\t0\texisting\n"))
	_, err = db.CopyFrom(ctx, "COPY t FROM STDIN", data)
	pe := pgerr.As(err)
	if pe.Code != pgerr.UniqueViolation || pe.Where != fmt.Sprintf("COPY t, line %d", n+1) ||
		pe.Detail != fmt.Sprintf("Key (id)=(%d) already exists.", n+5) {
		t.Fatalf("duplicate: %v (%s; %s)", err, pe.Detail, pe.Where)
	}
	data = io.MultiReader(genRows(n, 2*n), strings.NewReader("7\t0\texisting\n"))
	_, err = db.CopyFrom(ctx, "COPY t FROM STDIN", data)
	if pe := pgerr.As(err); pe.Where != fmt.Sprintf("COPY t, line %d", n+1) || pe.Detail != "Key (id)=(7) already exists." {
		t.Fatalf("existing key: %v (%s; %s)", err, pe.Detail, pe.Where)
	}
	if got, want := viewRow(t, db), fmt.Sprintf("%d|%d", n, n*(n-1)); got != want {
		t.Fatalf("view after failed COPYs %s, want %s", got, want)
	}
	if after := len(copyTempDirs(t)); after != before {
		t.Fatalf("%d temporary directories left, had %d", after, before)
	}
}

// TestCopyStagingBounded: the memory a COPY holds while it stages does
// not grow with the size of the COPY. The live heap is measured when the
// COPY starts reading and when its rows are staged and checked (before
// they are sent and committed, which grows the table); it must stay well
// below what the staged rows take (about 76 bytes a row of keys and
// chunks). Each COPY runs on a fresh database, on disk, so that no flush
// of earlier data runs meanwhile (and an in-memory store's files, which
// live on the heap, do not count). Under the race detector the COPYs are
// too small for the check, which only logs.
func TestCopyStagingBounded(t *testing.T) {
	limit, n := 64<<10, 150000 // 2n rows: about 8.6 MB of text, 23 MB staged
	if raceEnabled {
		limit, n = 16<<10, 20000
	}
	write.SetStagingLimits(t, limit, limit)
	// live is the live heap; the least of a few readings, as background
	// work allocates meanwhile.
	live := func() int64 {
		least := int64(math.MaxInt64)
		for range 3 {
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			least = min(least, int64(ms.HeapAlloc))
		}
		return least
	}
	staging := func(rows int) int64 {
		db := openCopyDBAt(t, t.TempDir())
		var start, end int64
		write.SetBeforeSend(t, func(*os.File) { end = live() })
		gen := genRows(0, rows)
		gen.first = func() { start = live() }
		res, err := db.CopyFrom(context.Background(), "COPY t FROM STDIN", gen)
		if err != nil || res.RowsAffected != int64(rows) {
			t.Fatalf("COPY: %+v, %v", res, err)
		}
		return end - start
	}
	staging(n) // warm up
	one, two := staging(n), staging(2*n)
	t.Logf("staging held %.2f MB for %d rows, %.2f MB for %d rows", float64(one)/(1<<20), n, float64(two)/(1<<20), 2*n)
	if bound := int64(2*n*76) / 3; !raceEnabled && max(one, two) > bound {
		t.Fatalf("staging held %d bytes for %d rows and %d for %d; want it under %d, bounded by the staging limits", one, n, two, 2*n, bound)
	}
}

// TestCopyAbortMidSend: a COPY that fails after sending part of its rows
// (here: its staged rows file is cut short) aborts the epoch; nothing of
// it commits and the database recovers.
func TestCopyAbortMidSend(t *testing.T) {
	write.SetStagingLimits(t, 0, 1<<20)
	db := openCopyDB(t)
	ctx := context.Background()
	if _, err := db.CopyFrom(ctx, "COPY t FROM STDIN", genRows(0, 10)); err != nil {
		t.Fatal(err)
	}
	truncate := func(f *os.File) {
		fi, err := f.Stat()
		if err != nil {
			t.Error(err)
			return
		}
		if err := f.Truncate(fi.Size() / 2); err != nil {
			t.Error(err)
		}
	}
	write.SetBeforeSend(t, truncate)
	_, err := db.CopyFrom(ctx, "COPY t FROM STDIN", genRows(100, 60100))
	if err == nil {
		t.Fatal("COPY of a truncated spill: no error")
	}
	write.SetBeforeSend(t, func(*os.File) {})
	if got := viewRow(t, db); got != "10|90" {
		t.Fatalf("view after the aborted COPY: %s", got)
	}
	// The graph was rebuilt: writes work again.
	var res engine.Result
	for i := 0; i < 50; i++ {
		res, err = db.CopyFrom(ctx, "COPY t FROM STDIN", genRows(10, 20))
		if pgerr.Code(err) != pgerr.SerializationFailure {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil || res.RowsAffected != 10 {
		t.Fatalf("COPY after the abort: %+v, %v", res, err)
	}
	if got := viewRow(t, db); got != "20|380" {
		t.Fatalf("view: %s", got)
	}
}
