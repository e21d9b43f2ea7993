package tests

import (
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// avroV1 is the first schema of topic av's values: every Avro type that
// maps to a column, nullable fields among them. ns has a default, so a
// later schema may drop it.
const avroV1 = `{"type": "record", "name": "Ev", "namespace": "test", "fields": [
	{"name": "id", "type": "long"},
	{"name": "b", "type": "boolean"},
	{"name": "i", "type": "int"},
	{"name": "nl", "type": ["null", "long"]},
	{"name": "f", "type": "float"},
	{"name": "d", "type": "double"},
	{"name": "s", "type": "string"},
	{"name": "by", "type": "bytes"},
	{"name": "e", "type": {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN"]}},
	{"name": "dt", "type": {"type": "int", "logicalType": "date"}},
	{"name": "tsm", "type": {"type": "long", "logicalType": "timestamp-millis"}},
	{"name": "tsu", "type": ["null", {"type": "long", "logicalType": "timestamp-micros"}]},
	{"name": "dec", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
	{"name": "arr", "type": {"type": "array", "items": "int"}},
	{"name": "rec", "type": {"type": "record", "name": "Inner", "fields": [{"name": "x", "type": "int"}, {"name": "y", "type": "string"}]}},
	{"name": "m", "type": {"type": "map", "values": "long"}},
	{"name": "ns", "type": ["null", "string"], "default": null}
]}`

// avroV2 evolves avroV1: ns is dropped and extra added with a default.
var avroV2 = strings.Replace(avroV1, `{"name": "ns", "type": ["null", "string"], "default": null}`,
	`{"name": "extra", "type": "string", "default": "x"}`, 1)

// avroColumns is what CREATE derives from avroV1.
const avroColumns = `id|bigint b|boolean i|integer nl|bigint f|real d|double precision s|character varying by|bytea e|character varying ` +
	`dt|date tsm|timestamp with time zone tsu|timestamp with time zone dec|numeric arr|ARRAY rec|jsonb m|jsonb ns|character varying`

var avroEpoch = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)

// avroEv is message id's value (under v2 when v2) and, as SQL literals,
// the row the source must make of it.
func avroEv(id int64, v2 bool) (map[string]any, string) {
	ts := avroEpoch.Add(time.Duration(id) * time.Second)
	v := map[string]any{"id": id, "b": id%2 == 0, "i": int(id * 3), "f": float32(id) + 0.5, "d": float64(id) / 4,
		"s": fmt.Sprintf("row '%d'", id), "by": []byte{byte(id), 0, 0xff}, "e": []string{"RED", "GREEN"}[id%2],
		"dt": ts.Truncate(24 * time.Hour), "tsm": ts.Add(123 * time.Millisecond), "tsu": ts.Add(456789 * time.Microsecond),
		"dec": big.NewRat(id*100+7, 100), "arr": []any{int(id), int(id) + 1}, "rec": map[string]any{"x": int(id), "y": "why"},
		"m": map[string]any{"a": id}, "ns": fmt.Sprintf("n%d", id)}
	nl, tsu, ns := fmt.Sprint(id*1000), "'"+ts.Add(456789*time.Microsecond).Format("2006-01-02 15:04:05.999999")+"+00'", fmt.Sprintf("'n%d'", id)
	if id%3 == 0 {
		v["nl"], nl, v["tsu"], tsu = nil, "NULL", nil, "NULL"
	} else {
		v["nl"] = id * 1000
	}
	if v2 {
		delete(v, "ns")
		v["extra"], ns = "more", "NULL"
	}
	row := fmt.Sprintf(`(%d, %t, %d, %s, %v, %v, 'row ''%d''', '\x%02x00ff', '%s', '%s', '%s+00', %s, %d.%02d, '{%d,%d}', '{"x": %d, "y": "why"}', '{"a": %d}', %s)`,
		id, id%2 == 0, id*3, nl, float32(id)+0.5, float64(id)/4, id, byte(id), v["e"], ts.Format("2006-01-02"),
		ts.Add(123*time.Millisecond).Format("2006-01-02 15:04:05.000"), tsu, id+0, 7, id, id+1, id, id, ns)
	return v, row
}

