package engine

import (
	"math"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/streamdb/streamdb/internal/dashboard"
	"github.com/streamdb/streamdb/internal/systemcatalog"
)

// counters are the cumulative values the sampler reads each interval; a
// sample is the difference of two readings, and the levels of the later.
type counters struct {
	at time.Time
	// barriers is the barrier latency histogram
	// (streamdb_barrier_latency_seconds).
	barriers *dto.Histogram
	// dmlRows sums streamdb_dml_rows_total over its kinds.
	dmlRows float64
	// fragments are the rows each fragment sent downstream
	// (streamdb_fragment_rows_out_total).
	fragments        map[fragmentKey]int64
	epoch, committed uint64
	backfillRate     float64 // the sum of SHOW JOBS's rows_per_second
	jobLag           int64   // the greatest of SHOW JOBS's lag_epochs
	jobLagKnown      bool
}

// readCounters reads the counters at now.
func (db *DB) readCounters(now time.Time) *counters {
	c := &counters{at: now, fragments: map[fragmentKey]int64{}}
	var m dto.Metric
	if db.metrics.barrierLatency.Write(&m) == nil {
		c.barriers = m.Histogram
	}
	for _, k := range []string{writeInsert, writeUpdate, writeDelete, writeCopy} {
		c.dmlRows += counterValue(db.metrics.dmlRows.WithLabelValues(k))
	}
	src := systemSource{db}
	for _, r := range src.Relations() {
		frags := src.Fragments(r.ID)
		for i := range frags {
			if k, ok := keyOf(r.ID, i, &frags[i]); ok {
				c.fragments[k] = frags[i].Stats().RowsOut
			}
		}
	}
	c.epoch, c.committed = db.coord.Epoch(), db.coord.CommittedEpoch()
	c.readJobs(src.Jobs())
	return c
}

// readJobs reads the jobs' rates and lags from their rows of SHOW JOBS.
func (c *counters) readJobs(jobs []systemcatalog.Job) {
	rate, lag := jobColumn("rows_per_second"), jobColumn("lag_epochs")
	for _, row := range systemcatalog.JobRows(jobs) {
		if rate < 0 || lag < 0 {
			return
		}
		if v, ok := row[rate].(int64); ok {
			c.backfillRate += float64(v)
		}
		if v, ok := row[lag].(int64); ok {
			c.jobLag, c.jobLagKnown = max(c.jobLag, v), true
		}
	}
}

// jobColumn is the position of SHOW JOBS's column name (-1: none).
func jobColumn(name string) int {
	for i, c := range jobColumns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

func counterValue(c prometheus.Counter) float64 {
	var m dto.Metric
	if c.Write(&m) != nil || m.Counter == nil {
		return 0
	}
	return m.Counter.GetValue()
}

// sample is the sample of the interval from prev to cur.
func (db *DB) sample(prev, cur *counters) dashboard.Sample {
	secs := cur.at.Sub(prev.at).Seconds()
	s := dashboard.Sample{T: cur.at.UnixMilli(), Epoch: cur.epoch, Committed: cur.committed,
		EpochsUncommitted: cur.epoch - min(cur.committed, cur.epoch), BackfillRowsPerSecond: cur.backfillRate}
	if cur.jobLagKnown {
		s.JobLagEpochs = &cur.jobLag
	}
	if secs <= 0 {
		return s
	}
	s.DMLRowsPerSecond = max(cur.dmlRows-prev.dmlRows, 0) / secs
	var rows int64
	for k, n := range cur.fragments {
		if p, ok := prev.fragments[k]; ok && n >= p {
			rows += n - p
		}
	}
	s.FragmentRowsPerSecond = float64(rows) / secs
	s.Barriers, s.BarrierMeanMillis, s.BarrierP99Millis = barrierStats(prev.barriers, cur.barriers)
	return s
}

// barrierStats returns the barriers observed between two readings of the
// latency histogram, their mean latency and the upper bound of the
// bucket of their 99th percentile, in milliseconds (nil: none observed).
func barrierStats(prev, cur *dto.Histogram) (n int64, mean, p99 *float64) {
	if prev == nil || cur == nil {
		return 0, nil, nil
	}
	n = int64(cur.GetSampleCount() - prev.GetSampleCount())
	if n <= 0 {
		return 0, nil, nil
	}
	m := (cur.GetSampleSum() - prev.GetSampleSum()) / float64(n) * 1000
	mean = &m
	want := uint64(math.Ceil(float64(n) * 0.99))
	bound := 0.0
	for i, b := range cur.Bucket {
		if !math.IsInf(b.GetUpperBound(), 1) {
			bound = b.GetUpperBound()
		}
		var before uint64
		if i < len(prev.Bucket) {
			before = prev.Bucket[i].GetCumulativeCount()
		}
		if b.GetCumulativeCount()-before >= want {
			break
		}
	}
	// Past the last bucket: the largest finite bound, an underestimate.
	q := bound * 1000
	return n, mean, &q
}
