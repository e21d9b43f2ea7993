package distsim

import (
	"errors"
	"fmt"
	"slices"
)

// process is one incarnation of a simulated streamdb process: a static
// group instance id, the incarnation number (a restart is a new
// incarnation of the same instance), one transactional producer (EOS v2:
// one producer per process, whatever its tasks), and the tasks of its
// generation's assignment: source tasks (input partitions) and aggregate
// tasks (repartition partitions, that is vnode ranges).
//
// A crash loses everything in it; what survives is in the broker.
type process struct {
	s             *Sim
	id            int // index in Sim.procs; a transaction's owner
	instance, inc int
	prod          *Producer

	gen int // the generation whose assignment src and agg are (0: none)
	src []*srcTask
	agg []*aggTask
	// commit is the barrier whose offsets were sent and whose
	// transaction is still to commit (the next step commits it).
	commit *pendingCommit
	// joinAfter: join the rebalance once the barrier in flight commits
	// (partitions are revoked at a barrier). waiting: joined, and
	// waiting for the next generation's assignment.
	joinAfter, waiting bool

	frozen  bool // paused (a long GC, a partition): not stepped
	dead    bool // crashed, or exited after being fenced
	crashed bool
	// When the process became a zombie, for the checks (-1: never):
	// supersededAt, when its producer epoch stopped being current (a
	// newer incarnation initialized it, or its transaction timed out);
	// expelledAt, when the group moved to a generation without it.
	supersededAt, expelledAt int64
}

type pendingCommit struct {
	epoch uint64
	src   []int
	agg   map[int]uint64 // task -> aligned epoch committed
}

func (p *process) String() string { return fmt.Sprintf("p%d.%d", p.instance, p.inc) }

func (p *process) running() bool { return !p.dead && !p.frozen }

// step does one unit of work: finish a commit, take part in the group
// protocol, initialize a task, or process a batch of one task.
func (p *process) step() {
	if !p.running() {
		return
	}
	if p.commit != nil {
		p.finishCommit()
		return
	}
	// A consumer learns of rebalances when it polls or heartbeats, not
	// at every record: a resumed zombie works on for a while.
	if p.gen == 0 || p.waiting || p.s.rng.IntN(3) == 0 {
		if p.membership() {
			return
		}
	}
	if p.waiting {
		return // revoked: wait for the next generation
	}
	p.work()
}

// membership handles the group protocol; it reports whether it used the
// step.
func (p *process) membership() bool {
	g := p.s.b.group
	member := g.IsMember(p.instance, p.inc)
	switch {
	case member && g.gen > p.gen:
		p.sync()
	case g.Joined(p.instance, p.inc):
		return false
	case member && g.preparing:
		// Revoke at a barrier: commit what the tasks hold, then join.
		p.joinAfter = true
		p.barrier()
	case !member && (p.gen != 0 || p.waiting):
		// Expelled: what it did since its last commit is not its to
		// commit. It starts again as a new member (and incarnation).
		p.fence(fmt.Errorf("expelled: not in generation %d", g.gen))
	case !member:
		p.join()
	default:
		return false
	}
	return true
}

func (p *process) join() {
	if g := p.s.b.group; p.gen != 0 && !g.IsMember(p.instance, p.inc) {
		// Expelled while it revoked: start again as a new member.
		p.fence(fmt.Errorf("expelled: not in generation %d", g.gen))
		return
	}
	old, err := p.s.b.group.Join(p.instance, p.inc)
	if err != nil {
		p.fence(err)
		return
	}
	if old >= 0 {
		p.s.expel(p.instance, old)
	}
	p.waiting = true
	p.s.tracef("%v joins the group (generation %d)", p, p.s.b.group.gen)
}

// sync takes the new generation's assignment. A task the process held in
// the generation before, and committed at the barrier that revoked it,
// is kept with its state; every other task starts uninitialized.
func (p *process) sync() {
	g := p.s.b.group
	keep := p.gen == g.gen-1
	a := g.assign[p.instance]
	src := make([]*srcTask, g.srcParts)
	for _, i := range a.Src {
		if keep && p.src != nil && p.src[i] != nil {
			src[i] = p.src[i]
		} else {
			src[i] = &srcTask{part: i}
		}
	}
	agg := make([]*aggTask, g.aggParts)
	for _, q := range a.Agg {
		if keep && p.agg != nil && p.agg[q] != nil {
			agg[q] = p.agg[q]
		} else {
			agg[q] = &aggTask{part: q}
		}
	}
	p.gen, p.src, p.agg, p.waiting = g.gen, src, agg, false
	p.s.tracef("%v generation %d: src %v agg %v (kept state: %v)", p, g.gen, a.Src, a.Agg, keep)
}

