package tests

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/failpoint"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// bulkRows is enough rows for a statement to be ingested as sstables
// rather than written through the epoch's batch (ingestMinRows).
const bulkRows = 20000

// bulkCopyText is COPY text of rows (g, g % 7, g) for g in [from, to].
func bulkCopyText(from, to int) string {
	var b strings.Builder
	for g := from; g <= to; g++ {
		fmt.Fprintf(&b, "%d\t%d\t%d\n", g, g%7, g)
	}
	return b.String()
}

// checkBulkViews checks that the views over t equal their queries and
// that t holds n rows.
func checkBulkViews(t *testing.T, db *streamdb.DB, n int) {
	t.Helper()
	if got := queryRows(t, db, "SELECT count(*) FROM t"); strings.Join(got, "") != fmt.Sprint(n) {
		t.Fatalf("t holds %v rows, want %d", got, n)
	}
	for view, q := range map[string]string{
		"agg": "SELECT k, count(*) AS n, sum(v) AS s FROM t GROUP BY k",
		"odd": "SELECT id, v FROM t WHERE id % 2 = 1",
	} {
		got, want := queryRows(t, db, "SELECT * FROM "+view), queryRows(t, db, q)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("view %s (%d rows) differs from its query (%d rows)", view, len(got), len(want))
		}
	}
}

func createBulkTable(t *testing.T, db *streamdb.DB, with string) {
	t.Helper()
	mustExec(t, db, "CREATE TABLE t (id bigint PRIMARY KEY, k int, v bigint)"+with)
	mustExec(t, db, "CREATE MATERIALIZED VIEW agg AS SELECT k, count(*) AS n, sum(v) AS s FROM t GROUP BY k")
	mustExec(t, db, "CREATE MATERIALIZED VIEW odd AS SELECT id, v FROM t WHERE id % 2 = 1")
}

