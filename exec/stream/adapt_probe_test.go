package stream

import (
	"math"
	"testing"
)

// machine is a synthetic machine for adaptState: the scans read up to
// full rows/s, the live work alone keeps alone goroutines waiting, and
// every 100k rows/s the scans read adds per100k. The rate step returns is
// in force during the next interval, as with the job's barriers.
type machine struct {
	full, alone, per100k float64
	live                 bool
}

func (m machine) run(s *adaptState, rate float64) (next float64, in adaptInput) {
	got := min(rate, m.full)
	in = adaptInput{rate: rate, got: got, live: m.live, writes: 10, recentWrites: 10}
	w := m.alone + got/100_000*m.per100k
	return s.step(in, w)
}

// TestAdaptProbeLearnsReference: a busy load's job starts at full speed
// with no reference; its first intervals' levels have the backfill's own
// share in them (the lowest of them, the old reference, makes a limit the
// full-speed level never reaches). The probe runs the first probeLen
// intervals at the floor, learns the live work's own level, and the rate
// then comes down to what the limit over it allows, instead of staying
// at full speed.
func TestAdaptProbeLearnsReference(t *testing.T) {
	m := machine{full: 2_000_000, alone: 0.1, per100k: 0.05, live: true}
	// Full speed: 1.1, over twice the level at the floor (0.1 + 0.125).
	s := newAdaptState(0)
	r := float64(adaptiveMaxRate)
	var in adaptInput
	r, in = m.run(s, r)
	if !s.probing() || r != in.floor {
		t.Fatalf("first live interval with no reference: rate %v (floor %v), probing %t; want a probe at the floor", r, in.floor, s.probing())
	}
	for range probeLen {
		r, in = m.run(s, r)
	}
	if s.probing() {
		t.Fatalf("still probing after %d intervals", probeLen)
	}
	ref := s.ref()
	if want := m.alone + in.floor/100_000*m.per100k; math.Abs(ref-want) > 1e-9 {
		t.Fatalf("reference %v after the probe, want the level at the floor %v", ref, want)
	}
	if l := s.limit(); l >= m.alone+m.full/100_000*m.per100k {
		t.Fatalf("limit %v: the full-speed level never reaches it", l)
	}
	// The limit (ref+schedSlack, 0.475) allows 750k rows/s.
	hi := 0.0
	for i := range 100 {
		r, in = m.run(s, r)
		if i >= 40 && !s.probing() && in.rate > in.floor {
			hi = max(hi, in.got)
		}
	}
	if hi == 0 || hi > 900_000 {
		t.Fatalf("rate read up to %v rows/s beside the live work, want near the 750k the limit allows (2M unthrottled)", hi)
	}
}

// TestAdaptProbeFollowsTheLiveLevel: probes come every probeEvery
// intervals while live work is seen, each probeLen intervals at the
// floor and then back to the rate before it; the reference follows the
// live work's level both ways within refWindow (other processes start
// loading the machine, and stop); without live work, or with a signal
// under schedSlack (no reference could make a limit bind), there is no
// probe.
func TestAdaptProbeFollowsTheLiveLevel(t *testing.T) {
	m := machine{full: 1_000_000, alone: 0.3, per100k: 0.01, live: true}
	s := newAdaptState(0)
	r := float64(adaptiveMaxRate)
	probes, atFloor := 0, 0
	for range 10 * probeEvery {
		was := s.probing()
		before := r
		r, _ = m.run(s, r)
		if !was && s.probing() {
			probes++
		}
		if s.probing() {
			atFloor++
		}
		if was && !s.probing() && r < before {
			t.Fatalf("after a probe the rate went to %v, not back above the floor %v", r, before)
		}
	}
	if probes < 9 || probes > 11 {
		t.Fatalf("%d probes in %d intervals, want one per probeEvery (%d)", probes, 10*probeEvery, probeEvery)
	}
	if atFloor != probes*probeLen {
		t.Fatalf("%d intervals at the floor for %d probes, want probeLen (%d) each", atFloor, probes, probeLen)
	}
	low := s.ref()
	m.alone = 0.8
	for range refWindow + probeEvery {
		r, _ = m.run(s, r)
	}
	if ref := s.ref(); ref < 0.8 {
		t.Fatalf("reference %v after the live level rose to 0.8, want it followed (was %v)", ref, low)
	}
	m.alone = 0.3
	for range probeEvery + probeLen {
		r, _ = m.run(s, r)
	}
	if ref := s.ref(); ref < 0.3 || ref > 0.4 {
		t.Fatalf("reference %v after the live level fell back to 0.3", ref)
	}
	m.alone, m.per100k = 0.05, 0.01 // at most 0.15: under schedSlack
	for i := range 2 * refWindow {
		// (A probe begun before may run its course.)
		if r, _ = m.run(s, r); s.probing() && i >= probeLen {
			t.Fatal("probe with the signal under schedSlack")
		}
	}
	m.alone, m.live = 0.8, false
	for range 2 * probeEvery {
		if r, _ = m.run(s, r); s.probing() {
			t.Fatal("probe with no live work seen")
		}
	}
	if r < m.full {
		t.Fatalf("rate %v without live work, want at least the scans' %v", r, m.full)
	}
}

