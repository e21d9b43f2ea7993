package tests

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/twmb/franz-go/pkg/kgo"
	"go.uber.org/goleak"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/failpoint"
)

// checkViewHasAll waits until view (k, c, s: count and sum of id per k)
// counts every good message produced, then checks it counted each once.
func checkViewHasAll(t *testing.T, db *streamdb.DB, k *kafkaTopic, view string) {
	t.Helper()
	k.mu.Lock()
	total := int64(0)
	for _, n := range k.produced {
		total += n
	}
	k.mu.Unlock()
	waitFor(t, 60*time.Second, fmt.Sprintf("%d rows in %s", total, view), func() bool {
		return queryInt(t, db, "SELECT coalesce(sum(c), 0) FROM "+view) >= total
	})
	mustExec(t, db, "FLUSH")
	want := strings.Join(k.wantPerKey(), ",")
	if got := strings.Join(queryRows(t, db, "SELECT k, c FROM "+view), ","); got != want {
		t.Fatalf("view %s: %s\nproduced: %s", view, got, want)
	}
	// Every id once: the sum of ids 0..total-1.
	if got := queryInt(t, db, "SELECT sum(s) FROM "+view); got != total*(total-1)/2 {
		t.Fatalf("view %s: sum of ids %d, want %d", view, got, total*(total-1)/2)
	}
}

func waitSourceRead(t *testing.T, db *streamdb.DB, src string, n int64) {
	t.Helper()
	waitFor(t, 60*time.Second, fmt.Sprintf("%s to read %d messages", src, n), func() bool {
		return queryInt(t, db, "SELECT rows_generated FROM streamdb_catalog.sources WHERE name = '"+src+"'") >= n
	})
}

// TestKafkaSourceBackfill: a view created over a Kafka SOURCE that has
// already read the topic sees it from the source's startup position
// (earliest): the history, then what comes after, each message once;
// a second view created later, during produces and under a backfill
// rate limit, too; and both after a restart.
func TestKafkaSourceBackfill(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	k := newKafkaTopic(t, "sbf")
	defer k.close()
	k.produceRows(t, 0, 4000)
	dir := t.TempDir()
	db := openKafkaDB(t, dir)
	mustExec(t, db, fmt.Sprintf(`CREATE SOURCE src (id bigint, k int, v text) WITH (%s) FORMAT PLAIN ENCODE JSON`, k.with("earliest")))
	waitSourceRead(t, db, "src", 4000)
	mustExec(t, db, "CREATE MATERIALIZED VIEW v1 AS SELECT k, count(*) AS c, sum(id) AS s FROM src GROUP BY k")
	checkViewHasAll(t, db, k, "v1")

	k.produceRows(t, 4000, 2000)
	checkViewHasAll(t, db, k, "v1")

	// A second view, rate-limited, while messages keep coming.
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := int64(0); i < 5; i++ {
			k.produceRows(t, 6000+i*400, 400)
			time.Sleep(50 * time.Millisecond)
		}
	}()
	mustExec(t, db, "CREATE MATERIALIZED VIEW v2 WITH (backfill_rate_limit = 5000) AS SELECT k, count(*) AS c, sum(id) AS s FROM src GROUP BY k")
	<-done
	checkViewHasAll(t, db, k, "v1")
	checkViewHasAll(t, db, k, "v2")

	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	k.produceRows(t, 8000, 1000)
	db = openKafkaDB(t, dir)
	checkViewHasAll(t, db, k, "v1")
	checkViewHasAll(t, db, k, "v2")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestKafkaSourceBackfillResume: a source read by two actors, a view over
