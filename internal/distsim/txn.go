package distsim

import "fmt"

type txnState int

const (
	txnOpen txnState = iota
	txnCommitted
	txnAborted
)

func (s txnState) String() string {
	return [...]string{"open", "committed", "aborted"}[s]
}

// txn is one Kafka transaction: the records its producer appended, the
// consumer offsets it sends to the group (applied only if it commits),
// and when each step happened, for the zombie check.
type txn struct {
	id    int
	tid   string
	epoch int // the producer epoch that began it
	owner int // the incarnation whose producer began it (checks only)
	state txnState
	// offsets are the group offsets sent to the transaction
	// (SendOffsetsToTransaction), committed with it.
	offsets     map[tp]committedOffset
	records     int
	began, sent int64 // ticks: first write, offsets sent (-1: none)
	ended       int64 // tick of commit or abort
}

// txnCoord is a transactional id's state at the transaction coordinator:
// its current producer epoch and its open transaction. fencedAt[e] is
// the tick at which epoch e stopped being current.
type txnCoord struct {
	tid      string
	epoch    int
	open     *txn
	fencedAt map[int]int64
}

func (b *Broker) coord(tid string) *txnCoord {
	if i, ok := b.coordIx[tid]; ok {
		return b.coords[i]
	}
	c := &txnCoord{tid: tid, fencedAt: map[int]int64{}}
	b.coordIx[tid] = len(b.coords)
	b.coords = append(b.coords, c)
	return c
}

// Producer is a transactional producer: a transactional id and the
// producer epoch InitProducer gave it.
type Producer struct {
	b     *Broker
	tid   string
	epoch int
	owner int
}

// InitProducer is initTransactions: it aborts the transactional id's open
// transaction, if any, and bumps its epoch, which fences every producer
// holding an older one (a zombie of the same process identity).
func (b *Broker) InitProducer(tid string, owner int) *Producer {
	c := b.coord(tid)
	if c.open != nil {
		b.end(c, txnAborted)
	}
	b.bump(c)
	return &Producer{b: b, tid: tid, epoch: c.epoch, owner: owner}
}

// bump advances the coordinator's producer epoch.
func (b *Broker) bump(c *txnCoord) {
	if c.epoch > 0 {
		c.fencedAt[c.epoch] = b.now()
	}
	c.epoch++
}

// check fails a producer whose epoch is no longer current, and returns
// the coordinator.
func (p *Producer) check() (*txnCoord, error) {
	c := p.b.coord(p.tid)
	if c.epoch != p.epoch {
		return c, fmt.Errorf("%w: %s epoch %d, current %d", ErrProducerFenced, p.tid, p.epoch, c.epoch)
	}
	return c, nil
}

// txn returns the producer's open transaction, beginning one if none is.
func (p *Producer) txn(c *txnCoord) *txn {
	if c.open != nil {
		return c.open
	}
	t := &txn{id: len(p.b.txns) + 1, tid: p.tid, epoch: p.epoch, owner: p.owner,
		offsets: map[tp]committedOffset{}, began: p.b.now(), sent: -1}
	p.b.txns = append(p.b.txns, t)
	c.open = t
	return t
}

// Produce appends r to the partition in the producer's transaction.
func (p *Producer) Produce(t tp, r Record) error {
	c, err := p.check()
	if err != nil {
		return err
	}
	x := p.txn(c)
	r.txn = x
	x.records++
	p.b.append(t, r)
	return nil
}

// SendOffsets is SendOffsetsToTransaction with the consumer's group
// metadata (KIP-447): the group coordinator takes the offsets into the
// transaction only if the member is in the group's current generation,
// which fences a member the group has moved on from even when its
// producer is still current. Under Faults.OffsetsOutsideTxn the offsets
// are committed at once instead, outside the transaction.
func (p *Producer) SendOffsets(m Member, offsets map[tp]committedOffset) error {
	c, err := p.check()
	if err != nil {
		return err
	}
	if err := p.b.group.checkMember(m); err != nil {
		return err
	}
	if p.b.faults.OffsetsOutsideTxn {
		for _, t := range sortedTPs(offsets) {
			p.b.group.commit(t, offsets[t])
		}
		return nil
	}
	x := p.txn(c)
	for t, o := range offsets {
		x.offsets[t] = o
	}
	x.sent = p.b.now()
	return nil
}

// Commit commits the producer's open transaction: its records become
// visible and its offsets the group's committed offsets.
func (p *Producer) Commit() error {
	return p.endTxn(txnCommitted)
}

// Abort aborts the producer's open transaction.
func (p *Producer) Abort() error {
	return p.endTxn(txnAborted)
}

func (p *Producer) endTxn(s txnState) error {
	c, err := p.check()
	if err != nil {
		return err
	}
	if c.open == nil {
		return ErrInvalidTxnState
	}
	p.b.end(c, s)
	return nil
}

// end ends the coordinator's open transaction.
func (b *Broker) end(c *txnCoord, s txnState) {
	if c.open == nil {
		return
	}
	b.finish(c.open, s)
	c.open = nil
}

func (b *Broker) finish(x *txn, s txnState) {
	x.state = s
	x.ended = b.now()
	if s == txnCommitted {
		for _, t := range sortedTPs(x.offsets) {
			b.group.commit(t, x.offsets[t])
		}
	}
}

// ExpireTxns aborts every transaction open for longer than timeout ticks
// (transaction.timeout.ms) and bumps its id's producer epoch, so the
// producer that left it open is fenced. It returns the owners fenced.
func (b *Broker) ExpireTxns(timeout int64) []int {
	var fenced []int
	for _, c := range b.coords {
		if c.open != nil && b.now()-c.open.began >= timeout {
			fenced = append(fenced, c.open.owner)
			b.end(c, txnAborted)
			b.bump(c)
		}
	}
	return fenced
}

// pendingOffsets reports whether an open transaction holds offsets for t.
func (b *Broker) pendingOffsets(t tp) bool {
	for _, x := range b.txns {
		if x.state == txnOpen {
			if _, ok := x.offsets[t]; ok {
				return true
			}
		}
	}
	return false
}

// openTxns returns the number of open transactions.
func (b *Broker) openTxns() int {
	n := 0
	for _, x := range b.txns {
		if x.state == txnOpen {
			n++
		}
	}
	return n
}
