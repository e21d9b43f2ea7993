package tests

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"go.uber.org/goleak"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/failpoint"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// kafkaTopic is an in-process Kafka cluster (kfake) with one topic of
// kafkaPartitions partitions, and a producer that writes to a chosen
// partition.
type kafkaTopic struct {
	cluster *kfake.Cluster
	addr    string
	topic   string
	prod    *kgo.Client
	// produced counts the rows produced per key k (good messages only).
	mu       sync.Mutex
	produced map[int64]int64
	n        int64 // messages produced, good or not

	closeOnce sync.Once
}

const kafkaPartitions = 4

func newKafkaTopic(t testing.TB, topic string) *kafkaTopic {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(kafkaPartitions, topic))
	if err != nil {
		t.Fatal(err)
	}
	addr := c.ListenAddrs()[0]
	prod, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerLinger(0))
	if err != nil {
		c.Close()
		t.Fatal(err)
	}
	k := &kafkaTopic{cluster: c, addr: addr, topic: topic, prod: prod, produced: map[int64]int64{}}
	t.Cleanup(k.close)
	return k
}

func (k *kafkaTopic) close() {
	k.closeOnce.Do(func() {
		k.prod.Close()
		k.cluster.Close()
	})
}

// with returns the WITH options of a source over the topic.
func (k *kafkaTopic) with(mode string) string {
	return fmt.Sprintf("connector = 'kafka', topic = '%s', properties.bootstrap.server = '%s', scan.startup.mode = '%s'",
		k.topic, k.addr, mode)
}

// produceRows produces n messages {"id": id, "k": id % 10, "v": ...}
// with ids from first, round-robin over the partitions.
func (k *kafkaTopic) produceRows(t testing.TB, first, n int64) {
	t.Helper()
	recs := make([]*kgo.Record, 0, n)
	for id := first; id < first+n; id++ {
		v := fmt.Sprintf(`{"id": %d, "K": %d, "v": "row %d", "extra": [1, 2]}`, id, id%10, id)
		recs = append(recs, &kgo.Record{Topic: k.topic, Partition: int32(id % kafkaPartitions), Value: []byte(v)})
		k.mu.Lock()
		k.produced[id%10]++
		k.n++
		k.mu.Unlock()
	}
	k.produce(t, recs)
}

func (k *kafkaTopic) produce(t testing.TB, recs []*kgo.Record) {
	t.Helper()
	const batch = 5000
	for len(recs) > 0 {
		n := min(batch, len(recs))
		if err := k.prod.ProduceSync(context.Background(), recs[:n]...).FirstErr(); err != nil {
			t.Fatalf("produce: %v", err)
		}
		recs = recs[n:]
	}
}

// wantPerKey renders the produced count per key as "k|count" rows.
func (k *kafkaTopic) wantPerKey() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []string
	for key := int64(0); key < 10; key++ {
		if n := k.produced[key]; n > 0 {
			out = append(out, fmt.Sprintf("%d|%d", key, n))
		}
	}
	return out
}

