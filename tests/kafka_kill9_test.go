package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestKafkaKill9 runs a server process with a Kafka-fed table, a GROUP
// BY view over it, and exactly-once sinks of that table and of a DML
// table, while messages are produced and rows inserted, and kills it with
// SIGKILL three times at arbitrary moments. Afterwards every message
// produced is in the table once (the offsets commit with the rows), the
// view equals its query, every acknowledged INSERT is there, and each
// sink's topic holds exactly the ids of its table, once each, to a
// read_committed consumer: a Kafka transaction is never committed twice
// nor lost, whatever the kill interrupted. The barrier interval is set
// with ALTER SYSTEM, which must survive the kills as well.
func TestKafkaKill9(t *testing.T) {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(4, "k9in", "k9out", "k9ev"))
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	addr := cluster.ListenAddrs()[0]
	prod, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(0))
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	ctx := context.Background()
	dir := t.TempDir()
	p := startProc(t, dir)
	c := p.connect(t)
	with := func(topic, extra string) string {
		return fmt.Sprintf("connector = 'kafka', topic = '%s', properties.bootstrap.server = '%s'%s", topic, addr, extra)
	}
	for _, q := range []string{
		"ALTER SYSTEM SET barrier_interval_ms = 50",
		"CREATE TABLE src (id bigint, k int) WITH (" + with("k9in", ", scan.startup.mode = 'earliest'") + ") FORMAT PLAIN ENCODE JSON",
		"CREATE MATERIALIZED VIEW agg AS SELECT k, count(*) AS c, sum(id) AS s FROM src GROUP BY k",
		// The table takes DML, so its sink is UPSERT: one message per id.
		"CREATE SINK src_out FROM src WITH (" + with("k9out", ", primary_key = 'id', is_exactly_once = 'true'") + ") FORMAT UPSERT ENCODE JSON",
		"CREATE TABLE ev (id bigint, v text) APPEND ONLY",
		"CREATE SINK ev_out FROM ev WITH (" + with("k9ev", ", is_exactly_once = 'true'") + ") FORMAT PLAIN ENCODE JSON",
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	produced := int64(0) // messages k9in holds: ids 1..produced
	produce := func(n int64) {
		recs := make([]*kgo.Record, 0, n)
		for id := produced + 1; id <= produced+n; id++ {
			recs = append(recs, &kgo.Record{Topic: "k9in", Partition: int32(id % 4),
				Value: fmt.Appendf(nil, `{"id": %d, "k": %d}`, id, id%7)})
		}
		if err := prod.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			t.Errorf("produce: %v", err)
			return
		}
		produced += n
	}
	acked := map[int64]bool{} // ids of acknowledged INSERTs into ev
	nextEv := int64(1)
	rng := rand.New(rand.NewPCG(7, 9))
	for round := 0; round < 3; round++ {
		var wg sync.WaitGroup
		stop := make(chan struct{})
		wg.Add(2)
		go func() { // the producer: batches until the kill
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				produce(200)
				time.Sleep(10 * time.Millisecond)
			}
		}()
		go func(c *pgx.Conn) { // the writer: until its connection dies
			defer wg.Done()
			for {
				// An INSERT cut by the kill may have committed: its
				// ids are never used again.
				id := nextEv
				nextEv += 2
				if _, err := c.Exec(ctx, fmt.Sprintf("INSERT INTO ev VALUES (%d, 'x'), (%d, 'y')", id, id+1)); err != nil {
					return
				}
				acked[id], acked[id+1] = true, true
			}
		}(c)
		time.Sleep(time.Duration(300+rng.IntN(900)) * time.Millisecond)
		p.kill()
		close(stop)
		wg.Wait()
		c.Close(ctx)
		if t.Failed() {
			return
		}
		p = startProc(t, dir)
		c = p.connect(t)
	}
	defer c.Close(ctx)
	produce(500)
	if t.Failed() {
		return
	}
	if _, err := c.Exec(ctx, "INSERT INTO ev VALUES (0, 'last')"); err != nil {
		t.Fatal(err)
	}
	acked[0] = true

	var interval string
	if err := c.QueryRow(ctx, "SHOW barrier_interval_ms").Scan(&interval); err != nil || interval != "50" {
		t.Fatalf("barrier_interval_ms after the kills: %q, %v", interval, err)
	}
	count := func(q string) int64 {
		var n int64
		if err := c.QueryRow(ctx, q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	waitFor(t, 60*time.Second, fmt.Sprintf("%d rows in src", produced), func() bool {
		return count("SELECT count(*) FROM src") >= produced
	})
	if _, err := c.Exec(ctx, "FLUSH"); err != nil {
		t.Fatal(err)
	}
	if n, d := count("SELECT count(*) FROM src"), count("SELECT count(DISTINCT id) FROM src"); n != produced || d != produced ||
		count("SELECT max(id) FROM src") != produced {
		t.Fatalf("src holds %d rows, %d distinct ids, of %d messages", n, d, produced)
	}
	if diff := count(`SELECT count(*) FROM ((SELECT k, c, s FROM agg EXCEPT SELECT k, count(*), sum(id) FROM src GROUP BY k)
		UNION ALL (SELECT k, count(*), sum(id) FROM src GROUP BY k EXCEPT SELECT k, c, s FROM agg)) d`); diff != 0 {
		t.Fatalf("agg differs from its query in %d rows", diff)
	}
	evIDs := map[int64]bool{}
	rows, err := c.Query(ctx, "SELECT id FROM ev")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		if evIDs[id] {
			t.Fatalf("ev holds id %d twice", id)
		}
		evIDs[id] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for id := range acked {
		if !evIDs[id] {
			t.Fatalf("acknowledged id %d of ev is lost (%d acknowledged, %d in ev)", id, len(acked), len(evIDs))
		}
	}
	srcIDs := map[int64]bool{}
	for id := int64(1); id <= produced; id++ {
		srcIDs[id] = true
	}
	checkSinkTopic(t, addr, "k9out", srcIDs)
	checkSinkTopic(t, addr, "k9ev", evIDs)
}

// checkSinkTopic reads topic under read_committed until it holds as many
// messages as want has ids, then a little longer, and checks it holds
// each id of want exactly once and nothing else.
func checkSinkTopic(t *testing.T, addr, topic string, want map[int64]bool) {
	t.Helper()
	r := newTopicReader(t, addr, topic)
	waitFor(t, 60*time.Second, fmt.Sprintf("%d messages in %s", len(want), topic), func() bool {
		r.poll()
		return len(r.recs) >= len(want)
	})
	time.Sleep(300 * time.Millisecond) // anything extra arrives, to be counted
	r.poll()
	seen := map[int64]int{}
	for _, rec := range r.recs {
		var m struct{ ID int64 }
		if err := json.Unmarshal(rec.Value, &m); err != nil {
			t.Fatalf("%s: %s: %v", topic, rec.Value, err)
		}
		seen[m.ID]++
		if !want[m.ID] {
			t.Fatalf("%s holds id %d, which its table does not", topic, m.ID)
		}
	}
	for id := range want {
		if seen[id] != 1 {
			t.Fatalf("%s holds id %d %d times (%d messages for %d ids)", topic, id, seen[id], len(r.recs), len(want))
		}
	}
}
