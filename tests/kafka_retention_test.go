package tests

import (
	"context"
	"fmt"
	"strings"
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
