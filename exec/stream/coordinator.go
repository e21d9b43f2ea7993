package stream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamdb/streamdb/storage"
)

// ErrGraphFailed is returned to waiters when an actor failed and the
// graph had to be torn down; the work they waited for was not committed.
var ErrGraphFailed = errors.New("stream: streaming graph failed and was restarted; the statement was not committed")

// graphFailedError is ErrGraphFailed with the failure's cause in its
// message. It does not unwrap to the cause: the cause belongs to the
// graph, not to the statement that waited (whose error codes it would
// otherwise take).
type graphFailedError struct{ cause error }

func (e *graphFailedError) Error() string {
	if e.cause == nil {
		return ErrGraphFailed.Error()
	}
	return ErrGraphFailed.Error() + ": " + e.cause.Error()
}

func (e *graphFailedError) Is(target error) bool { return target == ErrGraphFailed }

// ErrClosed is returned once the coordinator has stopped.
var ErrClosed = errors.New("stream: coordinator closed")

// commitSignal is how actors learn that the epoch they passed committed.
type commitSignal struct {
	done chan struct{}
	err  error
}

func (s *commitSignal) wait(ctx context.Context) error {
	if s == nil { // barriers built by tests without a coordinator
		return nil
	}
	mayBlock(ctx)
	select {
	case <-s.done:
		return s.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// epochState collects the actors' batches for the barrier in flight.
type epochState struct {
	barrier  *Barrier
	expected map[ActorID]bool
	batches  []*storage.WriteBatch
	all      chan struct{} // closed when every expected actor collected
	// marks are the sources the barrier was injected into, each with
	// the barrier's number in that source (Source.injected).
	marks []sourceMark
	// comp is the component a component barrier is for (nil for a
	// global one), and injected is closed once its injector is done.
	comp     *component
	injected chan struct{}
	// made is when the barrier was made (for Metrics.BarrierLatency).
	made time.Time
}

type sourceMark struct {
	src *Source
	n   uint64
}

// request asks the barrier loop for a barrier, optionally with a mutation
// and new actors to start just before it is injected.
type request struct {
	mutation Mutation
	actors   []*Actor
	sources  map[ActorID]*Source
	// source, when set, asks for what was sent into it before mark
	// (Source.Mark) to be committed: the request succeeds once it is,
	// and fails once the source is gone without it.
	source *Source
	mark   uint64
	// at is when the request was made (submit).
	at time.Time
	// gen, when not zero, is the graph generation the mutation and the
	// actors were made for (MutateIn).
	gen uint64
	// creating are jobs to start once the barrier's epoch has committed,
	// on a snapshot of it (their writers are among actors).
	creating []*CreatingJob
	// join, with a JoinMutation, is the creating job that joins.
	join *CreatingJob
	done chan error
}

// CoordinatorOptions configure a Coordinator.
type CoordinatorOptions struct {
	// BarrierInterval is how often a barrier is injected when nobody asks
	// for one. Zero means one second.
	BarrierInterval time.Duration
	Logger          *slog.Logger
	// OnFailure is called from the barrier loop after a failed graph has
	// been torn down; it rebuilds the actors (Coordinator.Restart).
	OnFailure func(err error)
	// Clock gives the time barriers carry (Barrier.Time); nil:
	// time.Now. Tests set it to move temporal filters by hand.
	Clock func() time.Time
	// Metrics, when set, observe the running graph's barriers.
	Metrics *CoordinatorMetrics
}

// CoordinatorMetrics observe the running graph's barriers, in seconds:
// BarrierLatency from a barrier's making (inject) to its commit,
// CommitLatency the storage commit alone. A creating job's own barriers
// are not observed. (A prometheus.Histogram is an Observer.)
type CoordinatorMetrics struct {
	BarrierLatency, CommitLatency Observer
}

// Observer takes one observation.
type Observer interface{ Observe(float64) }

// observeCommit notes the storage commit that began at commitStart and
// the latency of the barriers made at made that it committed.
func (c *Coordinator) observeCommit(commitStart time.Time, made ...time.Time) {
	m := c.opts.Metrics
	if m == nil {
		return
	}
	now := time.Now()
	m.CommitLatency.Observe(now.Sub(commitStart).Seconds())
	for _, t := range made {
		m.BarrierLatency.Observe(now.Sub(t).Seconds())
	}
}

// Coordinator injects barriers into the graph's sources, collects them from
// every actor, commits each epoch's state atomically, and applies graph
// mutations. It owns every actor goroutine.
//
// Locking: mu guards the registry (actors, sources, inflight); the barrier
// loop goroutine is the only one that injects barriers and commits.
type Coordinator struct {
	store *storage.Store
	opts  CoordinatorOptions
	slots *cpuSlots
	// every is the barrier interval in effect (nanoseconds; starts as
	// opts.BarrierInterval, SetBarrierInterval changes it), and retick
	// tells the barrier loop to reset its ticker to it.
	every  atomic.Int64
	retick chan struct{}

	reqs    chan request
	pending []request // mutations that must wait for a later barrier
	// lastCause is the cause of the last graph failure (barrier loop only).
	lastCause error
	// failures counts recoveries since the last committed epoch, and
	// backoff is how long the next barrier waits after the last one
	// (barrier loop only).
	failures int
	backoff  time.Duration
	// storeFailed, once set, is the store's failure (storage.ErrStoreFailed):
	// the graph is torn down for good and every request gets it (barrier
	// loop only).
	storeFailed error

	mu  sync.Mutex
	gen uint64 // the graph's generation: recoveries so far, plus one
	// epoch is the next barrier's Prev: each barrier, a component's or a
	// global one, takes it and increments it. committed is the greatest
	// epoch committed.
	epoch     uint64
	committed uint64
	actors    map[ActorID]*Actor
	sources   map[ActorID]*Source
	// comps are the running graph's components (see component), and
	// srcComp each source's.
	comps   []*component
	srcComp map[*Source]*component
	// creating are the jobs running on their own barriers (I8), by id:
	// their actors run, but the running graph's barriers do not wait
	// for them.
	creating map[uint32]*CreatingJob
	// inflight are the barriers in flight: at most one per component, or
	// one global barrier.
	inflight map[*Barrier]*epochState
	// wake tells the barrier loop that a barrier in flight has been
	// collected by every actor it waits for.
	wake     chan struct{}
	graphCtx context.Context
	cancel   context.CancelFunc
	failed   error
	actorWG  sync.WaitGroup

	stop     chan struct{}
	loopDone chan struct{}
	closed   bool

	// latencies are the last writes' commit waits (request to answer),
	// for adaptive backfills (latencySince, baselineLatency); under latMu.
	latMu     sync.Mutex
	latencies [256]barrierLatency
	latNext   int
	// sched is the scheduler signal sampled as writes are answered, the
	// adaptive backfill rate's second yardstick (schedHistory), and
	// creatingN and creatingStarts the creating jobs running and ever
	// started (len(creating), readable without mu: its samples say
	// whether a creating job ran in them).
	sched          schedHistory
	creatingN      atomic.Int32
	creatingStarts atomic.Int64
}

type barrierLatency struct {
	at time.Time // when it committed
	d  time.Duration
}

// answered answers a write's request that committed, noting how long it
// waited: only what writes wait for is a latency a user sees. (The
// adaptive backfill rate counted the periodic barriers too, and on a
// machine with nothing else to do slowed a backfill to a third of its
// speed for the latency of barriers nobody waited for. It then counted
// the barriers writes waited for, inject to commit, which leaves out the
// wait for a barrier in flight and the wait to be taken by the loop.)
func (c *Coordinator) answered(r request) {
	c.noteLatency(time.Since(r.at))
	r.done <- nil
}

// noteLatency records the commit wait of a write.
func (c *Coordinator) noteLatency(d time.Duration) {
	now := time.Now()
	c.latMu.Lock()
	c.latencies[c.latNext%len(c.latencies)] = barrierLatency{at: now, d: d}
	c.latNext++
	c.latMu.Unlock()
	c.sched.note(now, int(c.creatingN.Load()), c.creatingStarts.Load())
}

// latencySince returns how many of the writes committed after t (of the
// last 256) waited longer than over, and how many there were.
func (c *Coordinator) latencySince(t time.Time, over time.Duration) (slow, n int) {
	c.latMu.Lock()
	defer c.latMu.Unlock()
	for _, l := range c.latencies {
		if l.at.After(t) {
			n++
			if l.d > over {
				slow++
			}
		}
	}
	return slow, n
}

// baselineLatency returns the p99 of the commit waits of the writes
// answered in the baselineWindow before now (of the last 256), or 0 when
// fewer than baselineMinSamples were: what live writes waited for before
// a creating job started, the yardstick of its adaptive rate (see
// CreatingJob.Target).
func (c *Coordinator) baselineLatency(now time.Time) time.Duration {
	c.latMu.Lock()
	ds := make([]time.Duration, 0, len(c.latencies))
	for _, l := range c.latencies {
		if !l.at.IsZero() && l.at.Before(now) && now.Sub(l.at) <= baselineWindow {
			ds = append(ds, l.d)
		}
	}
	c.latMu.Unlock()
	if len(ds) < baselineMinSamples {
		return 0
	}
	slices.Sort(ds)
	return ds[(len(ds)*99+99)/100-1]
}

// NewCoordinator returns a coordinator over store; Start runs it.
func NewCoordinator(store *storage.Store, opts CoordinatorOptions) *Coordinator {
	if opts.BarrierInterval == 0 {
		opts.BarrierInterval = time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	c := &Coordinator{
		store:     store,
		opts:      opts,
		reqs:      make(chan request),
		actors:    map[ActorID]*Actor{},
		sources:   map[ActorID]*Source{},
		creating:  map[uint32]*CreatingJob{},
		inflight:  map[*Barrier]*epochState{},
		wake:      make(chan struct{}, 1),
		retick:    make(chan struct{}, 1),
		epoch:     store.CommittedEpoch() + 1,
		committed: store.CommittedEpoch(),
		stop:      make(chan struct{}),
		loopDone:  make(chan struct{}),
		gen:       1,
		slots:     newCPUSlots(),
	}
	c.every.Store(int64(opts.BarrierInterval))
	c.graphCtx, c.cancel = context.WithCancel(context.Background())
	return c
}

// BarrierInterval returns how often a barrier is injected when nobody
// asks for one sooner.
func (c *Coordinator) BarrierInterval() time.Duration { return time.Duration(c.every.Load()) }

// SetBarrierInterval changes the barrier interval (d > 0) from the next
// tick on: the barrier loop resets its ticker at once. Creating jobs
// started later tick at most this often too.
func (c *Coordinator) SetBarrierInterval(d time.Duration) {
	if d <= 0 {
		panic("stream: SetBarrierInterval of a non-positive duration")
	}
	c.every.Store(int64(d))
	select {
	case c.retick <- struct{}{}:
	default: // a reset is already due
	}
}

// Epoch returns the epoch the next barrier starts (its Prev).
func (c *Coordinator) Epoch() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.epoch
}

// CommittedEpoch returns the last committed epoch.
func (c *Coordinator) CommittedEpoch() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.committed
}

// Start registers the initial actors and sources, starts the creating
// jobs on the committed state, and starts the barrier loop.
func (c *Coordinator) Start(actors []*Actor, sources map[ActorID]*Source, creating []*CreatingJob) {
	c.mu.Lock()
	c.startLocked(actors, sources)
	c.regroupLocked()
	c.startCreatingLocked(creating)
	c.mu.Unlock()
	go c.loop()
}

// Done returns a channel closed when the current graph is torn down
// (failure or Close); senders into source channels select on it.
func (c *Coordinator) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.graphCtx.Done()
}