func openKafkaDB(t testing.TB, dir string) *streamdb.DB {
	t.Helper()
	db, err := streamdb.Open(dir, &streamdb.Options{NoSync: true, BarrierInterval: 50 * time.Millisecond,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	// Close is idempotent: a test that fails before its own Close must not
	// leave the database's consumers running into the next test's leak check.
	t.Cleanup(func() { db.Close() })
	return db
}

// checkExactlyOnce waits until the table holds every good message
// produced, then checks each was counted once, in the table and in the
// GROUP BY view.
func checkExactlyOnce(t *testing.T, db *streamdb.DB, k *kafkaTopic, table, view string) {
	t.Helper()
	k.mu.Lock()
	total := int64(0)
	for _, n := range k.produced {
		total += n
	}
	k.mu.Unlock()
	waitFor(t, 60*time.Second, fmt.Sprintf("%d rows in %s", total, table), func() bool {
		return queryInt(t, db, "SELECT count(*) FROM "+table) >= total
	})
	mustExec(t, db, "FLUSH")
	if got := queryInt(t, db, "SELECT count(*) FROM "+table); got != total {
		t.Fatalf("%s holds %d rows, %d were produced", table, got, total)
	}
	if got := queryInt(t, db, "SELECT count(DISTINCT id) FROM "+table); got != total {
		t.Fatalf("%s holds %d distinct ids of %d", table, got, total)
	}
	want := strings.Join(k.wantPerKey(), ",")
	if got := strings.Join(queryRows(t, db, "SELECT k, count(*) FROM "+table+" GROUP BY k"), ","); got != want {
		t.Fatalf("per key in %s: %s\nproduced: %s", table, got, want)
	}
	if got := strings.Join(queryRows(t, db, "SELECT k, c FROM "+view), ","); got != want {
		t.Fatalf("view %s: %s\nproduced: %s", view, got, want)
	}
	batch := queryRows(t, db, "SELECT k, count(*), sum(id) FROM "+table+" GROUP BY k")
	if got := queryRows(t, db, "SELECT k, c, s FROM "+view); strings.Join(got, ",") != strings.Join(batch, ",") {
		t.Fatalf("view %s = %v, its query = %v", view, got, batch)
	}
}

// TestKafkaExactlyOnce: a table over a 4-partition topic and a GROUP BY
// view over it count every message once: what was there at CREATE, what
// came while the view ran, and what came while the database was closed.
func TestKafkaExactlyOnce(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	k := newKafkaTopic(t, "events")
	defer k.close()
	k.produceRows(t, 0, 10000)
	dir := t.TempDir()
	db := openKafkaDB(t, dir)
	mustExec(t, db, fmt.Sprintf(`CREATE TABLE ev (id bigint, k int, v text) WITH (%s) FORMAT PLAIN ENCODE JSON`, k.with("earliest")))
	mustExec(t, db, "CREATE MATERIALIZED VIEW by_k AS SELECT k, count(*) AS c, sum(id) AS s FROM ev GROUP BY k")
	checkExactlyOnce(t, db, k, "ev", "by_k")
	if got := queryInt(t, db, "SELECT count(*) FROM ev WHERE v <> 'row ' || id"); got != 0 {
		t.Fatalf("%d rows with a wrong v", got)
	}

	k.produceRows(t, 10000, 5000)
	checkExactlyOnce(t, db, k, "ev", "by_k")

	// Produce, and close before all of it can have committed.
	k.produceRows(t, 15000, 3000)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	k.produceRows(t, 18000, 2000)
	db = openKafkaDB(t, dir)
	checkExactlyOnce(t, db, k, "ev", "by_k")
	if got := queryRows(t, db, "SELECT name, kind, connector, rows_generated, skipped, state FROM streamdb_catalog.sources"); len(got) != 1 ||
		got[0] != "ev|table|kafka|20000|0|running" {
		t.Fatalf("streamdb_catalog.sources = %v", got)
	}
	mustExec(t, db, "DROP MATERIALIZED VIEW by_k")
	mustExec(t, db, "DROP TABLE ev")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestKafkaRecovery: failures of the graph while a topic streams in (an
// injected error in the table's materialization, with -tags invariants)
// and restarts right after produces lose no message and count none twice.
func TestKafkaRecovery(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	k := newKafkaTopic(t, "rec")
	defer k.close()
	dir := t.TempDir()
	db := openKafkaDB(t, dir)
	mustExec(t, db, fmt.Sprintf(`CREATE SOURCE src (id bigint, k int, v text) WITH (%s) FORMAT PLAIN ENCODE JSON`, k.with("earliest")))
	mustExec(t, db, "CREATE TABLE copy_of (id bigint, k int)")
	mustExec(t, db, "CREATE MATERIALIZED VIEW rec_all AS SELECT id, k FROM src")
	mustExec(t, db, "CREATE MATERIALIZED VIEW rec_k AS SELECT k, count(*) AS c, sum(id) AS s FROM src GROUP BY k")
	if failpoint.Enabled {
		off, err := failpoint.Enable(failpoint.ExecMaterializeChunk, failpoint.Spec{Action: failpoint.Error, After: 3, Times: 2})
		if err != nil {
			t.Fatal(err)
		}
		defer off()
	}
	k.produceRows(t, 0, 2500)
	checkExactlyOnce(t, db, k, "rec_all", "rec_k")
	if failpoint.Enabled {
		if n := queryInt(t, db, "SELECT count(*) FROM streamdb_catalog.recoveries"); n == 0 {
			t.Errorf("the failpoint caused no recovery")
		}
	}
	for round := int64(1); round < 4; round++ {
		k.produceRows(t, round*2500, 2500)
		if round%2 == 1 {
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			db = openKafkaDB(t, dir)
		}
	}
	checkExactlyOnce(t, db, k, "rec_all", "rec_k")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestKafkaBadMessages: malformed messages are skipped, counted and
// listed with partition and offset; the source goes on. A topic that does
// not exist is an error at CREATE.
func TestKafkaBadMessages(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	k := newKafkaTopic(t, "bad")
	defer k.close()
	db := openKafkaDB(t, t.TempDir())
	defer db.Close()

	_, err := db.Exec(context.Background(), fmt.Sprintf(`CREATE SOURCE nope (id int) WITH (connector = 'kafka', topic = 'missing',
		properties.bootstrap.server = '%s') FORMAT PLAIN ENCODE JSON`, k.addr))
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code != pgerr.UndefinedObject || !strings.Contains(pe.Message, "missing") {
		t.Fatalf("CREATE over a missing topic: %v", err)
	}

	k.produceRows(t, 0, 100)
	bad := []string{`{"id": 1000, "K": "abc"}`, `not json`, `{"id": 1001, "K": true}`, `[1, 2]`, `{"id": 1002, "K": 99999999999}`}
	var recs []*kgo.Record
	for _, v := range bad {
		recs = append(recs, &kgo.Record{Topic: k.topic, Partition: 2, Value: []byte(v)})
	}
	k.produce(t, recs)
	k.produceRows(t, 100, 100)
	// A source keeps no rows: it is created held, so that both views
	// see every message.
	mustExec(t, db, fmt.Sprintf(`CREATE SOURCE s (id bigint, k int, v varchar) WITH (%s, source_rate_limit = 0)
		FORMAT PLAIN ENCODE JSON`, k.with("earliest")))
	mustExec(t, db, "CREATE MATERIALIZED VIEW s_all AS SELECT id, k FROM s")
	mustExec(t, db, "CREATE MATERIALIZED VIEW s_k AS SELECT k, count(*) AS c, sum(id) AS s FROM s GROUP BY k")
	time.Sleep(100 * time.Millisecond)
	if got := queryInt(t, db, "SELECT count(*) FROM s_all"); got != 0 {
		t.Fatalf("a held source produced %d rows", got)
	}
	mustExec(t, db, "ALTER SOURCE s SET SOURCE_RATE_LIMIT = DEFAULT")
	checkExactlyOnce(t, db, k, "s_all", "s_k")
	// Partition 2 had 25 good messages (ids 2, 6, ...) before the bad ones.
	got := queryRows(t, db, "SELECT source, partition_id, message_offset, error FROM streamdb_catalog.source_errors")
	if len(got) != len(bad) {
		t.Fatalf("source_errors = %v, want %d rows", got, len(bad))
	}
	t.Logf("source_errors:\n%s", strings.Join(got, "\n"))
	for i, row := range got {
		if !strings.HasPrefix(row, fmt.Sprintf("s|2|%d|", 25+i)) {
			t.Errorf("source_errors row %d = %q", i, row)
		}
	}
	if n := queryInt(t, db, "SELECT skipped FROM streamdb_catalog.sources WHERE name = 's'"); n != int64(len(bad)) {
		t.Errorf("skipped = %d, want %d", n, len(bad))
	}
}

// TestKafkaLatestAndPause: scan.startup.mode = 'latest' skips what was
// produced before CREATE; PAUSE holds the source and RESUME catches up.
func TestKafkaLatestAndPause(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	k := newKafkaTopic(t, "late")
	defer k.close()
	db := openKafkaDB(t, t.TempDir())
	defer db.Close()
	k.produceRows(t, 0, 1000)
	mustExec(t, db, fmt.Sprintf(`CREATE SOURCE s (id bigint, k int) WITH (%s) FORMAT PLAIN ENCODE JSON`, k.with("latest")))
	mustExec(t, db, "CREATE MATERIALIZED VIEW n AS SELECT count(*) AS c, min(id) AS lo FROM s")
	k.produceRows(t, 1000, 500)
	waitFor(t, 30*time.Second, "the later rows", func() bool { return queryInt(t, db, "SELECT c FROM n") >= 500 })
	mustExec(t, db, "FLUSH")
	if got := queryRows(t, db, "SELECT c, lo FROM n"); len(got) != 1 || got[0] != "500|1000" {
		t.Fatalf("view over a latest source = %v, want 500|1000", got)
	}

	mustExec(t, db, "ALTER SOURCE s PAUSE")
	mustExec(t, db, "FLUSH")
	k.produceRows(t, 1500, 500)
	time.Sleep(500 * time.Millisecond)
	if got := queryInt(t, db, "SELECT c FROM n"); got != 500 {
		t.Fatalf("a paused source went on: %d rows", got)
	}
	mustExec(t, db, "ALTER SOURCE s RESUME")
	waitFor(t, 30*time.Second, "the resumed source", func() bool { return queryInt(t, db, "SELECT c FROM n") == 1000 })
	mustExec(t, db, "ALTER SOURCE s SET SOURCE_RATE_LIMIT = 200")
	mustExec(t, db, "FLUSH")
	k.produceRows(t, 2000, 200)
	start := time.Now()
	waitFor(t, 30*time.Second, "the limited source", func() bool { return queryInt(t, db, "SELECT c FROM n") == 1200 })
	if el := time.Since(start); el < 600*time.Millisecond {
		t.Fatalf("200 rows at 200 rows/s took %v", el)
	}
}

// TestKafkaCSVAndBrokerDown: ENCODE CSV reads one record per message;
// a broker that goes away shows in streamdb_catalog.sources as retrying,
// and the database still closes.
func TestKafkaCSVAndBrokerDown(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	k := newKafkaTopic(t, "csv")
	db := openKafkaDB(t, t.TempDir())
	var recs []*kgo.Record
	for i := 0; i < 100; i++ {
		recs = append(recs, &kgo.Record{Topic: k.topic, Partition: int32(i % kafkaPartitions), Value: []byte(fmt.Sprintf(`%d;"n;%d";%d.5`, i, i, i))})
	}
	k.produce(t, recs)
	mustExec(t, db, fmt.Sprintf(`CREATE TABLE c (id int PRIMARY KEY, name text, x numeric) WITH (%s)
		FORMAT PLAIN ENCODE CSV (without_header = 'true', delimiter = ';')`, k.with("earliest")))
	waitFor(t, 30*time.Second, "the CSV rows", func() bool { return queryInt(t, db, "SELECT count(*) FROM c") == 100 })
	if got := queryRows(t, db, "SELECT id, name, x FROM c WHERE id = 42"); len(got) != 1 || got[0] != "42|n;42|42.5" {
		t.Fatalf("row 42 = %v", got)
	}
	k.close()
	down := time.Now()
	waitFor(t, 30*time.Second, "the reader to notice", func() bool {
		rows := queryRows(t, db, "SELECT state FROM streamdb_catalog.sources WHERE name = 'c'")
		return len(rows) == 1 && strings.HasPrefix(rows[0], "retrying")
	})
	t.Logf("the reader saw the broker down after %v", time.Since(down).Round(time.Millisecond))
	closing := time.Now()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("closed in %v", time.Since(closing).Round(time.Millisecond))
}

// TestKafkaNewPartition: a partition added to the topic while a source
// reads it is picked up from its start.
func TestKafkaNewPartition(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	k := newKafkaTopic(t, "grow")
	defer k.close()
	db := openKafkaDB(t, t.TempDir())
	defer db.Close()
	mustExec(t, db, fmt.Sprintf(`CREATE TABLE g (id bigint, k int) WITH (%s) FORMAT PLAIN ENCODE JSON`, k.with("latest")))
	k.produceRows(t, 0, 400)
	waitFor(t, 30*time.Second, "the first rows", func() bool { return queryInt(t, db, "SELECT count(*) FROM g") == 400 })
	req := kmsg.NewPtrCreatePartitionsRequest()
	rt := kmsg.NewCreatePartitionsRequestTopic()
	rt.Topic, rt.Count = k.topic, kafkaPartitions+1
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(context.Background(), k.prod)
	if err != nil {
		t.Fatal(err)
	}
	if err := kerr.ErrorForCode(resp.Topics[0].ErrorCode); err != nil {
		t.Fatal(err)
	}
	rec := func(id int) *kgo.Record {
		return &kgo.Record{Topic: k.topic, Partition: kafkaPartitions, Value: []byte(fmt.Sprintf(`{"id": %d, "k": 1}`, id))}
	}
	// One record until the producer knows the partition (a failed record
	// is not written; a batch retried whole after a partial failure would
	// write some twice), then the rest once.
	waitFor(t, 10*time.Second, "the producer to see the new partition", func() bool {
		k.prod.ForceMetadataRefresh()
		return k.prod.ProduceSync(context.Background(), rec(400)).FirstErr() == nil
	})
	var recs []*kgo.Record
	for id := 401; id < 450; id++ {
		recs = append(recs, rec(id))
	}
	if err := k.prod.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the new partition's rows", func() bool { return queryInt(t, db, "SELECT count(*) FROM g") >= 450 })
	mustExec(t, db, "FLUSH")
	if got, distinct := queryInt(t, db, "SELECT count(*) FROM g"), queryInt(t, db, "SELECT count(DISTINCT id) FROM g"); got != 450 || distinct != 450 {
		t.Fatalf("%d rows, %d distinct ids, want 450", got, distinct)
	}
}
