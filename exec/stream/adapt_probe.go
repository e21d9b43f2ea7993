package stream

import "math"

// adaptState is what the adaptive rate's controller remembers between
// intervals about the scheduler signal (see CreatingJob.adapt): the
// signal's reference, how it re-learns it, and the floor of the rate. It
// is pure (interval counts, no clock), owned by the job's loop
// goroutine, and driven one interval at a time by step, so that the
// controller is tested with synthetic samples.
//
// The reference is the level of the signal with the backfill out of the
// way: what the live work waits for a processor on its own. It is learned
// the way TCP BBR's ProbeRTT learns the path's round-trip time with its
// own queue drained. While live work is seen, every probeEvery intervals
// the rate drops to the floor for probeLen intervals, and the mean signal
// of the last two of them is a reference sample; the rate then goes back
// to where it was. The reference is the lowest sample of the last
// refWindow intervals, and the level before the job started (schedBase,
// counted as a sample of the job's first interval) when no other creating
// job ran in the window it was taken in (schedHistory.baseline). (Two
// intervals' mean, not the lowest interval: beside a busy load on a
// shared machine single intervals at 1,000 rows/s read 0.0 to 0.6, the
// lowest of them made a limit that the live work alone passed in a third
// of the intervals, and the rate was cut to the floor and held there.)
//
// Why probes and not the lowest of the last intervals' levels: that is
// what the controller did, and in a busy load's backfill every interval
// it saw was one where the backfill ran at full speed beside the live
// work, so the reference was the level with the backfill's share in it,
// the limit (twice that) was never reached and nothing was ever cut: a
// 3M-row adaptive backfill took the busy load down to 0.37x of its rate
// alone, like an unthrottled one (streamdb bench isolation, issue 16).
// Two intervals in which the rate was already at the floor are as good
// as a probe: a sample, and the next probe waits probeEvery from it.
type adaptState struct {
	n int // intervals stepped

	// probeLeft: intervals of the probe in progress still to run at the
	// floor (0: none); resume the rate to go back to after it;
	// nextProbe the interval the next probe is due at.
	probeLeft int
	resume    float64
	nextProbe int

	// refs are the reference samples (refAt: the interval each was
	// taken in; -1: none).
	refs  [refSamples]float64
	refAt [refSamples]int
	refI  int

	// gots are the rows read per second of the intervals in which the
	// rate did not hold the scans (what they read beside the live work,
	// unthrottled), and gotAt the interval each was read in (floor).
	gots  [floorWindow]float64
	gotAt [floorWindow]int
	gotI  int
	// floorV is the floor (adaptiveMinRate before any such interval).
	floorV float64

	// lastW is the last interval's signal (-1: none), and lastFloor
	// whether that interval ran at the floor (a signal at the floor is
	// averaged only with another at the floor).
	lastW     float64
	lastFloor bool
}

const (
	// probeEvery intervals (5 s at JobInterval) between probes while live
	// work is seen; probeLen intervals each at the floor. The first
	// interval of a probe sees the rows already read drain through the
	// job's actors, the second the live work nearly alone: the probe
	// costs the backfill about probeLen/probeEvery of its time beside
	// live work, nothing without.
	probeEvery = 20
	probeLen   = 2
	// refWindow intervals of reference samples make the reference: two
	// probes' worth, so that one noisy probe does not hold it.
	refWindow  = 2*probeEvery + probeLen
	refSamples = 2 * refWindow / probeLen
	// floorWindow intervals (10 s) of rows read set the floor: a halving
	// never brings the rate under 1/schedFloorDiv of the most the scans
	// read, unthrottled, in an interval of them (gotUnheld). The floor
	// follows what the scans read now, beside the live work: from the
	// peak of the job's first seconds (before the live work took its
	// share) it sat at or above what a 10M-row backfill's scans read
	// beside a busy load, 140-170k rows/s, and the controller could not
	// cut while the signal was over its limit in a third of the
	// intervals. Only unthrottled intervals count, and with none in the
	// window the floor stays: from every interval's rows read, the floor
	// followed the cut rate down, 1/8 at a time, to 1,000 rows/s, where
	// the backfill starved (the live work alone passed the limit now and
	// then).
	floorWindow = 40
	// gotUnheld: an interval whose scans read less than gotUnheld of the
	// rate were not held by it.
	gotUnheld = 0.8
)

