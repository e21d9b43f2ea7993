package tests

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"go.uber.org/goleak"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// upsertRow is a row of the upsert test's table, as produced.
type upsertRow struct{ id, grp, v int64 }

// upsertModel is what an upsert topic's table should hold: the last value
// of each key, deleted by a tombstone; and how many messages the source
// should have turned into changes (emitted) and skipped as bad.
type upsertModel struct {
	k                *kafkaTopic
	rows             map[string]upsertRow
	emitted, skipped int64
}

// partitionOf places a key as Kafka's default partitioner would in
// spirit: every message of a key in one partition, so their order holds.
func partitionOf(key string) int32 {
	h := fnv.New32a()
	h.Write([]byte(key))
	return int32(h.Sum32() % kafkaPartitions)
}

// upsert produces the value of each key (nil row: a tombstone).
func (m *upsertModel) produce(t *testing.T, keys []string, row func(key string) *upsertRow) {
	t.Helper()
	recs := make([]*kgo.Record, 0, len(keys))
	for _, key := range keys {
		r := &kgo.Record{Topic: m.k.topic, Partition: partitionOf(key), Key: []byte(key)}
		if v := row(key); v != nil {
			r.Value = []byte(fmt.Sprintf(`{"id": %d, "grp": %d, "v": %d}`, v.id, v.grp, v.v))
			m.rows[key] = *v
		} else {
			delete(m.rows, key)
		}
		m.emitted++
		recs = append(recs, r)
	}
	m.k.produce(t, recs)
}

// bad produces messages the source must skip: a bad value, and a value
// without a key.
func (m *upsertModel) bad(t *testing.T) {
	t.Helper()
	m.k.produce(t, []*kgo.Record{
		{Topic: m.k.topic, Partition: 1, Key: []byte("bad"), Value: []byte(`{"id": "not a number"}`)},
		{Topic: m.k.topic, Partition: 1, Value: []byte(`{"id": 1, "grp": 1, "v": 1}`)},
	})
	m.skipped += 2
}

func keyRange(prefix string, from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("%s%d", prefix, i))
	}
	return out
}

// check waits until the source has taken every message produced, then
// checks the table holds the model's rows and the GROUP BY view equals
// both the model and its own query over the table.
func (m *upsertModel) check(t *testing.T, db *streamdb.DB) {
	t.Helper()
	waitFor(t, 60*time.Second, fmt.Sprintf("%d changes and %d skipped", m.emitted, m.skipped), func() bool {
		rows := queryRows(t, db, "SELECT rows_generated, skipped FROM streamdb_catalog.sources WHERE name = 'u'")
		return len(rows) == 1 && rows[0] == fmt.Sprintf("%d|%d", m.emitted, m.skipped)
	})
	mustExec(t, db, "FLUSH")
	var want []string
	groups := map[int64][2]int64{}
	for key, r := range m.rows {
		want = append(want, fmt.Sprintf("%s|%d|%d|%d", key, r.id, r.grp, r.v))
		g := groups[r.grp]
		groups[r.grp] = [2]int64{g[0] + 1, g[1] + r.v}
	}
	sort.Strings(want)
	got := queryRows(t, db, "SELECT convert_from(k, 'UTF8'), id, grp, v FROM u")
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("table u: %d rows, want %d\n got: %.300v\nwant: %.300v", len(got), len(want), got, want)
	}
	var wantGroups []string
	for g, cs := range groups {
		wantGroups = append(wantGroups, fmt.Sprintf("%d|%d|%d", g, cs[0], cs[1]))
	}
	sort.Strings(wantGroups)
	view := queryRows(t, db, "SELECT grp, c, s FROM u_by_grp")
	batch := queryRows(t, db, "SELECT grp, count(*), sum(v) FROM u GROUP BY grp")
	if strings.Join(view, ",") != strings.Join(wantGroups, ",") || strings.Join(batch, ",") != strings.Join(wantGroups, ",") {
		t.Fatalf("view u_by_grp = %v\nits query = %v\nproduced = %v", view, batch, wantGroups)
	}
}

// TestKafkaUpsert: a FORMAT UPSERT table keyed by the message key takes
// inserts, updates and tombstones (of keys it has and keys it never had),
// and a GROUP BY view over it follows, counts going down as rows go;
// through a restart in the middle of a stream, and past bad messages; in
// one actor, and in three that each materialize the keys of their vnodes
// (a tombstone carries only its key: it is routed by it).
func TestKafkaUpsert(t *testing.T) {
	for _, par := range []int{1, 3} {
		t.Run(fmt.Sprintf("parallelism=%d", par), func(t *testing.T) { testKafkaUpsert(t, par) })
	}
}

