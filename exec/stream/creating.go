package stream

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamdb/streamdb/internal/failpoint"
	"github.com/streamdb/streamdb/storage"
)

// CreatingJob is a materialized view being created, run on its own
// barrier sequence so that the running graph never waits for it (I8).
//
// Its LogWriters run in the running graph: they take the upstream changes
// and append them to the log store in the running graph's epochs, which
// costs each barrier next to nothing. Its other actors (the scans and
// everything downstream of them) run on the job's barriers, which the
// coordinator's job loop (run) injects into the scans every JobInterval
// and commits on its own (storage.Store.CommitJob): the snapshot and the
// log store are read and the view's state is built there, at whatever
// pace the job's rate limit and the machine allow.
//
// Once every scan has found the log store drained (or the job's lag has
// stopped shrinking: see readyToJoin), the job's last barrier parks the
// scans, and a barrier of the running graph carrying a
// JoinMutation switches the writers to passing upstream on to the scans;
// the scans replay the little the log still holds and follow. From the
// barrier after the join on, the job's actors take part in the running
// graph's barriers like any other.
type CreatingJob struct {
	// ID is the job's id (the view's relation id).
	ID uint32
	// Actors are the job's actors that run on its barriers.
	Actors []*Actor
	// Writers are the job's LogWriter actors, in the running graph.
	Writers []*Actor
	// Scans are the job's scans and Barriers their job-barrier channels,
	// in the same order.
	Scans    []*StreamScan
	Barriers []chan Message
	// Forward is, for each writer, its channel to its scan, attached at
	// the join.
	Forward map[ActorID]*Output
	// Progress is each scan's.
	Progress []*BackfillProgress
	// LatencyTarget, when not zero, makes the job's backfill rate
	// adaptive (see adapt and Target); its scans start at
	// AdaptiveStartRate.
	LatencyTarget time.Duration
	// Paused: the job starts paused.
	Paused bool

	c *Coordinator
	// interval is the time between the job's barriers, and
	// limitedInterval that under a fixed rate limit (see
	// LimitedJobInterval; barrierInterval chooses).
	interval, limitedInterval time.Duration
	epoch                     uint64 // the job's own epoch: the last barrier's Prev

	mu       sync.Mutex
	inflight *jobEpoch
	queued   []request // flow-control mutations for the next barriers
	ended    bool      // the loop ended: nothing is queued any more
	kick     chan struct{}

	stopOnce sync.Once
	stopCh   chan struct{} // closed to ask the job to stop
	exited   chan struct{} // closed when run returns

	// For SHOW JOBS: the job's epoch, when it started and joined.
	committed atomic.Uint64
	joinedAt  atomic.Int64 // unix nanoseconds, 0 until joined

	// The adaptive rate (run's goroutine only, but rateNow): the rate the
	// scans were last given, the job's pause, and when the running
	// graph's latency was last looked at.
	rate     float64
	paused   bool
	baseline time.Duration // the running graph's p99 before the job (Target)
	lastLook time.Time
	lastRead int64 // rowsRead at lastLook
	rateNow  atomic.Int64
	// targetNow is Target, for SHOW JOBS.
	targetNow atomic.Int64

	// limited: a fixed rate limit holds (the job then never joins while
	// behind, which would replay its log unthrottled). lagLow is the
	// lowest log lag seen since every scan reached the log store (-1
	// before), and lagLowAt when (see readyToJoin).
	limited     bool
	lagLow      int64
	lagLowAt    time.Time
	lagLowEpoch uint64

	// The scheduler signal (see CreatingJob.adapt): the job's sampler, the
	// signal's level before the job started (schedHistory.baseline, 0
	// when another creating job ran then), the live work seen
	// (cpuSlots.liveSeen) at lastLook, and the controller's memory of the
	// signal (its reference, probes and floor).
	sched     *schedSampler
	schedBase float64
	lastSeen  int64
	state     *adaptState
	signalsAt time.Time // when startSignals ran (the trace's zero)
	lastCut   time.Time // when the rate last went down (adaptLatWindow)
	// traceThrottled is throttledFor at the last trace line.
	traceThrottled time.Duration
}