func (c *Coordinator) startLocked(actors []*Actor, sources map[ActorID]*Source) {
	for id, ch := range sources {
		c.sources[id] = ch
	}
	for _, a := range actors {
		c.actors[a.ID] = a
		c.runActorLocked(a)
	}
}

// runActorLocked starts the goroutine of actor a in the current graph.
func (c *Coordinator) runActorLocked(a *Actor) {
	ctx := context.WithValue(c.graphCtx, actorKey{}, &actorCtx{a: a, slots: c.slots})
	c.actorWG.Add(1)
	go func() {
		defer c.actorWG.Done()
		err := a.run(ctx, c)
		if err == nil && !a.stopped {
			err = &ActorError{Actor: a.ID, Err: errExitedWithoutStop}
		}
		if err != nil && ctx.Err() == nil {
			c.fail(err)
		}
	}()
}

// startCreatingLocked starts creating jobs on the committed state: each
// scan gets a snapshot of it, and the job's actors and barrier loop
// start. Their writers were started as actors of the running graph, no
// later than the barrier whose epoch committed last, so no change after
// the snapshot escapes the log store (I3). Called from the barrier loop
// (or before it runs), between two commits.
func (c *Coordinator) startCreatingLocked(jobs []*CreatingJob) {
	epoch := c.committed
	for _, j := range jobs {
		j.c = c
		j.interval = min(JobInterval, c.BarrierInterval())
		j.limitedInterval = min(LimitedJobInterval, c.BarrierInterval())
		j.paused = j.Paused
		j.lagLow = -1
		j.limited = j.LatencyTarget <= 0 && len(j.Scans) > 0 && j.Scans[0].opts.RateLimit > 0
		j.baseline = c.baselineLatency(time.Now())
		j.schedBase = c.sched.baseline(time.Now())
		if j.LatencyTarget > 0 {
			j.rate, j.lastLook = AdaptiveStartRate, time.Now()
			j.startSignals(j.lastLook)
			j.rateNow.Store(int64(j.rate))
			j.targetNow.Store(int64(j.Target()))
			for _, s := range j.Scans {
				// Before their actors run: they start at it.
				s.applyMutation(&ThrottleMutation{Kind: ThrottleBackfill, Job: j.ID, RateLimit: int64(j.rate), Paused: j.Paused})
			}
		}
		j.kick = make(chan struct{}, 1)
		j.stopCh, j.exited = make(chan struct{}), make(chan struct{})
		for _, w := range j.Writers {
			if lw, ok := w.Exec.(*LogWriter); ok {
				if err := lw.Load(); err != nil {
					// It fails again in the writer's actor, which fails
					// the graph.
					c.opts.Logger.Error("loading a log writer", "job", j.ID, "err", err)
				}
			}
		}
		for _, s := range j.Scans {
			s.Pin(c.store.Snapshot(), epoch)
			s.wake = j.kick
		}
		for _, a := range j.Actors {
			a.background.Store(true)
			c.runActorLocked(a)
		}
		c.creating[j.ID] = j
		c.creatingN.Add(1)
		c.creatingStarts.Add(1)
		ctx := c.graphCtx
		c.actorWG.Add(1)
		go func() {
			defer c.actorWG.Done()
			j.run(ctx)
		}()
	}
}

