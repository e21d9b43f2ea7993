package streamdb_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.uber.org/goleak"

	"github.com/streamdb/streamdb"
)

// scrape reads h's /metrics with the Prometheus text parser.
func scrape(t *testing.T, h http.Handler) map[string]*dto.MetricFamily {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("/metrics: status %d: %s", rec.Code, rec.Body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	return fams
}

// metricValue returns the value of family name's series whose labels
// include want (a histogram's sample count), and whether there is one.
func metricValue(fams map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.Metric {
		have := map[string]string{}
		for _, l := range m.Label {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if have[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

func openMetricsDB(t *testing.T) *streamdb.DB {
	t.Helper()
	db, err := streamdb.Open(":memory:", &streamdb.Options{NoSync: true, BarrierInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func execAll(t *testing.T, s *streamdb.Session, qs ...string) {
	t.Helper()
	for _, q := range qs {
		if _, err := s.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// TestMetrics scrapes a DB's /metrics during a rate-limited backfill.
func TestMetrics(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, leaks) })
	db := openMetricsDB(t)
	h := db.MetricsHandler()
	s := db.NewSession()
	execAll(t, s, "CREATE TABLE t (id int PRIMARY KEY, v int)",
		"INSERT INTO t SELECT g, g % 10 FROM generate_series(1, 3000) AS g")
	fams := scrape(t, h)
	if n, _ := metricValue(fams, "streamdb_dml_rows_total", map[string]string{"kind": "insert"}); n != 3000 {
		t.Errorf("streamdb_dml_rows_total{kind=insert} = %v, want 3000", n)
	}
	if n, _ := metricValue(fams, "streamdb_dml_statements_total", map[string]string{"kind": "insert", "result": "ok"}); n != 1 {
		t.Errorf("streamdb_dml_statements_total{kind=insert} = %v, want 1", n)
	}
	barriers, _ := metricValue(fams, "streamdb_barrier_latency_seconds", nil)
	for _, name := range []string{"streamdb_epoch_commit_seconds", "streamdb_epoch_current", "streamdb_epoch_committed",
		"streamdb_pebble_memtable_bytes", "streamdb_pebble_l0_sublevels", "streamdb_connections_total", "go_goroutines"} {
		if fams[name] == nil {
			t.Errorf("no %s", name)
		}
	}

	execAll(t, s, "SET background_ddl = true",
		"CREATE MATERIALIZED VIEW mv WITH (backfill_rate_limit = 2000) AS SELECT v, count(*) AS n FROM t GROUP BY v")
	job := map[string]string{"job": "mv"}
	var first, last float64
	seen := false
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		p, ok := metricValue(scrape(t, h), "streamdb_backfill_progress_ratio", job)
		if !ok {
			if seen {
				break // the job ended
			}
		} else {
			if p < last {
				t.Fatalf("backfill progress went back: %v after %v", p, last)
			}
			if !seen {
				first, seen = p, true
			}
			last = p
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !seen || last <= first || last > 1 {
		t.Errorf("backfill progress: first %v, last %v (seen %v); want it to rise within 0..1", first, last, seen)
	}
	if _, err := s.Exec(context.Background(), "WAIT"); err != nil {
		t.Fatal(err)
	}
	fams = scrape(t, h)
	if n, _ := metricValue(fams, "streamdb_barrier_latency_seconds", nil); n <= barriers {
		t.Errorf("barrier latency count %v, was %v: want it to grow", n, barriers)
	}
	if n, ok := metricValue(fams, "streamdb_fragment_rows_out_total", map[string]string{"relation": "mv"}); !ok || n == 0 {
		t.Errorf("streamdb_fragment_rows_out_total{relation=mv} = %v (%v), want > 0", n, ok)
	}
	if _, ok := metricValue(fams, "streamdb_backfill_progress_ratio", job); ok {
		t.Errorf("the job's progress is still shown after it ended")
	}

	// Rows in: the rows of an INSERT reach the table's fragment (its
	// writes) and the view's scan fragment (the table's changes).
	scan := map[string]string{"relation": "mv", "kind": "scan"}
	table := map[string]string{"relation": "t"}
	scanBefore, ok := metricValue(fams, "streamdb_fragment_rows_in_total", scan)
	if !ok {
		t.Fatalf("no streamdb_fragment_rows_in_total%v", scan)
	}
	tableBefore, _ := metricValue(fams, "streamdb_fragment_rows_in_total", table)
	execAll(t, s, "INSERT INTO t SELECT g, g % 10 FROM generate_series(3001, 3250) AS g")
	fams = scrape(t, h)
	if n, _ := metricValue(fams, "streamdb_fragment_rows_in_total", scan); n-scanBefore != 250 {
		t.Errorf("streamdb_fragment_rows_in_total%v grew by %v after a 250-row INSERT, want 250", scan, n-scanBefore)
	}
	if n, _ := metricValue(fams, "streamdb_fragment_rows_in_total", table); n-tableBefore != 250 {
		t.Errorf("streamdb_fragment_rows_in_total%v grew by %v after a 250-row INSERT, want 250", table, n-tableBefore)
	}
}

// TestMetricsAppend: DB.Append and AppendReader are a binary COPY
// underneath, and count as one (kind "copy").
func TestMetricsAppend(t *testing.T) {
	db := openMetricsDB(t)
	h := db.MetricsHandler()
	execAll(t, db.NewSession(), "CREATE TABLE people (id bigint PRIMARY KEY, name text, score float8, born date,"+
		" seen timestamptz, amount numeric(10,2), flag bool, small smallint)")
	ctx := context.Background()
	rec := peopleBatch(person{id: 1}, person{id: 2}, person{id: 3})
	defer rec.Release()
	if err := db.Append(ctx, "people", rec); err != nil {
		t.Fatal(err)
	}
	rec2 := peopleBatch(person{id: 4}, person{id: 5})
	defer rec2.Release()
	rdr, err := array.NewRecordReader(rec2.Schema(), []arrow.RecordBatch{rec2})
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	if n, err := db.AppendReader(ctx, "people", rdr); err != nil || n != 2 {
		t.Fatalf("AppendReader: %d rows, %v", n, err)
	}
	bad := peopleBatch(person{id: 6, small: ptr(int64(1 << 20))}) // out of smallint's range
	defer bad.Release()
	if err := db.Append(ctx, "people", bad); err == nil {
		t.Fatal("Append of a value out of its column's range succeeded")
	}
	fams := scrape(t, h)
	copyKind := map[string]string{"kind": "copy"}
	if n, _ := metricValue(fams, "streamdb_dml_rows_total", copyKind); n != 5 {
		t.Errorf("streamdb_dml_rows_total{kind=copy} = %v, want 5", n)
	}
	for result, want := range map[string]float64{"ok": 2, "error": 1} {
		if n, _ := metricValue(fams, "streamdb_dml_statements_total", map[string]string{"kind": "copy", "result": result}); n != want {
			t.Errorf("streamdb_dml_statements_total{kind=copy,result=%s} = %v, want %v", result, n, want)
		}
	}
	if n, _ := metricValue(fams, "streamdb_dml_statement_seconds", copyKind); n != 3 {
		t.Errorf("streamdb_dml_statement_seconds{kind=copy} has %v samples, want 3", n)
	}
}

// TestMetricsPerDB checks that two DBs in one process each serve their
// own metrics.
func TestMetricsPerDB(t *testing.T) {
	a, b := openMetricsDB(t), openMetricsDB(t)
	execAll(t, a.NewSession(), "CREATE TABLE t (id int PRIMARY KEY)", "INSERT INTO t VALUES (1), (2)")
	execAll(t, b.NewSession(), "CREATE TABLE t (id int PRIMARY KEY)", "INSERT INTO t VALUES (1)", "DELETE FROM t")
	ins := map[string]string{"kind": "insert"}
	del := map[string]string{"kind": "delete"}
	fa, fb := scrape(t, a.MetricsHandler()), scrape(t, b.MetricsHandler())
	if n, _ := metricValue(fa, "streamdb_dml_rows_total", ins); n != 2 {
		t.Errorf("a: %v rows inserted, want 2", n)
	}
	if n, _ := metricValue(fb, "streamdb_dml_rows_total", ins); n != 1 {
		t.Errorf("b: %v rows inserted, want 1", n)
	}
	if n, _ := metricValue(fa, "streamdb_dml_rows_total", del); n != 0 {
		t.Errorf("a: %v rows deleted, want 0", n)
	}
	if n, _ := metricValue(fb, "streamdb_dml_rows_total", del); n != 1 {
		t.Errorf("b: %v rows deleted, want 1", n)
	}
}