// A creating job whose log lag has not reached a new low for
// joinPatience (and joinPatienceBarriers of its barriers) cannot catch
// up on its own: its upstreams change faster than it replays them. It
// then joins the running graph while behind, where the rest of its log
// is replayed in the running graph's epochs: writes to its upstreams wait
// for that replay (backpressure, as for any view slower than its
// writers), for a time bounded by the lag at the join. Waiting for every
// scan to drain instead, such a job never finished (a join view's CREATE
// under two writers of single-row UPDATEs by key, under -race). A lag of
// at most joinLagRows joins at once: replaying it costs the running
// graph less than a millisecond or two.
const (
	joinPatience         = time.Second
	joinPatienceBarriers = 4
	joinLagRows          = 256
)

// AdaptiveStartRate is the rows per second an adaptive backfill starts
// at: the top, and at its first checkpoint the controller brings it
// within adaptiveHeadroom of what the scans read. Live work is protected
// from the start by cpuSlots, not by a low start. (Before the slots, an
// adaptive backfill started at 500,000 rows/s when writes had been
// steady: at the top writes waited up to 80 ms in its first quarter
// second. With them, that start made a 3M-row GROUP BY backfill under
// steady inserts take 1.4x as long as an unlimited one, for the same
// insert latency: streamdb bench isolation.) adaptiveMinRate and
// adaptiveMaxRate bound the rate (the top is no limit in practice: a
// scan's chunks are full above 10k rows/s).
const (
	AdaptiveStartRate = adaptiveMaxRate
	adaptiveMinRate   = 1_000
	adaptiveMaxRate   = 50_000_000
	adaptiveHeadroom  = 4
	adaptiveTolerance = 50
	adaptiveMinOver   = 2
	adaptLatWindow    = 4 * JobInterval
)

// baselineFactor, baselineWindow and baselineMinSamples define the
// floor of an adaptive job's latency target (see Target).
const (
	baselineFactor     = 1.5
	baselineWindow     = 30 * time.Second
	baselineMinSamples = 20
)

// Target returns the latency target the adaptive rate works to: the
// LatencyTarget set, or baselineFactor times the p99 of what writes
// waited for in the baselineWindow before the job started, whichever is
// higher (0 when the rate is not adaptive). A target under what the
// machine gives with no backfill at all cannot be met by slowing the
// backfill: on a 2-core machine whose idle p99 was 6 ms, a 5 ms target
// held a 3M-row backfill to a tenth of its unthrottled speed for no gain
// in latency (streamdb bench isolation). 1.5x is what a rate-limited
// backfill is held to (issue 16's measures).
func (j *CreatingJob) Target() time.Duration {
	if j.LatencyTarget <= 0 {
		return 0
	}
	return max(j.LatencyTarget, time.Duration(baselineFactor*float64(j.baseline)))
}

// ShownTarget returns Target, safe to call from any goroutine.
func (j *CreatingJob) ShownTarget() time.Duration { return time.Duration(j.targetNow.Load()) }

// Rate returns the adaptive backfill's current rate in rows per second
// (0 when the rate is not adaptive).
func (j *CreatingJob) Rate() int64 { return j.rateNow.Load() }