// it backfilling under a low rate limit with two scan actors; the
// database is closed in the middle of the backfill (and, with -tags
// invariants, the scans fail twice mid-backfill, so the job recovers),
// messages keep coming; after reopening, the backfill resumes from its
// committed position and the view holds every message once.
func TestKafkaSourceBackfillResume(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	k := newKafkaTopic(t, "sbfr")
	defer k.close()
	k.produceRows(t, 0, 12000)
	dir := t.TempDir()
	db := openKafkaDB(t, dir)
	ctx := context.Background()
	s := db.NewSession()
	for _, q := range []string{"SET streaming_parallelism = 2",
		fmt.Sprintf(`CREATE SOURCE src (id bigint, k int, v text) WITH (%s) FORMAT PLAIN ENCODE JSON`, k.with("earliest"))} {
		if _, err := s.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	waitSourceRead(t, db, "src", 12000)
	if failpoint.Enabled {
		off, err := failpoint.Enable(failpoint.ExecScanChunk, failpoint.Spec{Action: failpoint.Error, After: 5, Times: 2})
		if err != nil {
			t.Fatal(err)
		}
		defer off()
	}
	for _, q := range []string{"SET background_ddl = true",
		"CREATE MATERIALIZED VIEW v WITH (backfill_rate_limit = 8000) AS SELECT k, count(*) AS c, sum(id) AS s FROM src GROUP BY k"} {
		if _, err := s.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	k.produceRows(t, 12000, 1000)
	// Close once the backfill has read some of the history, not all.
	var read int64
	waitFor(t, 30*time.Second, "the backfill to be under way", func() bool {
		read = queryInt(t, db, "SELECT coalesce(sum(rows_read), -1) FROM streamdb_catalog.ddl_progress")
		return read > 2000 || read == -1
	})
	if read == -1 || read >= 12000 {
		t.Fatalf("the backfill was not under way at the close (rows read %d)", read)
	}
	// rows_total is known from the start: the offsets in the range, the
	// 12000 messages read before the CREATE and those of the 1000 after
	// it that the source read before the view's snapshot was pinned.
	if total := queryInt(t, db, "SELECT sum(rows_total) FROM streamdb_catalog.ddl_progress"); total < 12000 || total > 13000 {
		t.Errorf("rows_total mid-backfill = %d, want the range's size, 12000 to 13000", total)
	}
	recovered := queryInt(t, db, "SELECT count(*) FROM streamdb_catalog.recoveries WHERE relation = 'v'")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	k.produceRows(t, 13000, 1000)
	db = openKafkaDB(t, dir)
	mustExec(t, db, "WAIT")
	checkViewHasAll(t, db, k, "v")
	if failpoint.Enabled {
		recovered += queryInt(t, db, "SELECT count(*) FROM streamdb_catalog.recoveries WHERE relation = 'v'")
		t.Logf("recoveries of the view's job: %d; rows read at the close: %d", recovered, read)
		if recovered == 0 {
			t.Errorf("the failpoint caused no recovery of the view's job")
		}
	}
	k.produceRows(t, 14000, 500)
	checkViewHasAll(t, db, k, "v")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestKafkaSourceBackfillLatest: the startup position of a 'latest'
// source is the end of the topic at its CREATE: a view created later
// sees every message the source read since, and none from before.
func TestKafkaSourceBackfillLatest(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	k := newKafkaTopic(t, "sbfl")
	defer k.close()
	k.produceRows(t, 0, 1000)
	db := openKafkaDB(t, t.TempDir())
	defer db.Close()
	mustExec(t, db, fmt.Sprintf(`CREATE SOURCE src (id bigint, k int) WITH (%s) FORMAT PLAIN ENCODE JSON`, k.with("latest")))
	k.produceRows(t, 1000, 800)
	waitSourceRead(t, db, "src", 800)
	mustExec(t, db, "CREATE MATERIALIZED VIEW n AS SELECT count(*) AS c, min(id) AS lo, max(id) AS hi, count(DISTINCT id) AS d FROM src")
	if got := queryRows(t, db, "SELECT c, lo, hi, d FROM n"); len(got) != 1 || got[0] != "800|1000|1799|800" {
		t.Fatalf("view over a latest source = %v, want 800|1000|1799|800", got)
	}
	k.produceRows(t, 1800, 200)
	waitFor(t, 30*time.Second, "the later rows", func() bool { return queryInt(t, db, "SELECT c FROM n") >= 1000 })
	mustExec(t, db, "FLUSH")
	if got := queryRows(t, db, "SELECT c, lo, hi, d FROM n"); len(got) != 1 || got[0] != "1000|1000|1999|1000" {
		t.Fatalf("view over a latest source = %v, want 1000|1000|1999|1000", got)
	}
}

// TestKafkaSourceBackfillKill9: a server process killed with SIGKILL in
// the middle of a view's source backfill (rate-limited, messages still
// coming) resumes it from its committed position after the restart: the
// view ends with every message once.
func TestKafkaSourceBackfillKill9(t *testing.T) {
	k := newKafkaTopic(t, "sbfk")
	defer k.close()
	k.produceRows(t, 0, 12000)
	ctx := context.Background()
	dir := t.TempDir()
	p := startProc(t, dir)
	c := p.connect(t)
	count := func(q string) int64 {
		var n int64
		if err := c.QueryRow(ctx, q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	for _, q := range []string{
		"ALTER SYSTEM SET barrier_interval_ms = 50",
		fmt.Sprintf(`CREATE SOURCE src (id bigint, k int, v text) WITH (%s) FORMAT PLAIN ENCODE JSON`, k.with("earliest")),
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	waitFor(t, 60*time.Second, "the source to read the topic", func() bool {
		return count("SELECT rows_generated FROM streamdb_catalog.sources WHERE name = 'src'") >= 12000
	})
	for _, q := range []string{"SET background_ddl = true",
		"CREATE MATERIALIZED VIEW v WITH (backfill_rate_limit = 4000) AS SELECT k, count(*) AS c, sum(id) AS s FROM src GROUP BY k"} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	k.produceRows(t, 12000, 1000)
	var read int64
	waitFor(t, 30*time.Second, "the backfill to be under way", func() bool {
		read = count("SELECT coalesce(sum(rows_read), -1) FROM streamdb_catalog.ddl_progress")
		return read > 2000 || read == -1
	})
	if read == -1 || read >= 12000 {
		t.Fatalf("the backfill was not under way at the kill (rows read %d)", read)
	}
	p.kill()
	c.Close(ctx)
	k.produceRows(t, 13000, 1000)
	p = startProc(t, dir)
	c = p.connect(t)
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "WAIT"); err != nil {
		t.Fatal(err)
	}
	const total = 14000
	waitFor(t, 60*time.Second, "every message in v", func() bool {
		return count("SELECT coalesce(sum(c), 0) FROM v") >= total
	})
	if _, err := c.Exec(ctx, "FLUSH"); err != nil {
		t.Fatal(err)
	}
	if n, s := count("SELECT sum(c) FROM v"), count("SELECT sum(s) FROM v"); n != total || s != total*(total-1)/2 {
		t.Fatalf("after the kill, v counts %d messages with ids summing to %d; want %d, %d", n, s, total, total*(total-1)/2)
	}
}

// produceTxnRows produces, in one transaction of p, the messages
// produceRows would for ids first..first+n-1, committed (counted as
// produced) or aborted (with key 99, which a view must never show).
func (k *kafkaTopic) produceTxnRows(t *testing.T, p *kgo.Client, first, n int64, commit bool) {
	t.Helper()
	ctx := context.Background()
	if err := p.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	recs := make([]*kgo.Record, 0, n)
	for id := first; id < first+n; id++ {
		key := id % 10
		if !commit {
			key = 99
		}
		v := fmt.Sprintf(`{"id": %d, "K": %d, "v": "row %d"}`, id, key, id)
		recs = append(recs, &kgo.Record{Topic: k.topic, Partition: int32(id % kafkaPartitions), Value: []byte(v)})
	}
	if err := p.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
	if err := p.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
		t.Fatal(err)
	}
	if commit {
		k.mu.Lock()
		for id := first; id < first+n; id++ {
			k.produced[id%10]++
		}
		k.n += n
		k.mu.Unlock()
	}
}

// TestKafkaSourceBackfillTransactions: over a topic written by a
// transactional producer (committed transactions, an aborted one, each
// partition ending on a commit marker), the source's committed offsets
// fall right after a marker (the reader moves its position past them),
// so a view's backfill bound is an offset whose bound-1 is no visible
// record. The backfill still ends (the bounded read ends on its
// position) and the view holds every committed message once and none of
// the aborted ones; messages after it reach it live.
func TestKafkaSourceBackfillTransactions(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	k := newKafkaTopic(t, "sbftx")
	defer k.close()
	p, err := kgo.NewClient(kgo.SeedBrokers(k.addr), kgo.TransactionalID("sbftx"),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(0))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	k.produceTxnRows(t, p, 0, 1000, true)
	k.produceTxnRows(t, p, 100000, 400, false)
	k.produceTxnRows(t, p, 1000, 1000, true)
	db := openKafkaDB(t, t.TempDir())
	defer db.Close()
	mustExec(t, db, fmt.Sprintf(`CREATE SOURCE src (id bigint, k int, v text) WITH (%s) FORMAT PLAIN ENCODE JSON`, k.with("earliest")))
	waitSourceRead(t, db, "src", 2000)
	// The last commit markers reach the source with the records before
	// them or in the next fetch: give it a few barriers.
	mustExec(t, db, "FLUSH")
	mustExec(t, db, "SET background_ddl = true")
	mustExec(t, db, "CREATE MATERIALIZED VIEW v AS SELECT k, count(*) AS c, sum(id) AS s FROM src GROUP BY k")
	waitFor(t, 60*time.Second, "the view's backfill to end", func() bool {
		return queryInt(t, db, "SELECT count(*) FROM streamdb_catalog.ddl_progress") == 0
	})
	checkViewHasAll(t, db, k, "v")
	k.produceTxnRows(t, p, 200000, 100, false)
	k.produceTxnRows(t, p, 2000, 500, true)
	checkViewHasAll(t, db, k, "v")
}

// TestKafkaSourceBackfillRetention: messages the topic's retention
// deleted after the source read them, before a view's backfill reads
// them again, are missing from the view (they are gone) but not
// silently: each lost range of the backfill is listed in
// streamdb_catalog.source_errors under the source, with its partition
// and last offset, naming the backfill, once, and kept across a
// restart.
func TestKafkaSourceBackfillRetention(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	k := newKafkaTopic(t, "sbfret")
	defer k.close()
	k.produceRows(t, 0, 400) // offsets 0..99 of each partition
	dir := t.TempDir()
	db := openKafkaDB(t, dir)
	mustExec(t, db, fmt.Sprintf(`CREATE SOURCE src (id bigint, k int) WITH (%s) FORMAT PLAIN ENCODE JSON`, k.with("earliest")))
	waitSourceRead(t, db, "src", 400)
	mustExec(t, db, "FLUSH")
	k.deleteRecords(t, 50, 0, 1) // offsets 0..49 of partitions 0 and 1
	var want, wantSum int64      // the messages that survived
	for id := int64(0); id < 400; id++ {
		if p, off := id%kafkaPartitions, id/kafkaPartitions; p > 1 || off >= 50 {
			want, wantSum = want+1, wantSum+id
		}
	}
	// Two scans, each reading every partition: one of them records.
	s := db.NewSession()
	for _, q := range []string{"SET streaming_parallelism = 2",
		"CREATE MATERIALIZED VIEW n AS SELECT count(*) AS c, sum(id) AS s, count(DISTINCT id) AS d FROM src"} {
		if _, err := s.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	wantView := fmt.Sprintf("%d|%d|%d", want, wantSum, want)
	for round := 0; round < 2; round++ {
		if got := queryRows(t, db, "SELECT c, s, d FROM n"); len(got) != 1 || got[0] != wantView {
			t.Fatalf("round %d: view = %v, want %s", round, got, wantView)
		}
		errs := queryRows(t, db, "SELECT source, partition_id, message_offset, error FROM streamdb_catalog.source_errors")
		if len(errs) != 2 {
			t.Fatalf("round %d: source_errors = %q, want the backfill's 2 lost ranges", round, errs)
		}
		for i, e := range errs {
			prefix := fmt.Sprintf("src|%d|49|backfill of job ", i)
			lost := fmt.Sprintf(": kafka: offsets 0 to 49 of partition %d (50 messages) were deleted by the topic's retention", i)
			if !strings.HasPrefix(e, prefix) || !strings.Contains(e, lost) {
				t.Errorf("round %d: source_errors row %q, want %q...%q", round, e, prefix, lost)
			}
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		db = openKafkaDB(t, dir)
	}
	k.produceRows(t, 400, 40)
	waitFor(t, 30*time.Second, "the later rows", func() bool { return queryInt(t, db, "SELECT c FROM n") >= want+40 })
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestKafkaSourceBackfillWatermarkNotice: a view over a Kafka SOURCE
// with a WATERMARK is not backfilled (it sees only the messages the
// source reads after it exists), and CREATE MATERIALIZED VIEW says so
// in a NOTICE; over a source without one, no NOTICE.
func TestKafkaSourceBackfillWatermarkNotice(t *testing.T) {
	// After the server's cleanup (startServer) has stopped it.
	leaks := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, leaks) })
	k := newKafkaTopic(t, "sbfwm")
	defer k.close()
	db := openKafkaDB(t, t.TempDir())
	defer db.Close()
	var notices []string
	var mu sync.Mutex
	cfg, err := pgx.ParseConfig(fmt.Sprintf("postgres://tester@127.0.0.1:%d/dev?sslmode=disable", startServer(t, db)))
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		mu.Lock()
		notices = append(notices, n.Severity+" "+n.Message)
		mu.Unlock()
	}
	ctx := context.Background()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range []string{
		fmt.Sprintf(`CREATE SOURCE wm (id bigint, ts timestamp, WATERMARK FOR ts AS ts - INTERVAL '5 seconds') WITH (%s) FORMAT PLAIN ENCODE JSON`, k.with("earliest")),
		fmt.Sprintf(`CREATE SOURCE plain (id bigint) WITH (%s) FORMAT PLAIN ENCODE JSON`, k.with("earliest")),
		"CREATE MATERIALIZED VIEW a AS SELECT count(*) AS c FROM wm",
		"CREATE MATERIALIZED VIEW b AS SELECT count(*) AS c FROM plain",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	want := `NOTICE source "wm" is not backfilled (it has a WATERMARK): the view sees only the messages it reads from now on`
	if len(notices) != 1 || notices[0] != want {
		t.Fatalf("notices = %q, want [%q]", notices, want)
	}
}
