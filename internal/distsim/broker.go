package distsim

import "errors"

// The topics of the simulated job: the input the scheduler produces, the
// repartition topic between the two stages (one partition per vnode
// range), the aggregate's changelog (co-partitioned with the repartition
// topic: changelog partition p holds the state of repartition partition
// p's vnodes) and the output.
const (
	topicInput     = "input"
	topicRepart    = "repartition"
	topicChangelog = "changelog"
	topicOutput    = "output"
)

// Errors the broker returns; the names follow Kafka's error codes.
var (
	// ErrProducerFenced: the producer's epoch is not its transactional
	// id's current one (a newer producer initialized it, or the
	// coordinator timed its transaction out).
	ErrProducerFenced = errors.New("distsim: producer fenced")
	// ErrIllegalGeneration: offsets sent to a transaction name a
	// generation or member the group no longer has.
	ErrIllegalGeneration = errors.New("distsim: illegal generation or unknown member")
	// ErrUnstableOffsetCommit: an open transaction holds offsets for the
	// partition, so its committed offset is not known yet.
	ErrUnstableOffsetCommit = errors.New("distsim: unstable offset commit")
	// ErrFencedInstanceID: a newer incarnation of the static member
	// (group.instance.id) has joined the group.
	ErrFencedInstanceID = errors.New("distsim: fenced instance id")
	// ErrInvalidTxnState: commit or abort without an open transaction.
	ErrInvalidTxnState = errors.New("distsim: invalid transaction state")
)

// tp names one partition of a topic.
type tp struct {
	topic string
	part  int
}

// Record is every topic's record; which fields mean something depends on
// the topic (see the topic constants and the stages).
type Record struct {
	Key, Val int64
	// Src is the source partition a repartition record (data or marker)
	// comes from.
	Src int
	// Epoch: on a repartition data record, the epoch of its source
	// partition's last committed barrier when it was read (its tag); on
	// a marker, the barrier's epoch; on an output record, the aligned
	// epoch of the aggregate's commit.
	Epoch  uint64
	Marker bool
	// Count and Sum are the key's aggregate after the commit (changelog
	// and output); DCount and DSum its change in the commit (output).
	Count, Sum, DCount, DSum int64

	Offset int64
	txn    *txn // nil: written outside a transaction (the input)
}

// partitionLog is one partition: an append-only log. A transaction's
// records are appended when produced and become visible to read_committed
// readers when it commits; an open transaction's first record is the
// partition's last stable offset (LSO), which read_committed readers do
// not pass.
type partitionLog struct {
	recs []Record
}

// Broker is the in-memory Kafka cluster: topics, the transaction
// coordinator (transactional ids, producer epochs, transactions) and one
// consumer group's coordinator. It is a model, driven by one goroutine
// (the simulation's): nothing in it is concurrent, and its clock is the
// simulation's tick count.
type Broker struct {
	now    func() int64
	faults Faults
	topics map[string][]*partitionLog
	// coords are the transactional ids' states, in creation order (the
	// index map finds them) so that iteration is deterministic.
	coords  []*txnCoord
	coordIx map[string]int
	txns    []*txn // every transaction ever begun, for the checks
	group   *Group
}

// newBroker returns a broker holding the job's topics.
func newBroker(now func() int64, faults Faults, srcParts, aggParts int) *Broker {
	b := &Broker{now: now, faults: faults, topics: map[string][]*partitionLog{}, coordIx: map[string]int{}}
	for _, t := range []struct {
		name  string
		parts int
	}{{topicInput, srcParts}, {topicRepart, aggParts}, {topicChangelog, aggParts}, {topicOutput, aggParts}} {
		logs := make([]*partitionLog, t.parts)
		for i := range logs {
			logs[i] = &partitionLog{}
		}
		b.topics[t.name] = logs
	}
	b.group = newGroup(b, srcParts, aggParts)
	return b
}

func (b *Broker) log(t tp) *partitionLog { return b.topics[t.topic][t.part] }

// End returns the partition's log end offset.
func (b *Broker) End(t tp) int64 { return int64(len(b.log(t).recs)) }

// append adds r to the partition and returns its offset.
func (b *Broker) append(t tp, r Record) int64 {
	l := b.log(t)
	r.Offset = int64(len(l.recs))
	l.recs = append(l.recs, r)
	return r.Offset
}

// ProduceInput appends a record outside any transaction (the job's input,
// written by an outside producer).
func (b *Broker) ProduceInput(part int, key, val int64) int64 {
	return b.append(tp{topicInput, part}, Record{Key: key, Val: val})
}

// Fetch reads up to max records of the partition from offset from, as a
// read_committed consumer does: records of aborted transactions are
// skipped, and reading stops at the last stable offset (the first record
// of a transaction still open). It returns the records and the position
// after them. With uncommitted, it reads as read_uncommitted does: every
// record, aborted and open ones included.
func (b *Broker) Fetch(t tp, from int64, max int, uncommitted bool) ([]Record, int64) {
	l := b.log(t)
	var out []Record
	pos := from
	for pos < int64(len(l.recs)) && len(out) < max {
		r := l.recs[pos]
		if r.txn != nil && !uncommitted {
			if r.txn.state == txnOpen {
				break
			}
			if r.txn.state == txnAborted {
				pos++
				continue
			}
		}
		out = append(out, r)
		pos++
	}
	return out, pos
}

// FetchAll reads the whole partition read_committed, up to its LSO.
func (b *Broker) FetchAll(t tp) []Record {
	recs, _ := b.Fetch(t, 0, int(b.End(t))+1, false)
	return recs
}