// adapt is the adaptive rate's controller, run before each of the job's
// barriers. It looks at two signals since it last looked, and at the
// rows the job's scans read meanwhile (got, rows/s):
//   - the commit latency of writes: how long the writes answered waited
//     for their commit (Coordinator.latencySince), against Target;
//   - the scheduler signal: how long goroutines waited for a processor
//     (schedSampler), against a limit over its reference (adaptState),
//     when live work was seen (cpuSlots.liveSeen).
//
// The second is what protects the live work's throughput on a saturated
// machine: a busy load's commit latency is high before the job starts
// (17 ms p99 for two connections inserting 2,000-row statements back to
// back on 2 cores), so the target the first works to was met at full
// backfill speed while the live work lost a third of its rows per
// second. What the backfill takes from the live work shows instead as
// live goroutines waiting for the processor the backfill holds. See
// nextRate for the rules.
//
// It returns the mutation that gives the scans the new rate (it rides
// the job's next barrier, which runs anyway), nil when it did not move.
func (j *CreatingJob) adapt() Mutation {
	if j.LatencyTarget <= 0 || j.paused {
		return nil
	}
	now := time.Now()
	in := adaptInput{rate: j.rate}
	target := j.Target()
	// The latency rule judges the writes of the last adaptLatWindow, but
	// none from before the last cut: those were answered to at the old
	// rate, and counted already.
	since := now.Add(-adaptLatWindow)
	if j.lastCut.After(since) {
		since = j.lastCut
	}
	in.over, in.writes = j.c.latencySince(since, target)
	in.recentOver, in.recentWrites = j.c.latencySince(j.lastLook, target)
	read := j.rowsRead()
	if dt := now.Sub(j.lastLook).Seconds(); dt > 0 && read > j.lastRead {
		in.got = float64(read-j.lastRead) / dt
	}
	seen := j.c.slots.liveSeen.Load()
	in.live = seen != j.lastSeen || j.c.slots.live.Load() > 0
	w := -1.0
	if j.sched != nil {
		w = j.sched.read(now)
	}
	if j.state == nil {
		j.state = newAdaptState(j.schedBase)
	}
	probe := j.state.probing()
	r, in := j.state.step(in, w)
	j.lastLook, j.lastRead, j.lastSeen = now, read, seen
	j.traceAdapt(now, read, in, j.state.ref(), probe, r)
	if r < j.rate && !j.state.probing() {
		// (A probe is no cut: the writes before it still count.)
		j.lastCut = now
	}
	if r == j.rate {
		return nil
	}
	j.rate = r
	j.rateNow.Store(int64(r))
	return &ThrottleMutation{Kind: ThrottleBackfill, Job: j.ID, RateLimit: int64(r)}
}

// adaptInput is what the controller saw in one interval.
type adaptInput struct {
	rate float64 // the rate now
	got  float64 // what the scans read, rows/s (0: nothing)
	// over of writes waited longer than Target for their commit, in the
	// last adaptLatWindow since the last cut; recentOver of them in this
	// interval, of recentWrites.
	over, writes, recentOver, recentWrites int
	// live: live work was seen (cpuSlots.liveSeen, or in flight).
	live bool
	// sched is the scheduler signal (goroutines waiting for a processor,
	// on average; -1: not read), schedLimit what it may reach.
	sched, schedLimit float64
	// floor is the lowest rate a halving brings the rate to
	// (schedFloorDiv).
	floor float64
}

// Scheduler-signal parameters (see adaptState.limit and nextRate): the signal
// may reach schedFactor times its reference, or that plus schedSlack
// goroutines, whichever is higher. On 2 cores the busy live load alone
// kept 0.05-0.3 of a goroutine waiting, 0.2-1.0 beside an unthrottled
// backfill that took half its throughput (streamdb bench isolation, busy
// phases, per 250 ms interval); on a machine shared with other processes
// the bench's single-row inserts alone spiked to 0.2-0.5, hence the
// slack. Between schedLimit/2 and schedLimit the rate creeps up by
// schedCreep (the additive-like probe of AIMD); above it halves.
// (Tuned on a machine at load average 15-22 from other processes: see
// the caveats in the issue 16 report before trusting them.)
const (
	schedFactor = 2
	schedSlack  = 0.25
	schedCreep  = 1.1
	// schedFloorDiv: a halving never brings the rate under
	// 1/schedFloorDiv of the most the scans read in an interval of the
	// last floorWindow (adaptState.floor), so a
	// backfill beside live work that wants every processor still
	// progresses. (On a 2-core machine shared with other processes, load
	// average 15-22, the scheduler signal stayed over any limit at 1,000
	// rows/s and a busy-phase backfill starved; the commit latency of the
	// bench's single-row inserts stayed over its target likewise, and a
	// 3M-row adaptive backfill took 173 s instead of 2-3 s.)
	schedFloorDiv = 8
)

