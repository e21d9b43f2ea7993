package tests

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"go.uber.org/goleak"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// dbzRow is a row of the Debezium tests' source table.
type dbzRow struct {
	id, grp, v int64
	name       string
	tsMillis   int64
	amount     string
}

// json is the row image: the timestamp as Debezium's epoch millis, the
// numeric as a string (decimal.handling.mode = string).
func (r dbzRow) json() string {
	return fmt.Sprintf(`{"id": %d, "grp": %d, "v": %d, "name": %q, "ts": %d, "amount": %q}`, r.id, r.grp, r.v, r.name, r.tsMillis, r.amount)
}

// text is the row as the table shows it.
func (r dbzRow) text() string {
	ts := time.UnixMilli(r.tsMillis).UTC().Format("2006-01-02 15:04:05.999")
	return fmt.Sprintf("%d|%d|%d|%s|%s|%s", r.id, r.grp, r.v, r.name, ts, r.amount)
}

// dbzModel is a database table whose changes a Debezium connector
// writes to a topic: the oracle is the table (a map), and what the
// source should count. Every event of a key goes to partition id % 4
// (an update that changes the key keeps the partition), so a key's
// events keep their order, as Debezium's key partitioning keeps them.
type dbzModel struct {
	k                *kafkaTopic
	rng              *rand.Rand
	rows             map[int64]dbzRow
	emitted, skipped int64
	bad              []string // "partition|offset" of each malformed message
	offsets          [kafkaPartitions]int64
	recs             []*kgo.Record
	nextID           int64
}

func newDbzModel(k *kafkaTopic, seed int64) *dbzModel {
	return &dbzModel{k: k, rng: rand.New(rand.NewSource(seed)), rows: map[int64]dbzRow{}}
}

// event queues one change event for partition p.
func (m *dbzModel) event(p int64, op string, before, after *dbzRow, schema bool) {
	img := func(r *dbzRow) string {
		if r == nil {
			return "null"
		}
		return r.json()
	}
	v := fmt.Sprintf(`{"before": %s, "after": %s, "op": %q, "ts_ms": 1, "source": {"db": "pg"}}`, img(before), img(after), op)
	if schema {
		v = `{"schema": {"type": "struct", "fields": [{"field": "after", "type": "struct", "fields": [` +
			`{"field": "ts", "type": "int64", "name": "io.debezium.time.Timestamp"}]}]}, "payload": ` + v + `}`
	}
	m.queue(p, []byte(v))
}

func (m *dbzModel) queue(p int64, value []byte) {
	m.recs = append(m.recs, &kgo.Record{Topic: m.k.topic, Partition: int32(p), Value: value})
	m.offsets[p]++
}

func (m *dbzModel) newRow(id int64) dbzRow {
	return dbzRow{id: id, grp: m.rng.Int63n(7), v: m.rng.Int63n(1000) - 100, name: fmt.Sprintf("n%d", m.rng.Intn(50)),
		tsMillis: 1_700_000_000_000 + m.rng.Int63n(1e9), amount: fmt.Sprintf("%d.%02d", m.rng.Intn(1000), m.rng.Intn(100))}
}