// TestBulkIngest: large INSERTs and COPYs (written as sstables and
// ingested with their epoch) reach the table and every view over it,
// fail whole on a duplicate key (within the statement or against the
// table) with PostgreSQL's error, survive a reopen, and later DML on the
// ingested rows works; also on a table of parallelism 2, whose actors
// write the rows themselves.
func TestBulkIngest(t *testing.T) {
	for _, with := range []string{"", " WITH (streaming_parallelism = 2)"} {
		t.Run("with="+strings.TrimSpace(with), func(t *testing.T) {
			dir := t.TempDir()
			db, err := streamdb.Open(filepath.Join(dir, "db"), &streamdb.Options{NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if failpoint.Enabled {
				// Count ingests: the point never fires.
				off, err := failpoint.Enable(failpoint.StorageIngest, failpoint.Spec{Action: failpoint.Error, After: 1 << 40})
				if err != nil {
					t.Fatal(err)
				}
				defer off()
			}
			createBulkTable(t, db, with)
			mustExec(t, db, fmt.Sprintf("INSERT INTO t SELECT g, g %% 7, g FROM generate_series(1, %d) AS g", bulkRows))
			checkBulkViews(t, db, bulkRows)
			if _, err := db.CopyFrom(ctx, "COPY t FROM STDIN", strings.NewReader(bulkCopyText(bulkRows+1, 2*bulkRows))); err != nil {
				t.Fatal(err)
			}
			checkBulkViews(t, db, 2*bulkRows)
			if hits, _ := failpoint.Stats(failpoint.StorageIngest); failpoint.Enabled && hits != map[bool]int64{true: 2, false: 0}[with == ""] {
				t.Fatalf("%d ingests for the large INSERT and COPY", hits)
			}

			// Duplicates: against the table, within the statement.
			fails := []struct{ q, detail string }{
				{fmt.Sprintf("INSERT INTO t SELECT g + %d, 1, 1 FROM generate_series(1, %d) AS g", 2*bulkRows-5, bulkRows), fmt.Sprintf("(id)=(%d)", 2*bulkRows-4)},
				{fmt.Sprintf("INSERT INTO t SELECT %d + g %% %d, 1, 1 FROM generate_series(1, %d) AS g", 3*bulkRows, bulkRows-1, bulkRows), fmt.Sprintf("(id)=(%d)", 3*bulkRows+1)},
			}
			for _, f := range fails {
				_, err := db.Exec(ctx, f.q)
				if e := pgerr.As(err); err == nil || e.Code != pgerr.UniqueViolation || !strings.Contains(e.Detail, f.detail) {
					t.Fatalf("%s: %v, want a unique violation on %s", f.q, err, f.detail)
				}
			}
			_, err = db.CopyFrom(ctx, "COPY t FROM STDIN", strings.NewReader(bulkCopyText(3*bulkRows, 4*bulkRows)+"5\t1\t1\n"))
			if e := pgerr.As(err); err == nil || e.Code != pgerr.UniqueViolation || !strings.Contains(e.Detail, "(id)=(5)") {
				t.Fatalf("COPY with an existing key: %v", err)
			}
			checkBulkViews(t, db, 2*bulkRows)

			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			if db, err = streamdb.Open(filepath.Join(dir, "db"), &streamdb.Options{NoSync: true}); err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			checkBulkViews(t, db, 2*bulkRows)
			mustExec(t, db, "UPDATE t SET v = v + 1 WHERE id % 3 = 0")
			mustExec(t, db, "DELETE FROM t WHERE id % 5 = 0")
			checkBulkViews(t, db, 2*bulkRows-2*bulkRows/5)
			if left, _ := os.ReadDir(filepath.Join(dir, "db", "ingest")); len(left) != 0 {
				t.Fatalf("staged ingest files left: %d", len(left))
			}
		})
	}
}

// TestKill9DuringIngest: the server dies (failpoint storage/ingest,
// exit) after the epoch of a large INSERT committed and before its
// sstables were ingested. The restart redoes the ingest: the table holds
// the rows and its view equals its query.
func TestKill9DuringIngest(t *testing.T) {
	if !failpoint.Enabled {
		t.Skip("failpoints need -tags invariants")
	}
	dir := t.TempDir()
	p := startProcOpts(t, dir, []string{"STREAMDB_FAILPOINTS=storage/ingest=exit"}, os.Stderr)
	c := p.connect(t)
	execAll(t, c, "CREATE TABLE t (id bigint PRIMARY KEY, k int, v bigint)",
		"INSERT INTO t VALUES (0, 0, 0)",
		"CREATE MATERIALIZED VIEW agg AS SELECT k, count(*) AS n, sum(v) AS s FROM t GROUP BY k")
	q := fmt.Sprintf("INSERT INTO t SELECT g, g %% 7, g FROM generate_series(1, %d) AS g", bulkRows)
	if _, err := c.Exec(context.Background(), q); err == nil {
		t.Fatal("INSERT succeeded: the failpoint did not stop the server")
	}
	if err := p.cmd.Wait(); err == nil {
		t.Fatal("the server exited cleanly")
	}

	p = startProc(t, dir)
	c = p.connect(t)
	defer c.Close(context.Background())
	var n int64
	if err := c.QueryRow(context.Background(), "SELECT count(*) FROM t").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != bulkRows+1 {
		t.Fatalf("after the restart t holds %d rows, want %d (the epoch committed)", n, bulkRows+1)
	}
	checkAggView(t, c)
	execAll(t, c, "DELETE FROM t WHERE id % 2 = 0", "INSERT INTO t VALUES (-1, 1, 1)")
	checkAggView(t, c)
}

// TestBulkIngestRowID: large loads into a table without a primary key
// (generated row ids, no key checks) are ingested too, and reach a view.
func TestBulkIngestRowID(t *testing.T) {
	db := openMem(t)
	ctx := context.Background()
	mustExec(t, db, "CREATE TABLE t (id bigint, k int, v bigint)")
	mustExec(t, db, "CREATE MATERIALIZED VIEW agg AS SELECT k, count(*) AS n, sum(v) AS s FROM t GROUP BY k")
	mustExec(t, db, fmt.Sprintf("INSERT INTO t SELECT g, g %% 7, g FROM generate_series(1, %d) AS g", bulkRows))
	if _, err := db.CopyFrom(ctx, "COPY t FROM STDIN", strings.NewReader(bulkCopyText(1, bulkRows))); err != nil {
		t.Fatal(err)
	}
	want := queryRows(t, db, "SELECT k, count(*) AS n, sum(v) AS s FROM t GROUP BY k")
	if got := queryRows(t, db, "SELECT * FROM agg"); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("view agg: %v, want %v", got, want)
	}
	if got := queryRows(t, db, "SELECT count(*), count(DISTINCT id) FROM t"); strings.Join(got, "") != fmt.Sprintf("%d|%d", 2*bulkRows, bulkRows) {
		t.Fatalf("t: %v", got)
	}
}
