package stream

import (
	"math"
	"testing"
	"time"
)

// TestSchedHistoryBaseline: the baseline is the median of the samples
// in the schedWindow before a time, none from fewer than
// schedMinSamples, and the sampler really reads the runtime's histogram.
func TestSchedHistoryBaseline(t *testing.T) {
	var h schedHistory
	now := time.Now()
	if b := h.baseline(now); b != 0 {
		t.Fatalf("baseline with no samples: %v", b)
	}
	for i, w := range []float64{0.1, 0.9, 0.2, 0.3} {
		h.add(now.Add(time.Duration(i-10)*time.Millisecond), w, false)
	}
	if b := h.baseline(now); b != 0 {
		t.Fatalf("baseline from %d samples: %v, want none", 4, b)
	}
	h.add(now.Add(-time.Millisecond), 0.25, false)
	if b := h.baseline(now); b != 0.25 {
		t.Fatalf("baseline %v, want the median 0.25", b)
	}
	// A sample in which another creating job ran spoils the window.
	h.add(now.Add(-time.Millisecond/2), 0.2, true)
	if b := h.baseline(now); b != 0 {
		t.Fatalf("baseline from a window where a creating job ran: %v, want none", b)
	}
	if b := h.baseline(now.Add(-3 * time.Millisecond / 4)); b != 0.25 {
		t.Fatalf("baseline before the creating job: %v, want 0.25", b)
	}
	if b := h.baseline(now.Add(schedWindow + time.Second)); b != 0 {
		t.Fatalf("baseline from samples older than the window: %v", b)
	}
	// The samples after a time are not its baseline.
	if b := h.baseline(now.Add(-5 * time.Millisecond)); b != 0 {
		t.Fatalf("baseline from later samples: %v", b)
	}
	// note samples the runtime at most every schedEvery.
	// A sample is marked when a creating job runs at it, or one started
	// since the last sample (and may have ended in between).
	var g schedHistory
	g.note(now, 0, 3)
	g.note(now.Add(schedEvery/2), 0, 3)
	g.note(now.Add(schedEvery), 0, 3)
	g.note(now.Add(2*schedEvery), 1, 4)
	g.note(now.Add(3*schedEvery), 0, 5)
	g.note(now.Add(4*schedEvery), 0, 5)
	if g.next != 4 {
		t.Fatalf("%d samples from notes over 4 intervals, want 4", g.next)
	}
	for i, want := range []bool{false, true, true, false} {
		p := g.ring[i]
		if p.w < 0 {
			t.Fatalf("sample %v: the runtime gave no histogram", p.w)
		}
		if p.creating != want {
			t.Errorf("sample %d: creating %t, want %t", i, p.creating, want)
		}
	}
}

// TestNextRateSchedSignal: with live work seen, a scheduler signal over
// its limit halves the rate (from what the scans read, when lower) but
// never under the floor; between half the limit and the limit it creeps
// up; under half it rises as the latency rules say; without live work
// the signal is ignored (the backfill's own goroutines are all that
// wait) and the rate doubles; an unread signal (-1) is ignored.
func TestNextRateSchedSignal(t *testing.T) {
	base := adaptInput{rate: 400_000, got: 300_000, writes: 20, recentWrites: 20, live: true, sched: 0.1, schedLimit: 0.3, floor: 50_000}
	for _, c := range []struct {
		name string
		edit func(*adaptInput)
		want float64
	}{
		{"under half the limit", func(in *adaptInput) {}, 600_000},
		{"over the limit", func(in *adaptInput) { in.sched = 0.5 }, 150_000},
		{"over the limit, scans read more than the rate", func(in *adaptInput) { in.sched, in.got = 0.5, 900_000 }, 200_000},
		{"over the limit at the floor", func(in *adaptInput) { in.sched, in.rate, in.got = 0.5, 60_000, 60_000 }, 50_000},
		{"near the limit", func(in *adaptInput) { in.sched = 0.2 }, 400_000 * schedCreep},
		{"no live work", func(in *adaptInput) { in.live, in.writes, in.recentWrites, in.sched = false, 0, 0, 0.9 }, 800_000},
		{"writes but no live work seen", func(in *adaptInput) { in.live, in.sched = false, 0.9 }, 600_000},
		{"signal not read", func(in *adaptInput) { in.sched = -1 }, 600_000},
		{"latency over the target", func(in *adaptInput) { in.over, in.recentOver = 5, 1 }, 150_000},
		{"latency over the target at the floor", func(in *adaptInput) { in.over, in.recentOver, in.rate, in.got = 5, 1, 60_000, 60_000 }, 50_000},
		{"one outlier in adaptiveTolerance, signal near", func(in *adaptInput) { in.over, in.recentOver, in.writes, in.sched = 1, 1, adaptiveTolerance, 0.2 }, 400_000 * schedCreep},
		{"one outlier in adaptiveTolerance", func(in *adaptInput) { in.over, in.recentOver, in.writes = 1, 1, adaptiveTolerance }, 400_000},
		{"headroom", func(in *adaptInput) { in.got = 100_000 }, adaptiveHeadroom * 100_000},
		{"headroom, never under the floor", func(in *adaptInput) { in.got = 1_000 }, 50_000},
		{"bottom", func(in *adaptInput) { in.sched, in.rate, in.got, in.floor = 0.5, 1_500, 0, 0 }, adaptiveMinRate},
	} {
		in := base
		c.edit(&in)
		if got := nextRate(in); math.Abs(got-c.want) > 1e-9*c.want {
			t.Errorf("%s: rate %v, want %v", c.name, got, c.want)
		}
	}
}