// CheckpointCreating waits until each job creating at the call has
// committed a barrier of its own injected after the call (or ended).
func (c *Coordinator) CheckpointCreating(ctx context.Context) error {
	c.mu.Lock()
	jobs := make([]*CreatingJob, 0, len(c.creating))
	for _, j := range c.creating {
		jobs = append(jobs, j)
	}
	c.mu.Unlock()
	for _, j := range jobs {
		r := request{done: make(chan error, 1)}
		j.enqueue(r)
		select {
		case err := <-r.done:
			if err != nil {
				return err
			}
		case <-ctx.Done():
			return ctx.Err()
		case <-c.stop:
			return ErrClosed
		}
	}
	return nil
}

// CreatingJob returns the job with id while it runs on its own barriers.
func (c *Coordinator) CreatingJob(id uint32) *CreatingJob {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.creating[id]
}

// Checkpoint waits until a barrier injected after the call has committed:
// every change sent into a source before the call is then durable and
// visible in every view.
func (c *Coordinator) Checkpoint(ctx context.Context) error {
	return c.submit(ctx, request{})
}

// CommitSource waits until everything sent into src before mark was
// taken (Source.Mark) is committed. Unlike Checkpoint it fails
// (ErrGraphFailed) when src's graph was torn down first, also when the
// barrier that serves the call runs on a rebuilt graph: the changes sent
// into src are then lost, not committed. It succeeds when they are
// committed, also when the barrier that committed them came before the
// one serving the call and that one failed: an error means the changes
// are not committed.
func (c *Coordinator) CommitSource(ctx context.Context, src *Source, mark uint64) error {
	return c.submit(ctx, request{source: src, mark: mark})
}