// batch queues n random changes: creates (and snapshot reads), updates
// of values and of keys, deletes with their tombstones, deletes of keys
// the table lacks, and now and then a malformed message.
func (m *dbzModel) batch(n int) {
	for i := 0; i < n; i++ {
		schema := m.rng.Intn(2) == 0
		ids := m.ids()
		switch c := m.rng.Intn(20); {
		case c < 6 || len(ids) == 0:
			m.nextID++
			r := m.newRow(m.nextID)
			op := "c"
			if c == 0 {
				op = "r"
			}
			m.event(r.id%kafkaPartitions, op, nil, &r, schema)
			m.rows[r.id] = r
			m.emitted++
		case c < 11:
			old := m.rows[ids[m.rng.Intn(len(ids))]]
			r := m.newRow(old.id)
			before := &old
			if c == 10 {
				before = nil // PostgreSQL's default replica identity sends no before
			}
			m.event(r.id%kafkaPartitions, "u", before, &r, schema)
			m.rows[r.id] = r
			m.emitted++
		case c < 14: // a key change, within the key's partition
			old := m.rows[ids[m.rng.Intn(len(ids))]]
			m.nextID++
			r := m.newRow(m.nextID*kafkaPartitions + old.id%kafkaPartitions)
			m.event(old.id%kafkaPartitions, "u", &old, &r, schema)
			delete(m.rows, old.id)
			m.rows[r.id] = r
			m.emitted += 2
		case c < 18:
			old := m.rows[ids[m.rng.Intn(len(ids))]]
			if c == 17 { // a before image of the key alone
				m.queue(old.id%kafkaPartitions, []byte(fmt.Sprintf(`{"before": {"id": %d}, "after": null, "op": "d"}`, old.id)))
			} else {
				m.event(old.id%kafkaPartitions, "d", &old, nil, schema)
			}
			m.queue(old.id%kafkaPartitions, nil) // the tombstone
			delete(m.rows, old.id)
			m.emitted++
		case c == 18: // a delete of a key never there: a no-op
			m.queue(3, []byte(fmt.Sprintf(`{"before": {"id": %d}, "after": null, "op": "d"}`, -1-m.rng.Int63n(1000))))
			m.emitted++
		default:
			p := m.rng.Int63n(kafkaPartitions)
			m.bad = append(m.bad, fmt.Sprintf("%d|%d", p, m.offsets[p]))
			bad := []string{`{"op": "c", "after": {"id": "x"}}`, `not json`, `{"op": "c", "after": {"grp": 1}}`, `{"op": "t"}`}
			m.queue(p, []byte(bad[m.rng.Intn(len(bad))]))
			m.skipped++
		}
	}
}

