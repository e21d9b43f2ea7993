package tests

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamdb/streamdb"
)

// TestKafkaIngestRate measures the rows per second a Kafka table ingests
// from a 4-partition kfake topic of small JSON messages, alone and with a
// GROUP BY view over it, next to COPY of the same rows. It runs only with
// STREAMDB_KAFKA_BENCH set to the number of messages (1 means 1,000,000):
//
//	STREAMDB_KAFKA_BENCH=1 go test ./tests/ -run TestKafkaIngestRate -v
func TestKafkaIngestRate(t *testing.T) {
	n := kafkaBenchRows(t)
	k := newKafkaTopic(t, "bench")
	start := time.Now()
	recs := make([]*kgo.Record, 0, n)
	var copyText bytes.Buffer
	for id := int64(0); id < n; id++ {
		v := fmt.Sprintf(`{"id":%d,"k":%d,"v":"r%d"}`, id, id%10, id)
		recs = append(recs, &kgo.Record{Topic: k.topic, Partition: int32(id % kafkaPartitions), Value: []byte(v)})
		fmt.Fprintf(&copyText, "%d\t%d\tr%d\n", id, id%10, id)
	}
	k.produce(t, recs)
	t.Logf("produced %d messages in %v", n, time.Since(start).Round(time.Millisecond))

	for _, view := range []bool{false, true} {
		what := "table"
		if view {
			what = "table + GROUP BY view"
		}
		kafka := benchIngest(t, n, view, func(db *streamdb.DB, table string) {
			mustExec(t, db, fmt.Sprintf(`CREATE TABLE %s (id bigint, k int, v text) WITH (%s, source_rate_limit = 0) FORMAT PLAIN ENCODE JSON`, table, k.with("earliest")))
		}, func(db *streamdb.DB, table string) {
			mustExec(t, db, "ALTER TABLE "+table+" SET SOURCE_RATE_LIMIT = DEFAULT")
			waitFor(t, 10*time.Minute, "the topic", func() bool {
				return queryInt(t, db, "SELECT rows_generated FROM streamdb_catalog.sources") >= n
			})
		})
		cp := benchIngest(t, n, view, func(db *streamdb.DB, table string) {
			mustExec(t, db, fmt.Sprintf("CREATE TABLE %s (id bigint, k int, v text)", table))
		}, func(db *streamdb.DB, table string) {
			if _, err := db.CopyFrom(context.Background(), "COPY "+table+" FROM STDIN", bytes.NewReader(copyText.Bytes())); err != nil {
				t.Fatal(err)
			}
		})
		t.Logf("%s: kafka %.0f rows/s, COPY %.0f rows/s", what, kafka, cp)
	}
}

func kafkaBenchRows(t *testing.T) int64 {
	v := os.Getenv("STREAMDB_KAFKA_BENCH")
	if v == "" {
		t.Skip("set STREAMDB_KAFKA_BENCH to the number of messages (1: a million)")
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1 {
		t.Fatalf("STREAMDB_KAFKA_BENCH=%q", v)
	}
	if n == 1 {
		n = 1_000_000
	}
	return n
}

// benchIngest opens a database, creates the table (a Kafka one held) and
// the view, loads n rows with load and returns the rows per second from
// the start of the load to the commit of its last row (the view's
// included).
func benchIngest(t *testing.T, n int64, view bool, create, load func(db *streamdb.DB, table string)) float64 {
	db := openKafkaDB(t, t.TempDir())
	defer db.Close()
	create(db, "b")
	if view {
		mustExec(t, db, "CREATE MATERIALIZED VIEW b_k AS SELECT k, count(*) AS c FROM b GROUP BY k")
	}
	start := time.Now()
	load(db, "b")
	mustExec(t, db, "FLUSH")
	el := time.Since(start)
	if got := queryInt(t, db, "SELECT count(*) FROM b"); got != n {
		t.Fatalf("%d rows, want %d", got, n)
	}
	if view {
		if got := queryInt(t, db, "SELECT sum(c) FROM b_k"); got != n {
			t.Fatalf("the view counted %d rows, want %d", got, n)
		}
	}
	return float64(n) / el.Seconds()
}