// nextRate is the controller's rule, a pure function of what it saw (so
// that it is tested with synthetic samples):
//   - the live work waited for processors beyond schedLimit: the rate
//     halves, from what the scans achieved if that is lower (AIMD's
//     multiplicative decrease: a backfill that took the live work's
//     processor gives it back within an interval or two);
//   - more than one write in adaptiveTolerance over the target, and at
//     least adaptiveMinOver of them, in the last adaptLatWindow since the
//     last cut, one of them in this interval: it halves likewise (the
//     target is a p99; taking the slowest as the signal halved the rate
//     for every outlier, and with live work kept a processor of its own
//     by cpuSlots a 3M-row backfill took four times as long as an
//     unlimited one for no gain in latency). One interval holds too few
//     writes to tell a p99: judged interval by interval, a single slow
//     write among 11-25 made 8 of the 12 cuts of two idle 10M-row
//     backfills (STREAMDB_ADAPTIVE_TRACE; the scheduler signal made
//     none), which then took 2.5 times as long as unthrottled ones;
//   - no write waited in the interval and no live work was seen: there
//     is no one to protect, and the rate doubles;
//   - live work waited for processors beyond half of schedLimit: the
//     rate creeps up by schedCreep (probing: raise, watch, back off);
//   - no write of this interval and too few of the window were over the
//     target: the rate rises by half;
//   - else it holds.
//
// The scheduler signal counts only while live work is seen: without it
// the backfill's own goroutines are all that wait, and the slots
// (cpuSlots) are unbounded. A rate far above what the scans achieve
// limits nothing, and would take several halvings to bite once live
// work comes: it stays within adaptiveHeadroom times got (but not under
// the floor: an idle 10M-row backfill's scans read 1,722 rows/s in one
// interval where they stalled, the rate fell from 4.5M to 6,888 rows/s
// and took 2.5 s to climb back), and within adaptiveMinRate and
// adaptiveMaxRate.
func nextRate(in adaptInput) float64 {
	r := in.rate
	sched := in.live && in.sched >= 0
	switch {
	case sched && in.sched > in.schedLimit, latencyOver(in) && in.recentOver > 0:
		if in.got > 0 {
			r = min(r, in.got)
		}
		r = max(r/2, in.floor)
	case in.recentWrites == 0 && !in.live:
		r *= 2
	case sched && in.sched > in.schedLimit/2:
		r *= schedCreep
	case in.recentOver == 0 && !latencyOver(in):
		r *= 1.5
	}
	if in.got > 0 {
		r = min(r, max(adaptiveHeadroom*in.got, in.floor))
	}
	return min(max(r, adaptiveMinRate), adaptiveMaxRate)
}

// latencyOver reports whether too many writes of the window were over
// the target (see nextRate).
func latencyOver(in adaptInput) bool {
	return in.over >= adaptiveMinOver && in.over*adaptiveTolerance > in.writes
}

// startSignals starts the job's look at the scheduler signal and the
// live work (adapt) from now.
func (j *CreatingJob) startSignals(now time.Time) {
	j.sched, j.signalsAt, j.lastCut = newSchedSampler(now), now, now
	j.state = newAdaptState(j.schedBase)
	j.lastSeen = j.c.slots.liveSeen.Load()
}

// rowsRead returns the snapshot rows the job's scans have read.
func (j *CreatingJob) rowsRead() int64 {
	var n int64
	for _, p := range j.Progress {
		_, read, _, _ := p.Snapshot()
		n += read
	}
	return n
}

// throttledFor returns how long the job's scans waited for their rate
// limit in all (summed over the scans).
func (j *CreatingJob) throttledFor() time.Duration {
	var d int64
	for _, p := range j.Progress {
		d += p.throttled.Load()
	}
	return time.Duration(d)
}