// Mutate injects a barrier carrying m, starting actors (and registering
// their source channels) just before, and waits for it to commit. A
// backfill ThrottleMutation for a job still creating goes on the job's
// own barriers instead, and Mutate returns once one of them carrying it
// has committed.
func (c *Coordinator) Mutate(ctx context.Context, m Mutation, actors []*Actor, sources map[ActorID]*Source) error {
	return c.submit(ctx, request{mutation: m, actors: actors, sources: sources})
}

// Create starts a creating job made for the graph of generation gen (see
// MutateIn): its writers start before a barrier that carries add (which
// attaches them to their upstreams) and, once that barrier's epoch E0 has
// committed, the job's scans start on a snapshot at E0 and the job runs
// on its own barriers. sources are the writers' sources, if any (the
// barrier sources of constant rows, see Values), registered with them.
func (c *Coordinator) Create(ctx context.Context, gen uint64, add *AddMutation, job *CreatingJob, sources map[ActorID]*Source) error {
	return c.submit(ctx, request{mutation: add, actors: job.Writers, sources: sources, gen: gen, creating: []*CreatingJob{job}})
}

// errJoinAborted answers a join whose job was asked to stop first.
var errJoinAborted = errors.New("stream: the creating job stopped before it joined")

// join asks for the barrier at which creating job j joins the running
// graph and waits for it to commit. It gives up, with errJoinAborted,
// when j is asked to stop meanwhile: the barrier loop may be waiting for
// j to stop.
//
// Unlike submit it also gives up when ctx, the graph's, ends, after the
// request was taken too: a recovery's teardown waits for the job's loop,
// which waits here, so waiting for the answer would deadlock.
func (c *Coordinator) join(ctx context.Context, j *CreatingJob) error {
	r := request{mutation: &JoinMutation{Job: j.ID, Outputs: j.Forward}, join: j, done: make(chan error, 1)}
	select {
	case c.reqs <- r:
	case <-j.stopCh:
		return errJoinAborted
	case <-ctx.Done():
		return ErrGraphFailed
	case <-c.stop:
		return ErrClosed
	}
	select {
	case err := <-r.done:
		return err
	case <-j.stopCh:
		return errJoinAborted
	case <-ctx.Done():
		return ErrGraphFailed
	case <-c.stop:
		return ErrClosed
	}
}

