package tests

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"go.uber.org/goleak"

	"github.com/streamdb/streamdb"
)

// wmBase is the event time the watermark test's messages count from.
var wmBase = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// wmLag is the table's watermark lag, in seconds: wide enough that no
// message of a phase is late, whichever partition a reader reads first.
const wmLag = 1000

// produceTimed produces 400 messages, ids from first, round-robin over
// the partitions, at event times from second `from` on (100 seconds per
// partition, in order within each), then one closing message per
// partition at from + wmLag + closeAt, once db's table ev has the rest: once every reader read it the
// watermark is from + closeAt.
func (k *kafkaTopic) produceTimed(t *testing.T, db *streamdb.DB, first int64, from, closeAt int) {
	t.Helper()
	ts := func(s int) string { return wmBase.Add(time.Duration(s) * time.Second).Format("2006-01-02 15:04:05") }
	var recs []*kgo.Record
	for i := int64(0); i < 400; i++ {
		v := fmt.Sprintf(`{"id": %d, "ts": "%s"}`, first+i, ts(from+int(i/kafkaPartitions)))
		recs = append(recs, &kgo.Record{Topic: k.topic, Partition: int32(i % kafkaPartitions), Value: []byte(v)})
	}
	k.produce(t, recs)
	// The closing messages go once every reader has read the rest: a
	// reader of several partitions that read one's closing message
	// before another's rows would find those late.
	waitFor(t, 60*time.Second, "the rows before the closing messages", func() bool {
		return queryInt(t, db, fmt.Sprintf("SELECT count(*) FROM ev WHERE id >= %d AND id < %d", first, first+400)) == 400
	})
	recs = recs[:0]
	for p := int32(0); p < kafkaPartitions; p++ {
		v := fmt.Sprintf(`{"id": %d, "ts": "%s"}`, -1-int64(p)-first, ts(from+wmLag+closeAt))
		recs = append(recs, &kgo.Record{Topic: k.topic, Partition: p, Value: []byte(v)})
	}
	k.produce(t, recs)
}

// TestKafkaWatermarkReaders: a Kafka table with a WATERMARK read by
// several actors keeps a watermark per reader, merged (their least)
// downstream: an EMIT ON WINDOW CLOSE view over it emits each window
// once, once every reader passed it, equal to the batch query over the
// table's closed windows, across rescales (2 -> 3 -> 6 readers of 4
// partitions: two of the six own none and follow the others), and a
// restart.
func TestKafkaWatermarkReaders(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	k := newKafkaTopic(t, "wm")
	defer k.close()
	dir := t.TempDir()
	db := openKafkaDB(t, dir)
	defer func() {
		if db != nil {
			db.Close()
		}
	}()
	mustExec(t, db, fmt.Sprintf(`CREATE TABLE ev (id bigint, ts timestamp, WATERMARK FOR ts AS ts - INTERVAL '%d seconds') APPEND ONLY
		WITH (streaming_parallelism = 2, %s) FORMAT PLAIN ENCODE JSON`, wmLag, k.with("earliest")))
	if got := fragmentPar(t, db, "ev"); got != "0|source|2,1|table|2" {
		t.Fatalf("fragments of ev = %s", got)
	}
	const windows = `SELECT window_start, count(*) AS c, sum(id) AS s FROM TUMBLE(ev, ts, INTERVAL '10 seconds') GROUP BY window_start`
	mustExec(t, db, "CREATE MATERIALIZED VIEW wv AS "+windows+" EMIT ON WINDOW CLOSE")

	rows := int64(0)
	check := func(phase string, closed, nwindows int) {
		t.Helper()
		bound := wmBase.Add(time.Duration(closed) * time.Second)
		waitFor(t, 60*time.Second, phase+": the watermark", func() bool {
			got := queryRows(t, db, "SELECT watermark FROM streamdb_catalog.watermarks WHERE name = 'ev'")
			return len(got) == 1 && got[0] == bound.Format("2006-01-02 15:04:05")
		})
		if !waitUntil(60*time.Second, func() bool { return queryInt(t, db, "SELECT count(*) FROM ev") == rows }) {
			t.Fatalf("%s: %d rows, want %d; watermarks %v; per partition %v", phase, queryInt(t, db, "SELECT count(*) FROM ev"), rows,
				queryRows(t, db, "SELECT watermark, late_rows FROM streamdb_catalog.watermarks"),
				queryRows(t, db, "SELECT id / 1000, count(*) FROM ev GROUP BY 1 ORDER BY 1"))
		}
		mustExec(t, db, "FLUSH")
		want := queryRows(t, db, "SELECT * FROM ("+windows+") q WHERE window_start + INTERVAL '10 seconds' <= '"+
			bound.Format("2006-01-02 15:04:05")+"' ORDER BY window_start")
		if len(want) != nwindows {
			t.Fatalf("%s: the batch query has %d closed windows, want %d: %v", phase, len(want), nwindows, want)
		}
		for _, w := range want {
			if !strings.Contains(w, "|40|") {
				t.Fatalf("%s: a closed window of the batch query is not whole: %s", phase, w)
			}
		}
		if got := queryRows(t, db, "SELECT * FROM wv ORDER BY window_start"); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("%s: the view has\n%s\nwant\n%s", phase, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if got := queryInt(t, db, "SELECT late_rows FROM streamdb_catalog.watermarks WHERE name = 'ev'"); got != 0 {
			t.Fatalf("%s: %d late rows", phase, got)
		}
	}

	// Each phase's data sits 200 seconds past the last one's, its
	// closing messages close every window of it.
	k.produceTimed(t, db, 0, 0, 100)
	rows += 400 + kafkaPartitions
	check("2 readers", 100, 10)

	alterRetrying(t, db, "ALTER TABLE ev SET PARALLELISM = 3")
	k.produceTimed(t, db, 1000, 200, 100)
	rows += 400 + kafkaPartitions
	check("3 readers", 300, 20)

	alterRetrying(t, db, "ALTER TABLE ev SET PARALLELISM = 6")
	if got := fragmentPar(t, db, "ev"); got != "0|source|6,1|table|6" {
		t.Fatalf("fragments of ev = %s", got)
	}
	k.produceTimed(t, db, 2000, 400, 100)
	rows += 400 + kafkaPartitions
	check("6 readers, 2 without a partition", 500, 30)

	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openKafkaDB(t, dir)
	check("after a restart", 500, 30)
	k.produceTimed(t, db, 3000, 600, 100)
	rows += 400 + kafkaPartitions
	check("after a restart, more", 700, 40)
}

// waitUntil polls cond until it holds or timeout passes.
func waitUntil(timeout time.Duration, cond func() bool) bool {
	for end := time.Now().Add(timeout); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}
