package tests

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestUpsertConcurrent runs counter upserts from several sessions at
// once, with placeholders: each is atomic with the table's other writes
// (no increment is lost), and a view over the table follows them.
func TestUpsertConcurrent(t *testing.T) {
	db := openMem(t)
	mustExec(t, db, "CREATE TABLE hits (k int PRIMARY KEY, n bigint NOT NULL, last text)")
	mustExec(t, db, "CREATE MATERIALIZED VIEW hit_total AS SELECT count(*) AS keys, sum(n) AS total FROM hits")
	mustExec(t, db, "CREATE MATERIALIZED VIEW hit_by_last AS SELECT last, sum(n) AS n FROM hits GROUP BY last")
	const workers, each = 4, 60
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				_, err := db.Exec(context.Background(),
					"INSERT INTO hits VALUES ($1, 1, $2) ON CONFLICT (k) DO UPDATE SET n = hits.n + 1, last = excluded.last",
					i%7, fmt.Sprintf("w%d", w))
				if err != nil {
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
	if got := strings.Join(queryRows(t, db, "SELECT * FROM hit_total"), ","); got != fmt.Sprintf("7|%d", workers*each) {
		t.Errorf("hit_total = %s, want 7|%d", got, workers*each)
	}
	if got, want := queryRows(t, db, "SELECT * FROM hit_by_last"), queryRows(t, db, "SELECT last, sum(n) FROM hits GROUP BY last"); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("hit_by_last = %v, its query %v", got, want)
	}
	// UPDATE ... FROM and DELETE ... USING take placeholders too.
	mustExec(t, db, "CREATE TABLE bonus (k int, extra int)")
	mustExec(t, db, "INSERT INTO bonus VALUES (1, 100), (2, 200)")
	r := mustExec(t, db, "UPDATE hits SET n = hits.n + b.extra FROM bonus b WHERE hits.k = b.k AND b.extra > $1", 150)
	if r.RowsAffected != 1 {
		t.Errorf("UPDATE ... FROM changed %d rows, want 1", r.RowsAffected)
	}
	r = mustExec(t, db, "DELETE FROM hits USING bonus WHERE hits.k = bonus.k AND bonus.extra = $1", 100)
	if r.RowsAffected != 1 {
		t.Errorf("DELETE ... USING deleted %d rows, want 1", r.RowsAffected)
	}
	if got, want := queryRows(t, db, "SELECT * FROM hit_total"), queryRows(t, db, "SELECT count(*), sum(n) FROM hits"); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("hit_total = %v, its query %v", got, want)
	}
}

// TestUpsertBulkLoaded upserts over a table bulk-loaded into columnar
// blocks, with a view over it: the keys are read through the blocks, each
// existing row is updated (not inserted again) and the new ones added.
func TestUpsertBulkLoaded(t *testing.T) {
	db := openMem(t)
	mustExec(t, db, "CREATE TABLE b (id bigint PRIMARY KEY, g int NOT NULL, s text)")
	mustExec(t, db, "INSERT INTO b SELECT i, 1, 'x' || i FROM generate_series(1, 20000) i")
	mustExec(t, db, "CREATE MATERIALIZED VIEW b_by_g AS SELECT g, count(*) AS n FROM b GROUP BY g")
	r := mustExec(t, db, "INSERT INTO b SELECT i, 2, 'y' FROM generate_series(10001, 30000) i ON CONFLICT (id) DO UPDATE SET g = excluded.g + b.g WHERE b.id % 2 = 0")
	// 10000 new rows, and half of the 10000 existing ones updated.
	if r.RowsAffected != 15000 {
		t.Errorf("upsert affected %d rows, want 15000", r.RowsAffected)
	}
	want := []string{"1|15000", "2|10000", "3|5000"}
	if got := queryRows(t, db, "SELECT g, count(*) FROM b GROUP BY g"); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("b by g = %v, want %v", got, want)
	}
	if got := queryRows(t, db, "SELECT * FROM b_by_g"); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("b_by_g = %v, want %v", got, want)
	}
	r = mustExec(t, db, "INSERT INTO b SELECT i, 9, 'z' FROM generate_series(1, 30000) i ON CONFLICT DO NOTHING")
	if r.RowsAffected != 0 {
		t.Errorf("DO NOTHING over existing keys inserted %d rows", r.RowsAffected)
	}
}
