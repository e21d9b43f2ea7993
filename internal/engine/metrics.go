package engine

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/storage"
)

// Metrics: each DB has its own Prometheus registry (never the global
// one: several DBs in one process must not collide), served by
// MetricsHandler. Names start with streamdb_; labels are bounded (a
// view's or table's name, a fragment's position, a statement's kind),
// never a row or a statement's text.
//
// Hot paths touch atomics only: the histograms and counters below are
// client_golang's (atomic adds), and the actors' counters are
// stream.ActorStats. Everything else (backfill progress, recoveries,
// view errors, fragments, Pebble) is read when /metrics is scraped, by
// dbCollector, from what SHOW JOBS and streamdb_catalog read.
type metrics struct {
	reg *prometheus.Registry

	barrierLatency prometheus.Histogram
	commitLatency  prometheus.Histogram
	dmlRows        *prometheus.CounterVec
	dmlStatements  *prometheus.CounterVec
	dmlSeconds     *prometheus.HistogramVec
	connsOpen      prometheus.Gauge
	connsTotal     prometheus.Counter
	recoveries     *prometheus.CounterVec
}

// Write kinds, the label of the DML metrics.
const (
	writeInsert = "insert"
	writeUpdate = "update"
	writeDelete = "delete"
	writeCopy   = "copy"
)

