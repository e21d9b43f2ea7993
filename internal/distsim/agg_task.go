package distsim

import (
	"fmt"
	"slices"
)

// aggValue is a key's aggregate: count(*) and sum(val).
type aggValue struct{ Count, Sum int64 }

// aggTask is the keyed aggregate over one repartition partition, that is
// one range of vnodes: SELECT key, count(*), sum(val) GROUP BY key. Its
// state is the process's, restored from the changelog partition of the
// same number when the task starts.
//
// Alignment. Each source partition writes a marker with its barrier's
// epoch to every repartition partition. The task's frontier is the
// least epoch it has seen a marker of from every source partition; a
// record tagged t (written after its source's barrier t) belongs to an
// epoch above t, so it is applied once t < frontier, and held until then
// (an exchange holds the inputs that are ahead of a barrier the same
// way, I1). A commit records the frontier A as the offset's metadata and,
// as the offset, the position of the first record still held: after a
// restore the task reads from there again and skips the records tagged
// below A, which the restored state holds already. So the state at a
// committed A is the aggregate of exactly the input records each source
// partition read before its first barrier at or after A (I6), and every
// record is applied once (I3).
type aggTask struct {
	part      int
	ready     bool
	pos       int64    // next repartition offset to read
	committed uint64   // the frontier at the last commit
	seen      []uint64 // per source partition: the highest marker seen
	held      []Record // records ahead of the frontier, in log order
	state     map[int64]aggValue
	delta     map[int64]aggValue // changes since the last barrier
}

// init restores the task: the committed offset and frontier (waiting
// while a transaction holding offsets for the partition is open), and
// the state from the changelog, read_committed to its end.
func (t *aggTask) init(p *process) {
	o, err := p.s.b.group.FetchOffset(tp{topicRepart, t.part})
	if err != nil {
		p.s.stats.UnstableWaits++
		p.s.tracef("%v agg %d waits: %v", p, t.part, err)
		return
	}
	t.state = p.s.restore(t.part)
	t.delta = map[int64]aggValue{}
	t.pos, t.committed = o.Offset, o.Epoch
	t.seen = make([]uint64, p.s.cfg.SrcParts)
	for i := range t.seen {
		t.seen[i] = o.Epoch
	}
	t.held, t.ready = nil, true
	p.s.stats.Restores++
	p.s.tracef("%v agg %d restored at offset %d, epoch %d: %d keys", p, t.part, t.pos, t.committed, len(t.state))
	p.s.checkState("restore", p, t.part, t.committed, t.state)
}

// work reads up to n repartition records.
func (t *aggTask) work(p *process, n int) {
	recs, next := p.s.b.Fetch(tp{topicRepart, t.part}, t.pos, n, false)
	for _, r := range recs {
		t.handle(p, r)
	}
	t.pos = next
}

func (t *aggTask) handle(p *process, r Record) {
	if r.Marker {
		if r.Epoch > t.seen[r.Src] {
			t.seen[r.Src] = r.Epoch
			t.release(p)
		}
		return
	}
	if q := p.s.partitionOf(r.Key); q != t.part {
		p.s.fail(fmt.Errorf("I4: key %d of vnode range %d reached aggregate %d", r.Key, q, t.part))
		return
	}
	switch {
	case r.Epoch < t.committed && !p.s.cfg.Faults.NoReplayFilter:
		// Read again after a restore; the state holds it.
	case r.Epoch >= t.frontier():
		t.held = append(t.held, r)
	default:
		t.apply(r)
	}
}

// release applies the held records the frontier has passed.
func (t *aggTask) release(p *process) {
	f := t.frontier()
	kept := t.held[:0]
	for _, r := range t.held {
		if r.Epoch < f {
			t.apply(r)
		} else {
			kept = append(kept, r)
		}
	}
	t.held = kept
}

func (t *aggTask) apply(r Record) {
	v := t.state[r.Key]
	v.Count++
	v.Sum += r.Val
	t.state[r.Key] = v
	d := t.delta[r.Key]
	d.Count++
	d.Sum += r.Val
	t.delta[r.Key] = d
}

// frontier is the least epoch every source partition has reached.
func (t *aggTask) frontier() uint64 {
	return slices.Min(t.seen)
}

// commitOffset is the offset to commit: the first record still held.
func (t *aggTask) commitOffset(f Faults) int64 {
	if len(t.held) > 0 && !f.CommitReadPosition {
		return t.held[0].Offset
	}
	return t.pos
}

// flush writes the keys changed since the last barrier to the changelog
// (the key's new aggregate) and to the output (new aggregate and change,
// tagged with the frontier), in the process's transaction.
func (t *aggTask) flush(p *process) error {
	keys := make([]int64, 0, len(t.delta))
	for k := range t.delta {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	a := t.frontier()
	for _, k := range keys {
		v, d := t.state[k], t.delta[k]
		if err := p.prod.Produce(tp{topicChangelog, t.part}, Record{Key: k, Count: v.Count, Sum: v.Sum}); err != nil {
			return err
		}
		out := Record{Key: k, Epoch: a, Count: v.Count, Sum: v.Sum, DCount: d.Count, DSum: d.Sum}
		if err := p.prod.Produce(tp{topicOutput, t.part}, out); err != nil {
			return err
		}
	}
	clear(t.delta)
	return nil
}