// throttle takes a flow-control change for the job: an adaptive one
// (LatencyTarget) turns the controller on and gives the scans its rate;
// any other turns it off and goes to the scans as is.
func (j *CreatingJob) throttle(t *ThrottleMutation) Mutation {
	j.paused = t.Paused
	j.limited = t.LatencyTarget <= 0 && t.RateLimit > 0
	if t.LatencyTarget <= 0 {
		j.LatencyTarget = 0
		j.rateNow.Store(0)
		j.targetNow.Store(0)
		return t
	}
	if j.LatencyTarget <= 0 {
		j.rate, j.lastLook, j.lastRead = AdaptiveStartRate, time.Now(), j.rowsRead()
		j.startSignals(j.lastLook)
	}
	j.LatencyTarget = t.LatencyTarget
	j.rateNow.Store(int64(j.rate))
	j.targetNow.Store(int64(j.Target()))
	return &ThrottleMutation{Kind: ThrottleBackfill, Job: j.ID, RateLimit: int64(j.rate), Paused: t.Paused}
}

// JobInterval is how often a creating job's own barrier is injected: it
// bounds how much of the job's work one of its checkpoints holds, and how
// soon a pause or a rate takes effect. (At 100 ms a join backfill took
// twice as long as at 250 ms, measured with streamdb bench backfill: each
// checkpoint syncs and ingests.) A scan that drains the log store asks
// for the next barrier at once (CreatingJob.kick), so a job does not wait
// out the interval to join.
const JobInterval = 250 * time.Millisecond

// LimitedJobInterval is JobInterval for a job under a fixed rate limit
// (limited). Each of a job's checkpoints goes through the same Pebble
// commit pipeline and WAL as the running graph's epochs: a write of the
// running graph that commits while a checkpoint is being applied to the
// memtable waits for it, and its WAL sync writes the checkpoint's bytes
// too. A commit trace (a diagnostic build; issue 16's notes) of streamdb bench isolation at
// 10M rows showed that these writes were the slow 1%: the epoch commits
// that overlapped one of the job's commits waited 5-7 ms at the median
// against 0.3 ms for the others, and with a checkpoint every 250 ms they
// were 2% of all commits. A GROUP BY view's checkpoint rewrites every
// group it touched, so a checkpoint a second writes a quarter of the
// bytes and collides a quarter as often. A fixed rate bounds the rows
// one checkpoint holds (it paces reads by time, not by barrier), a
// request (PAUSE, a new rate, a checkpoint someone waits for) and a
// drained log store still get a barrier at once (kick), and such a job
// joins only once drained; an unlimited job keeps JobInterval (its
// checkpoints grow with the interval), and so does an adaptive one (its
// controller acts at each barrier).
const LimitedJobInterval = time.Second

// jobEpoch collects a job barrier from the job's actors.
type jobEpoch struct {
	barrier  *Barrier
	expected map[ActorID]bool
	batches  []*storage.WriteBatch
	all      chan struct{}
}

// Epoch returns how many of its own checkpoints the job has committed
// since it (re)started.
func (j *CreatingJob) Epoch() uint64 { return j.committed.Load() }

// JoinedAt returns when the job joined the running graph (zero before).
func (j *CreatingJob) JoinedAt() time.Time {
	if n := j.joinedAt.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

// actorSet returns the ids of the job's actors on its own barriers.
func (j *CreatingJob) actorSet() map[ActorID]bool {
	m := make(map[ActorID]bool, len(j.Actors))
	for _, a := range j.Actors {
		m[a.ID] = true
	}
	return m
}

// owns reports whether the job has actor id, on its barriers or a writer.
func (j *CreatingJob) owns(id ActorID) bool {
	for _, a := range j.Actors {
		if a.ID == id {
			return true
		}
	}
	for _, a := range j.Writers {
		if a.ID == id {
			return true
		}
	}
	return false
}

// enqueue hands a flow-control request to the job: it is answered once a
// job barrier carrying it has committed. It never blocks (the barrier
// loop calls it).
func (j *CreatingJob) enqueue(r request) {
	j.mu.Lock()
	if j.ended {
		// It joined, stopped or failed since: see answerQueued.
		j.mu.Unlock()
		r.done <- nil
		return
	}
	j.queued = append(j.queued, r)
	j.mu.Unlock()
	select {
	case j.kick <- struct{}{}:
	default:
	}
}

func (j *CreatingJob) hasQueued() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.queued) > 0
}

// requestStop asks the job to stop: its last barrier stops its actors.
func (j *CreatingJob) requestStop() { j.stopOnce.Do(func() { close(j.stopCh) }) }