func newMetrics(db *DB) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.barrierLatency = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "streamdb_barrier_latency_seconds",
		Help:    "Time from a running graph's barrier being injected to its epoch's commit.",
		Buckets: prometheus.ExponentialBuckets(0.001, 2, 15)})
	m.commitLatency = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "streamdb_epoch_commit_seconds",
		Help:    "Time of an epoch's storage commit (one Pebble batch).",
		Buckets: prometheus.ExponentialBuckets(0.0001, 2, 15)})
	m.dmlRows = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "streamdb_dml_rows_total",
		Help: "Rows written by DML statements and COPY FROM, by kind."}, []string{"kind"})
	m.dmlStatements = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "streamdb_dml_statements_total",
		Help: "DML statements and COPY FROM run, by kind and whether they failed."}, []string{"kind", "result"})
	m.dmlSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "streamdb_dml_statement_seconds",
		Help:    "Latency of DML statements and COPY FROM (to durable and visible in every view), by kind.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16)}, []string{"kind"})
	m.connsOpen = prometheus.NewGauge(prometheus.GaugeOpts{Name: "streamdb_connections",
		Help: "Postgres protocol connections open now."})
	m.connsTotal = prometheus.NewCounter(prometheus.CounterOpts{Name: "streamdb_connections_total",
		Help: "Postgres protocol connections opened."})
	m.recoveries = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "streamdb_recoveries_total",
		Help: "Recoveries of the streaming graph, by the kind of their cause."}, []string{"cause"})
	for _, k := range []string{writeInsert, writeUpdate, writeDelete, writeCopy} {
		m.dmlRows.WithLabelValues(k)
	}
	m.reg.MustRegister(m.barrierLatency, m.commitLatency, m.dmlRows, m.dmlStatements, m.dmlSeconds,
		m.connsOpen, m.connsTotal, m.recoveries, dbCollector{db},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// coordinator returns the observers the coordinator feeds.
func (m *metrics) coordinator() *stream.CoordinatorMetrics {
	return &stream.CoordinatorMetrics{BarrierLatency: m.barrierLatency, CommitLatency: m.commitLatency}
}

// wrote counts a write statement of kind that began at start and wrote
// rows rows (or failed with err).
func (m *metrics) wrote(kind string, start time.Time, rows int64, err error) {
	result := "ok"
	if err != nil {
		result = "error"
	} else {
		m.dmlRows.WithLabelValues(kind).Add(float64(rows))
	}
	m.dmlStatements.WithLabelValues(kind, result).Inc()
	m.dmlSeconds.WithLabelValues(kind).Observe(time.Since(start).Seconds())
}

// recovered counts a recovery caused by cause.
func (m *metrics) recovered(cause error) {
	m.recoveries.WithLabelValues(recoveryCause(cause)).Inc()
}

// recoveryCause is the bounded kind of a recovery's cause.
func recoveryCause(err error) string {
	var ae *stream.ActorError
	switch {
	case errors.Is(err, storage.ErrStoreFailed):
		return "store"
	case errors.As(err, &ae):
		return "actor"
	}
	return "other"
}

// MetricsHandler serves the DB's metrics in the Prometheus text format.
func (db *DB) MetricsHandler() http.Handler {
	// A collector that fails (it should not) leaves its metrics out of
	// the scrape rather than failing it.
	return promhttp.HandlerFor(db.metrics.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// dbCollector reads the DB's state when /metrics is scraped. It is an
// unchecked collector (Describe sends nothing): which jobs and fragments
// exist changes as views come and go.
type dbCollector struct{ db *DB }

func (dbCollector) Describe(chan<- *prometheus.Desc) {}

func (c dbCollector) Collect(ch chan<- prometheus.Metric) {
	db := c.db
	if !db.enter() {
		return // closed: the store is gone
	}
	defer db.leave()
	gauge(ch, "streamdb_epoch_current", "The epoch the running graph's next barrier starts.", float64(db.coord.Epoch()))
	gauge(ch, "streamdb_epoch_committed", "The running graph's last committed epoch.", float64(db.coord.CommittedEpoch()))
	c.collectJobs(ch)
	c.collectFragments(ch)
	c.collectViewErrors(ch)
	if pm := db.store.Metrics(); pm != nil {
		collectPebble(ch, pm)
	}
}

func (c dbCollector) collectJobs(ch chan<- prometheus.Metric) {
	for _, j := range (systemSource{c.db}).Jobs() {
		name := j.View.Name
		jobGauge(ch, "streamdb_backfill_progress_ratio", "A creating view's backfill progress, 0 to 1 (SHOW JOBS's progress).", name, j.Progress/100)
		jobCounter(ch, "streamdb_backfill_rows_read_total", "Rows a creating view's backfill has read of its snapshot.", name, float64(j.RowsRead))
		jobGauge(ch, "streamdb_backfill_rows_total", "Rows in a creating view's snapshot (an estimate).", name, float64(j.RowsTotal))
		jobGauge(ch, "streamdb_backfill_rows_per_second", "A creating view's recent backfill read rate.", name, j.RowsPerSecond)
		jobGauge(ch, "streamdb_backfill_log_lag_rows", "Rows of upstream changes a creating view's backfill has still to replay.", name, float64(j.LogLag))
		jobGauge(ch, "streamdb_backfill_paused", "1 while a creating view's backfill is paused (ALTER ... PAUSE, a rate limit of 0, quarantine).",
			name, bool01(j.View.BackfillPaused || j.View.BackfillRateZero))
		jobGauge(ch, "streamdb_backfill_rate_limit", "A creating view's backfill rate limit in rows/s (0: none).", name, float64(j.View.BackfillRateLimit))
		jobGauge(ch, "streamdb_backfill_quarantined", "1 while a creating view's job is quarantined after repeated failures.", name, bool01(j.Quarantined))
		jobGauge(ch, "streamdb_backfill_failures", "A creating view's identical job failures in a row.", name, float64(j.Failures))
	}
}

func (c dbCollector) collectFragments(ch chan<- prometheus.Metric) {
	src := systemSource{c.db}
	for _, r := range src.Relations() {
		frags := src.Fragments(r.ID)
		for i := range frags {
			st := frags[i].Stats()
			labels := []string{r.Name, strconv.Itoa(i), frags[i].Kind}
			ch <- prometheus.MustNewConstMetric(fragmentRowsIn, prometheus.CounterValue, float64(st.RowsIn), labels...)
			ch <- prometheus.MustNewConstMetric(fragmentRowsOut, prometheus.CounterValue, float64(st.RowsOut), labels...)
			ch <- prometheus.MustNewConstMetric(fragmentChunksOut, prometheus.CounterValue, float64(st.ChunksOut), labels...)
			ch <- prometheus.MustNewConstMetric(fragmentSend, prometheus.CounterValue, st.SendTime.Seconds(), labels...)
		}
	}
}

var (
	fragmentLabels    = []string{"relation", "fragment", "kind"}
	fragmentRowsOut   = prometheus.NewDesc("streamdb_fragment_rows_out_total", "Rows a fragment's actors sent downstream (resets when the graph is rebuilt).", fragmentLabels, nil)
	fragmentChunksOut = prometheus.NewDesc("streamdb_fragment_chunks_out_total", "Chunks a fragment's actors sent downstream.", fragmentLabels, nil)
	fragmentSend      = prometheus.NewDesc("streamdb_fragment_send_seconds_total",
		"Time a fragment's actors spent sending chunks downstream, most of it blocked on backpressure.", fragmentLabels, nil)
	fragmentRowsIn = prometheus.NewDesc("streamdb_fragment_rows_in_total",
		"Rows a fragment's actors read from their input channels: their upstream fragments' rows, or a plain table's writes (resets when the graph is rebuilt).",
		fragmentLabels, nil)
)

func (c dbCollector) collectViewErrors(ch chan<- prometheus.Metric) {
	perView := map[string]int64{}
	for _, e := range (systemSource{c.db}).ViewErrors() {
		perView[e.View] += e.Count
	}
	for v, n := range perView {
		ch <- prometheus.MustNewConstMetric(viewErrorsDesc, prometheus.CounterValue, float64(n), v)
	}
}

var viewErrorsDesc = prometheus.NewDesc("streamdb_view_errors_total",
	"Data errors of views' expressions turned into NULLs (streamdb_catalog.view_errors).", []string{"view"}, nil)

func gauge(ch chan<- prometheus.Metric, name, help string, v float64) {
	ch <- prometheus.MustNewConstMetric(prometheus.NewDesc(name, help, nil, nil), prometheus.GaugeValue, v)
}

func jobGauge(ch chan<- prometheus.Metric, name, help, job string, v float64) {
	ch <- prometheus.MustNewConstMetric(prometheus.NewDesc(name, help, []string{"job"}, nil), prometheus.GaugeValue, v, job)
}

func jobCounter(ch chan<- prometheus.Metric, name, help, job string, v float64) {
	ch <- prometheus.MustNewConstMetric(prometheus.NewDesc(name, help, []string{"job"}, nil), prometheus.CounterValue, v, job)
}

func bool01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