func newAdaptState(base float64) *adaptState {
	s := &adaptState{lastW: -1, floorV: adaptiveMinRate}
	for i := range s.refAt {
		s.refAt[i] = -1
	}
	for i := range s.gotAt {
		s.gotAt[i] = -1
	}
	if base > 0 {
		s.addRef(base)
		s.nextProbe = probeEvery
	}
	return s
}

func (s *adaptState) addRef(w float64) {
	s.refs[s.refI%refSamples], s.refAt[s.refI%refSamples] = w, s.n
	s.refI++
}

// ref returns the signal's reference: the lowest sample of the last
// refWindow intervals, -1 when there is none.
func (s *adaptState) ref() float64 {
	r := -1.0
	for i, at := range s.refAt {
		if at >= 0 && s.n-at < refWindow && (r < 0 || s.refs[i] < r) {
			r = s.refs[i]
		}
	}
	return r
}

// limit is the signal's ceiling over its reference: schedFactor times
// it, or schedSlack over it, whichever is higher; +Inf with no
// reference.
func (s *adaptState) limit() float64 {
	ref := s.ref()
	if ref < 0 {
		return math.Inf(1)
	}
	return max(schedFactor*ref, ref+schedSlack)
}

// noteGot records what the scans read in an interval at rate, and
// updates the floor: 1/schedFloorDiv of the most they read unthrottled
// in an interval of the last floorWindow, at least adaptiveMinRate; with
// no such interval in the window it stays.
func (s *adaptState) noteGot(rate, got float64) {
	if got > 0 && got < gotUnheld*rate {
		s.gots[s.gotI%floorWindow], s.gotAt[s.gotI%floorWindow] = got, s.n
		s.gotI++
	}
	peak := 0.0
	for i, at := range s.gotAt {
		if at >= 0 && s.n-at < floorWindow {
			peak = max(peak, s.gots[i])
		}
	}
	if peak > 0 {
		s.floorV = max(peak/schedFloorDiv, adaptiveMinRate)
	}
}

// floor returns the lowest rate a halving (or a probe) brings the rate
// to (noteGot).
func (s *adaptState) floor() float64 { return s.floorV }

// probing reports whether the interval now starting runs at the floor
// for a probe.
func (s *adaptState) probing() bool { return s.probeLeft > 0 }

// step takes one interval: in as adapt filled it (in.rate the rate in
// force during the interval, in.got what the scans read, in.live whether
// live work was seen) and w, the interval's own scheduler signal (-1:
// not read). It fills in.sched (the last two intervals' mean, a probe's
// alone), in.schedLimit and in.floor, and returns the rate for the next
// interval and in as filled.
func (s *adaptState) step(in adaptInput, w float64) (float64, adaptInput) {
	s.n++
	// The interval just ended ran at the floor: a probe's, or one the
	// rules had brought there (before the floor moves).
	atFloor := s.probeLeft > 0 || in.rate <= s.floorV
	s.noteGot(in.rate, in.got)
	in.floor = s.floor()
	in.sched = w
	if w >= 0 && s.lastW >= 0 && atFloor == s.lastFloor {
		// Two intervals' mean: on a machine shared with other
		// processes, single intervals spiked to several times the
		// level around them. (Never one at the floor with one above.)
		in.sched = (w + s.lastW) / 2
	}
	if in.live && w >= 0 && s.lastW >= 0 && atFloor && s.lastFloor {
		// Two intervals at the floor: a reference sample.
		s.addRef(in.sched)
		s.nextProbe = s.n + probeEvery
	}
	s.lastW, s.lastFloor = w, atFloor
	in.schedLimit = s.limit()
	if s.probeLeft > 0 {
		if s.probeLeft--; s.probeLeft > 0 {
			return in.floor, in
		}
		// The probe is over: back to the rate before it, and the rules
		// go on from there against the re-learned reference.
		return min(max(s.resume, adaptiveMinRate), adaptiveMaxRate), in
	}
	r := nextRate(in)
	// A probe is due while live work is seen and the signal is at least
	// schedSlack: at once when there is no reference yet (the job starts
	// at full speed, and its first intervals' levels have its own share
	// in them), and probeEvery intervals after the last sample. Under
	// schedSlack the signal is under the limit whatever the reference,
	// and a probe learns nothing the rules need: the single-row inserts
	// of an otherwise idle machine are live work, and probing beside
	// them took an idle 10M-row backfill to the floor 4 times in 14 s.
	if in.live && w >= 0 && in.sched >= schedSlack && r > in.floor && (s.ref() < 0 || s.n >= s.nextProbe) {
		s.probeLeft, s.resume = probeLen, r
		return in.floor, in
	}
	return r, in
}