func (j *CreatingJob) stopping() bool {
	select {
	case <-j.stopCh:
		return true
	default:
		return false
	}
}

// answerQueued, when the job's loop ends, answers the requests queued
// and those enqueued later: their mutations no longer matter, as the job
// joined (its scans replay the log unthrottled), stopped, or failed and
// will be rebuilt with the flow control its catalog entry holds.
func (j *CreatingJob) answerQueued() {
	j.mu.Lock()
	q := j.queued
	j.queued, j.ended = nil, true
	j.mu.Unlock()
	for _, r := range q {
		r.done <- nil
	}
}

// run is the job's barrier loop, started by the coordinator with the
// job's actors. It returns when the job joined, stopped, or its graph
// was torn down; a failure of its own fails the graph.
func (j *CreatingJob) run(ctx context.Context) {
	defer close(j.exited)
	every := j.barrierInterval()
	tick := time.NewTicker(every)
	defer tick.Stop()
	join := false
	for {
		if d := j.barrierInterval(); d != every {
			// A rate limit came or went (throttle).
			every = d
			tick.Reset(d)
		}
		stop := j.stopping()
	wait:
		for !stop && !join {
			select {
			case <-ctx.Done():
				j.answerQueued()
				return
			case <-j.stopCh:
				stop = true
			case <-j.kick:
				// A request, or a scan that drained the log store: the
				// barrier goes at once only when it carries the request or
				// brings the job closer to joining: every scan caught up
				// since the last barrier (which this one publishes), or
				// the last one said so (the join's barrier). (A drained
				// scan kicks each time it drains again; while another
				// scan still read the snapshot, a barrier per kick made a
				// checkpoint every few milliseconds, and as many versions
				// of each group of the view in the memtable: a 1000-row
				// view took 7 ms to read.)
				if j.hasQueued() || j.allCaughtUp() || j.allDrained() {
					break wait
				}
			case <-tick.C:
				break wait
			}
		}
		var m Mutation
		var carried *request
		j.mu.Lock()
		switch {
		case stop:
			m = &StopMutation{Actors: j.actorSet()}
		case len(j.queued) > 0:
			r := j.queued[0]
			j.queued = j.queued[1:]
			m, carried = r.mutation, &r
		case join:
			m = &prepareJoin{}
		}
		j.mu.Unlock()
		if t, ok := m.(*ThrottleMutation); ok && t.Kind == ThrottleBackfill && t.Job == j.ID {
			m = j.throttle(t)
		}
		if m == nil {
			m = j.adapt()
		}
		// A request without a mutation is a checkpoint someone waits
		// for (CheckpointCreating): it must be durable.
		err := j.barrier(ctx, m, carried != nil && carried.mutation == nil)
		if carried != nil {
			// Committed, or the graph failed: the job is then rebuilt
			// with the flow control its catalog entry holds, which the
			// caller recorded before asking.
			carried.done <- nil
		}
		if err != nil {
			if ctx.Err() == nil {
				j.c.fail(fmt.Errorf("stream: creating job %d: %w", j.ID, err))
			}
			j.answerQueued()
			return
		}
		if stop {
			j.answerQueued()
			return
		}
		if _, ok := m.(*prepareJoin); ok {
			err := j.c.join(ctx, j)
			if err == nil || !errors.Is(err, errJoinAborted) {
				// Joined, or the graph failed (and is torn down).
				j.answerQueued()
				return
			}
			// Asked to stop while joining: the parked scans still take
			// the job's barriers.
			continue
		}
		join = j.readyToJoin(time.Now())
	}
}

// barrierInterval is the time between the job's barriers now: longer
// under a fixed rate limit (LimitedJobInterval).
func (j *CreatingJob) barrierInterval() time.Duration {
	if j.limited && j.limitedInterval > 0 {
		return j.limitedInterval
	}
	return j.interval
}

