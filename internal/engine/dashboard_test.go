package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/streamdb/streamdb/internal/dashboard"
)

// apiGet reads h's path as JSON into v.
func apiGet(t *testing.T, h http.Handler, path string, v any) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("%s: Content-Type %q", path, ct)
	}
	if err := json.Unmarshal(rec.Body.Bytes(), v); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, rec.Body)
	}
}

// queryRows runs q and returns its rows as printed values.
func dashQuery(t *testing.T, db *DB, q string) [][]string {
	t.Helper()
	rows, err := db.Query(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		var row []string
		for _, v := range rows.Text() {
			if v == nil {
				row = append(row, "NULL")
			} else {
				row = append(row, *v)
			}
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// dashExec runs each of qs on a new session.
func dashExec(t *testing.T, db *DB, qs ...string) {
	t.Helper()
	for _, q := range qs {
		if _, err := db.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// openDashboardDB opens a DB with a table of n rows and a view over it
// backfilling in the background at rate rows/s (0: no limit).
func openDashboardDB(t *testing.T, n, rate int) *DB {
	t.Helper()
	db, err := Open(t.TempDir(), &Options{NoSync: true, BarrierInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	dashExec(t, db,
		"CREATE TABLE t (id int PRIMARY KEY, k int, v int)",
		fmt.Sprintf("INSERT INTO t SELECT g, g %% 7, g FROM generate_series(1, %d) AS g", n))
	with := "" // rate 0: no limit (a limit of 0 would hold the backfill)
	if rate > 0 {
		with = fmt.Sprintf(" WITH (backfill_rate_limit = %d)", rate)
	}
	dashExec(t, db, "SET background_ddl = true; CREATE MATERIALIZED VIEW mv"+with+" AS SELECT k, count(*) AS n, sum(v) AS s FROM t GROUP BY k")
	return db
}

// waitJob polls api/jobs until cond holds for the job of view mv.
func waitJob(t *testing.T, h http.Handler, what string, cond func(j dashboard.Job) bool) dashboard.Job {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		var jobs []dashboard.Job
		apiGet(t, h, "/api/jobs", &jobs)
		for _, j := range jobs {
			if j.Name == "mv" && cond(j) {
				return j
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no job of mv %s: %+v", what, jobs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestDashboardJobs: api/jobs shows the creating view's SHOW JOBS row,
// its progress rising between 0 and 1, and SQL that the engine accepts
// and that steers the job.
func TestDashboardJobs(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, leaks) }) // after openDashboardDB's Close
	db := openDashboardDB(t, 30000, 2000)
	h := db.DashboardHandler()
	first := waitJob(t, h, "with progress", func(j dashboard.Job) bool { return j.Progress > 0 && j.Progress < 1 })
	show := dashQuery(t, db, "SHOW JOBS")
	if len(show) != 1 || show[0][0] != fmt.Sprint(first.Row["id"]) || show[0][1] != first.Row["statement"] {
		t.Fatalf("api/jobs %v, SHOW JOBS %v", first.Row, show)
	}
	if len(first.Columns) != len(show[0]) || first.Columns[0] != "id" {
		t.Fatalf("columns %v, SHOW JOBS has %d", first.Columns, len(show[0]))
	}
	if !strings.Contains(first.Row["statement"].(string), "CREATE MATERIALIZED VIEW mv") || first.Kind != "materialized view" {
		t.Fatalf("job %+v", first)
	}
	later := waitJob(t, h, "progressing", func(j dashboard.Job) bool { return j.Progress > first.Progress })
	if later.Progress >= 1 || later.Row["rows_read"].(float64) <= first.Row["rows_read"].(float64) {
		t.Fatalf("progress %v -> %v, rows_read %v -> %v", first.Progress, later.Progress, first.Row["rows_read"], later.Row["rows_read"])
	}
	if total := later.Row["rows_total"].(float64); later.Row["backfill_rate_limit"] != float64(2000) || total < 29000 || total > 31000 {
		t.Fatalf("row %v", later.Row)
	}
	sql := map[string]string{}
	for _, c := range later.SQL {
		sql[c.Label] = c.SQL
	}
	if sql["Pause"] != "ALTER MATERIALIZED VIEW mv PAUSE;" {
		t.Fatalf("commands %v", later.SQL)
	}
	dashExec(t, db, sql["Pause"])
	waitJob(t, h, "paused", func(j dashboard.Job) bool { return j.Row["paused"] == true })
	dashExec(t, db, sql["Resume"], sql["Adaptive rate"], sql["Rate limit (rows/s)"])
	waitJob(t, h, "resumed", func(j dashboard.Job) bool { return j.Row["paused"] == false && j.Row["latency_target"] == nil })
	dashExec(t, db, sql["No rate limit"], "WAIT")
	var jobs []dashboard.Job
	apiGet(t, h, "/api/jobs", &jobs)
	if len(jobs) != 0 {
		t.Fatalf("jobs after WAIT: %+v", jobs)
	}
	db.Close()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/jobs", nil))
	if rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("api/jobs after Close: %d", rec.Code)
	}
}

// TestDashboardGraph: api/graph lists a view's fragments and exchanges
// as streamdb_catalog.fragments and streamdb_catalog.actors do.
func TestDashboardGraph(t *testing.T) {
	db := openDashboardDB(t, 3000, 0)
	dashExec(t, db, "WAIT",
		"CREATE MATERIALIZED VIEW j AS SELECT a.k, count(*) AS n FROM t AS a JOIN mv AS b ON a.k = b.k GROUP BY a.k")
	h := db.DashboardHandler()
	var views []dashboard.View
	apiGet(t, h, "/api/views", &views)
	names := map[string]string{}
	for _, v := range views {
		names[v.Name] = v.Kind
	}
	if names["mv"] != "materialized view" || names["j"] != "materialized view" {
		t.Fatalf("views %+v", views)
	}
	for _, view := range []string{"mv", "j"} {
		var g dashboard.Graph
		apiGet(t, h, "/api/graph?view="+view, &g)
		var got [][]string
		var actors [][]string
		for _, f := range g.Fragments {
			var ins []string
			for _, e := range g.Exchanges {
				if e.To != f.ID {
					continue
				}
				from := fmt.Sprintf("fragment %d", e.From)
				if e.Upstream != "" {
					from = e.Upstream
				}
				ins = append(ins, from+" "+e.Key)
			}
			got = append(got, []string{fmt.Sprint(f.ID), f.Kind, fmt.Sprint(f.Parallelism),
				strings.Join(f.Operators, " <- "), strings.Join(ins, ", ")})
			for _, a := range f.Actors {
				actors = append(actors, []string{fmt.Sprint(f.ID), fmt.Sprint(a.ID), fmt.Sprint(a.VnodeCount), a.Vnodes})
			}
		}
		want := dashQuery(t, db, "SELECT fragment, kind, parallelism, operators, inputs FROM streamdb_catalog.fragments WHERE relation = '"+view+"' ORDER BY fragment")
		if fmt.Sprint(got) != fmt.Sprint(want) || len(got) == 0 {
			t.Errorf("%s: api/graph fragments\n%v\nstreamdb_catalog.fragments\n%v", view, got, want)
		}
		wantActors := dashQuery(t, db, "SELECT fragment, actor, vnode_count, vnodes FROM streamdb_catalog.actors WHERE relation = '"+view+"' ORDER BY fragment, actor")
		if fmt.Sprint(actors) != fmt.Sprint(wantActors) {
			t.Errorf("%s: api/graph actors\n%v\nstreamdb_catalog.actors\n%v", view, actors, wantActors)
		}
		if view == "j" && (len(g.Upstreams) != 2 || len(g.Exchanges) < 2) {
			t.Errorf("j: upstreams %v, exchanges %+v", g.Upstreams, g.Exchanges)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/graph?view=nope", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("api/graph?view=nope: %d", rec.Code)
	}
}

// TestDashboardHistory: the sampler takes a sample a second, with the
// writes and the fragments' rows of each interval, and stops at Close.
func TestDashboardHistory(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, leaks) }) // after openDashboardDB's Close
	db := openDashboardDB(t, 1000, 0)
	dashExec(t, db, "WAIT")
	h := db.DashboardHandler()
	deadline := time.Now().Add(15 * time.Second)
	var hist dashboard.HistoryReply
	for i := 0; ; i++ {
		dashExec(t, db, fmt.Sprintf("INSERT INTO t VALUES (%d, 1, 1)", 100000+i))
		apiGet(t, h, "/api/history", &hist)
		if n := len(hist.Samples); n >= 2 && hist.Samples[n-1].DMLRowsPerSecond > 0 && hist.Samples[n-1].FragmentRowsPerSecond > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("history %+v", hist)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if hist.IntervalMillis != 1000 {
		t.Errorf("interval %d", hist.IntervalMillis)
	}
	last := hist.Samples[len(hist.Samples)-1]
	if last.Barriers == 0 || last.BarrierMeanMillis == nil || last.BarrierP99Millis == nil || *last.BarrierP99Millis < *last.BarrierMeanMillis/2 {
		t.Errorf("barriers in the last sample: %+v", last)
	}
	if last.Committed == 0 || last.Epoch < last.Committed || last.JobLagEpochs != nil {
		t.Errorf("epochs in the last sample: %+v", last)
	}
	for i := 1; i < len(hist.Samples); i++ {
		if hist.Samples[i].T <= hist.Samples[i-1].T {
			t.Fatalf("samples out of order: %+v", hist.Samples)
		}
	}
	var since dashboard.HistoryReply
	apiGet(t, h, fmt.Sprintf("/api/history?since=%d", last.T), &since)
	for _, s := range since.Samples {
		if s.T <= last.T {
			t.Errorf("since=%d returned %d", last.T, s.T)
		}
	}
	// Graph rates come from the same sampler.
	var g dashboard.Graph
	apiGet(t, h, "/api/graph?view=mv", &g)
	if len(g.Fragments) == 0 || g.Fragments[0].RowsPerSecond == nil {
		t.Errorf("graph of mv without rates: %+v", g)
	}
}

// TestDashboardEvents: api/events lists streamdb_catalog.view_errors.
func TestDashboardEvents(t *testing.T) {
	db := openDashboardDB(t, 100, 0)
	dashExec(t, db, "WAIT",
		"CREATE MATERIALIZED VIEW e AS SELECT id, v / (k - k) AS x FROM t")
	var ev dashboard.Events
	apiGet(t, db.DashboardHandler(), "/api/events", &ev)
	want := dashQuery(t, db, "SELECT view, code, error, count FROM streamdb_catalog.view_errors")
	var got [][]string
	for _, e := range ev.ViewErrors {
		got = append(got, []string{e.View, e.Code, e.Error, fmt.Sprint(e.Count)})
	}
	if len(got) == 0 || fmt.Sprint(got) != fmt.Sprint(want) || ev.Recoveries == nil {
		t.Errorf("api/events %+v\nstreamdb_catalog.view_errors %v", ev, want)
	}
}
