package distsim

// srcTask reads one input partition (a split, as exec/stream.SplitSource
// reads a Kafka partition) and repartitions each record by the vnode of
// its key: the record goes to the repartition partition that holds its
// vnode, tagged with its source partition and the epoch of the source
// partition's last committed barrier.
type srcTask struct {
	part  int
	ready bool
	next  int64  // the next input offset to read
	epoch uint64 // the epoch of the partition's last committed barrier
}

// init starts the task at the partition's committed offset and epoch. It
// waits (returns, to be retried) while a transaction holding offsets for
// the partition is open: that transaction is its previous owner's last
// epoch, which may still commit.
func (t *srcTask) init(p *process) {
	o, err := p.s.b.group.FetchOffset(tp{topicInput, t.part})
	if err != nil {
		p.s.stats.UnstableWaits++
		p.s.tracef("%v src %d waits: %v", p, t.part, err)
		return
	}
	t.next, t.epoch, t.ready = o.Offset, o.Epoch, true
	p.s.tracef("%v src %d starts at offset %d, epoch %d", p, t.part, t.next, t.epoch)
}

// work reads and repartitions up to n records.
func (t *srcTask) work(p *process, n int) error {
	recs, _ := p.s.b.Fetch(tp{topicInput, t.part}, t.next, n, false)
	for _, r := range recs {
		q := p.s.partitionOf(r.Key)
		out := Record{Key: r.Key, Val: r.Val, Src: t.part, Epoch: t.epoch}
		if err := p.prod.Produce(tp{topicRepart, q}, out); err != nil {
			return err
		}
		t.next = r.Offset + 1
	}
	return nil
}