// produceAvro produces messages ids [from, to) of the schema with id
// sid, to partition id % 4, and inserts their rows into table ref.
func produceAvro(t *testing.T, db *streamdb.DB, k *kafkaTopic, sid int, schema string, from, to int64) {
	t.Helper()
	var recs []*kgo.Record
	var rows []string
	for id := from; id < to; id++ {
		v, row := avroEv(id, schema == avroV2)
		recs = append(recs, &kgo.Record{Topic: k.topic, Partition: int32(id % kafkaPartitions), Value: avroMessage(t, sid, schema, v)})
		rows = append(rows, row)
	}
	k.produce(t, recs)
	mustExec(t, db, "INSERT INTO ref VALUES "+strings.Join(rows, ", "))
}

const avroRefTable = `CREATE TABLE ref (id bigint, b boolean, i int, nl bigint, f real, d double precision, s varchar, by bytea, e varchar,
	dt date, tsm timestamptz, tsu timestamptz, dec numeric, arr int[], rec jsonb, m jsonb, ns varchar)`

// checkAvroView waits until view v holds n rows and checks that it equals
// ref, each message once.
func checkAvroView(t *testing.T, db *streamdb.DB, n int64) {
	t.Helper()
	waitFor(t, 60*time.Second, fmt.Sprintf("%d rows in v", n), func() bool { return queryInt(t, db, "SELECT count(*) FROM v") >= n })
	mustExec(t, db, "FLUSH")
	got, want := queryRows(t, db, "SELECT * FROM v"), queryRows(t, db, "SELECT * FROM ref")
	if d := rowsDiff(got, want); d != "" || int64(len(got)) != n {
		t.Fatalf("v (%d rows) differs from what was produced (%d rows):\n%s", len(got), len(want), d)
	}
}

// TestKafkaAvroSource: a source over Avro messages in the Confluent wire
// format, its columns taken from the registry's latest schema of
// <topic>-value at CREATE; a view over it equals what was produced, for
// every mapped type and NULLs. Midstream the schema evolves (a field
// dropped, one added with a default): those messages are read into the
// stored schema. A message naming an unknown schema id and a corrupt one
// are skipped and listed. The database is reopened, with the registry
// down: it resumes where it was, each message once.
func TestKafkaAvroSource(t *testing.T) {
	verifyNoLeaks(t)
	k := newKafkaTopic(t, "av")
	reg := newSchemaRegistry(t, "", "")
	v1 := reg.register("av-value", avroV1)
	dir := t.TempDir()
	db := openKafkaDB(t, dir)
	mustExec(t, db, avroRefTable)
	produceAvro(t, db, k, v1, avroV1, 0, 60)

	// A source keeps no rows: it is created held, so that the view sees
	// every message.
	mustExec(t, db, fmt.Sprintf(`CREATE SOURCE s WITH (%s, source_rate_limit = 0) FORMAT PLAIN ENCODE AVRO (schema.registry = '%s')`,
		k.with("earliest"), reg.url()))
	cols := queryRows(t, db, "SELECT ordinal_position, column_name, data_type FROM information_schema.columns WHERE table_name = 's'")
	var names []string
	for i := range cols {
		for _, c := range cols {
			if f := strings.SplitN(c, "|", 3); f[0] == fmt.Sprint(i+1) {
				names = append(names, f[1]+"|"+f[2])
			}
		}
	}
	if got := strings.Join(names, " "); got != avroColumns {
		t.Fatalf("columns from the registry:\n%s\nwant\n%s", got, avroColumns)
	}
	mustExec(t, db, "CREATE MATERIALIZED VIEW v AS SELECT * FROM s")
	mustExec(t, db, "ALTER SOURCE s SET SOURCE_RATE_LIMIT = DEFAULT")
	checkAvroView(t, db, 60)

	v2 := reg.register("av-value", avroV2)
	produceAvro(t, db, k, v2, avroV2, 60, 100)
	bad := []*kgo.Record{
		{Topic: k.topic, Partition: 1, Value: avroMessage(t, 99, avroV1, mustEv(100))},          // unknown id
		{Topic: k.topic, Partition: 1, Value: append([]byte{0, 0, 0, 0, byte(v1)}, 0xff, 0xff)}, // corrupt
		{Topic: k.topic, Partition: 1, Value: []byte(`{"id": 1}`)},                              // not the wire format
	}
	k.produce(t, bad)
	produceAvro(t, db, k, v1, avroV1, 100, 120)
	checkAvroView(t, db, 120)
	errs := queryRows(t, db, "SELECT source, partition_id, message_offset, error FROM streamdb_catalog.source_errors")
	if len(errs) != len(bad) || !strings.Contains(errs[0], "unknown Avro schema id 99") ||
		!strings.Contains(errs[1], "does not decode") || !strings.Contains(errs[2], "wire format") {
		t.Fatalf("source_errors:\n%s", strings.Join(errs, "\n"))
	}
	// Partition 1 had 25 messages (ids 1, 5, ... 97) before the bad ones.
	for i, e := range errs {
		if !strings.HasPrefix(e, fmt.Sprintf("s|1|%d|", 25+i)) {
			t.Errorf("source_errors row %d = %q", i, e)
		}
	}
	if n := queryInt(t, db, "SELECT skipped FROM streamdb_catalog.sources WHERE name = 's'"); n != int64(len(bad)) {
		t.Errorf("skipped = %d, want %d", n, len(bad))
	}

	// Reopen with the registry down: the schema is stored, and messages
	// of its id need no registry.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	reg.srv.Close()
	db = openKafkaDB(t, dir)
	defer db.Close()
	produceAvro(t, db, k, v1, avroV1, 120, 160)
	checkAvroView(t, db, 160)
	if n := queryInt(t, db, "SELECT count(DISTINCT id) FROM v"); n != 160 {
		t.Fatalf("%d distinct ids in v, want 160", n)
	}
}

