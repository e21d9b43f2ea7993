package stream

import (
	"math"
	"runtime/metrics"
	"slices"
	"sync"
	"time"
)

// schedSampler reads how long the process's goroutines waited for a
// processor (runtime/metrics "/sched/latencies:seconds"), interval by
// interval: the second signal of the adaptive backfill rate (see
// CreatingJob.adapt and nextRate). A goroutine of the live work that is
// runnable waits there while the backfill holds the processor it would
// run on; a creating job's actor waiting for a cpuSlots slot is blocked,
// not runnable, and does not count.
//
// It is owned by one creating job's loop goroutine (not safe for
// concurrent use); runtime/metrics itself may be read from any goroutine.
type schedSampler struct {
	s    []metrics.Sample
	prev []uint64 // the histogram's counts at the last read
	at   time.Time
}

const schedLatencies = "/sched/latencies:seconds"

func newSchedSampler(now time.Time) *schedSampler {
	s := &schedSampler{s: []metrics.Sample{{Name: schedLatencies}}}
	s.read(now)
	return s
}

// read returns the waits since the last read as the time goroutines
// spent runnable per second of wall time (the mean run-queue length, by
// Little's law: 0.5 is half a goroutine waiting at every instant), or -1
// when the runtime does not report the histogram or no time passed.
func (s *schedSampler) read(now time.Time) float64 {
	metrics.Read(s.s)
	if s.s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return -1
	}
	h := s.s[0].Value.Float64Histogram()
	wait := 0.0
	if len(s.prev) == len(h.Counts) {
		for i, c := range h.Counts {
			if d := c - s.prev[i]; d > 0 {
				wait += float64(d) * bucketMid(h.Buckets[i], h.Buckets[i+1])
			}
		}
	}
	s.prev = append(s.prev[:0], h.Counts...)
	dt := now.Sub(s.at).Seconds()
	s.at = now
	if dt <= 0 {
		return -1
	}
	return wait / dt
}

// bucketMid is a bucket's representative value: its midpoint, or its
// finite edge when the other is infinite.
func bucketMid(lo, hi float64) float64 {
	switch {
	case math.IsInf(lo, -1):
		return max(hi, 0)
	case math.IsInf(hi, 1):
		return lo
	}
	return (lo + hi) / 2
}

// schedHistory is the coordinator's record of the scheduler signal
// before a creating job starts: the yardstick its adaptive rate compares
// the signal with (CreatingJob.schedLimit). A busy live load already
// keeps goroutines waiting for a processor (0.05-0.3 of a goroutine on 2
// cores, streamdb bench isolation's busy phase) and a backfill must not be
// held for that; what it adds on top is what it takes from the live work.
// It is sampled as writes are answered (noteLatency), at most every
// schedEvery: where no write is answered there is no live write to
// protect, and a job's own liveSeen signal covers the rest.
//
// A sample taken while another creating job ran has that job's share in
// it, and a window holding one gives no baseline: a limit over such a
// level is one the next job never reaches (issue 16: the bench's
// adaptive phase follows an unthrottled backfill, and took the busy
// load's rate down like one).
type schedHistory struct {
	mu      sync.Mutex
	sampler *schedSampler
	ring    [schedRing]schedPoint
	next    int
	starts  int64 // creating jobs started, at the last sample
}

type schedPoint struct {
	at time.Time
	w  float64
	// creating: a creating job ran in the sample's span.
	creating bool
}

const (
	schedRing   = 64
	schedEvery  = 100 * time.Millisecond
	schedWindow = 5 * time.Second
	// schedMinSamples: fewer samples in the window give no baseline (0).
	schedMinSamples = 5
)

// note samples the signal when schedEvery passed since the last sample.
// running is how many creating jobs run now, starts how many were ever
// started: a sample spans the time since the last, and a job that
// started and ended in it ran in it too.
func (h *schedHistory) note(now time.Time, running int, starts int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sampler == nil {
		h.sampler, h.starts = newSchedSampler(now), starts
		return
	}
	if now.Sub(h.sampler.at) < schedEvery {
		return
	}
	creating := running > 0 || starts != h.starts
	h.starts = starts
	if w := h.sampler.read(now); w >= 0 {
		h.add(now, w, creating)
	}
}

func (h *schedHistory) add(at time.Time, w float64, creating bool) {
	h.ring[h.next%schedRing] = schedPoint{at: at, w: w, creating: creating}
	h.next++
}

// baseline returns the median of the samples taken in the schedWindow
// before now, 0 when there were fewer than schedMinSamples or a creating
// job ran in one of them. (The median,
// not the mean: on a machine shared with other processes one interval
// in ten saw a goroutine wait for most of it.)
func (h *schedHistory) baseline(now time.Time) float64 {
	h.mu.Lock()
	ws := make([]float64, 0, schedRing)
	for _, p := range h.ring {
		if !p.at.IsZero() && !p.at.After(now) && now.Sub(p.at) <= schedWindow {
			if p.creating {
				h.mu.Unlock()
				return 0
			}
			ws = append(ws, p.w)
		}
	}
	h.mu.Unlock()
	if len(ws) < schedMinSamples {
		return 0
	}
	slices.Sort(ws)
	return ws[len(ws)/2]
}