// readyToJoin reports, after each of the job's barriers, whether the job
// joins the running graph at its next one: every scan drained the log
// store; or every scan is in the log-store phase and their lag is small,
// or has not reached a new low for joinPatience, unless the job is paused
// or rate limited (see joinPatience).
func (j *CreatingJob) readyToJoin(now time.Time) bool {
	if j.allDrained() {
		return true
	}
	var lag int64
	for _, p := range j.Progress {
		phase, _, _, l := p.Snapshot()
		if phase != PhaseLogStore {
			j.lagLow = -1
			return false
		}
		lag += l
	}
	if len(j.Progress) == 0 || j.paused || j.limited {
		j.lagLow = -1
		return false
	}
	if lag <= joinLagRows {
		return true
	}
	if j.lagLow < 0 || lag < j.lagLow {
		j.lagLow, j.lagLowAt, j.lagLowEpoch = lag, now, j.epoch
		return false
	}
	if now.Sub(j.lagLowAt) < joinPatience || j.epoch-j.lagLowEpoch < joinPatienceBarriers {
		return false
	}
	j.c.opts.Logger.Info("creating job joins the running graph behind its upstream",
		"job", j.ID, "log_rows", lag, "lowest_since", now.Sub(j.lagLowAt).Round(time.Millisecond))
	return true
}

// allCaughtUp reports whether every scan drained the log store since the
// job's last barrier.
func (j *CreatingJob) allCaughtUp() bool {
	for _, p := range j.Progress {
		if !p.caughtUp.Load() {
			return false
		}
	}
	return len(j.Progress) > 0
}

// allDrained reports whether every scan found the log store drained.
func (j *CreatingJob) allDrained() bool {
	for _, p := range j.Progress {
		if !p.Drained() {
			return false
		}
	}
	return len(j.Progress) > 0
}

// barrier injects one job barrier into the scans, waits for every actor
// of the job to collect it, and commits the job's batches.
func (j *CreatingJob) barrier(ctx context.Context, m Mutation, sync bool) error {
	b := &Barrier{Prev: j.epoch, Curr: j.epoch + 1, Mutation: m, coll: j, Time: j.c.now(),
		commit: &commitSignal{done: make(chan struct{})}}
	je := &jobEpoch{barrier: b, expected: j.actorSet(), all: make(chan struct{})}
	j.mu.Lock()
	j.inflight = je
	j.mu.Unlock()
	err := j.injectAndCollect(ctx, je)
	// From here on a late collect finds nothing in flight (the graph
	// failed; its actor then fails on a canceled graph).
	j.mu.Lock()
	j.inflight = nil
	batches := je.batches
	j.mu.Unlock()
	if err == nil && failpoint.Enabled {
		err = failpoint.Hit(failpoint.BackfillJobCommit)
	}
	if err == nil {
		err = j.c.store.CommitJob(batches, sync)
	} else {
		closeAll(batches)
	}
	b.commit.err = err
	close(b.commit.done)
	if err == nil {
		j.epoch++
		j.committed.Store(b.Curr) // checkpoints committed
	}
	return err
}

func (j *CreatingJob) injectAndCollect(ctx context.Context, je *jobEpoch) error {
	for _, ch := range j.Barriers {
		select {
		case ch <- Message{Barrier: je.barrier}:
		case <-ctx.Done():
			return ErrGraphFailed
		}
	}
	select {
	case <-je.all:
		return nil
	case <-ctx.Done():
		return ErrGraphFailed
	}
}

// collect implements collector for the job's barriers.
func (j *CreatingJob) collect(id ActorID, b *Barrier, wb *storage.WriteBatch) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	je := j.inflight
	if je == nil || je.barrier != b {
		return fmt.Errorf("stream: actor %d collected barrier %d of job %d, which is not in flight", id, b.Prev, j.ID)
	}
	if !je.expected[id] {
		return fmt.Errorf("stream: actor %d is not expected at barrier %d of job %d", id, b.Prev, j.ID)
	}
	delete(je.expected, id)
	je.batches = append(je.batches, wb)
	if len(je.expected) == 0 {
		close(je.all)
	}
	return nil
}

func closeAll(batches []*storage.WriteBatch) {
	for _, b := range batches {
		if b != nil {
			_ = b.Close()
		}
	}
}