// Generation identifies the running graph: it changes when a recovery
// has rebuilt it (after the rebuild, so a caller that reads Generation
// and then the graph's actors sees actors of that generation or later).
func (c *Coordinator) Generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// MutateIn is Mutate for a mutation and actors made for the graph of
// generation gen, whose actor ids they name or whose outputs they are
// wired to (an Add's exchanges, a Stop's actors). When the graph was
// rebuilt since, nothing is started or applied and it fails with
// ErrGraphFailed: the caller looks at the rebuilt graph and tries again.
// (Before, an Add made for a graph a recovery had replaced started the
// new job's actors with exchanges on actors that no longer ran: they
// never got a barrier, and every barrier after waited for them forever.)
func (c *Coordinator) MutateIn(ctx context.Context, gen uint64, m Mutation, actors []*Actor, sources map[ActorID]*Source) error {
	return c.submit(ctx, request{mutation: m, actors: actors, sources: sources, gen: gen})
}

// Running reports whether actor id runs in the current graph (a creating
// job's included).
func (c *Coordinator) Running(id ActorID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.actors[id] != nil {
		return true
	}
	for _, j := range c.creating {
		if j.owns(id) {
			return true
		}
	}
	return false
}

// errStaleGraph is the cause of a MutateIn for a graph since rebuilt.
var errStaleGraph = errors.New("the graph was rebuilt after the change was prepared")

// dropStale answers the requests of batch made for an older graph and
// returns the others.
func (c *Coordinator) dropStale(batch []request) []request {
	gen := c.Generation()
	live := batch[:0]
	for _, r := range batch {
		if r.gen != 0 && r.gen != gen {
			r.done <- &graphFailedError{cause: errStaleGraph}
			continue
		}
		live = append(live, r)
	}
	return live
}

func (c *Coordinator) submit(ctx context.Context, r request) error {
	r.done, r.at = make(chan error, 1), time.Now()
	select {
	case c.reqs <- r:
	case <-ctx.Done():
		return ctx.Err()
	case <-c.stop:
		return ErrClosed
	}
	select {
	case err := <-r.done:
		return err
	case <-c.stop:
		return ErrClosed
	}
}

// loop is the barrier loop. Components of the running graph run their
// barriers side by side (see component); a global barrier (a mutation, a
// checkpoint, new actors) waits until none is in flight and then is the
// only one.
func (c *Coordinator) loop() {
	defer close(c.loopDone)
	every := c.BarrierInterval()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for !c.isStopping() {
		if d := c.BarrierInterval(); d != every {
			every = d
			tick.Reset(d)
		}
		if c.storeFailed != nil {
			if !c.refuse() {
				return
			}
			continue
		}
		if !c.waitBackoff() {
			return
		}
		if len(c.pending) > 0 {
			if !c.busy() {
				c.globalBarrier()
				continue
			}
		} else {
			c.injectComponents()
		}
		if !c.waitEvent(tick.C) {
			return
		}
	}
}