// work initializes or runs one of the process's tasks, picked at random.
func (p *process) work() {
	type ref struct {
		src bool
		i   int
	}
	var tasks []ref
	for i, t := range p.src {
		if t != nil {
			tasks = append(tasks, ref{true, i})
		}
	}
	for q, t := range p.agg {
		if t != nil {
			tasks = append(tasks, ref{false, q})
		}
	}
	if len(tasks) == 0 {
		return
	}
	r := tasks[p.s.rng.IntN(len(tasks))]
	var err error
	if r.src {
		t := p.src[r.i]
		if !t.ready {
			t.init(p)
			return
		}
		err = t.work(p, p.s.cfg.Batch)
	} else {
		t := p.agg[r.i]
		if !t.ready {
			t.init(p)
			return
		}
		t.work(p, p.s.cfg.Batch)
	}
	if err != nil {
		p.fence(err)
	}
}

// barrier ends the process's epoch: a marker for the new epoch from each
// source task to every repartition partition, each aggregate task's
// changed keys to the changelog and the output, and every task's
// offsets (with the epoch as metadata) sent to the transaction, which
// the next step commits. One transaction per process per epoch.
func (p *process) barrier() {
	if !p.running() || p.commit != nil || p.waiting {
		return
	}
	e := p.s.nextEpoch()
	pc := &pendingCommit{epoch: e, agg: map[int]uint64{}}
	offsets := map[tp]committedOffset{}
	for i, t := range p.src {
		if t == nil || !t.ready {
			continue
		}
		for q := range p.s.cfg.AggParts {
			if err := p.prod.Produce(tp{topicRepart, q}, Record{Src: i, Epoch: e, Marker: true}); err != nil {
				p.fence(err)
				return
			}
		}
		offsets[tp{topicInput, i}] = committedOffset{t.next, e}
		pc.src = append(pc.src, i)
	}
	for q, t := range p.agg {
		if t == nil || !t.ready {
			continue
		}
		if err := t.flush(p); err != nil {
			p.fence(err)
			return
		}
		a := t.frontier()
		offsets[tp{topicRepart, q}] = committedOffset{t.commitOffset(p.s.cfg.Faults), a}
		pc.agg[q] = a
	}
	if len(offsets) == 0 {
		p.afterCommit()
		return
	}
	m := Member{Instance: p.instance, Inc: p.inc, Gen: p.gen}
	if err := p.prod.SendOffsets(m, offsets); err != nil {
		p.fence(err)
		return
	}
	p.commit = pc
	p.s.tracef("%v barrier %d: offsets %s sent", p, e, fmtOffsets(offsets))
}

// finishCommit commits the barrier's transaction.
func (p *process) finishCommit() {
	pc := p.commit
	if err := p.prod.Commit(); err != nil {
		p.fence(err)
		return
	}
	p.commit = nil
	for _, i := range pc.src {
		p.src[i].epoch = pc.epoch
	}
	for _, q := range sortedKeys(pc.agg) {
		t := p.agg[q]
		t.committed = pc.agg[q]
		p.s.checkState("commit", p, q, t.committed, t.state)
	}
	p.s.stats.Commits++
	if p.expelledAt >= 0 {
		// Offsets sent before the expulsion: the new owner waited.
		p.s.stats.CommitsAfterExpulsion++
	}
	p.s.tracef("%v committed barrier %d", p, pc.epoch)
	p.afterCommit()
}

func (p *process) afterCommit() {
	if p.joinAfter {
		p.joinAfter = false
		p.join()
	}
}

// fence handles an error from the broker: the process aborts what it
// can and exits. If it is still its instance's latest incarnation it is
// restarted at once as a new one (new producer epoch, rejoin, state
// restored from the changelog), as Kafka Streams recreates a thread's
// producer and rejoins; a superseded zombie just exits.
func (p *process) fence(err error) {
	p.s.tracef("%v fenced: %v", p, err)
	p.s.stats.Fenced++
	if !errors.Is(err, ErrProducerFenced) {
		_ = p.prod.Abort()
	}
	p.dead = true
	p.commit = nil
	if p.s.latest[p.instance] == p.id {
		p.s.startIncarnation(p.instance)
	}
}

func fmtOffsets(o map[tp]committedOffset) string {
	var parts []string
	for _, t := range sortedTPs(o) {
		parts = append(parts, fmt.Sprintf("%s/%d=%d@%d", t.topic[:3], t.part, o[t].Offset, o[t].Epoch))
	}
	slices.Sort(parts)
	return fmt.Sprint(parts)
}
