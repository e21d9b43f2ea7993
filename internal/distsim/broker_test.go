package distsim

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// The in-memory Kafka's rules, one at a time: what the simulation's
// guarantees rest on.

func newTestBroker() (*Broker, *int64) {
	now := new(int64)
	return newBroker(func() int64 { return *now }, Faults{}, 1, 2), now
}

func keys(recs []Record) []int64 {
	var out []int64
	for _, r := range recs {
		out = append(out, r.Key)
	}
	return out
}

func TestReadCommittedStopsAtOpenTxn(t *testing.T) {
	b, _ := newTestBroker()
	p1 := b.InitProducer("a", 0)
	p2 := b.InitProducer("b", 1)
	rep := tp{topicRepart, 0}
	mustOK(t, p1.Produce(rep, Record{Key: 1}))
	mustOK(t, p2.Produce(rep, Record{Key: 2}))
	mustOK(t, p2.Commit())
	if got, pos := b.Fetch(rep, 0, 10, false); len(got) != 0 || pos != 0 {
		t.Fatalf("read %v up to %d past an open transaction", keys(got), pos)
	}
	mustOK(t, p1.Abort())
	got, pos := b.Fetch(rep, 0, 10, false)
	if len(got) != 1 || got[0].Key != 2 || pos != 2 {
		t.Fatalf("after the abort read %v up to %d, want [2] up to 2", keys(got), pos)
	}
	if got, _ := b.Fetch(rep, 0, 10, true); len(got) != 2 {
		t.Fatalf("read_uncommitted read %v, want both", keys(got))
	}
}

func TestInitProducerFencesAndAborts(t *testing.T) {
	b, _ := newTestBroker()
	old := b.InitProducer("a", 0)
	mustOK(t, old.Produce(tp{topicOutput, 0}, Record{Key: 1}))
	fresh := b.InitProducer("a", 1)
	if err := old.Commit(); !errors.Is(err, ErrProducerFenced) {
		t.Fatalf("the old producer's commit: %v, want fenced", err)
	}
	if err := old.Produce(tp{topicOutput, 0}, Record{Key: 2}); !errors.Is(err, ErrProducerFenced) {
		t.Fatalf("the old producer's write: %v, want fenced", err)
	}
	mustOK(t, fresh.Produce(tp{topicOutput, 0}, Record{Key: 3}))
	mustOK(t, fresh.Commit())
	if got := b.FetchAll(tp{topicOutput, 0}); len(got) != 1 || got[0].Key != 3 {
		t.Fatalf("visible %v, want only [3]", keys(got))
	}
}

func TestTxnTimeoutFences(t *testing.T) {
	b, now := newTestBroker()
	p := b.InitProducer("a", 7)
	mustOK(t, p.Produce(tp{topicOutput, 0}, Record{Key: 1}))
	*now = 10
	if got := b.ExpireTxns(11); len(got) != 0 {
		t.Fatalf("expired %v before the timeout", got)
	}
	if got := b.ExpireTxns(10); len(got) != 1 || got[0] != 7 {
		t.Fatalf("expired %v, want [7]", got)
	}
	if err := p.Commit(); !errors.Is(err, ErrProducerFenced) {
		t.Fatalf("commit after the timeout: %v, want fenced", err)
	}
}

func TestOffsetsNeedCurrentGenerationAndCommitWithTxn(t *testing.T) {
	b, _ := newTestBroker()
	g := b.group
	rng := rand.New(rand.NewPCG(1, 2))
	if _, err := g.Join(0, 1); err != nil {
		t.Fatal(err)
	}
	g.Complete(rng)
	p := b.InitProducer("a", 0)
	in := tp{topicInput, 0}
	offs := map[tp]committedOffset{in: {Offset: 5, Epoch: 9}}
	mustOK(t, p.SendOffsets(Member{Instance: 0, Inc: 1, Gen: g.gen}, offs))
	if _, err := g.FetchOffset(in); !errors.Is(err, ErrUnstableOffsetCommit) {
		t.Fatalf("fetch while the transaction is open: %v, want unstable", err)
	}
	if g.offsets[in].Offset != 0 {
		t.Fatal("offsets committed before their transaction")
	}
	mustOK(t, p.Commit())
	if o, err := g.FetchOffset(in); err != nil || o != (committedOffset{5, 9}) {
		t.Fatalf("fetch after commit: %v %v", o, err)
	}
	stale := Member{Instance: 0, Inc: 1, Gen: g.gen}
	if _, err := g.Join(0, 2); err != nil { // a new incarnation replaces it
		t.Fatal(err)
	}
	if err := p.SendOffsets(stale, offs); !errors.Is(err, ErrIllegalGeneration) {
		t.Fatalf("offsets of a replaced member: %v, want illegal generation", err)
	}
	if _, err := g.Join(0, 1); !errors.Is(err, ErrFencedInstanceID) {
		t.Fatalf("the old incarnation rejoining: %v, want fenced instance", err)
	}
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