// globalBarrier runs one barrier through the whole graph: the pending
// requests without a mutation and the first with one, and the writes
// waiting in components.
func (c *Coordinator) globalBarrier() {
	var batch, later []request
	hasMut := false
	for _, r := range c.pending {
		if r.mutation != nil {
			if hasMut {
				later = append(later, r)
				continue
			}
			hasMut = true
		}
		batch = append(batch, r)
	}
	c.pending = later
	batch = c.route(c.dropStale(batch))
	for _, comp := range c.comps {
		batch = append(batch, comp.waiting...)
		comp.waiting, comp.due = nil, false
	}
	if len(batch) == 0 {
		return // all answered or handed to creating jobs
	}
	err := c.barrier(batch)
	for _, r := range batch {
		switch {
		case r.source == nil:
			r.done <- err
		case r.source.Committed(r.mark):
			// Committed, by this barrier or one before it (whose
			// commit came after the request was made).
			c.answered(r)
		case err != nil:
			r.done <- err
		default:
			// Not committed, and the barrier was not injected into the
			// source: its graph is gone.
			r.done <- c.goneError()
		}
	}
}

// route hands the backfill flow-control requests of creating jobs to the
// jobs (their scans take them on the job's barriers), answers the joins
// of jobs that stopped meanwhile, and returns the other requests.
func (c *Coordinator) route(batch []request) []request {
	c.mu.Lock()
	defer c.mu.Unlock()
	live := batch[:0]
	for _, r := range batch {
		if t, ok := r.mutation.(*ThrottleMutation); ok && t.Kind == ThrottleBackfill {
			if j := c.creating[t.Job]; j != nil && !j.stopping() {
				j.enqueue(r)
				continue
			}
		}
		if r.join != nil && (c.creating[r.join.ID] != r.join || r.join.stopping()) {
			r.done <- errJoinAborted
			continue
		}
		live = append(live, r)
	}
	return live
}

// stopCreating stops the creating jobs that have an actor m stops (a
// Stop or Update mutation): each runs a last barrier of its own that
// stops its actors, before the running graph's barrier stops its
// writers. It waits for them; false when the graph failed or the
// coordinator stopped meanwhile.
func (c *Coordinator) stopCreating(ctx context.Context, m Mutation) bool {
	stop := stoppedActors(m)
	if len(stop) == 0 {
		return true
	}
	var jobs []*CreatingJob
	c.mu.Lock()
	for _, j := range c.creating {
		for id := range stop {
			if j.owns(id) {
				jobs = append(jobs, j)
				break
			}
		}
	}
	c.mu.Unlock()
	for _, j := range jobs {
		j.requestStop()
		select {
		case <-j.exited:
		case <-ctx.Done():
			return false
		case <-c.stop:
			return false
		}
		c.mu.Lock()
		if _, ok := c.creating[j.ID]; ok {
			delete(c.creating, j.ID)
			c.creatingN.Add(-1)
		}
		c.mu.Unlock()
	}
	return true
}

// refuse answers the next request with the store's failure; false when
// the coordinator stops.
func (c *Coordinator) refuse() bool {
	for _, r := range c.pending {
		r.done <- c.storeFailed
	}
	c.pending = nil
	select {
	case <-c.stop:
		return false
	case r := <-c.reqs:
		r.done <- c.storeFailed
		return true
	}
}

