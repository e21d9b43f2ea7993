package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/streamdb/streamdb"
)

// chromium returns the path of a headless-capable Chromium, skipping the
// test when there is none (failing under CI, which installs it).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed (.ci/run installs it)")
	}
	t.Skip("chromium is not installed")
	return ""
}

// TestDashboardInBrowser renders the dashboard in headless Chromium over
// a real database with a view backfilling, and checks the DOM it built:
// the job's statement (escaped: the view's name holds markup), its
// progress bar, which advances between two loads, the fragment graph's
// nodes and the charts, a join view's graph (chosen by #view=), and that
// the page logs nothing to the console (no script error, no failed
// request).
func TestDashboardInBrowser(t *testing.T) {
	browser := chromium(t)
	leaks := goleak.IgnoreCurrent()
	t.Cleanup(func() {
		http.DefaultClient.CloseIdleConnections()
		goleak.VerifyNone(t, leaks)
	})
	db, err := streamdb.Open(t.TempDir(), &streamdb.Options{NoSync: true, BarrierInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	s := db.NewSession()
	for _, q := range []string{
		"CREATE TABLE t (id int PRIMARY KEY, k int, v int)",
		"INSERT INTO t SELECT g, g % 7, g FROM generate_series(1, 50000) AS g",
		"CREATE TABLE names (k int PRIMARY KEY, name text)",
		"INSERT INTO names SELECT g, 'n' || g FROM generate_series(0, 6) AS g",
		"CREATE MATERIALIZED VIEW joined AS SELECT n.name, count(*) AS c FROM t JOIN names n ON t.k = n.k GROUP BY n.name",
		"SET background_ddl = true",
		`CREATE MATERIALIZED VIEW "mv<b>x</b>" WITH (backfill_rate_limit = 500) AS SELECT k, count(*) AS n, sum(v) AS s FROM t GROUP BY k`,
	} {
		if _, err := s.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	ts := httptest.NewServer(httpHandler("", db.MetricsHandler(), db.DashboardHandler()))
	t.Cleanup(ts.Close)
	waitSamples(t, ts.URL, 2)

	statement := jobStatement(t, db)
	dom := dumpDOM(t, browser, ts.URL+"/")
	first := progressValue(t, dom)
	for _, want := range []string{
		// SHOW JOBS's statement, as text: a text node serializes with &,
		// < and > escaped.
		strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(statement),
		`<svg id="graph"`, `class="node fragment"`, `data-upstream="t"`, `class="edge"`,
		`id="chart-latency"`, `id="chart-throughput"`, `id="chart-freshness"`, `class="line s0"`,
		"ALTER MATERIALIZED VIEW", "PAUSE;",
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	if strings.Contains(dom, "<b>x</b>") {
		t.Error("the view's name reached the DOM as markup")
	}
	if first <= 0 || first >= 1 {
		t.Errorf("progress bar value %v, want between 0 and 1", first)
	}
	if n := strings.Count(dom, `class="node fragment"`); n < 2 {
		t.Errorf("%d fragment nodes, want the view's fragments", n)
	}
	if t.Failed() {
		t.Logf("rendered page:\n%s", dom)
	}

	// The join view's graph: both tables feed scan fragments, which feed
	// the join; and the backfill's bar has moved on.
	dom = dumpDOM(t, browser, ts.URL+"/#view=joined")
	for _, want := range []string{`data-upstream="t"`, `data-upstream="names"`} {
		if !strings.Contains(dom, want) {
			t.Errorf("the join view's graph lacks %q", want)
		}
	}
	if n := strings.Count(dom, `class="node fragment"`); n < 3 {
		t.Errorf("the join view's graph has %d fragment nodes, want its two scans and the join", n)
	}
	if second := progressValue(t, dom); second <= first || second >= 1 {
		t.Errorf("progress bar went from %v to %v, want it to advance (and stay under 1)", first, second)
	}
	if t.Failed() {
		t.Logf("rendered page:\n%s", dom)
	}
}

// progressValue returns the value of the job's progress bar in dom.
func progressValue(t *testing.T, dom string) float64 {
	t.Helper()
	m := regexp.MustCompile(`<progress class="job-progress" max="1" value="([0-9.]+)"`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("no job progress bar in the rendered page:\n%.3000s", dom)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// jobStatement returns the statement of the one job SHOW JOBS lists.
func jobStatement(t *testing.T, db *streamdb.DB) string {
	t.Helper()
	rows, err := db.Query(context.Background(), "SELECT statement FROM streamdb_catalog.ddl_progress")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var statement string
	for rows.Next() {
		if err := rows.Scan(&statement); err != nil {
			t.Fatal(err)
		}
	}
	if statement == "" || !strings.Contains(statement, "<b>x</b>") {
		t.Fatalf("SHOW JOBS's statement: %q", statement)
	}
	return statement
}

// waitSamples waits until the dashboard's history holds n samples.
func waitSamples(t *testing.T, base string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(base + "/api/history")
		if err != nil {
			t.Fatal(err)
		}
		var h struct{ Samples []json.RawMessage }
		err = json.NewDecoder(resp.Body).Decode(&h)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(h.Samples) >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d samples after 10s, want %d", len(h.Samples), n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// dumpDOM loads url in headless Chromium, lets the page run for a few
// seconds of virtual time, and returns the DOM it built.
func dumpDOM(t *testing.T, browser, url string) string {
	t.Helper()
	// The bound is for a browser that hangs, not a speed test: Chromium
	// took over 30 s to start once in CI, on two cores shared with the
	// race-enabled test binaries of every other package.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--disable-gpu", "--no-sandbox",
		"--disable-dev-shm-usage", "--no-first-run", "--user-data-dir="+t.TempDir(),
		"--enable-logging=stderr", "--v=0",
		"--virtual-time-budget=4000", "--dump-dom", url)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, tail(stderr.String(), 2000))
	}
	// With logging on, Chromium writes every console message of the page
	// (an uncaught error, console.error, a failed request) as a CONSOLE
	// line; the dashboard logs nothing.
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, ":CONSOLE") {
			t.Errorf("the page logged to the console: %s", line)
		}
	}
	return string(out)
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
