package tests

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/failpoint"
)

// watermarkModel is what a table with WATERMARK FOR n AS n - lag keeps:
// a row is late when n is below the watermark of the statements before
// (or NULL), and each statement raises the watermark to the greatest
// n - lag of its rows that were on time.
type watermarkModel struct {
	wm    int64
	set   bool
	late  int64
	rows  []string // "id|n"
	count int64
	sum   int64
}

func (m *watermarkModel) insert(rows [][3]int64, nulls []bool) {
	var next int64
	moved := false
	for i, r := range rows {
		if nulls[i] || (m.set && r[1] < m.wm) {
			m.late++
			continue
		}
		m.rows = append(m.rows, fmt.Sprintf("%d|%d", r[0], r[1]))
		m.count++
		m.sum += r[1]
		if v := r[1] - r[2]; !moved || v > next {
			next, moved = v, true
		}
	}
	if moved && (!m.set || next > m.wm) {
		m.wm, m.set = next, true
	}
}

// TestWatermarkRandom checks a table's watermark filter against the model
// over random statements of on-time, late and NULL rows, through a view
// over the table, restarts, a rescale of the table and (with -tags
// invariants) recoveries: the rows kept, the watermark and the count of
// late rows survive all of them, and the watermark never goes back.
func TestWatermarkRandom(t *testing.T) {
	dir := t.TempDir()
	open := func() *streamdb.DB {
		db, err := streamdb.Open(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open()
	defer func() { db.Close() }()
	mustExec(t, db, "CREATE TABLE ev (id bigint, n bigint, lag bigint, WATERMARK FOR n AS n - lag) APPEND ONLY")
	mustExec(t, db, "CREATE MATERIALIZED VIEW ev_agg AS SELECT count(*) AS c, sum(n) AS s FROM ev")
	rng := rand.New(rand.NewSource(7))
	var m watermarkModel
	id, base := int64(0), int64(1000)
	retried := 0
	check := func(step int) {
		t.Helper()
		if got := queryRows(t, db, "SELECT id, n FROM ev"); !slices.Equal(got, sortedCopy(m.rows)) {
			t.Fatalf("step %d: table has %d rows, model %d", step, len(got), len(m.rows))
		}
		wantAgg := fmt.Sprintf("%d|%d", m.count, m.sum)
		if m.count == 0 {
			wantAgg = "0|NULL"
		}
		if got := queryRows(t, db, "SELECT c, s FROM ev_agg"); !slices.Equal(got, []string{wantAgg}) {
			t.Fatalf("step %d: view = %v, want %s", step, got, wantAgg)
		}
		wantWM := "NULL"
		if m.set {
			wantWM = strconv.FormatInt(m.wm, 10)
		}
		want := fmt.Sprintf("%s|%d", wantWM, m.late)
		if got := queryRows(t, db, "SELECT watermark, late_rows FROM streamdb_catalog.watermarks"); !slices.Equal(got, []string{want}) {
			t.Fatalf("step %d: watermark, late = %v, want %s", step, got, want)
		}
	}
	for step := 0; step < 60; step++ {
		switch {
		case step == 20 || step == 45:
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			db = open()
		case step == 30:
			mustExec(t, db, "ALTER TABLE ev SET PARALLELISM = 2")
		case step == 38 && failpoint.Enabled:
			// A failed barrier: the epoch, and any watermark it raised,
			// is not committed; the statement is refused and retried.
			if _, err := failpoint.Enable(failpoint.ExecMaterializeBarrier, failpoint.Spec{Action: failpoint.Error, Times: 1}); err != nil {
				t.Fatal(err)
			}
		}
		k := 1 + rng.Intn(6)
		rows := make([][3]int64, k)
		nulls := make([]bool, k)
		var vals []string
		for i := range rows {
			id++
			base += int64(rng.Intn(5))
			n := base - int64(rng.Intn(30)) // within the lag mostly, late sometimes
			rows[i] = [3]int64{id, n, int64(rng.Intn(20))}
			nulls[i] = rng.Intn(15) == 0
			nv := strconv.FormatInt(n, 10)
			if nulls[i] {
				nv = "NULL"
			}
			vals = append(vals, fmt.Sprintf("(%d, %s, %d)", id, nv, rows[i][2]))
		}
		stmt := "INSERT INTO ev VALUES " + strings.Join(vals, ", ")
		for attempt := 0; ; attempt++ {
			_, err := db.Exec(context.Background(), stmt)
			if err == nil {
				break
			}
			if attempt == 20 {
				t.Fatalf("step %d: %v", step, err)
			}
			retried++
		}
		m.insert(rows, nulls)
		check(step)
	}
	if failpoint.Enabled && retried == 0 {
		t.Error("the failed barrier refused no statement")
	}
	if m.late == 0 || m.count == 0 {
		t.Fatalf("the random rows were all late or none: %+v", m)
	}
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}
