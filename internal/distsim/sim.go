package distsim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// Config is one simulation. Zero sizes are drawn from the seed.
type Config struct {
	Seed   uint64
	Faults Faults
	// Processes is the number of process instances; SrcParts and
	// AggParts the partitions of the input and repartition topics.
	Processes, SrcParts, AggParts int
	// Keys is the number of distinct keys; Records the input's size.
	Keys, Records int
	// Batch is the most records a task takes in one step.
	Batch int
	// ChaosSteps is the number of scheduler events before the system is
	// left to quiesce; TxnTimeout the transaction timeout in ticks.
	ChaosSteps int
	TxnTimeout int64
	// Checks selects the checks that run (0: all of them); the tests
	// turn some off to show that each one catches broken variants on
	// its own.
	Checks Checks
}

// Checks is a set of checks.
type Checks uint8

const (
	// CheckState is I6: an aggregate's state, at every commit and every
	// restore from the changelog, is the query over the input its
	// committed epoch covers.
	CheckState Checks = 1 << iota
	// CheckOutput is I3: once quiet, the output folded by key is the
	// query over the whole input.
	CheckOutput
	// CheckZombies: no transaction of a fenced or expelled process
	// became visible.
	CheckZombies
	// AllChecks is every check.
	AllChecks = CheckState | CheckOutput | CheckZombies
)

// fill draws the zero fields from rng.
func (c *Config) fill(rng *rand.Rand) {
	draw := func(v *int, lo, hi int) {
		if *v == 0 {
			*v = lo + rng.IntN(hi-lo+1)
		}
	}
	draw(&c.Processes, 1, 4)
	draw(&c.SrcParts, 1, 4)
	draw(&c.AggParts, 1, 4)
	draw(&c.Keys, 1, 24)
	draw(&c.Records, 20, 240)
	draw(&c.Batch, 1, 8)
	draw(&c.ChaosSteps, 300, 1500)
	if c.Checks == 0 {
		c.Checks = AllChecks
	}
	if c.TxnTimeout == 0 {
		c.TxnTimeout = int64(60 + rng.IntN(300))
	}
}

func (c Config) String() string {
	return fmt.Sprintf("seed=%d processes=%d src=%d agg=%d keys=%d records=%d batch=%d chaos=%d txn-timeout=%d faults=%+v",
		c.Seed, c.Processes, c.SrcParts, c.AggParts, c.Keys, c.Records, c.Batch, c.ChaosSteps, c.TxnTimeout, c.Faults)
}

// Stats count what a run did.
type Stats struct {
	Events, Commits, Crashes, Restarts, Freezes, Zombies, Rebalances,
	Expelled, Fenced, UnstableWaits, CommitsAfterExpulsion, Restores, StateChecks, QuiesceRounds int
}

// Result is a run's outcome: its configuration, what it did, and its
// trace of events.
type Result struct {
	Config Config
	Stats  Stats
	Trace  []string
}

// Sim is one simulation: the broker, the process incarnations, the
// scheduler's random source and clock. Everything runs on the caller's
// goroutine, so a seed replays exactly.
type Sim struct {
	cfg   Config
	rng   *rand.Rand
	now   int64
	epoch uint64
	b     *Broker
	// procs are every incarnation ever started; latest[i] is instance
	// i's newest.
	procs  []*process
	latest []int
	// vnodePart maps a vnode to its repartition partition: the vnode
	// ranges of storage.SplitVnodes, as the engine splits vnodes among
	// a fragment's actors.
	vnodePart [storage.NumVnodes]int
	produced  int
	stats     Stats
	trace     []string
	failure   error
}

// Run runs one simulation: chaos for cfg.ChaosSteps events, then
// quiescence, then the final checks. The error is the first check that
// failed, with the seed and the end of the trace.
func Run(cfg Config) (*Result, error) {
	s := newSim(cfg)
	s.run()
	res := &Result{Config: s.cfg, Stats: s.stats, Trace: s.trace}
	if s.failure != nil {
		return res, &Failure{Config: s.cfg, Err: s.failure, Trace: s.trace}
	}
	return res, nil
}

// Failure is a failed check, with what reproduces it.
type Failure struct {
	Config Config
	Err    error
	Trace  []string
}

func (f *Failure) Error() string {
	const tail = 60
	t := f.Trace
	if len(t) > tail {
		t = t[len(t)-tail:]
	}
	return fmt.Sprintf("%v\n(%v; rerun with STREAMDB_SIM_SEED=%d STREAMDB_SIM_TRACE=1 for the whole trace)\nlast events:\n  %s",
		f.Err, f.Config, f.Config.Seed, strings.Join(t, "\n  "))
}

func (f *Failure) Unwrap() error { return f.Err }