// barrier injects one barrier, waits for every actor to collect it and
// commits the epoch, and marks what it committed in each source it was
// injected into. On failure it tears the graph down and asks for a
// rebuild.
func (c *Coordinator) barrier(reqs []request) error {
	var m Mutation
	var join *CreatingJob
	for _, r := range reqs {
		if r.mutation != nil {
			m, join = r.mutation, r.join
		}
	}
	c.mu.Lock()
	ctx := c.graphCtx
	c.mu.Unlock()
	if !c.stopCreating(ctx, m) {
		err := c.failure()
		c.recoverGraph(err)
		return &graphFailedError{cause: err}
	}
	c.mu.Lock()
	for _, r := range reqs {
		c.startLocked(r.actors, r.sources)
	}
	upd, _ := m.(*UpdateMutation)
	all := make(map[ActorID]bool, len(c.actors))
	for id := range c.actors {
		all[id] = true
	}
	es := c.newEpochLocked(m, all)
	sources := make([]*Source, 0, len(c.sources))
	for _, ch := range c.sources {
		sources = append(sources, ch)
	}
	c.mu.Unlock()

	err := c.injectAndCollect(ctx, es, sources)
	if err == nil {
		commitStart := time.Now()
		err = c.store.CommitEpoch(es.barrier.Prev, es.batches)
		if err != nil {
			err = fmt.Errorf("stream: committing epoch %d: %w", es.barrier.Prev, err)
		} else {
			c.observeCommit(commitStart, es.made)
		}
	}
	if err == nil {
		for _, m := range es.marks {
			m.src.committed.Store(m.n)
		}
	}
	es.barrier.commit.err = err
	close(es.barrier.commit.done)
	c.mu.Lock()
	delete(c.inflight, es.barrier)
	if err == nil {
		c.committed = es.barrier.Prev
		c.removeStoppedLocked(m)
		c.failures = 0
		if join != nil {
			// The job's actors take part in the running graph's
			// barriers from the next one on (I8).
			for _, a := range join.Actors {
				a.background.Store(false)
				c.actors[a.ID] = a
			}
			if _, ok := c.creating[join.ID]; ok {
				delete(c.creating, join.ID)
				c.creatingN.Add(-1)
			}
			join.joinedAt.Store(time.Now().UnixNano())
		}
		for _, r := range reqs {
			c.startCreatingLocked(r.creating)
		}
	}
	c.mu.Unlock()
	if err != nil {
		c.endGraph(err)
		if c.storeFailed != nil {
			return err // not a retry: the store takes no more writes
		}
		return &graphFailedError{cause: err}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if upd != nil {
		// The replaced actors are gone; the new ones start on the state
		// the epoch committed, before the next barrier is injected.
		if upd.Committed != nil {
			upd.Committed()
		}
		c.startLocked(upd.Start, upd.Sources)
		c.startCreatingLocked(upd.Creating)
	}
	c.regroupLocked()
	return nil
}

// endGraph ends the graph after err: a failed store stops it for good
// (every request then gets the store's error), anything else rebuilds it.
func (c *Coordinator) endGraph(err error) {
	if errors.Is(err, storage.ErrStoreFailed) {
		c.lastCause, c.storeFailed = err, err
		c.teardown()
		c.opts.Logger.Error("the store failed; the streaming graph stops until the database is reopened", "err", err)
		return
	}
	c.recoverGraph(err)
}

// now is the time a barrier made now carries (unix microseconds).
func (c *Coordinator) now() int64 {
	if c.opts.Clock != nil {
		return c.opts.Clock().UnixMicro()
	}
	return time.Now().UnixMicro()
}

// newEpochLocked makes the next barrier, carrying m, and registers it in
// flight, waiting for the actors of expected (which it takes).
func (c *Coordinator) newEpochLocked(m Mutation, expected map[ActorID]bool) *epochState {
	b := &Barrier{Prev: c.epoch, Curr: c.epoch + 1, Mutation: m, Time: c.now(),
		commit: &commitSignal{done: make(chan struct{})}}
	c.epoch++
	es := &epochState{barrier: b, expected: make(map[ActorID]bool, len(expected)), all: make(chan struct{}), made: time.Now()}
	for id := range expected {
		es.expected[id] = true
	}
	if invariants {
		for _, j := range c.creating {
			for _, a := range j.Actors {
				if es.expected[a.ID] {
					panic(fmt.Sprintf("invariant I8 violated: barrier %d waits for actor %d of creating job %d", b.Prev, a.ID, j.ID))
				}
			}
		}
	}
	if len(es.expected) == 0 {
		close(es.all)
	}
	c.inflight[b] = es
	return es
}

func (c *Coordinator) injectAndCollect(ctx context.Context, es *epochState, sources []*Source) error {
	for _, src := range sources {
		if err := c.inject(ctx, src, es); err != nil {
			return err
		}
	}
	select {
	case <-es.all:
		return nil
	case <-ctx.Done():
		return c.failure()
	case <-c.stop:
		return ErrClosed
	}
}

// inject sends the epoch's barrier into src once no statement holds it.
func (c *Coordinator) inject(ctx context.Context, src *Source, es *epochState) error {
	select {
	case src.lock <- struct{}{}:
	case <-ctx.Done():
		return c.failure()
	case <-c.stop:
		return ErrClosed
	}
	defer src.Release()
	select {
	case src.C <- Message{Barrier: es.barrier}:
		src.injected++
		es.marks = append(es.marks, sourceMark{src, src.injected})
		return nil
	case <-ctx.Done():
		return c.failure()
	case <-c.stop:
		return ErrClosed
	}
}

func (c *Coordinator) failure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failed != nil {
		return c.failed
	}
	return ErrGraphFailed
}