func mustEv(id int64) map[string]any {
	v, _ := avroEv(id, false)
	return v
}

// avroUpsertKey and avroUpsertValue are the schemas of topic au.
const (
	avroUpsertKey   = `{"type": "record", "name": "K", "fields": [{"name": "id", "type": "long"}]}`
	avroUpsertValue = `{"type": "record", "name": "V", "fields": [{"name": "id", "type": "long"},
		{"name": "name", "type": "string"}, {"name": "n", "type": ["null", "int"]}]}`
)

// TestKafkaAvroUpsert: a FORMAT UPSERT ENCODE AVRO table keyed by the
// fields of the Avro message key (subject <topic>-key): a value replaces
// the row of its key, a tombstone deletes it; the table equals the
// messages folded by key, across a reopen. A key of an unknown schema
// id is skipped and listed.
func TestKafkaAvroUpsert(t *testing.T) {
	verifyNoLeaks(t)
	k := newKafkaTopic(t, "au")
	reg := newSchemaRegistry(t, "", "")
	kid, vid := reg.register("au-key", avroUpsertKey), reg.register("au-value", avroUpsertValue)
	dir := t.TempDir()
	db := openKafkaDB(t, dir)
	mustExec(t, db, fmt.Sprintf(`CREATE TABLE u (PRIMARY KEY (id)) WITH (%s) FORMAT UPSERT ENCODE AVRO (schema.registry = '%s')`,
		k.with("earliest"), reg.url()))
	model := map[int64]string{}
	put := func(round int, ids ...int64) {
		var recs []*kgo.Record
		for _, id := range ids {
			key := avroMessage(t, kid, avroUpsertKey, map[string]any{"id": id})
			rec := &kgo.Record{Topic: k.topic, Partition: int32(id % kafkaPartitions), Key: key}
			if round < 0 {
				delete(model, id)
			} else {
				n, nText := any(int(id)*round), fmt.Sprint(id*int64(round))
				if id%4 == 0 {
					n, nText = nil, "NULL"
				}
				// The value's id is ignored: the key names the row.
				rec.Value = avroMessage(t, vid, avroUpsertValue, map[string]any{"id": id + 1000, "name": fmt.Sprintf("r%d-%d", id, round), "n": n})
				model[id] = fmt.Sprintf("%d|r%d-%d|%s", id, id, round, nText)
			}
			recs = append(recs, rec)
		}
		k.produce(t, recs)
	}
	check := func() {
		t.Helper()
		var want []string
		for _, r := range model {
			want = append(want, r)
		}
		want = sortStrings(want)
		var got []string
		waitFor(t, 60*time.Second, "the upserts", func() bool {
			got = queryRows(t, db, "SELECT id, name, n FROM u")
			return rowsDiff(got, want) == ""
		})
	}
	var ids []int64
	for id := int64(0); id < 40; id++ {
		ids = append(ids, id)
	}
	put(1, ids...)
	put(2, 3, 5, 7, 11)
	put(-1, 2, 4, 6, 39, 1000) // 1000 was never there
	check()
	k.produce(t, []*kgo.Record{{Topic: k.topic, Partition: 0, Key: avroMessage(t, 77, avroUpsertKey, map[string]any{"id": 1}), Value: nil}})
	put(3, 8, 9)
	check()
	if errs := queryRows(t, db, "SELECT error FROM streamdb_catalog.source_errors"); len(errs) != 1 || !strings.Contains(errs[0], "unknown Avro schema id 77") {
		t.Fatalf("source_errors: %v", errs)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openKafkaDB(t, dir)
	defer db.Close()
	put(-1, 9, 10)
	put(4, 2, 12)
	check()
}

// TestKafkaAvroSinkRoundTrip: a materialized view -> an UPSERT ENCODE
// AVRO sink, which registers its key and value schemas -> a table over
// the sink's topic with FORMAT UPSERT ENCODE AVRO, whose columns come
// from the schema the sink registered -> equal to the view, through
// updates and deletes after the sink's backfill.
func TestKafkaAvroSinkRoundTrip(t *testing.T) {
	verifyNoLeaks(t)
	_, addr := sinkCluster(t, "rt")
	reg := newSchemaRegistry(t, "", "")
	db := openKafkaDB(t, "")
	defer db.Close()
	mustExec(t, db, `CREATE TABLE ev (id bigint PRIMARY KEY, k int, v text, n numeric(12, 3), ts timestamp, tz timestamptz, d date,
		f double precision, r real, ok boolean, b bytea, arr int[])`)
	mustExec(t, db, `INSERT INTO ev SELECT g, g % 7, 'e"' || g, g / 3.0, '2024-03-01 00:00:00'::timestamp + g * interval '1.5 second',
		'2024-03-01 00:00:00+00'::timestamptz + g * interval '1 minute', '2024-01-01'::date + (g % 30)::int, g * 0.5, g * 0.25,
		g % 2 = 0, '\x0102'::bytea, ARRAY[g, g % 3] FROM generate_series(1, 1000) AS g`)
	mustExec(t, db, "UPDATE ev SET v = NULL, n = NULL, arr = NULL WHERE id % 10 = 1")
	mustExec(t, db, "CREATE MATERIALIZED VIEW big AS SELECT id, k, v, n, ts, tz, d, f, r, ok, b, arr FROM ev WHERE k <> 3")
	mustExec(t, db, "CREATE SINK s FROM big WITH ("+sinkWith(addr, "rt", ", primary_key = 'id'")+") FORMAT UPSERT ENCODE AVRO (schema.registry = '"+reg.url()+"')")
	if _, _, ok := reg.latest("rt-value"); !ok {
		t.Fatal("the sink registered no value schema")
	}
	if _, key, ok := reg.latest("rt-key"); !ok || !strings.Contains(key, `"id"`) {
		t.Fatalf("the sink's key schema: %q", key)
	}
	mustExec(t, db, "UPDATE ev SET v = 'changed' WHERE id % 5 = 0")
	mustExec(t, db, "DELETE FROM ev WHERE id % 11 = 0")
	mustExec(t, db, "INSERT INTO ev SELECT g, g % 7, 'late', 1.5, '2024-03-02'::timestamp, now(), '2024-02-01'::date, g, 1, true, NULL::bytea, ARRAY[1] FROM generate_series(1001, 1200) AS g")
	mustExec(t, db, "CREATE TABLE back (PRIMARY KEY (id)) WITH ("+sinkWith(addr, "rt", ", scan.startup.mode = 'earliest'")+
		") FORMAT UPSERT ENCODE AVRO (schema.registry = '"+reg.url()+"')")
	const q = "SELECT id, k, v, n, ts, tz, d, f, r, ok, b, arr FROM "
	want := queryRows(t, db, q+"big")
	var got []string
	deadline := time.Now().Add(60 * time.Second)
	for got = queryRows(t, db, q+"back"); rowsDiff(got, want) != ""; got = queryRows(t, db, q+"back") {
		if time.Now().After(deadline) {
			d := rowsDiff(got, want)
			t.Fatalf("the round trip: %d rows, want %d:\n%s\nsink: %v\nerrors: %v", len(got), len(want), d[:min(len(d), 2000)],
				queryRows(t, db, "SELECT * FROM streamdb_catalog.sinks"), queryRows(t, db, "SELECT * FROM streamdb_catalog.source_errors"))
		}
		time.Sleep(50 * time.Millisecond)
	}
	// A plain consumer reads the wire format with the registry's schema.
	r := newTopicReader(t, addr, "rt")
	waitFor(t, 30*time.Second, "a message", func() bool { r.poll(); return len(r.recs) > 0 })
	if m := reg.decode(t, r.recs[0].Value); m["id"] == nil || len(m) != 12 {
		t.Fatalf("a sink message decodes to %v", m)
	}
	mustExec(t, db, "DROP SINK s")
}

// TestKafkaAvroErrors: the registry's and the schema's errors at CREATE,
// each with its SQLSTATE.
func TestKafkaAvroErrors(t *testing.T) {
	verifyNoLeaks(t)
	k := newKafkaTopic(t, "ae")
	reg := newSchemaRegistry(t, "", "")
	reg.register("ae-value", `{"type": "record", "name": "R", "fields": [{"name": "id", "type": "long"},
		{"name": "u", "type": ["null", "long", "string"]}]}`)
	secure := newSchemaRegistry(t, "alice", "secret")
	secure.register("ae-value", `{"type": "record", "name": "R", "fields": [{"name": "id", "type": "long"}]}`)
	down := newSchemaRegistry(t, "", "")
	down.srv.Close()
	db := openKafkaDB(t, "")
	defer db.Close()
	create := func(what, enc string) string {
		return fmt.Sprintf("CREATE %s WITH (%s) FORMAT PLAIN ENCODE AVRO (%s)", what, k.with("earliest"), enc)
	}
	expectSQLState(t, db, "08001", down.url(), create("SOURCE s", "schema.registry = '"+down.url()+"'"))
	expectSQLState(t, db, pgerr.UndefinedObject, "subject \"nope-value\" not found", strings.Replace(create("SOURCE s", "schema.registry = '"+reg.url()+"'"), "'ae'", "'nope'", 1))
	expectSQLState(t, db, pgerr.DatatypeMismatch, `Avro field "u"`, create("SOURCE s", "schema.registry = '"+reg.url()+"'"))
	expectSQLState(t, db, "28000", "credentials", create("SOURCE s", "schema.registry = '"+secure.url()+"'"))
	mustExec(t, db, create("SOURCE ok", "schema.registry = '"+secure.url()+"', schema.registry.username = 'alice', schema.registry.password = 'secret'"))
	// The password is not shown to whoever reads the catalog (psql's \d
	// shows these options).
	if opts := queryRows(t, db, "SELECT ftoptions::text FROM pg_foreign_table WHERE ftrelid = 'ok'::regclass"); len(opts) != 1 ||
		strings.Contains(opts[0], "secret") || !strings.Contains(opts[0], "schema.registry.password=********") ||
		!strings.Contains(opts[0], "schema.registry.username=alice") {
		t.Errorf("pg_foreign_table.ftoptions = %q", opts)
	}
	expectSQLState(t, db, pgerr.FeatureNotSupported, "column list", fmt.Sprintf(
		"CREATE SOURCE s (id bigint) WITH (%s) FORMAT PLAIN ENCODE AVRO (schema.registry = '%s')", k.with("earliest"), reg.url()))
	expectSQLState(t, db, "42P16", "primary key", fmt.Sprintf(
		"CREATE TABLE s WITH (%s) FORMAT UPSERT ENCODE AVRO (schema.registry = '%s')", k.with("earliest"), secure.url()))
	expectSQLState(t, db, pgerr.InvalidParameterValue, "schema.registry", fmt.Sprintf(
		"CREATE SOURCE s WITH (%s) FORMAT PLAIN ENCODE AVRO", k.with("earliest")))
	expectSQLState(t, db, pgerr.SyntaxError, "column list", fmt.Sprintf(
		"CREATE SOURCE s WITH (%s) FORMAT PLAIN ENCODE JSON", k.with("earliest")))
	mustExec(t, db, "CREATE TABLE t (id int PRIMARY KEY)")
	expectSQLState(t, db, "08001", down.url(), "CREATE SINK k FROM t WITH ("+sinkWith(k.addr, "ae", "")+
		") FORMAT UPSERT ENCODE AVRO (schema.registry = '"+down.url()+"')")
	expectSQLState(t, db, pgerr.FeatureNotSupported, "DEBEZIUM ENCODE AVRO", "CREATE SINK k FROM t WITH ("+sinkWith(k.addr, "ae", "")+
		") FORMAT DEBEZIUM ENCODE AVRO (schema.registry = '"+reg.url()+"')")
}