func newSim(cfg Config) *Sim {
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x5eed5eed5eed5eed))
	cfg.fill(rng)
	s := &Sim{cfg: cfg, rng: rng, latest: make([]int, cfg.Processes)}
	s.b = newBroker(func() int64 { return s.now }, cfg.Faults, cfg.SrcParts, cfg.AggParts)
	owners := storage.SplitVnodes(cfg.AggParts)
	for q, set := range owners {
		for _, v := range set.Vnodes() {
			s.vnodePart[v] = q
		}
	}
	for i := range cfg.Processes {
		s.latest[i] = -1
		s.startIncarnation(i)
	}
	return s
}

// partitionOf returns the repartition partition of a key: its vnode is
// the engine's (storage.VnodeOf of the bigint key), and the vnode's range
// names the partition.
func (s *Sim) partitionOf(key int64) int {
	v, err := storage.VnodeOf([]types.Type{types.TInt64}, []types.Datum{key})
	if err != nil {
		panic(err) // a bigint always encodes
	}
	return s.vnodePart[v]
}

// nextEpoch returns a new barrier epoch: greater than every epoch before
// it (in the design, physical time with a logical counter below it).
func (s *Sim) nextEpoch() uint64 {
	s.epoch++
	return s.epoch
}

func (s *Sim) tracef(format string, args ...any) {
	s.trace = append(s.trace, fmt.Sprintf("t=%d ", s.now)+fmt.Sprintf(format, args...))
}

// fail records the first failed check.
func (s *Sim) fail(err error) {
	if s.failure == nil {
		s.failure = err
		s.tracef("CHECK FAILED: %v", err)
	}
}

// startIncarnation starts a new incarnation of instance i: its producer
// is initialized under the instance's transactional id, which aborts the
// open transaction of the one before and fences it.
func (s *Sim) startIncarnation(i int) {
	inc := 1
	if old := s.latest[i]; old >= 0 {
		o := s.procs[old]
		inc = o.inc + 1
		if !o.dead {
			o.supersededAt = s.now
			s.stats.Zombies++
		}
	}
	tid := fmt.Sprintf("proc-%d", i)
	if s.cfg.Faults.NoZombieFencing {
		tid = fmt.Sprintf("proc-%d.%d", i, inc)
	}
	p := &process{s: s, id: len(s.procs), instance: i, inc: inc, supersededAt: -1, expelledAt: -1}
	p.prod = s.b.InitProducer(tid, p.id)
	s.procs = append(s.procs, p)
	s.latest[i] = p.id
	s.stats.Restarts++
	s.tracef("%v starts (producer %s epoch %d)", p, tid, p.prod.epoch)
}

// expel marks an incarnation the group no longer has.
func (s *Sim) expel(instance, inc int) {
	for _, p := range s.procs {
		if p.instance == instance && p.inc == inc && p.expelledAt < 0 {
			p.expelledAt = s.now
			s.stats.Expelled++
			s.tracef("%v expelled by the group", p)
		}
	}
}

// restore reads an aggregate partition's state from its changelog:
// read_committed to its end, the last value of each key.
func (s *Sim) restore(q int) map[int64]aggValue {
	t := tp{topicChangelog, q}
	recs, _ := s.b.Fetch(t, 0, int(s.b.End(t))+1, s.cfg.Faults.RestoreUncommitted)
	state := map[int64]aggValue{}
	for _, r := range recs {
		state[r.Key] = aggValue{r.Count, r.Sum}
	}
	return state
}

func (s *Sim) run() {
	s.tracef("config: %v", s.cfg)
	for range s.cfg.ChaosSteps {
		if s.failure != nil {
			return
		}
		s.tick()
		s.chaos()
	}
	s.quiesce()
	if s.failure == nil {
		s.finalChecks()
	}
}

// tick advances the clock and times out transactions open too long.
func (s *Sim) tick() {
	s.now++
	s.stats.Events++
	for _, owner := range s.b.ExpireTxns(s.cfg.TxnTimeout) {
		p := s.procs[owner]
		if p.supersededAt < 0 {
			p.supersededAt = s.now
		}
		s.tracef("%v: transaction timed out, producer fenced", p)
	}
}