func (c *Coordinator) removeStoppedLocked(m Mutation) {
	for id := range stoppedActors(m) {
		delete(c.actors, id)
		if src := c.sources[id]; src != nil {
			src.kill()
		}
		delete(c.sources, id)
	}
}

// collect is called by an actor that has dispatched barrier b.
func (c *Coordinator) collect(id ActorID, b *Barrier, wb *storage.WriteBatch) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	es := c.inflight[b]
	if es == nil {
		return fmt.Errorf("stream: actor %d collected barrier %d, which is not in flight", id, b.Prev)
	}
	if !es.expected[id] {
		return fmt.Errorf("stream: actor %d is not expected at barrier %d", id, b.Prev)
	}
	delete(es.expected, id)
	es.batches = append(es.batches, wb)
	if len(es.expected) == 0 {
		close(es.all)
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
	return nil
}

// fail records an actor failure and cancels the graph; the barrier loop
// notices and recovers.
func (c *Coordinator) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failed == nil {
		c.failed = err
		c.opts.Logger.Error("streaming actor failed", "err", err)
	}
	c.cancel()
}

// recoverGraph stops every actor, joins them, and asks the owner to rebuild
// the graph from committed state. When the graph keeps failing (no epoch
// committed since the last recovery) the next barrier waits a backoff
// (waitBackoff): the statements that waited get their answer at once,
// and statements sent into the rebuilt graph commit after the backoff.
func (c *Coordinator) recoverGraph(cause error) {
	c.lastCause = cause
	c.teardown()
	if c.isStopping() {
		return
	}
	c.failures++
	if d := recoveryBackoff(c.failures); d > 0 {
		c.opts.Logger.Warn("streaming graph keeps failing; backing off before the next barrier",
			"failures", c.failures, "backoff", d, "cause", cause)
		c.backoff = d
	}
	c.mu.Lock()
	c.failed = nil
	c.graphCtx, c.cancel = context.WithCancel(context.Background())
	c.mu.Unlock()
	if c.opts.OnFailure != nil {
		c.opts.OnFailure(cause)
	}
	c.mu.Lock()
	c.gen++
	c.mu.Unlock()
}

// recoveryBackoff is how long the barrier after the n-th recovery in a
// row with no epoch committed in between waits: nothing after the first,
// then doubling from 100ms up to 5s, so a failure that repeats does not
// spin.
func recoveryBackoff(n int) time.Duration {
	if n <= 1 {
		return 0
	}
	d := 100 * time.Millisecond << min(n-2, 6)
	return min(d, 5*time.Second)
}

// waitBackoff waits out the backoff of the last recovery; false when the
// coordinator stops meanwhile.
func (c *Coordinator) waitBackoff() bool {
	if c.backoff == 0 {
		return true
	}
	t := time.NewTimer(c.backoff)
	defer t.Stop()
	c.backoff = 0
	select {
	case <-t.C:
		return true
	case <-c.stop:
		return false
	}
}

func (c *Coordinator) isStopping() bool {
	select {
	case <-c.stop:
		return true
	default:
		return false
	}
}

// teardown cancels and joins every actor and forgets the registry.
func (c *Coordinator) teardown() {
	c.mu.Lock()
	c.cancel()
	c.mu.Unlock()
	c.actorWG.Wait()
	c.mu.Lock()
	for _, src := range c.sources {
		src.kill()
	}
	c.actors = map[ActorID]*Actor{}
	c.sources = map[ActorID]*Source{}
	c.creating = map[uint32]*CreatingJob{}
	c.creatingN.Store(0)
	c.inflight = map[*Barrier]*epochState{}
	c.regroupLocked()
	c.mu.Unlock()
}

// Restart registers a rebuilt graph after a failure (called from
// OnFailure), its creating jobs resuming on the committed state.
func (c *Coordinator) Restart(actors []*Actor, sources map[ActorID]*Source, creating []*CreatingJob) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.startLocked(actors, sources)
	c.regroupLocked()
	c.startCreatingLocked(creating)
}

// Close stops the barrier loop and every actor and waits for them.
func (c *Coordinator) Close() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	c.mu.Unlock()
	close(c.stop)
	<-c.loopDone
	c.teardown()
}