// TestAdaptStateBaseline: a level taken before the job (schedBase) is
// the reference from the start, with no probe before probeEvery, until
// it leaves refWindow; without one the first interval with live work
// probes.
func TestAdaptStateBaseline(t *testing.T) {
	m := machine{full: 1_000_000, alone: 0.1, per100k: 0.05, live: true}
	s := newAdaptState(0.2)
	if l := s.limit(); l != max(schedFactor*0.2, 0.2+schedSlack) {
		t.Fatalf("limit over a 0.2 baseline: %v, want %v", l, max(schedFactor*0.2, 0.2+schedSlack))
	}
	r := 400_000.0
	for i := 1; i < probeEvery; i++ {
		if r, _ = m.run(s, r); s.probing() {
			t.Fatalf("probe at interval %d with a baseline", i)
		}
	}
	for s.n < refWindow+probeEvery {
		r, _ = m.run(s, r)
	}
	if ref := s.ref(); ref == 0.2 || ref < 0 {
		t.Fatalf("reference %v after the baseline left the window, want the probes'", ref)
	}
	if l := newAdaptState(0).limit(); !math.IsInf(l, 1) {
		t.Fatalf("limit with nothing to compare with: %v", l)
	}
}

// TestAdaptStateFloor: the floor is 1/schedFloorDiv of the most the
// scans read unthrottled (under gotUnheld of the rate) in the last
// floorWindow intervals, not of the peak of the job's first seconds; it
// stays where it is while the rate holds the scans (it never follows a
// cut rate down), and is at least adaptiveMinRate. Two intervals the
// rules brought to the floor are a reference sample and put the next
// probe off.
func TestAdaptStateFloor(t *testing.T) {
	s := newAdaptState(0)
	step := func(rate, got float64, w float64) (float64, adaptInput) {
		return s.step(adaptInput{rate: rate, got: got, writes: 10, recentWrites: 10}, w)
	}
	if f := s.floor(); f != adaptiveMinRate {
		t.Fatalf("floor %v before anything was read, want %v", f, adaptiveMinRate)
	}
	for range 4 {
		step(50_000_000, 1_200_000, 0.1)
	}
	if f := s.floor(); f != 1_200_000/schedFloorDiv {
		t.Fatalf("floor %v after 1.2M rows/s, want %v", f, 1_200_000/schedFloorDiv)
	}
	for range floorWindow {
		step(400_000, 160_000, 0.1)
	}
	if f := s.floor(); f != 160_000/schedFloorDiv {
		t.Fatalf("floor %v after %d intervals at 160k rows/s unthrottled, want %v", f, floorWindow, 160_000/schedFloorDiv)
	}
	for range 3 * floorWindow {
		step(30_000, 29_000, 0.1) // held by the rate
		step(2_000, 0, 0.1)       // nothing read
	}
	if f := s.floor(); f != 160_000/schedFloorDiv {
		t.Fatalf("floor %v after the rate held the scans, want it kept at %v", f, 160_000/schedFloorDiv)
	}
	// Live work beside a rate the rules brought to the floor (a 0.5
	// level before the job): the second such interval is a sample (the
	// two's mean), and no probe comes.
	s = newAdaptState(0.5)
	for range 4 {
		step(400_000, 160_000, 0.1)
	}
	live := adaptInput{rate: 20_000, got: 20_000, live: true, writes: 10, recentWrites: 10}
	s.step(live, 0.2)
	if s.probing() || s.ref() != 0.5 {
		t.Fatalf("one interval at the floor: probing %t, reference %v; want no probe, the 0.5 before the job", s.probing(), s.ref())
	}
	s.step(live, 0.4)
	if s.probing() || math.Abs(s.ref()-0.3) > 1e-9 {
		t.Fatalf("two intervals at the floor: probing %t, reference %v; want no probe and a 0.3 sample", s.probing(), s.ref())
	}
	if s.nextProbe != s.n+probeEvery {
		t.Fatalf("next probe at %d, want %d", s.nextProbe, s.n+probeEvery)
	}
}
