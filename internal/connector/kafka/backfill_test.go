package kafka

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"go.uber.org/goleak"

	"github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/types"
)

// produceTxn produces ids as JSON messages in one transaction of p,
// committed or aborted.
func produceTxn(t *testing.T, p *kgo.Client, commit bool, ids ...int64) {
	t.Helper()
	ctx := context.Background()
	if err := p.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if err := p.ProduceSync(ctx, &kgo.Record{Value: fmt.Appendf(nil, `{"id": %d}`, id)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
		t.Fatal(err)
	}
}

// readBounded reads partition 0 of o's topic from from (-1: the start)
// up to until with a bounded reader, and returns the ids read and the
// lost ranges reported. The read must end by itself: a reader still
// running after a minute fails the test (it would hang a backfill).
func readBounded(t *testing.T, o Options, from, until int64) (ids []int64, lost []*LostError) {
	t.Helper()
	r, err := NewBackfillReader(o, []connector.Column{{Name: "id", Type: types.TInt64}}, map[int32]int64{0: until})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var next map[int32]int64
	if from >= 0 {
		next = map[int32]int64{0: from}
	}
	r.Start(next)
	deadline := time.NewTimer(time.Minute)
	defer deadline.Stop()
	for {
		select {
		case recs, open := <-r.Records():
			if !open {
				if !r.Finished() {
					t.Fatalf("bounded read to %d: closed unfinished: %v", until, r.Err())
				}
				return ids, lost
			}
			for _, rec := range recs {
				switch {
				case rec.Err != nil:
					lerr, ok := rec.Err.(*LostError)
					if !ok {
						t.Fatalf("bounded read to %d: offset %d: %v", until, rec.Offset, rec.Err)
					}
					lost = append(lost, lerr)
				case rec.Offset >= until:
					t.Fatalf("bounded read to %d: got offset %d", until, rec.Offset)
				default:
					ids = append(ids, rec.Row[0].(int64))
				}
			}
		case <-deadline.C:
			t.Fatalf("bounded read to %d (from %d): still running after a minute", until, from)
		}
	}
}

// TestBackfillReaderTransactions: a bounded read ends on its position,
// not on a record at bound-1, so a bound right after a transaction's
// commit or abort marker, or inside an aborted transaction, ends the
// read, which holds exactly the committed messages below the bound.
func TestBackfillReaderTransactions(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "tx"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	addr := c.ListenAddrs()[0]
	p, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic("tx"), kgo.TransactionalID("tx-test"),
		kgo.ProducerLinger(0))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	// Offsets: 0-2 committed, 3 its marker; 4-5 aborted, 6 its marker;
	// 7-8 committed, 9 its marker.
	produceTxn(t, p, true, 0, 1, 2)
	produceTxn(t, p, false, 100, 101)
	produceTxn(t, p, true, 3, 4)
	o, err := ParseOptions(map[string]string{"connector": "kafka", "topic": "tx", OptBootstrap: addr})
	if err != nil {
		t.Fatal(err)
	}
	// Where the markers are: the read to the end shows the committed
	// ids at their offsets.
	for _, tc := range []struct {
		from, until int64
		want        []int64
	}{
		{-1, 3, []int64{0, 1, 2}},        // bound-1: a committed record
		{-1, 4, []int64{0, 1, 2}},        // bound-1: a commit marker
		{-1, 6, []int64{0, 1, 2}},        // bound-1: an aborted record
		{-1, 7, []int64{0, 1, 2}},        // bound-1: an abort marker
		{-1, 10, []int64{0, 1, 2, 3, 4}}, // bound-1: the last commit marker
		{4, 10, []int64{3, 4}},           // resumed inside the aborted transaction
		{8, 10, []int64{4}},
		{9, 10, nil}, // only a marker left
	} {
		ids, lost := readBounded(t, o, tc.from, tc.until)
		if !slices.Equal(ids, tc.want) || len(lost) > 0 {
			t.Errorf("read [%d, %d): ids %v, lost %v; want %v", tc.from, tc.until, ids, lost, tc.want)
		}
	}
}