// TestNextRateConverges: fed a synthetic machine where live work waits
// in proportion to the backfill's rate above what it leaves free, the
// controller settles near the rate the limit allows, without swinging
// over the whole range (AIMD's sawtooth), and comes back to full speed
// once live work stops.
func TestNextRateConverges(t *testing.T) {
	const full = 2_000_000.0 // what the scans read unthrottled
	// The live work alone waits 0.1; every 100k rows/s over 200k adds
	// 0.05. The limit, 0.3, is met at 600k rows/s.
	signal := func(r float64) float64 { return 0.1 + max(0, r-200_000)/100_000*0.05 }
	in := adaptInput{rate: adaptiveMaxRate, live: true, writes: 10, schedLimit: 0.3, floor: full / schedFloorDiv}
	lo, hi := float64(adaptiveMaxRate), 0.0
	for i := range 200 {
		got := min(in.rate, full)
		in.got, in.sched = got, signal(got)
		in.rate = nextRate(in)
		if i >= 100 {
			lo, hi = min(lo, in.rate), max(hi, in.rate)
		}
	}
	if lo < 250_000 || hi > 700_000 {
		t.Fatalf("rate swung over [%v, %v], want within [250k, 700k] (the limit allows 600k)", lo, hi)
	}
	in.live, in.writes = false, 0
	for range 10 {
		in.got = min(in.rate, full)
		in.rate = nextRate(in)
	}
	if in.rate < full {
		t.Fatalf("rate %v ten intervals after live work stopped, want at least the scans' %v", in.rate, full)
	}
}

// TestNextRateLatencyWindow: the latency rule judges the writes of the
// window (adaptLatWindow since the last cut), not one interval's: a
// single slow write among a handful does not halve the rate (it holds
// while that write is in the interval), adaptiveMinOver slow writes that
// are more than one in adaptiveTolerance of the window do, when one of
// them is this interval's; slow writes of earlier intervals alone hold
// the rate rather than cut it again, and a window with too few slow
// writes lets it rise.
func TestNextRateLatencyWindow(t *testing.T) {
	base := adaptInput{rate: 400_000, got: 300_000, recentWrites: 10, live: true, sched: 0.1, schedLimit: 0.3, floor: 50_000}
	for _, c := range []struct {
		name                 string
		over, recent, writes int
		want                 float64
	}{
		{"one slow write among 16, this interval", 1, 1, 16, 400_000},
		{"one slow write among 16, earlier", 1, 0, 16, 600_000},
		{"two slow among 25, one now", 2, 1, 25, 150_000},
		{"two slow among 25, both earlier", 2, 0, 25, 400_000},
		{"two slow among 200, one now", 2, 1, 200, 400_000},
		{"two slow among 200, both earlier", 2, 0, 200, 600_000},
		{"none slow", 0, 0, 200, 600_000},
	} {
		in := base
		in.over, in.recentOver, in.writes = c.over, c.recent, c.writes
		if got := nextRate(in); math.Abs(got-c.want) > 1e-9*c.want {
			t.Errorf("%s: rate %v, want %v", c.name, got, c.want)
		}
	}
}
