package tests

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"go.uber.org/goleak"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/failpoint"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// verifyNoLeaks checks, after every cleanup of t (the cluster's and the
// consumers' included), that no goroutine started since is left.
func verifyNoLeaks(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}

// sinkCluster is an in-process Kafka cluster (kfake) with the given
// topics of 3 partitions each.
func sinkCluster(t testing.TB, topics ...string) (*kfake.Cluster, string) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, topics...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, c.ListenAddrs()[0]
}

// topicReader reads a topic from its start, keeping every record it got.
type topicReader struct {
	cl   *kgo.Client
	recs []*kgo.Record
}

func newTopicReader(t testing.TB, addr, topic string) *topicReader {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.FetchMaxWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	r := &topicReader{cl: cl}
	t.Cleanup(cl.Close)
	return r
}

// poll takes what has arrived.
func (r *topicReader) poll() {
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	fs := r.cl.PollFetches(ctx)
	fs.EachRecord(func(rec *kgo.Record) { r.recs = append(r.recs, rec) })
}

// fold applies the records in order by key: a value replaces, a
// tombstone deletes.
func (r *topicReader) fold() map[string]string {
	m := map[string]string{}
	for _, rec := range r.recs {
		if rec.Value == nil {
			delete(m, string(rec.Key))
		} else {
			m[string(rec.Key)] = string(rec.Value)
		}
	}
	return m
}