// chaos runs one random event.
func (s *Sim) chaos() {
	switch x := s.rng.IntN(100); {
	case x < 10:
		s.produce(1 + s.rng.IntN(4))
	case x < 60:
		if p := s.pick(func(p *process) bool { return p.running() }); p != nil {
			p.step()
		}
	case x < 72:
		if p := s.pick(func(p *process) bool { return p.running() }); p != nil {
			p.barrier()
		}
	case x < 74:
		if p := s.pick(func(p *process) bool { return !p.dead }); p != nil {
			p.dead, p.crashed = true, true
			s.stats.Crashes++
			s.tracef("%v crashes", p)
		}
	case x < 78:
		s.restartCrashed()
	case x < 80:
		if p := s.pick(func(p *process) bool { return p.running() }); p != nil {
			p.frozen = true
			s.stats.Freezes++
			s.tracef("%v freezes", p)
		}
	case x < 84:
		if p := s.pick(func(p *process) bool { return !p.dead && p.frozen }); p != nil {
			p.frozen = false
			s.tracef("%v resumes", p)
		}
	case x < 85:
		// Restarted while the old incarnation is only paused: the old
		// one is a zombie that may resume later.
		if p := s.pick(func(p *process) bool { return !p.dead && p.frozen && s.latest[p.instance] == p.id }); p != nil {
			s.tracef("%v is replaced while frozen", p)
			s.startIncarnation(p.instance)
		}
	case x < 88:
		if !s.b.group.preparing {
			s.b.group.preparing = true
			s.stats.Rebalances++
			s.tracef("rebalance starts (generation %d)", s.b.group.gen)
		}
	case x < 97:
		s.completeRebalance(false)
	default:
		s.completeRebalance(true)
	}
}

// pick returns a random process incarnation that ok accepts, or nil.
func (s *Sim) pick(ok func(*process) bool) *process {
	var c []*process
	for _, p := range s.procs {
		if ok(p) {
			c = append(c, p)
		}
	}
	if len(c) == 0 {
		return nil
	}
	return c[s.rng.IntN(len(c))]
}

// produce appends n input records, if the input is not all written.
func (s *Sim) produce(n int) {
	for ; n > 0 && s.produced < s.cfg.Records; n-- {
		part := s.rng.IntN(s.cfg.SrcParts)
		key, val := int64(s.rng.IntN(s.cfg.Keys)), int64(s.rng.IntN(100)-20)
		off := s.b.ProduceInput(part, key, val)
		s.produced++
		s.tracef("input/%d@%d: key %d val %d", part, off, key, val)
	}
}

// restartCrashed starts a new incarnation of an instance whose latest
// one crashed.
func (s *Sim) restartCrashed() {
	var c []int
	for i, id := range s.latest {
		if s.procs[id].dead {
			c = append(c, i)
		}
	}
	if len(c) > 0 {
		s.startIncarnation(c[s.rng.IntN(len(c))])
	}
}

// completeRebalance ends a rebalance in progress once every current
// member has joined, or, with timeout, at once (the session timeout:
// whoever has not joined is expelled).
func (s *Sim) completeRebalance(timeout bool) {
	g := s.b.group
	if !g.preparing || (!timeout && !g.AllJoined(g.members)) {
		return
	}
	for _, m := range g.Complete(s.rng) {
		s.expel(m.Instance, m.Inc)
	}
	s.tracef("generation %d: assignment %v", g.gen, g.assign)
}

// quiesce lets the system finish: the rest of the input is written,
// frozen processes resume, crashed instances restart, and rounds of
// steps and barriers run on every process until all input is consumed,
// every record is applied and committed, and no transaction is open.
func (s *Sim) quiesce() {
	s.tracef("quiesce")
	s.produce(s.cfg.Records)
	for _, p := range s.procs {
		p.frozen = false
	}
	for i, id := range s.latest {
		if s.procs[id].dead {
			s.startIncarnation(i)
		}
	}
	const maxRounds = 300
	for round := range maxRounds {
		if s.failure != nil {
			return
		}
		s.stats.QuiesceRounds = round + 1
		s.tick()
		for range 40 {
			s.stepAll()
		}
		g := s.b.group
		if g.preparing {
			s.completeRebalance(round%4 == 3)
		}
		for _, p := range s.procs {
			p.barrier()
		}
		for range 4 {
			s.stepAll() // finish the commits
		}
		if s.quiet() {
			return
		}
	}
	s.fail(errors.New("liveness: the system did not quiesce"))
}

func (s *Sim) stepAll() {
	for _, p := range s.procs {
		p.step()
	}
}

// quiet reports whether the system is done: a stable generation every
// live instance holds with all its tasks started, all input read and
// committed, every repartition partition's records past its committed
// offset only markers, and no transaction open.
func (s *Sim) quiet() bool {
	g := s.b.group
	if g.preparing || s.b.openTxns() > 0 {
		return false
	}
	for _, id := range s.latest {
		p := s.procs[id]
		if p.dead || p.gen != g.gen || p.commit != nil {
			return false
		}
		for _, t := range p.src {
			if t != nil && !t.ready {
				return false
			}
		}
		for _, t := range p.agg {
			if t != nil && !t.ready {
				return false
			}
		}
	}
	for i := range s.cfg.SrcParts {
		t := tp{topicInput, i}
		if g.offsets[t].Offset != s.b.End(t) {
			return false
		}
	}
	for q := range s.cfg.AggParts {
		t := tp{topicRepart, q}
		recs, _ := s.b.Fetch(t, g.offsets[t].Offset, int(s.b.End(t))+1, false)
		for _, r := range recs {
			if !r.Marker {
				return false
			}
		}
	}
	return true
}
