package write_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/streamdb/streamdb/internal/engine"
	"github.com/streamdb/streamdb/internal/engine/write"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// TestUpdateDeleteSpilled: an UPDATE and a DELETE of many rows stage their
// changes in temporary files (the staging limit is lowered so they
// spill), keep each update's pair together, leave the table and views
// equal to their queries, and remove the files. A failing UPDATE (a
// division by zero on a late row) changes nothing.
func TestUpdateDeleteSpilled(t *testing.T) {
	write.SetStagingLimits(t, 64<<10, 64<<10)
	t.Setenv("TMPDIR", t.TempDir())
	db := openCopyDB(t)
	ctx := context.Background()
	const n = 50000
	if _, err := db.CopyFrom(ctx, "COPY t FROM STDIN", genRows(0, n)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, "CREATE MATERIALIZED VIEW t_by AS SELECT id % 7 AS g, count(*) AS c, sum(v) AS s, max(s) AS m FROM t GROUP BY id % 7"); err != nil {
		t.Fatal(err)
	}
	check := func(what string) {
		t.Helper()
		want := queryText(t, db, "SELECT count(*), sum(v) FROM t")
		if got := viewRow(t, db); got != want {
			t.Fatalf("%s: t_sum %s, the table gives %s", what, got, want)
		}
		want = queryText(t, db, "SELECT id % 7, count(*), sum(v), max(s) FROM t GROUP BY id % 7 ORDER BY 1")
		if got := queryText(t, db, "SELECT g, c, s, m FROM t_by ORDER BY g"); got != want {
			t.Fatalf("%s: t_by %s, the query gives %s", what, got, want)
		}
	}
	check("after the load")
	res, err := db.Exec(ctx, "UPDATE t SET v = v + 1, s = s || '!' WHERE id % 3 <> 0")
	if err != nil || res.RowsAffected != n-n/3-1 {
		t.Fatalf("UPDATE: %+v, %v", res, err)
	}
	check("after UPDATE")
	if got := queryText(t, db, "SELECT v, s FROM t WHERE id = 4"); got != "9|padding-00000004!" {
		t.Fatalf("row 4 after UPDATE: %s", got)
	}
	// A late row fails: nothing of the statement is applied.
	_, err = db.Exec(ctx, "UPDATE t SET v = v / (id - 49990)")
	if code := pgerr.Code(err); code != pgerr.DivisionByZero {
		t.Fatalf("failing UPDATE: [%s] %v", code, err)
	}
	check("after a failed UPDATE")
	res, err = db.Exec(ctx, "DELETE FROM t WHERE id % 5 = 0")
	if err != nil || res.RowsAffected != n/5 {
		t.Fatalf("DELETE: %+v, %v", res, err)
	}
	check("after DELETE")
	if got := queryText(t, db, "SELECT count(*) FROM t"); got != fmt.Sprint(n-n/5) {
		t.Fatalf("t holds %s rows after DELETE, want %d", got, n-n/5)
	}
	if dirs := copyTempDirs(t); len(dirs) != 0 {
		t.Fatalf("staging directories left: %v", dirs)
	}
}

// queryText runs q and returns its rows as text, "|" between columns and
// "," between rows.
func queryText(t *testing.T, db *engine.DB, q string) string {
	t.Helper()
	rows, err := db.Query(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	out := ""
	for rows.Next() {
		if out != "" {
			out += ","
		}
		for i, v := range rows.Text() {
			if i > 0 {
				out += "|"
			}
			if v == nil {
				out += "NULL"
			} else {
				out += *v
			}
		}
	}
	return out
}
