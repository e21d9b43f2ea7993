package tests

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"go.uber.org/goleak"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/failpoint"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// kafkaProducer produces rows to a kafkaTopic on a goroutine of its own
// until stop, in small batches over the topic's partitions (parts of
// them), so that rescales and restarts happen while messages arrive.
type kafkaProducer struct {
	k     *kafkaTopic
	parts int32
	next  int64
	stopc chan struct{}
	once  sync.Once
	done  chan struct{}
	err   error
}

// startProducer starts producing ids from first over parts partitions.
func (k *kafkaTopic) startProducer(first int64, parts int32) *kafkaProducer {
	p := &kafkaProducer{k: k, parts: parts, next: first, stopc: make(chan struct{}), done: make(chan struct{})}
	go p.run()
	return p
}

func (p *kafkaProducer) run() {
	defer close(p.done)
	const batch = 50
	for {
		select {
		case <-p.stopc:
			return
		case <-time.After(5 * time.Millisecond):
		}
		recs := make([]*kgo.Record, 0, batch)
		for id := p.next; id < p.next+batch; id++ {
			v := fmt.Sprintf(`{"id": %d, "K": %d, "v": "row %d"}`, id, id%10, id)
			recs = append(recs, &kgo.Record{Topic: p.k.topic, Partition: int32(id) % p.parts, Value: []byte(v)})
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := p.k.prod.ProduceSync(ctx, recs...).FirstErr()
		cancel()
		if err != nil {
			p.err = err
			return
		}
		p.k.mu.Lock()
		for id := p.next; id < p.next+batch; id++ {
			p.k.produced[id%10]++
			p.k.n++
		}
		p.k.mu.Unlock()
		p.next += batch
	}
}

// halt ends the producer and joins it; safe to call more than once (a
// failed test's deferred call).
func (p *kafkaProducer) halt() {
	p.once.Do(func() { close(p.stopc) })
	<-p.done
}

// stop ends the producer, joins it and returns the next id.
func (p *kafkaProducer) stop(t *testing.T) int64 {
	t.Helper()
	p.halt()
	if p.err != nil {
		t.Fatalf("producer: %v", p.err)
	}
	return p.next
}

// fragmentPar renders the kinds and parallelism of rel's fragments.
func fragmentPar(t *testing.T, db *streamdb.DB, rel string) string {
	t.Helper()
	return strings.Join(queryRows(t, db, "SELECT fragment, kind, parallelism FROM streamdb_catalog.fragments WHERE relation = '"+rel+"'"), ",")
}

// alterRetrying runs an ALTER that a recovery may interrupt (40001:
// the rescale raced a rebuild of the graph more times than it retries).
func alterRetrying(t *testing.T, db *streamdb.DB, stmt string) {
	t.Helper()
	for attempt := 0; ; attempt++ {
		_, err := db.Exec(context.Background(), stmt)
		var pe *pgerr.Error
		if err == nil {
			return
		}
		if attempt < 5 && errors.As(err, &pe) && pe.Code == pgerr.SerializationFailure {
			t.Logf("%s: %v; again", stmt, err)
			continue
		}
		t.Fatalf("%s: %v", stmt, err)
	}
}

// addPartition grows the topic by one partition and waits until the
// producer can write to it.
func (k *kafkaTopic) addPartition(t *testing.T, count int32) {
	t.Helper()
	req := kmsg.NewPtrCreatePartitionsRequest()
	rt := kmsg.NewCreatePartitionsRequestTopic()
	rt.Topic, rt.Count = k.topic, count
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(context.Background(), k.prod)
	if err != nil {
		t.Fatal(err)
	}
	if err := kerr.ErrorForCode(resp.Topics[0].ErrorCode); err != nil {
		t.Fatal(err)
	}
}

// TestKafkaParallelRescale: a table over a 4-partition topic read by two
// actors, with a GROUP BY view, rescaled 2 -> 3 -> 1 -> 4 while a
// producer writes on, with a restart between rescales and (with -tags
// invariants) injected failures of the table's materialization during a
// rescale. Every message reaches the table and the view exactly once;
// the counters of streamdb_catalog.sources add up over the actors; a
// partition added after the last rescale is read by its owner.
func TestKafkaParallelRescale(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	k := newKafkaTopic(t, "par")
	defer k.close()
	k.produceRows(t, 0, 2000)
	// Three malformed messages on three partitions: actors of each
	// generation count them, and the sum must stay 3.
	var bad []*kgo.Record
	for p := int32(0); p < 3; p++ {
		bad = append(bad, &kgo.Record{Topic: k.topic, Partition: p, Value: []byte(`not json`)})
	}
	k.produce(t, bad)
	dir := t.TempDir()
	db := openKafkaDB(t, dir)
	defer func() {
		if db != nil {
			db.Close() // a failed test's; the test closes it itself
		}
	}()
	mustExec(t, db, fmt.Sprintf(`CREATE TABLE ev (id bigint, k int, v text) WITH (streaming_parallelism = 2, %s) FORMAT PLAIN ENCODE JSON`, k.with("earliest")))
	mustExec(t, db, "CREATE MATERIALIZED VIEW by_k AS SELECT k, count(*) AS c, sum(id) AS s FROM ev GROUP BY k")
	if got := fragmentPar(t, db, "ev"); got != "0|source|2,1|table|2" {
		t.Fatalf("fragments of ev = %s", got)
	}
	// The errors list has each bad message, found by the actor that owns
	// its partition.
	waitFor(t, 30*time.Second, "the malformed messages", func() bool {
		return queryInt(t, db, "SELECT count(*) FROM streamdb_catalog.source_errors WHERE source = 'ev'") == 3
	})
	if got := strings.Join(queryRows(t, db, "SELECT partition_id, message_offset FROM streamdb_catalog.source_errors"), ","); got != "0|500,1|500,2|500" {
		t.Fatalf("source_errors = %s", got)
	}
	prod := k.startProducer(2000, kafkaPartitions)
	defer prod.halt()
	for i, n := range []int{3, 1, 4} {
		time.Sleep(300 * time.Millisecond) // some rows between the rescales
		if i == 1 && failpoint.Enabled {
			off, err := failpoint.Enable(failpoint.ExecMaterializeChunk, failpoint.Spec{Action: failpoint.Error, After: 2, Times: 2})
			if err != nil {
				t.Fatal(err)
			}
			alterRetrying(t, db, fmt.Sprintf("ALTER TABLE ev SET PARALLELISM = %d", n))
			waitFor(t, 30*time.Second, "the injected failures", func() bool {
				return queryInt(t, db, "SELECT count(*) FROM streamdb_catalog.recoveries") > 0
			})
			off()
		} else {
			mustExec(t, db, fmt.Sprintf("ALTER TABLE ev SET PARALLELISM = %d", n))
		}
		if got, want := fragmentPar(t, db, "ev"), fmt.Sprintf("0|source|%d,1|table|%d", n, n); n > 1 && got != want {
			t.Fatalf("after SET PARALLELISM %d: fragments of ev = %s", n, got)
		} else if n == 1 && got != "0|table|1" {
			t.Fatalf("after SET PARALLELISM 1: fragments of ev = %s", got)
		}
		time.Sleep(300 * time.Millisecond)
		err := db.Close()
		db = nil
		if err != nil {
			t.Fatal(err)
		}
		db = openKafkaDB(t, dir)
	}
	next := prod.stop(t)
	checkExactlyOnce(t, db, k, "ev", "by_k")
	t.Logf("%d messages through 3 rescales and 3 restarts", next)

	// A fifth partition, added after the rescale to 4: partition 4 is
	// actor 0's (4 mod 4), whose reader finds it.
	k.addPartition(t, kafkaPartitions+1)
	var recs []*kgo.Record
	for id := next; id < next+100; id++ {
		recs = append(recs, &kgo.Record{Topic: k.topic, Partition: kafkaPartitions, Value: []byte(fmt.Sprintf(`{"id": %d, "K": %d}`, id, id%10))})
	}
	// One message first, until the producer knows the partition: a batch
	// sent while it learns may be written in part, and again on a retry.
	waitFor(t, 10*time.Second, "the producer to see the new partition", func() bool {
		k.prod.ForceMetadataRefresh()
		return k.prod.ProduceSync(context.Background(), recs[0]).FirstErr() == nil
	})
	k.produce(t, recs[1:])
	k.mu.Lock()
	for id := next; id < next+100; id++ {
		k.produced[id%10]++
	}
	k.mu.Unlock()
	checkExactlyOnce(t, db, k, "ev", "by_k")
	total := next + 100
	waitFor(t, 10*time.Second, "the source's counters", func() bool {
		got := queryRows(t, db, "SELECT rows_generated, skipped, state FROM streamdb_catalog.sources WHERE name = 'ev'")
		return len(got) == 1 && got[0] == fmt.Sprintf("%d|3|running", total)
	})
	// The malformed messages are kept through the rescales, the
	// recoveries and the restarts, each listed once.
	if got := strings.Join(queryRows(t, db, "SELECT partition_id, message_offset FROM streamdb_catalog.source_errors"), ","); got != "0|500,1|500,2|500" {
		t.Fatalf("source_errors at the end = %s", got)
	}
	mustExec(t, db, "DROP MATERIALIZED VIEW by_k")
	mustExec(t, db, "DROP TABLE ev")
	err := db.Close()
	db = nil
	if err != nil {
		t.Fatal(err)
	}
}

// TestKafkaSourceParallelism: a Kafka source takes the session's
// streaming_parallelism and ALTER SOURCE ... SET PARALLELISM rescales it
// while messages arrive; the views over it count each message once. A
// source of another connector refuses SET PARALLELISM.
func TestKafkaSourceParallelism(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	k := newKafkaTopic(t, "spar")
	defer k.close()
	k.produceRows(t, 0, 1000)
	db := openKafkaDB(t, t.TempDir())
	defer db.Close()
	s := db.NewSession()
	defer s.Close()
	ctx := context.Background()
	for _, q := range []string{
		"SET streaming_parallelism = 3",
		// Held until both views run: a source keeps no rows.
		fmt.Sprintf(`CREATE SOURCE src (id bigint, k int, v text) WITH (%s, source_rate_limit = 0) FORMAT PLAIN ENCODE JSON`, k.with("earliest")),
		"SET streaming_parallelism = 2",
		"CREATE MATERIALIZED VIEW s_all AS SELECT id, k FROM src",
		"CREATE MATERIALIZED VIEW s_k AS SELECT k, count(*) AS c, sum(id) AS s FROM src GROUP BY k",
		"ALTER SOURCE src SET SOURCE_RATE_LIMIT = DEFAULT",
	} {
		if _, err := s.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if got := fragmentPar(t, db, "src"); got != "0|source|3" {
		t.Fatalf("fragments of src = %s", got)
	}
	prod := k.startProducer(1000, kafkaPartitions)
	defer prod.halt()
	for _, n := range []int{2, 5, 1} {
		time.Sleep(300 * time.Millisecond)
		mustExec(t, db, fmt.Sprintf("ALTER SOURCE src SET PARALLELISM = %d", n))
		want := fmt.Sprintf("0|source|%d", n)
		if n == 1 {
			want = "0|table|1" // one actor, described as before sources had several
		}
		if got := fragmentPar(t, db, "src"); got != want {
			t.Fatalf("after SET PARALLELISM %d: fragments of src = %s", n, got)
		}
	}
	prod.stop(t)
	checkExactlyOnce(t, db, k, "s_all", "s_k")

	mustExec(t, db, "CREATE SOURCE gen (x bigint) WITH (connector = 'datagen', fields.x.kind = 'sequence', datagen.rows.per.second = 10)")
	_, err := db.Exec(ctx, "ALTER SOURCE gen SET PARALLELISM = 2")
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code != pgerr.FeatureNotSupported {
		t.Fatalf("ALTER SOURCE gen SET PARALLELISM: %v", err)
	}
	_, err = db.Exec(ctx, "ALTER SOURCE nope SET PARALLELISM = 2")
	if !errors.As(err, &pe) || pe.Code != pgerr.UndefinedTable {
		t.Fatalf("ALTER SOURCE nope SET PARALLELISM: %v", err)
	}
}