func (m *dbzModel) ids() []int64 {
	ids := make([]int64, 0, len(m.rows))
	for id := range m.rows {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// flush produces the queued events.
func (m *dbzModel) flush(t testing.TB) {
	t.Helper()
	m.k.produce(t, m.recs)
	m.recs = nil
}

// want returns the table's rows and the GROUP BY view's, as the oracle
// says.
func (m *dbzModel) want() (rows, groups []string) {
	agg := map[int64][2]int64{}
	for _, r := range m.rows {
		rows = append(rows, r.text())
		g := agg[r.grp]
		agg[r.grp] = [2]int64{g[0] + 1, g[1] + r.v}
	}
	for g, a := range agg {
		groups = append(groups, fmt.Sprintf("%d|%d|%d", g, a[0], a[1]))
	}
	sort.Strings(rows)
	sort.Strings(groups)
	return rows, groups
}

// check waits until the table has taken every event produced, then
// checks it and its GROUP BY view against the oracle, and the malformed
// messages listed.
func (m *dbzModel) check(t *testing.T, q func(string) []string) {
	t.Helper()
	var counts []string
	deadline := time.Now().Add(60 * time.Second)
	for {
		counts = q("SELECT rows_generated, skipped FROM streamdb_catalog.sources WHERE name = 'orders'")
		if len(counts) == 1 && counts[0] == fmt.Sprintf("%d|%d", m.emitted, m.skipped) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("rows_generated|skipped = %v, want %d|%d; errors: %.600v", counts, m.emitted, m.skipped,
				q("SELECT partition_id, message_offset, error FROM streamdb_catalog.source_errors"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	q("FLUSH")
	rows, groups := m.want()
	if got := q("SELECT id, grp, v, name, ts, amount FROM orders"); strings.Join(got, "\n") != strings.Join(rows, "\n") {
		t.Fatalf("table orders: %d rows, want %d\n got %.400v\nwant %.400v", len(got), len(rows), got, rows)
	}
	if got := q("SELECT grp, c, s FROM orders_by_grp"); strings.Join(got, ",") != strings.Join(groups, ",") {
		t.Fatalf("view orders_by_grp = %v\nwant %v", got, groups)
	}
	bad := append([]string(nil), m.bad...)
	sort.Strings(bad)
	if got := q("SELECT partition_id, message_offset FROM streamdb_catalog.source_errors WHERE source = 'orders'"); strings.Join(got, ",") != strings.Join(bad, ",") {
		t.Fatalf("source_errors = %v\nwant %v", got, bad)
	}
}

func dbQuery(t *testing.T, db *streamdb.DB) func(string) []string {
	return func(q string) []string {
		if q == "FLUSH" {
			mustExec(t, db, q)
			return nil
		}
		return queryRows(t, db, q)
	}
}

const dbzTable = `CREATE TABLE orders (id bigint PRIMARY KEY, grp int, v bigint, name varchar, ts timestamp, amount numeric(10, 2))
	WITH (%s%s) FORMAT DEBEZIUM ENCODE JSON`

// TestKafkaDebezium: a differential test of FORMAT DEBEZIUM: random
// creates, updates (of values and of keys), deletes and malformed
// messages, with and without the schema wrapper, applied to a map as the
// oracle; the table and a GROUP BY view over it equal the oracle after
// each batch, through a close and reopen with events produced while it
// is closed, in one actor and in three. The malformed messages are
// listed once each, after the restart too, and go with DROP TABLE.
func TestKafkaDebezium(t *testing.T) {
	for _, par := range []int{1, 3} {
		t.Run(fmt.Sprintf("parallelism=%d", par), func(t *testing.T) { testKafkaDebezium(t, par) })
	}
}

func testKafkaDebezium(t *testing.T, par int) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	k := newKafkaTopic(t, "pg.public.orders")
	defer k.close()
	m := newDbzModel(k, int64(par))
	m.batch(400)
	m.flush(t)
	dir := t.TempDir()
	db := openKafkaDB(t, dir)
	defer func() {
		if db != nil {
			db.Close() // a failed test's; the test closes it itself
		}
	}()
	mustExec(t, db, fmt.Sprintf(dbzTable, k.with("earliest"), fmt.Sprintf(", streaming_parallelism = %d", par)))
	mustExec(t, db, "CREATE MATERIALIZED VIEW orders_by_grp AS SELECT grp, count(*) AS c, sum(v) AS s FROM orders GROUP BY grp")
	m.check(t, dbQuery(t, db))
	for round := 0; round < 4; round++ {
		m.batch(300)
		m.flush(t)
		if round == 1 { // a close before the events can all have committed, and more while closed
			err := db.Close()
			if db = nil; err != nil {
				t.Fatal(err)
			}
			m.batch(300)
			m.flush(t)
			db = openKafkaDB(t, dir)
		}
		m.check(t, dbQuery(t, db))
	}
	if len(m.bad) == 0 {
		t.Fatal("no malformed message was produced")
	}
	mustExec(t, db, "DROP MATERIALIZED VIEW orders_by_grp")
	mustExec(t, db, "DROP TABLE orders")
	if n := queryInt(t, db, "SELECT count(*) FROM streamdb_catalog.source_errors"); n != 0 {
		t.Fatalf("%d source errors listed after DROP", n)
	}
	err := db.Close()
	if db = nil; err != nil {
		t.Fatal(err)
	}
	db = openKafkaDB(t, dir)
	if n := queryInt(t, db, "SELECT count(*) FROM streamdb_catalog.source_errors"); n != 0 {
		t.Fatalf("%d source errors listed after DROP and a reopen", n)
	}
}

// TestKafkaDebeziumErrors: FORMAT DEBEZIUM is for tables with a primary
// key of the payload's columns, as in RisingWave, and ENCODE JSON.
func TestKafkaDebeziumErrors(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	k := newKafkaTopic(t, "dbzerr")
	defer k.close()
	db := openKafkaDB(t, t.TempDir())
	defer db.Close()
	for _, tc := range []struct{ stmt, code, msg string }{
		{`CREATE SOURCE s (id int) WITH (%s) FORMAT DEBEZIUM ENCODE JSON`, pgerr.FeatureNotSupported, "not supported for a source"},
		{`CREATE TABLE t (id int) WITH (%s) FORMAT DEBEZIUM ENCODE JSON`, "42P16", "needs a primary key"},
		{`CREATE TABLE t (id int, PRIMARY KEY (p)) INCLUDE partition AS p WITH (%s) FORMAT DEBEZIUM ENCODE JSON`, "42P16", "INCLUDE column \"p\""},
		{`CREATE TABLE t (id int PRIMARY KEY) WITH (%s) FORMAT DEBEZIUM ENCODE CSV`, pgerr.FeatureNotSupported, "DEBEZIUM ENCODE CSV"},
	} {
		stmt := fmt.Sprintf(tc.stmt, k.with("earliest"))
		_, err := db.Exec(context.Background(), stmt)
		var pe *pgerr.Error
		if !errors.As(err, &pe) || pe.Code != tc.code || !strings.Contains(pe.Message, tc.msg) || pe.Hint == "" {
			t.Errorf("%s:\n%v, want %s %q with a hint", stmt, err, tc.code, tc.msg)
		}
	}
	mustExec(t, db, fmt.Sprintf(`CREATE TABLE ok (id int PRIMARY KEY, v text) INCLUDE offset AS o WITH (%s) FORMAT DEBEZIUM ENCODE JSON`, k.with("earliest")))
}

// TestKafkaDebeziumSinkRoundTrip: a view → a FORMAT DEBEZIUM sink → a
// FORMAT DEBEZIUM table over the sink's topic → a view over it equal to
// the first, through inserts, updates of values and of keys, and
// deletes.
func TestKafkaDebeziumSinkRoundTrip(t *testing.T) {
	verifyNoLeaks(t)
	_, addr := sinkCluster(t, "dbzrt")
	db := openKafkaDB(t, "")
	defer db.Close()
	const cols = "id int, grp int, v bigint, name text, b bytea, ts timestamp, tz timestamptz, d date, n numeric, j jsonb, ok boolean"
	mustExec(t, db, "CREATE TABLE src ("+cols+", PRIMARY KEY (id))")
	mustExec(t, db, `INSERT INTO src SELECT g, g % 7, g * 3, 'n"' || g, '\x00ff'::bytea, '2024-03-01 00:00:00'::timestamp + g * interval '1 second',
		'2024-03-01 00:00:00+00'::timestamptz + g * interval '1 minute', '2024-01-01'::date + g, g / 3.0, '{"g": [1, "x"]}'::jsonb, g % 2 = 0
		FROM generate_series(1, 1000) AS g`)
	mustExec(t, db, "CREATE MATERIALIZED VIEW mv AS SELECT * FROM src WHERE id % 10 <> 3")
	mustExec(t, db, "CREATE SINK s FROM mv WITH ("+sinkWith(addr, "dbzrt", "")+") FORMAT DEBEZIUM ENCODE JSON")
	mustExec(t, db, "CREATE TABLE back ("+cols+", PRIMARY KEY (id)) WITH ("+
		sinkWith(addr, "dbzrt", ", scan.startup.mode = 'earliest'")+") FORMAT DEBEZIUM ENCODE JSON")
	mustExec(t, db, "CREATE MATERIALIZED VIEW back_by_grp AS SELECT grp, count(*) AS c, sum(v) AS s FROM back GROUP BY grp")
	mustExec(t, db, `UPDATE src SET v = v + 1, name = NULL, j = '"s"'::jsonb WHERE id % 4 = 0`)
	mustExec(t, db, "UPDATE src SET id = id + 5000 WHERE id BETWEEN 100 AND 180") // key changes
	mustExec(t, db, "DELETE FROM src WHERE id % 9 = 0")
	mustExec(t, db, "INSERT INTO src SELECT g, g % 7, g, 'late', NULL::bytea, NULL::timestamp, NULL::timestamptz, NULL::date, NULL::numeric, NULL::jsonb, NULL::boolean FROM generate_series(2001, 2300) AS g")
	mustExec(t, db, "UPDATE src SET grp = 100 WHERE id > 2200")
	mustExec(t, db, "FLUSH")
	const q = "SELECT id, grp, v, name, b, ts, tz, d, n, j, ok FROM "
	want := queryRows(t, db, q+"mv")
	var got []string
	waitFor(t, 60*time.Second, "the round trip", func() bool {
		got = queryRows(t, db, q+"back")
		return strings.Join(got, "\n") == strings.Join(want, "\n")
	})
	wantGroups := queryRows(t, db, "SELECT grp, count(*), sum(v) FROM mv GROUP BY grp")
	if got := queryRows(t, db, "SELECT grp, c, s FROM back_by_grp"); strings.Join(got, ",") != strings.Join(wantGroups, ",") {
		t.Fatalf("back_by_grp = %v\nwant %v", got, wantGroups)
	}
	if n := queryInt(t, db, "SELECT skipped FROM streamdb_catalog.sources WHERE name = 'back'"); n != 0 {
		t.Fatalf("back skipped %d messages: %v", n, queryRows(t, db, "SELECT * FROM streamdb_catalog.source_errors"))
	}
	mustExec(t, db, "DROP SINK s")
}

// TestKafkaDebeziumKcat: Debezium change events produced by kcat
// (librdkafka, another client than streamdb's) over TCP, each delete
// followed by its tombstone (-Z: an empty value is null), reach a FORMAT
// DEBEZIUM table and its GROUP BY view as the oracle says; the malformed
// ones are listed.
func TestKafkaDebeziumKcat(t *testing.T) {
	kcat := kcatPath(t)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	k := newKafkaTopic(t, "kcat.dbz")
	defer k.close()
	db := openKafkaDB(t, t.TempDir())
	defer db.Close()
	mustExec(t, db, fmt.Sprintf(dbzTable, k.with("earliest"), ""))
	mustExec(t, db, "CREATE MATERIALIZED VIEW orders_by_grp AS SELECT grp, count(*) AS c, sum(v) AS s FROM orders GROUP BY grp")
	m := newDbzModel(k, 7)
	m.batch(600)
	// One kcat run per partition, in the model's order.
	lines := make([][]string, kafkaPartitions)
	for _, r := range m.recs {
		lines[r.Partition] = append(lines[r.Partition], "k|"+string(r.Value))
	}
	m.recs = nil
	for p, ls := range lines {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		cmd := exec.CommandContext(ctx, kcat, "-b", k.addr, "-t", k.topic, "-p", fmt.Sprint(p), "-P", "-K|", "-Z")
		cmd.Stdin = strings.NewReader(strings.Join(ls, "\n") + "\n")
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("kcat -P: %v\n%s", err, out)
		}
	}
	m.check(t, dbQuery(t, db))
}

// TestKafkaDebeziumKill9: the server is killed with SIGKILL while a
// FORMAT DEBEZIUM table takes a stream of changes and malformed messages;
// restarted, it goes on from its committed offsets: the table and its
// view equal the oracle, and each malformed message is listed once
// (skipped in an epoch that did not commit, it is read again, and its
// row was not written).
func TestKafkaDebeziumKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server")
	}
	k := newKafkaTopic(t, "kill.dbz")
	defer k.close()
	dir := t.TempDir()
	m := newDbzModel(k, 9)
	rng := rand.New(rand.NewSource(9))
	p := startProc(t, dir)
	c := p.connect(t)
	// Paced, so that the kill lands in the middle of a batch.
	for _, q := range []string{fmt.Sprintf(dbzTable, k.with("earliest"), ", source_rate_limit = 3000"),
		"CREATE MATERIALIZED VIEW orders_by_grp AS SELECT grp, count(*) AS c, sum(v) AS s FROM orders GROUP BY grp"} {
		if _, err := c.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for round := 0; round < 3; round++ {
		m.batch(3000)
		m.flush(t)
		time.Sleep(time.Duration(200+rng.Intn(600)) * time.Millisecond)
		t.Logf("round %d: SIGKILL at %v of %d|%d", round, pgLines(t, c, "SELECT rows_generated, skipped FROM streamdb_catalog.sources"), m.emitted, m.skipped)
		c.Close(context.Background())
		p.kill()
		p = startProc(t, dir)
		c = p.connect(t)
		m.check(t, func(q string) []string {
			if q == "FLUSH" {
				if _, err := c.Exec(context.Background(), q); err != nil {
					t.Fatal(err)
				}
				return nil
			}
			return pgLines(t, c, q)
		})
	}
	c.Close(context.Background())
}