func testKafkaUpsert(t *testing.T, par int) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	k := newKafkaTopic(t, "ups")
	defer k.close()
	m := &upsertModel{k: k, rows: map[string]upsertRow{}}
	row := func(grp, v int64) func(string) *upsertRow {
		return func(key string) *upsertRow {
			var id int64
			fmt.Sscanf(key[1:], "%d", &id)
			return &upsertRow{id: id, grp: (id + grp) % 5, v: id*10 + v}
		}
	}
	tombstone := func(string) *upsertRow { return nil }
	m.produce(t, keyRange("k", 0, 300), row(0, 0))

	dir := t.TempDir()
	db := openKafkaDB(t, dir)
	mustExec(t, db, fmt.Sprintf(`CREATE TABLE u (id bigint, grp int, v bigint, PRIMARY KEY (k))
		INCLUDE key AS k WITH (%s, streaming_parallelism = %d) FORMAT UPSERT ENCODE JSON`, k.with("earliest"), par))
	mustExec(t, db, "CREATE MATERIALIZED VIEW u_by_grp AS SELECT grp, count(*) AS c, sum(v) AS s FROM u GROUP BY grp")
	m.check(t, db)

	m.produce(t, keyRange("k", 0, 150), row(1, 1)) // updates, moving rows between groups
	m.check(t, db)
	m.produce(t, keyRange("k", 0, 80), tombstone)  // deletes
	m.produce(t, keyRange("x", 0, 20), tombstone)  // deletes of keys never there: no-ops
	m.produce(t, keyRange("k", 70, 80), tombstone) // deletes again
	m.bad(t)
	m.check(t, db)
	got := queryRows(t, db, "SELECT partition_id, error FROM streamdb_catalog.source_errors WHERE source = 'u'")
	if len(got) != 2 || !strings.HasPrefix(got[0], "1|field \"id\"") || got[1] != "1|kafka: an upsert message without a key" {
		t.Errorf("source_errors = %q", got)
	}

	// Changes, and a close before they can all have committed, and more
	// while the database is closed.
	m.produce(t, keyRange("k", 100, 250), row(2, 2))
	m.produce(t, keyRange("k", 200, 260), tombstone)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	m.produce(t, keyRange("k", 0, 40), row(3, 3)) // deleted keys come back
	m.produce(t, keyRange("k", 290, 300), tombstone)
	db = openKafkaDB(t, dir)
	m.check(t, db)

	mustExec(t, db, "DROP MATERIALIZED VIEW u_by_grp")
	mustExec(t, db, "DROP TABLE u")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestKafkaUpsertErrors: FORMAT UPSERT is for tables keyed by their
// INCLUDE KEY column, as in RisingWave; INCLUDE is for Kafka relations.
func TestKafkaUpsertErrors(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	k := newKafkaTopic(t, "upserr")
	defer k.close()
	db := openKafkaDB(t, t.TempDir())
	defer db.Close()
	with := k.with("earliest")
	for _, tc := range []struct{ stmt, code, msg string }{
		{`CREATE SOURCE s (id int) INCLUDE key AS k WITH (%s) FORMAT UPSERT ENCODE JSON`, pgerr.FeatureNotSupported, "not supported for a source"},
		{`CREATE TABLE t (id int) INCLUDE key AS k WITH (%s) FORMAT UPSERT ENCODE JSON`, "42P16", "needs a primary key"},
		{`CREATE TABLE t (id int PRIMARY KEY) WITH (%s) FORMAT UPSERT ENCODE JSON`, "42P16", "INCLUDE KEY"},
		{`CREATE TABLE t (id int PRIMARY KEY) INCLUDE key AS k WITH (%s) FORMAT UPSERT ENCODE JSON`, "42P16", "must be its INCLUDE KEY column \"k\""},
		{`CREATE TABLE t (id int, PRIMARY KEY (k)) INCLUDE key AS k WITH (%s) FORMAT UPSERT ENCODE CSV`, pgerr.FeatureNotSupported, "UPSERT ENCODE CSV"},
		{`CREATE TABLE t (id int) INCLUDE payload WITH (%s) FORMAT PLAIN ENCODE JSON`, pgerr.FeatureNotSupported, "INCLUDE payload"},
		{`CREATE TABLE t (id int) INCLUDE key AS id WITH (%s) FORMAT PLAIN ENCODE JSON`, "42701", "\"id\" specified more than once"},
		{`CREATE TABLE t (id int) INCLUDE offset WITH (connector = 'datagen'%.0s)`, pgerr.FeatureNotSupported, "INCLUDE"},
	} {
		stmt := fmt.Sprintf(tc.stmt, with)
		_, err := db.Exec(context.Background(), stmt)
		var pe *pgerr.Error
		if !errors.As(err, &pe) || pe.Code != tc.code || !strings.Contains(pe.Message, tc.msg) {
			t.Errorf("%s:\n%v, want %s %q", stmt, err, tc.code, tc.msg)
		}
	}
	if n := queryInt(t, db, "SELECT count(*) FROM streamdb_catalog.sources"); n != 0 {
		t.Errorf("%d sources after failed CREATEs", n)
	}
}