// waitFolded polls r until its fold equals want.
func waitFolded(t *testing.T, r *topicReader, want map[string]string) {
	t.Helper()
	var got map[string]string
	ok := false
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		r.poll()
		if got = r.fold(); mapsEqual(got, want) {
			ok = true
			break
		}
	}
	if !ok {
		t.Fatalf("topic folds to %d keys %v\nwant %d keys %v", len(got), sample(got), len(want), sample(want))
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func sample(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	if len(out) > 6 {
		out = out[:6]
	}
	return out
}

// upsertWant renders the rows of "SELECT id, v, n" as an UPSERT sink
// keys them.
func upsertWant(t *testing.T, db *streamdb.DB, q string) map[string]string {
	want := map[string]string{}
	for _, row := range queryRows(t, db, q) {
		f := strings.Split(row, "|")
		want[fmt.Sprintf(`{"id":%s}`, f[0])] = fmt.Sprintf(`{"id":%s,"v":%q,"n":%s}`, f[0], f[1], f[2])
	}
	return want
}

func sinkWith(addr, topic, extra string) string {
	return fmt.Sprintf("connector = 'kafka', topic = '%s', properties.bootstrap.server = '%s'%s", topic, addr, extra)
}

func expectSQLState(t *testing.T, db *streamdb.DB, code, contains, q string) {
	t.Helper()
	_, err := db.Exec(context.Background(), q)
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code != code || !strings.Contains(pe.Message+" "+pe.Hint, contains) {
		t.Fatalf("%s: got %v, want SQLSTATE %s with %q", q, err, code, contains)
	}
}

// TestKafkaSinkUpsert: an UPSERT sink over a materialized view with
// rows before it (its backfill), then inserts, updates (of the value and
// of the key) and deletes: the topic, folded by key with tombstones
// deleting, equals the view; also across a restart. SHOW SINKS and
// streamdb_catalog.sinks list it; DROP SINK removes it.
func TestKafkaSinkUpsert(t *testing.T) {
	verifyNoLeaks(t)
	_, addr := sinkCluster(t, "up")
	dir := t.TempDir()
	db := openKafkaDB(t, dir)
	mustExec(t, db, "CREATE TABLE t (id int PRIMARY KEY, v text, n numeric)")
	mustExec(t, db, "INSERT INTO t SELECT g, 'r' || g, g * 1.25 FROM generate_series(1, 500) AS g")
	mustExec(t, db, "CREATE MATERIALIZED VIEW mv AS SELECT id, v, n FROM t WHERE id % 5 <> 0")
	mustExec(t, db, "CREATE SINK s FROM mv WITH ("+sinkWith(addr, "up", "")+") FORMAT UPSERT ENCODE JSON")
	r := newTopicReader(t, addr, "up")
	const q = "SELECT id, v, n FROM mv"
	waitFolded(t, r, upsertWant(t, db, q))

	mustExec(t, db, "INSERT INTO t SELECT g, 'r' || g, g FROM generate_series(501, 600) AS g")
	mustExec(t, db, "UPDATE t SET v = 'updated', n = 0.001 WHERE id < 50")
	mustExec(t, db, "DELETE FROM t WHERE id > 550")
	mustExec(t, db, "UPDATE t SET id = id + 10000 WHERE id BETWEEN 100 AND 120") // key changes
	mustExec(t, db, "FLUSH")
	waitFolded(t, r, upsertWant(t, db, q))
	for _, rec := range r.recs {
		if rec.Value != nil && !json.Valid(rec.Value) || !json.Valid(rec.Key) {
			t.Fatalf("not JSON: %s = %s", rec.Key, rec.Value)
		}
	}

	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openKafkaDB(t, dir)
	mustExec(t, db, "DELETE FROM t WHERE id < 30")
	mustExec(t, db, "INSERT INTO t VALUES (7000, 'after restart', 1.5)")
	waitFolded(t, r, upsertWant(t, db, q))

	mustExec(t, db, "FLUSH")
	waitFor(t, 30*time.Second, "the sink delivering", func() bool {
		got := queryRows(t, db, "SELECT name, sink_from, topic, format, state, pending_batches FROM streamdb_catalog.sinks")
		return len(got) == 1 && got[0] == "s|mv|up|UPSERT|delivering|0"
	})
	rows := queryRows(t, db, "SHOW SINKS")
	if len(rows) != 1 || !strings.HasPrefix(rows[0], "s|mv|kafka|up|UPSERT|delivering|") {
		t.Fatalf("SHOW SINKS = %v", rows)
	}
	// A sink's connector options are where it writes: it is no source.
	if n := queryInt(t, db, "SELECT count(*) FROM streamdb_catalog.sources WHERE name = 's'") +
		queryInt(t, db, "SELECT count(*) FROM streamdb_catalog.rate_limits WHERE relation = 's' AND kind = 'source'"); n != 0 {
		t.Fatalf("the sink is listed %d times among sources and their rate limits", n)
	}
	if sent := queryInt(t, db, "SELECT messages_sent FROM streamdb_catalog.sinks"); sent < int64(len(r.recs)) {
		t.Fatalf("messages_sent %d, the topic holds %d", sent, len(r.recs))
	}
	expectSQLState(t, db, pgerr.DependentObjects, "depend", "DROP MATERIALIZED VIEW mv")
	expectSQLState(t, db, "42809", "sink", "SELECT * FROM s")
	mustExec(t, db, "DROP SINK s")
	if got := queryRows(t, db, "SHOW SINKS"); len(got) != 0 {
		t.Fatalf("SHOW SINKS after DROP = %v", got)
	}
	mustExec(t, db, "DROP SINK IF EXISTS s")
	expectSQLState(t, db, pgerr.UndefinedObject, "does not exist", "DROP SINK s")
	mustExec(t, db, "DROP MATERIALIZED VIEW mv")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestKafkaSinkOptions: bad options name the option; a missing topic is
// 42704; PLAIN over an input that updates is refused unless
// force_append_only.
func TestKafkaSinkOptions(t *testing.T) {
	verifyNoLeaks(t)
	_, addr := sinkCluster(t, "o")
	db := openKafkaDB(t, "")
	defer db.Close()
	mustExec(t, db, "CREATE TABLE t (id int PRIMARY KEY, v text)")
	mustExec(t, db, "CREATE TABLE r (v text)")
	for _, c := range []struct{ code, contains, q string }{
		{pgerr.UndefinedObject, "does not exist", "CREATE SINK s FROM t WITH (" + sinkWith(addr, "missing", "") + ") FORMAT UPSERT ENCODE JSON"},
		{pgerr.InvalidParameterValue, "topic", "CREATE SINK s FROM t WITH (connector = 'kafka', properties.bootstrap.server = '" + addr + "') FORMAT UPSERT ENCODE JSON"},
		{pgerr.InvalidParameterValue, "is_exactly_once", "CREATE SINK s FROM t WITH (" + sinkWith(addr, "o", ", is_exactly_once = 'maybe'") + ") FORMAT UPSERT ENCODE JSON"},
		{pgerr.InvalidParameterValue, "bogus", "CREATE SINK s FROM t WITH (" + sinkWith(addr, "o", ", bogus = 1") + ") FORMAT UPSERT ENCODE JSON"},
		{pgerr.InvalidParameterValue, "primary_key", "CREATE SINK s FROM t WITH (" + sinkWith(addr, "o", ", primary_key = 'nope'") + ") FORMAT UPSERT ENCODE JSON"},
		{pgerr.InvalidParameterValue, "primary_key", "CREATE SINK s FROM r WITH (" + sinkWith(addr, "o", "") + ") FORMAT DEBEZIUM ENCODE JSON"},
		{pgerr.InvalidParameterValue, "append-only", "CREATE SINK s FROM t WITH (" + sinkWith(addr, "o", "") + ") FORMAT PLAIN ENCODE JSON"},
		{pgerr.FeatureNotSupported, "PROTOBUF", "CREATE SINK s FROM t WITH (" + sinkWith(addr, "o", "") + ") FORMAT UPSERT ENCODE PROTOBUF"},
		{pgerr.InvalidParameterValue, "schema.registry", "CREATE SINK s FROM t WITH (" + sinkWith(addr, "o", "") + ") FORMAT UPSERT ENCODE AVRO"},
		{pgerr.UndefinedTable, "does not exist", "CREATE SINK s FROM nope WITH (" + sinkWith(addr, "o", "") + ") FORMAT UPSERT ENCODE JSON"},
	} {
		expectSQLState(t, db, c.code, c.contains, c.q)
	}
	// RisingWave's type option stands for FORMAT ... ENCODE JSON.
	mustExec(t, db, "CREATE SINK ty FROM t WITH ("+sinkWith(addr, "o", ", type = 'upsert'")+")")
	if rows := queryRows(t, db, "SELECT format FROM streamdb_catalog.sinks WHERE name = 'ty'"); len(rows) != 1 || rows[0] != "UPSERT" {
		t.Fatalf("the format of a sink of type 'upsert': %v", rows)
	}
	mustExec(t, db, "DROP SINK ty")
	mustExec(t, db, "CREATE SINK s FROM t WITH ("+sinkWith(addr, "o", ", force_append_only = 'true'")+") FORMAT PLAIN ENCODE JSON")
	mustExec(t, db, "INSERT INTO t VALUES (1, 'a'), (2, 'b')")
	mustExec(t, db, "UPDATE t SET v = 'c' WHERE id = 1")
	mustExec(t, db, "DELETE FROM t WHERE id = 2")
	r := newTopicReader(t, addr, "o")
	waitFor(t, 30*time.Second, "3 messages", func() bool { r.poll(); return len(r.recs) >= 3 })
	var got []string
	for _, rec := range r.recs {
		got = append(got, string(rec.Value))
	}
	sort.Strings(got)
	if want := `{"id":1,"v":"a"},{"id":1,"v":"c"},{"id":2,"v":"b"}`; strings.Join(got, ",") != want {
		t.Fatalf("force_append_only messages %v, want %s", got, want)
	}
	mustExec(t, db, "DROP SINK s")
	// A sink over a query (AS), keyed by primary_key.
	mustExec(t, db, "CREATE SINK q AS SELECT id, upper(v) AS u FROM t WHERE id < 10 WITH ("+
		sinkWith(addr, "o", ", primary_key = 'id'")+") FORMAT UPSERT ENCODE JSON")
	mustExec(t, db, "UPDATE t SET v = 'd' WHERE id = 1")
	waitFor(t, 30*time.Second, "the query sink's update", func() bool {
		r.poll()
		last := r.recs[len(r.recs)-1]
		return string(last.Key) == `{"id":1}` && string(last.Value) == `{"id":1,"u":"D"}`
	})
	mustExec(t, db, "DROP SINK q")
}

// TestKafkaSinkDebezium: Debezium envelopes for an insert, an update
// and a delete (followed by a tombstone), with the schema.
func TestKafkaSinkDebezium(t *testing.T) {
	verifyNoLeaks(t)
	_, addr := sinkCluster(t, "dbz")
	db := openKafkaDB(t, "")
	defer db.Close()
	mustExec(t, db, "CREATE TABLE t (id int PRIMARY KEY, v text, j jsonb, b bytea, ts timestamp)")
	mustExec(t, db, "CREATE SINK s FROM t WITH ("+sinkWith(addr, "dbz", "")+") FORMAT DEBEZIUM ENCODE JSON")
	mustExec(t, db, `INSERT INTO t VALUES (1, 'a', '{"x": [1, 2]}', '\x0102ff', '2024-01-02 03:04:05.5')`)
	mustExec(t, db, "FLUSH")
	mustExec(t, db, "UPDATE t SET v = 'b' WHERE id = 1")
	mustExec(t, db, "FLUSH")
	mustExec(t, db, "DELETE FROM t WHERE id = 1")
	r := newTopicReader(t, addr, "dbz")
	waitFor(t, 30*time.Second, "4 messages", func() bool { r.poll(); return len(r.recs) >= 4 })
	type envelope struct {
		Schema  map[string]any `json:"schema"`
		Payload struct {
			Before, After json.RawMessage
			Op            string `json:"op"`
			TsMs          int64  `json:"ts_ms"`
		} `json:"payload"`
	}
	var ops []string
	for i, rec := range r.recs[:3] {
		if string(rec.Key) != `{"id":1}` {
			t.Fatalf("key %s", rec.Key)
		}
		var e envelope
		if err := json.Unmarshal(rec.Value, &e); err != nil {
			t.Fatalf("message %d: %v: %s", i, err, rec.Value)
		}
		if e.Schema["type"] != "struct" || e.Payload.TsMs <= 0 {
			t.Fatalf("message %d: %s", i, rec.Value)
		}
		ops = append(ops, e.Payload.Op+" "+string(e.Payload.Before)+" "+string(e.Payload.After))
	}
	row := func(v string) string {
		return `{"id":1,"v":"` + v + `","j":{"x": [1, 2]},"b":"AQL/","ts":"2024-01-02 03:04:05.5"}`
	}
	want := []string{"c null " + row("a"), "u " + row("a") + " " + row("b"), "d " + row("b") + " null"}
	if strings.Join(ops, "\n") != strings.Join(want, "\n") {
		t.Fatalf("ops:\n%s\nwant:\n%s", strings.Join(ops, "\n"), strings.Join(want, "\n"))
	}
	if tomb := r.recs[3]; string(tomb.Key) != `{"id":1}` || tomb.Value != nil {
		t.Fatalf("no tombstone after the delete: %s = %s", tomb.Key, tomb.Value)
	}
	mustExec(t, db, "DROP SINK s")
}

// TestKafkaSinkRoundTrip: an append-only view → a PLAIN sink → a Kafka
// table over the sink's topic → a second view equal to the first.
func TestKafkaSinkRoundTrip(t *testing.T) {
	verifyNoLeaks(t)
	_, addr := sinkCluster(t, "rt")
	db := openKafkaDB(t, "")
	defer db.Close()
	mustExec(t, db, "CREATE TABLE ev (id bigint, k int, v text, n numeric, ts timestamp, d date, f double precision, ok boolean) APPEND ONLY")
	mustExec(t, db, `INSERT INTO ev SELECT g, g % 7, 'e"' || g, g / 3.0, '2024-03-01 00:00:00'::timestamp + g * interval '1 second',
		'2024-01-01'::date + (g % 30)::int, g * 0.5, g % 2 = 0 FROM generate_series(1, 3000) AS g`)
	mustExec(t, db, "CREATE MATERIALIZED VIEW big AS SELECT id, k, v, n, ts, d, f, ok FROM ev WHERE k <> 3")
	mustExec(t, db, "CREATE SINK s FROM big WITH ("+sinkWith(addr, "rt", "")+") FORMAT PLAIN ENCODE JSON")
	mustExec(t, db, "INSERT INTO ev SELECT g, g % 7, 'late ' || g, g, '2024-03-02'::timestamp, '2024-02-01'::date, g, true FROM generate_series(3001, 4000) AS g")
	mustExec(t, db, "CREATE TABLE back (id bigint, k int, v text, n numeric, ts timestamp, d date, f double precision, ok boolean) WITH ("+
		sinkWith(addr, "rt", ", scan.startup.mode = 'earliest'")+") FORMAT PLAIN ENCODE JSON")
	const q = "SELECT id, k, v, n, ts, d, f, ok FROM "
	want := queryRows(t, db, q+"big")
	waitFor(t, 60*time.Second, "the round trip", func() bool {
		return queryInt(t, db, "SELECT count(*) FROM back") >= int64(len(want))
	})
	if got := queryRows(t, db, q+"back"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("round trip: %d rows, want %d; first %v want %v", len(got), len(want), got[:min(3, len(got))], want[:3])
	}
	mustExec(t, db, "DROP SINK s")
}

// TestKafkaSinkExactlyOnce: an exactly-once sink (each batch a Kafka
// transaction that commits its number) delivers every change once to a
// read_committed consumer across closes in the middle of the stream and
// failures between Kafka's commit and Pebble's record of it.
func TestKafkaSinkExactlyOnce(t *testing.T) {
	verifyNoLeaks(t)
	_, addr := sinkCluster(t, "eo")
	dir := t.TempDir()
	db := openKafkaDB(t, dir)
	mustExec(t, db, "CREATE TABLE ev (id bigint, v text) APPEND ONLY")
	mustExec(t, db, "INSERT INTO ev SELECT g, 'x' FROM generate_series(1, 2000) AS g")
	mustExec(t, db, "CREATE SINK s FROM ev WITH ("+sinkWith(addr, "eo", ", is_exactly_once = 'true'")+") FORMAT PLAIN ENCODE JSON")
	next := int64(2001)
	insert := func(n int64) {
		for i := int64(0); i < n; i += 50 {
			mustExec(t, db, fmt.Sprintf("INSERT INTO ev SELECT g, 'x' FROM generate_series(%d, %d) AS g", next, next+49))
			next += 50
		}
	}
	for round := 0; round < 3; round++ {
		insert(500)
		if failpoint.Enabled && round == 1 {
			// Kafka commits, Pebble does not record: twice.
			disable, err := failpoint.Enable(failpoint.SinkDelivered, failpoint.Spec{Action: failpoint.Error, Times: 2})
			if err != nil {
				t.Fatal(err)
			}
			defer disable()
		}
		insert(500)
		if err := db.Close(); err != nil { // mid-stream: batches logged, not all delivered
			t.Fatal(err)
		}
		db = openKafkaDB(t, dir)
	}
	insert(200)
	r := newTopicReader(t, addr, "eo")
	total := next - 1
	waitFor(t, 60*time.Second, fmt.Sprintf("%d messages", total), func() bool {
		r.poll()
		return int64(len(r.recs)) >= total
	})
	mustExec(t, db, "FLUSH")
	time.Sleep(300 * time.Millisecond) // let anything extra arrive, to be counted
	r.poll()
	seen := map[int64]int{}
	for _, rec := range r.recs {
		var m struct{ ID int64 }
		if err := json.Unmarshal(rec.Value, &m); err != nil {
			t.Fatal(err)
		}
		seen[m.ID]++
	}
	for id := int64(1); id <= total; id++ {
		if seen[id] != 1 {
			t.Fatalf("id %d seen %d times (%d messages for %d ids)", id, seen[id], len(r.recs), total)
		}
	}
	if int64(len(r.recs)) != total {
		t.Fatalf("%d messages for %d ids", len(r.recs), total)
	}
	mustExec(t, db, "DROP SINK s")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestKafkaSinkBackfill: a sink over a 100k-row view sends those rows
// first, as a creating job with progress in SHOW JOBS, held by PAUSE and
// let go by RESUME; then changes follow.
func TestKafkaSinkBackfill(t *testing.T) {
	verifyNoLeaks(t)
	_, addr := sinkCluster(t, "bf")
	db := openKafkaDB(t, "")
	defer db.Close()
	mustExec(t, db, "CREATE TABLE t (id int PRIMARY KEY, v int)")
	mustExec(t, db, "INSERT INTO t SELECT g, g FROM generate_series(1, 100000) AS g")
	mustExec(t, db, "CREATE MATERIALIZED VIEW mv AS SELECT id, v FROM t")
	s := db.NewSession()
	ctx := context.Background()
	for _, q := range []string{"SET background_ddl = true", "SET backfill_rate_limit = 20000"} {
		if _, err := s.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	if _, err := s.Exec(ctx, "CREATE SINK s FROM mv WITH ("+sinkWith(addr, "bf", "")+") FORMAT UPSERT ENCODE JSON"); err != nil {
		t.Fatal(err)
	}
	var progress []string
	waitFor(t, 30*time.Second, "the sink's backfill progressing in SHOW JOBS", func() bool {
		progress = queryRows(t, db, "SELECT statement, rows_read FROM streamdb_catalog.ddl_progress")
		return len(progress) == 1 && strings.HasPrefix(progress[0], `CREATE SINK s AS SELECT * FROM mv|`) &&
			!strings.HasSuffix(progress[0], "|0")
	})
	mustExec(t, db, "ALTER SINK s PAUSE")
	if got := queryRows(t, db, "SELECT paused FROM streamdb_catalog.ddl_progress"); len(got) != 1 || got[0] != "t" {
		t.Fatalf("paused = %v", got)
	}
	mustExec(t, db, "ALTER SINK s SET BACKFILL_RATE_LIMIT = DEFAULT")
	mustExec(t, db, "ALTER SINK s RESUME")
	mustExec(t, db, "WAIT")
	t.Logf("backfill of 100k rows logged in %v; SHOW JOBS during it: %v", time.Since(start), progress)
	mustExec(t, db, "UPDATE t SET v = -v WHERE id <= 10")
	r := newTopicReader(t, addr, "bf")
	want := map[string]string{}
	for _, row := range queryRows(t, db, "SELECT id, v FROM mv") {
		f := strings.Split(row, "|")
		want[`{"id":`+f[0]+`}`] = `{"id":` + f[0] + `,"v":` + f[1] + `}`
	}
	waitFolded(t, r, want)
	t.Logf("backfill delivered and folded in %v (%d messages)", time.Since(start), len(r.recs))
	mustExec(t, db, "DROP SINK s")
}

// TestKafkaSinkAlterTable: a sink from a table keeps the columns it was
// created with while the table gains a column (rows written after it
// carry it, the sink's messages do not), refuses the drop of a column it
// delivers (2BP01) and the change of its type (0A000), and goes on
// delivering after the table and the sink are renamed, also across a
// restart; its messages keep the field names it was created with ("v"
// after v is renamed label), as a view keeps its column names.
func TestKafkaSinkAlterTable(t *testing.T) {
	verifyNoLeaks(t)
	_, addr := sinkCluster(t, "alt")
	dir := t.TempDir()
	db := openKafkaDB(t, dir)
	mustExec(t, db, "CREATE TABLE t (id int PRIMARY KEY, v text, n numeric)")
	mustExec(t, db, "INSERT INTO t SELECT g, 'r' || g, g FROM generate_series(1, 100) AS g")
	mustExec(t, db, "CREATE SINK s FROM t WITH ("+sinkWith(addr, "alt", "")+") FORMAT UPSERT ENCODE JSON")
	r := newTopicReader(t, addr, "alt")
	waitFolded(t, r, upsertWant(t, db, "SELECT id, v, n FROM t"))

	mustExec(t, db, "ALTER TABLE t ADD COLUMN extra int DEFAULT 7")
	mustExec(t, db, "INSERT INTO t VALUES (101, 'new', 1.5, 8)")
	mustExec(t, db, "UPDATE t SET extra = 9, n = n + 1 WHERE id <= 10")
	waitFolded(t, r, upsertWant(t, db, "SELECT id, v, n FROM t"))
	expectSQLState(t, db, pgerr.DependentObjects, "depend", "ALTER TABLE t DROP COLUMN v")
	mustExec(t, db, "ALTER TABLE t DROP COLUMN extra")

	mustExec(t, db, "ALTER TABLE t RENAME TO t2")
	mustExec(t, db, "ALTER TABLE t2 RENAME COLUMN v TO label")
	mustExec(t, db, "ALTER SINK s RENAME TO s2")
	expectSQLState(t, db, pgerr.FeatureNotSupported, "sink s2", "ALTER TABLE t2 ALTER COLUMN n TYPE float8")
	mustExec(t, db, "DELETE FROM t2 WHERE id > 90")
	waitFolded(t, r, upsertWant(t, db, "SELECT id, label, n FROM t2"))
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openKafkaDB(t, dir)
	mustExec(t, db, "INSERT INTO t2 VALUES (500, 'after restart', 2)")
	waitFolded(t, r, upsertWant(t, db, "SELECT id, label, n FROM t2"))
	if got := queryRows(t, db, "SELECT name FROM streamdb_catalog.sinks"); len(got) != 1 || got[0] != "s2" {
		t.Fatalf("sinks after the rename: %v", got)
	}
	mustExec(t, db, "DROP SINK s2")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}
