package tests

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	"go.uber.org/goleak"
)

// deleteRecords deletes the messages of partitions below offset, as a
// topic's retention does.
func (k *kafkaTopic) deleteRecords(t *testing.T, offset int64, partitions ...int32) {
	t.Helper()
	req := kmsg.NewPtrDeleteRecordsRequest()
	rt := kmsg.NewDeleteRecordsRequestTopic()
	rt.Topic = k.topic
	for _, p := range partitions {
		rp := kmsg.NewDeleteRecordsRequestTopicPartition()
		rp.Partition, rp.Offset = p, offset
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	req.TimeoutMillis = 10000
	resp, err := req.RequestWith(context.Background(), k.prod)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range resp.Topics[0].Partitions {
		if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
			t.Fatalf("deleting records of partition %d: %v", p.Partition, err)
		}
	}
}

// TestKafkaRetentionLoss: messages the topic's retention deleted before a
// source read them (while the database was closed) are not skipped
// silently: each lost range counts as skipped once and is listed in
// source_errors with its partition and offsets.
func TestKafkaRetentionLoss(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	k := newKafkaTopic(t, "ret")
	defer k.close()
	dir := t.TempDir()
	db := openKafkaDB(t, dir)
	k.produceRows(t, 0, 400) // offsets 0..99 of each partition
	mustExec(t, db, fmt.Sprintf(`CREATE TABLE r (id bigint, k int) WITH (%s) FORMAT PLAIN ENCODE JSON`, k.with("earliest")))
	waitFor(t, 30*time.Second, "the first rows", func() bool { return queryInt(t, db, "SELECT count(*) FROM r") == 400 })
	mustExec(t, db, "FLUSH")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	k.produceRows(t, 400, 400)    // offsets 100..199
	k.deleteRecords(t, 150, 0, 1) // 100..149 of partitions 0 and 1 never read

	for round := 0; round < 2; round++ {
		db = openKafkaDB(t, dir)
		waitFor(t, 30*time.Second, "the rows after the gap", func() bool { return queryInt(t, db, "SELECT count(*) FROM r") == 700 })
		mustExec(t, db, "FLUSH")
		if got := queryInt(t, db, "SELECT count(*) FROM r"); got != 700 {
			t.Fatalf("round %d: %d rows, want 700", round, got)
		}
		if got := queryInt(t, db, "SELECT skipped FROM streamdb_catalog.sources WHERE name = 'r'"); got != 2 {
			t.Errorf("round %d: skipped = %d, want the 2 lost ranges", round, got)
		}
		errs := queryRows(t, db, "SELECT partition_id, message_offset, error FROM streamdb_catalog.source_errors")
		// Kept across the reopen, and listed once: committed past the
		// gap, nothing is lost the second time.
		want := "0|149|kafka: offsets 100 to 149 of partition 0 (50 messages) were deleted by the topic's retention before they were read," +
			"1|149|kafka: offsets 100 to 149 of partition 1 (50 messages) were deleted by the topic's retention before they were read"
		if strings.Join(errs, ",") != want {
			t.Errorf("round %d: source_errors = %q", round, errs)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// holdFetches makes the cluster refuse the consumers' fetches (it closes
// their connection, and kgo retries) until the returned release is
// called, as a reader that falls behind sees the log move under it. It
// returns once two fetches were refused, so a fetch in flight when it
// was called has ended: no message produced after it returns is fetched
// before release.
func (k *kafkaTopic) holdFetches(t *testing.T) (release func()) {
	t.Helper()
	var held atomic.Bool
	var refused atomic.Int64
	held.Store(true)
	k.cluster.ControlKey(int16(kmsg.Fetch), func(kmsg.Request) (kmsg.Response, error, bool) {
		if !held.Load() {
			return nil, nil, false // served as usual; the control is dropped
		}
		k.cluster.KeepControl()
		refused.Add(1)
		return nil, errors.New("fetches held"), true
	})
	waitFor(t, 30*time.Second, "two refused fetches", func() bool { return refused.Load() >= 2 })
	return func() { held.Store(false) }
}

// TestKafkaRetentionWhileReading: messages the topic's retention deletes
// while a running reader is behind are not skipped silently either:
// kgo reports the fetch out of range instead of resetting, and the
// reader reports the lost range of each partition (counted once, kept in
// source_errors across a restart) and reads on from the log start. The
// table and a view over it hold exactly the messages that survived, each
// once.
func TestKafkaRetentionWhileReading(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	k := newKafkaTopic(t, "retrun")
	defer k.close()
	dir := t.TempDir()
	db := openKafkaDB(t, dir)
	k.produceRows(t, 0, 400) // offsets 0..99 of each partition
	mustExec(t, db, fmt.Sprintf(`CREATE TABLE r (id bigint, k int) WITH (%s) FORMAT PLAIN ENCODE JSON`, k.with("earliest")))
	mustExec(t, db, "CREATE MATERIALIZED VIEW rv AS SELECT k, count(*) AS c, sum(id) AS s FROM r GROUP BY k")
	waitFor(t, 30*time.Second, "the first rows", func() bool { return queryInt(t, db, "SELECT count(*) FROM r") == 400 })

	release := k.holdFetches(t)
	k.produceRows(t, 400, 400)    // offsets 100..199, not fetched yet
	k.deleteRecords(t, 150, 0, 1) // 100..149 of partitions 0 and 1 go before the reader gets there
	release()

	// The survivors: every id below 400, and of the later ones those of
	// partitions 2 and 3, or at offset 150 or above.
	perKey := map[int64][2]int64{}
	var total int64
	for id := int64(0); id < 800; id++ {
		p, off := id%kafkaPartitions, id/kafkaPartitions
		if id >= 400 && p < 2 && off < 150 {
			continue
		}
		c := perKey[id%10]
		perKey[id%10] = [2]int64{c[0] + 1, c[1] + id}
		total++
	}
	var want []string
	for key := int64(0); key < 10; key++ {
		want = append(want, fmt.Sprintf("%d|%d|%d", key, perKey[key][0], perKey[key][1]))
	}
	wantErrs := "0|149|kafka: offsets 100 to 149 of partition 0 (50 messages) were deleted by the topic's retention before they were read," +
		"1|149|kafka: offsets 100 to 149 of partition 1 (50 messages) were deleted by the topic's retention before they were read"
	for round := 0; round < 2; round++ {
		if round == 1 {
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			db = openKafkaDB(t, dir)
		}
		waitFor(t, 30*time.Second, "the survivors", func() bool { return queryInt(t, db, "SELECT count(*) FROM r") == total })
		mustExec(t, db, "FLUSH")
		if got := queryInt(t, db, "SELECT count(DISTINCT id) FROM r"); got != total {
			t.Fatalf("round %d: %d distinct ids, want %d", round, got, total)
		}
		if got := queryRows(t, db, "SELECT k, c, s FROM rv"); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("round %d: view = %v, want %v", round, got, want)
		}
		if got := queryInt(t, db, "SELECT skipped FROM streamdb_catalog.sources WHERE name = 'r'"); got != 2 {
			t.Errorf("round %d: skipped = %d, want the 2 lost ranges", round, got)
		}
		errs := queryRows(t, db, "SELECT partition_id, message_offset, error FROM streamdb_catalog.source_errors")
		if strings.Join(errs, ",") != wantErrs {
			t.Errorf("round %d: source_errors = %q", round, errs)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}
