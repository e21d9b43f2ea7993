package tests

import (
	"context"
	binenc "encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bufbuild/protocompile"
	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// pbSchema is the .proto of topic pb's values and keys: every field
// shape ENCODE PROTOBUF maps.
const pbSchema = `syntax = "proto3";
package test;
import "google/protobuf/timestamp.proto";
enum Color { RED = 0; GREEN = 1; }
message Nested { int32 x = 1; string y = 2; }
message Ev {
  int64 id = 1; int32 i32 = 2; sint32 s32 = 3; sfixed32 sf32 = 4; sint64 s64 = 5; sfixed64 sf64 = 6;
  uint32 u32 = 7; fixed32 f32 = 8; uint64 u64 = 9; fixed64 f64 = 10; float fl = 11; double db = 12;
  bool b = 13; string s = 14; bytes by = 15; Color color = 16; google.protobuf.Timestamp ts = 17;
  repeated int32 ri = 18; repeated string rs = 19; Nested nested = 20; map<string, int64> m = 21;
  repeated Nested nested_list = 22;
  oneof choice { string oa = 23; int32 ob = 24; }
  optional int32 opt = 25;
}
message Key { int64 id = 1; }
`

// pbColumns is what CREATE derives from test.Ev.
const pbColumns = "id|bigint i32|integer s32|integer sf32|integer s64|bigint sf64|bigint u32|bigint f32|bigint u64|numeric f64|numeric " +
	"fl|real db|double precision b|boolean s|character varying by|bytea color|character varying ts|timestamp with time zone " +
	"ri|ARRAY rs|ARRAY nested|jsonb m|jsonb nested_list|jsonb oa|character varying ob|integer opt|integer"

const pbRefTable = `CREATE TABLE ref (id bigint, i32 int, s32 int, sf32 int, s64 bigint, sf64 bigint, u32 bigint, f32 bigint, u64 numeric,
	f64 numeric, fl real, db double precision, b boolean, s varchar, by bytea, color varchar, ts timestamptz, ri int[], rs varchar[],
	nested jsonb, m jsonb, nested_list jsonb, oa varchar, ob int, opt int)`

// compilePB compiles pbSchema into what protoc --include_imports
// --descriptor_set_out writes, and returns it with the file's
// descriptor.
func compilePB(t *testing.T) ([]byte, protoreflect.FileDescriptor) {
	t.Helper()
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
		Accessor: protocompile.SourceAccessorFromMap(map[string]string{"ev.proto": pbSchema})})}
	files, err := c.Compile(context.Background(), "ev.proto")
	if err != nil {
		t.Fatal(err)
	}
	set := &descriptorpb.FileDescriptorSet{}
	for i := 0; i < files[0].Imports().Len(); i++ {
		set.File = append(set.File, protodesc.ToFileDescriptorProto(files[0].Imports().Get(i).FileDescriptor))
	}
	set.File = append(set.File, protodesc.ToFileDescriptorProto(files[0]))
	b, err := proto.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	return b, files[0]
}

// pbValue converts a Go value to field f's kind.
func pbValue(f protoreflect.FieldDescriptor, v any) protoreflect.Value {
	switch f.Kind() {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(v.(int64)))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(v.(int64))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(v.(uint64)))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(v.(uint64))
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(float32(v.(float64)))
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(protoreflect.EnumNumber(v.(int64)))
	case protoreflect.MessageKind:
		return protoreflect.ValueOfMessage(v.(*dynamicpb.Message))
	}
	return protoreflect.ValueOf(v) // double, bool, string, bytes
}

// pbMessage builds a message of md from fields by name: lists as []any,
// maps as map[string]any, messages as *dynamicpb.Message.
func pbMessage(md protoreflect.MessageDescriptor, fields map[string]any) *dynamicpb.Message {
	m := dynamicpb.NewMessage(md)
	for name, v := range fields {
		f := md.Fields().ByName(protoreflect.Name(name))
		switch x := v.(type) {
		case []any:
			l := m.Mutable(f).List()
			for _, e := range x {
				l.Append(pbValue(f, e))
			}
		case map[string]any:
			mp := m.Mutable(f).Map()
			for k, e := range x {
				mp.Set(protoreflect.ValueOfString(k).MapKey(), pbValue(f.MapValue(), e))
			}
		default:
			m.Set(f, pbValue(f, v))
		}
	}
	return m
}

func pbBytes(t *testing.T, m *dynamicpb.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var pbEpoch = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)

// pbEv is message id's value and, as SQL literals, the row the source
// must make of it: a Timestamp and a Nested unset (NULL) for every third
// id, opt unset (its default, 0) for every fifth, and the oneof holding
// oa for even ids, ob for odd ones (the other NULL).
func pbEv(fd protoreflect.FileDescriptor, id int64) (*dynamicpb.Message, string) {
	ev := fd.Messages().ByName("Ev")
	ts := pbEpoch.Add(time.Duration(id)*time.Second + 123456*time.Microsecond)
	nested := pbMessage(fd.Messages().ByName("Nested"), map[string]any{"x": id, "y": "why"})
	v := map[string]any{"id": id, "i32": id * 3, "s32": -id, "sf32": id, "s64": -id * 1_000_000_000, "sf64": id,
		"u32": uint64(4_000_000_000 + id), "f32": uint64(id), "u64": uint64(1<<63) + uint64(id), "f64": uint64(id),
		"fl": float64(id) + 0.5, "db": float64(id) / 4, "b": id%2 == 0, "s": fmt.Sprintf("row '%d'", id),
		"by": []byte{byte(id), 0, 0xff}, "color": id % 2, "ri": []any{id, id + 1}, "rs": []any{"a", fmt.Sprintf("b %d", id)},
		"m": map[string]any{"a": id}, "nested_list": []any{nested}}
	tsSQL, nestedSQL, oa, ob, opt := "'"+ts.Format("2006-01-02 15:04:05.999999")+"+00'", fmt.Sprintf(`'{"x": %d, "y": "why"}'`, id), "NULL", "NULL", "0"
	if id%3 == 0 {
		tsSQL, nestedSQL = "NULL", "NULL"
	} else {
		tsm := pbMessage(ev.Fields().ByName("ts").Message(), map[string]any{"seconds": ts.Unix(), "nanos": int64(ts.Nanosecond())})
		v["ts"], v["nested"] = tsm, nested
	}
	if id%2 == 0 {
		v["oa"], oa = fmt.Sprintf("even %d", id), fmt.Sprintf("'even %d'", id)
	} else {
		v["ob"], ob = id, fmt.Sprint(id)
	}
	if id%5 != 0 {
		v["opt"], opt = id, fmt.Sprint(id)
	}
	row := fmt.Sprintf(`(%d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %v, %v, %t, 'row ''%d''', '\x%02x00ff', '%s', %s, '{%d,%d}', '{a,"b %d"}', `+
		`%s, '{"a": "%d"}', '[{"x": %d, "y": "why"}]', %s, %s, %s)`,
		id, id*3, -id, id, -id*1_000_000_000, id, 4_000_000_000+id, id, uint64(1<<63)+uint64(id), id, float64(id)+0.5, float64(id)/4,
		id%2 == 0, id, byte(id), []string{"RED", "GREEN"}[id%2], tsSQL, id, id+1, id, nestedSQL, id, id, oa, ob, opt)
	return pbMessage(ev, v), row
}

// producePB produces messages ids [from, to) to partition id % 4 and
// inserts their rows into table ref.
func producePB(t *testing.T, db *streamdb.DB, k *kafkaTopic, fd protoreflect.FileDescriptor, from, to int64) {
	t.Helper()
	var recs []*kgo.Record
	var rows []string
	for id := from; id < to; id++ {
		m, row := pbEv(fd, id)
		recs = append(recs, &kgo.Record{Topic: k.topic, Partition: int32(id % kafkaPartitions), Value: pbBytes(t, m)})
		rows = append(rows, row)
	}
	k.produce(t, recs)
	mustExec(t, db, "INSERT INTO ref VALUES "+strings.Join(rows, ", "))
}

// checkPBViews waits until view v holds n rows, then checks that it
// equals ref, each message once, and that the GROUP BY view g equals
// its query over ref.
func checkPBViews(t *testing.T, db *streamdb.DB, n int64) {
	t.Helper()
	waitFor(t, 60*time.Second, fmt.Sprintf("%d rows in v", n), func() bool { return queryInt(t, db, "SELECT count(*) FROM v") >= n })
	mustExec(t, db, "FLUSH")
	got, want := queryRows(t, db, "SELECT * FROM v"), queryRows(t, db, "SELECT * FROM ref")
	if d := rowsDiff(got, want); d != "" || int64(len(got)) != n {
		t.Fatalf("v (%d rows) differs from what was produced (%d rows):\n%s", len(got), len(want), d)
	}
	got, want = queryRows(t, db, "SELECT * FROM g"), queryRows(t, db, pbGroupBy+"ref GROUP BY color, ts IS NULL")
	if d := rowsDiff(got, want); d != "" {
		t.Fatalf("g differs from its query over what was produced:\n%s", d)
	}
}

const pbGroupBy = "SELECT color, ts IS NULL AS no_ts, count(*) AS n, sum(id) AS ids, sum(u64) AS u, max(s) AS s, count(oa) AS oas, sum(opt) AS opts FROM "

// writePBSchema writes the descriptor set to a file and returns its
// file:// URL and path.
func writePBSchema(t *testing.T, set []byte) (string, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ev.pb")
	if err := os.WriteFile(path, set, 0o644); err != nil {
		t.Fatal(err)
	}
	return "file://" + path, path
}

// TestKafkaProtobufSource: a source over Protobuf messages whose columns
// come from a FileDescriptorSet read at CREATE; a view over it and a
// GROUP BY view equal what was produced, for every mapped type, NULLs
// and defaults. Bytes that are not the message are skipped and listed.
// The database is reopened with the schema file removed: it resumes
// where it was, each message once.
func TestKafkaProtobufSource(t *testing.T) {
	verifyNoLeaks(t)
	set, fd := compilePB(t)
	loc, path := writePBSchema(t, set)
	k := newKafkaTopic(t, "pb")
	dir := t.TempDir()
	db := openKafkaDB(t, dir)
	mustExec(t, db, pbRefTable)
	producePB(t, db, k, fd, 0, 60)
	mustExec(t, db, fmt.Sprintf(`CREATE SOURCE s WITH (%s, source_rate_limit = 0) FORMAT PLAIN ENCODE PROTOBUF (message = 'test.Ev', schema.location = '%s')`,
		k.with("earliest"), loc))
	cols := queryRows(t, db, "SELECT ordinal_position, column_name, data_type FROM information_schema.columns WHERE table_name = 's'")
	names := make([]string, len(cols))
	for _, c := range cols {
		f := strings.SplitN(c, "|", 3)
		var i int
		fmt.Sscan(f[0], &i)
		names[i-1] = f[1] + "|" + f[2]
	}
	if got := strings.Join(names, " "); got != pbColumns {
		t.Fatalf("columns from the schema:\n%s\nwant\n%s", got, pbColumns)
	}
	mustExec(t, db, "CREATE MATERIALIZED VIEW v AS SELECT * FROM s")
	mustExec(t, db, "CREATE MATERIALIZED VIEW g AS "+pbGroupBy+"s GROUP BY color, ts IS NULL")
	mustExec(t, db, "ALTER SOURCE s SET SOURCE_RATE_LIMIT = DEFAULT")
	checkPBViews(t, db, 60)

	good, _ := pbEv(fd, 1000)
	gb := pbBytes(t, good)
	bad := []*kgo.Record{
		{Topic: k.topic, Partition: 1, Value: []byte{0xff, 0xff, 0xff}}, // no field number 0x7fff.. wire type 7
		// Truncated: a length-delimited field 15 that promises 16 bytes and
		// holds one. (Cutting bytes off the end is not enough: the fields
		// come in no fixed order, and when the last is id 1000, a 3-byte
		// varint field, gb[:len(gb)-3] is a whole message with id 0.)
		{Topic: k.topic, Partition: 1, Value: append(gb[:len(gb):len(gb)], 15<<3|2, 16, 'x')},
	}
	k.produce(t, bad)
	producePB(t, db, k, fd, 60, 100)
	checkPBViews(t, db, 100)
	errs := queryRows(t, db, "SELECT source, partition_id, message_offset, error FROM streamdb_catalog.source_errors")
	if len(errs) != len(bad) {
		t.Fatalf("source_errors:\n%s", strings.Join(errs, "\n"))
	}
	// Partition 1 had 15 messages (ids 1, 5, ... 57) before the bad ones.
	for i, e := range errs {
		if !strings.HasPrefix(e, fmt.Sprintf("s|1|%d|", 15+i)) || !strings.Contains(e, "does not decode as Protobuf test.Ev") {
			t.Errorf("source_errors row %d = %q", i, e)
		}
	}
	if n := queryInt(t, db, "SELECT skipped FROM streamdb_catalog.sources WHERE name = 's'"); n != int64(len(bad)) {
		t.Errorf("skipped = %d, want %d", n, len(bad))
	}

	// Reopen with the schema file gone: the set is stored.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	db = openKafkaDB(t, dir)
	defer db.Close()
	producePB(t, db, k, fd, 100, 140)
	checkPBViews(t, db, 140)
	if n := queryInt(t, db, "SELECT count(DISTINCT id) FROM v"); n != 140 {
		t.Fatalf("%d distinct ids in v, want 140", n)
	}
}

// TestKafkaProtobufUpsert: FORMAT UPSERT ENCODE PROTOBUF tables, one
// keyed by the fields of a key message (PRIMARY KEY (id), key.message =
// 'test.Key'), one by the key's bytes (INCLUDE KEY AS k): a value
// replaces the row of its key, a tombstone deletes it; both equal the
// messages folded by key, across a reopen. A key that does not decode is
// skipped and listed.
func TestKafkaProtobufUpsert(t *testing.T) {
	verifyNoLeaks(t)
	set, fd := compilePB(t)
	loc, _ := writePBSchema(t, set)
	k := newKafkaTopic(t, "pbu")
	dir := t.TempDir()
	db := openKafkaDB(t, dir)
	enc := fmt.Sprintf("ENCODE PROTOBUF (message = 'test.Ev', key.message = 'test.Key', schema.location = '%s')", loc)
	mustExec(t, db, fmt.Sprintf(`CREATE TABLE u (PRIMARY KEY (id)) WITH (%s) FORMAT UPSERT %s`, k.with("earliest"), enc))
	mustExec(t, db, fmt.Sprintf(`CREATE TABLE uk (PRIMARY KEY (k)) INCLUDE KEY AS k WITH (%s) FORMAT UPSERT %s`, k.with("earliest"), enc))
	ev, key := fd.Messages().ByName("Ev"), fd.Messages().ByName("Key")
	model := map[int64]string{}
	var extraK []string // uk's rows of keys that are not Key messages
	put := func(round int64, ids ...int64) {
		var recs []*kgo.Record
		for _, id := range ids {
			rec := &kgo.Record{Topic: k.topic, Partition: int32(id % kafkaPartitions), Key: pbBytes(t, pbMessage(key, map[string]any{"id": id}))}
			if round < 0 {
				delete(model, id)
			} else {
				// The value's id is ignored by u: the key names the row.
				rec.Value = pbBytes(t, pbMessage(ev, map[string]any{"id": id + 1000, "s": fmt.Sprintf("r%d-%d", id, round), "i32": id * round}))
				model[id] = fmt.Sprintf("%d|r%d-%d|%d", id, id, round, id*round)
			}
			recs = append(recs, rec)
		}
		k.produce(t, recs)
	}
	check := func() {
		t.Helper()
		var want, wantK []string
		for id, r := range model {
			want = append(want, r)
			_, rest, _ := strings.Cut(r, "|")
			wantK = append(wantK, fmt.Sprintf("%d|%s", id+1000, rest))
		}
		want, wantK = sortStrings(want), sortStrings(append(wantK, extraK...))
		deadline := time.Now().Add(60 * time.Second)
		for {
			du, dk := rowsDiff(queryRows(t, db, "SELECT id, s, i32 FROM u"), want), rowsDiff(queryRows(t, db, "SELECT id, s, i32 FROM uk"), wantK)
			if du == "" && dk == "" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the upserts: u differs:\n%s\nuk differs:\n%s\nerrors: %v", du, dk, queryRows(t, db, "SELECT * FROM streamdb_catalog.source_errors"))
			}
			time.Sleep(50 * time.Millisecond)
		}
		// uk's key is the Kafka key's bytes: the Key message of its row.
		for _, r := range queryRows(t, db, "SELECT id, encode(k, 'hex') FROM uk") {
			var id int64
			var hexKey string
			fmt.Sscanf(strings.Replace(r, "|", " ", 1), "%d %s", &id, &hexKey)
			if hexKey == "ffff" {
				continue
			}
			if want := fmt.Sprintf("%x", pbBytes(t, pbMessage(key, map[string]any{"id": id - 1000}))); hexKey != want {
				t.Fatalf("uk row %s: key %s, want %s", r, hexKey, want)
			}
		}
	}
	var ids []int64
	for id := int64(1); id <= 40; id++ {
		ids = append(ids, id)
	}
	put(1, ids...)
	put(2, 3, 5, 7, 11)
	put(-1, 2, 4, 6, 39, 1000) // 1000 was never there
	check()
	// A key that is not a Key message: u skips it, uk (keyed by the
	// key's bytes) keeps its row.
	k.produce(t, []*kgo.Record{{Topic: k.topic, Partition: 0, Key: []byte{0xff, 0xff}, Value: pbBytes(t, pbMessage(ev, map[string]any{"id": int64(1)}))}})
	extraK = append(extraK, "1||0")
	put(3, 8, 9)
	check()
	if errs := queryRows(t, db, "SELECT source, error FROM streamdb_catalog.source_errors"); len(errs) != 1 ||
		!strings.HasPrefix(errs[0], "u|") || !strings.Contains(errs[0], "the message key") {
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

// TestKafkaProtobufErrors: CREATE's errors, each with its SQLSTATE.
func TestKafkaProtobufErrors(t *testing.T) {
	verifyNoLeaks(t)
	set, _ := compilePB(t)
	loc, _ := writePBSchema(t, set)
	badLoc, _ := writePBSchema(t, []byte(pbSchema)) // a .proto, not a descriptor set
	k := newKafkaTopic(t, "pbe")
	db := openKafkaDB(t, "")
	defer db.Close()
	create := func(what, format, opts string) string {
		return fmt.Sprintf("CREATE %s WITH (%s) FORMAT %s ENCODE PROTOBUF (%s)", what, k.with("earliest"), format, opts)
	}
	expectSQLState(t, db, pgerr.UndefinedObject, `"test.Nope" not found`, create("SOURCE s", "PLAIN", "message = 'test.Nope', schema.location = '"+loc+"'"))
	expectSQLState(t, db, "58P01", "/no/such.pb", create("SOURCE s", "PLAIN", "message = 'test.Ev', schema.location = 'file:///no/such.pb'"))
	expectSQLState(t, db, pgerr.InvalidTextRep, "FileDescriptorSet", create("SOURCE s", "PLAIN", "message = 'test.Ev', schema.location = '"+badLoc+"'"))
	expectSQLState(t, db, pgerr.InvalidParameterValue, "message", create("SOURCE s", "PLAIN", "schema.location = '"+loc+"'"))
	expectSQLState(t, db, "08001", "schema registry", create("SOURCE s", "PLAIN", "message = 'test.Ev', schema.registry = 'http://127.0.0.1:1'"))
	expectSQLState(t, db, pgerr.FeatureNotSupported, "column list", fmt.Sprintf(
		"CREATE SOURCE s (id bigint) WITH (%s) FORMAT PLAIN ENCODE PROTOBUF (message = 'test.Ev', schema.location = '%s')", k.with("earliest"), loc))
	expectSQLState(t, db, "42P16", "primary key", create("TABLE s", "UPSERT", "message = 'test.Ev', schema.location = '"+loc+"'"))
	expectSQLState(t, db, pgerr.UndefinedColumn, `no field "s"`, fmt.Sprintf(
		"CREATE TABLE s (PRIMARY KEY (s)) WITH (%s) FORMAT UPSERT ENCODE PROTOBUF (message = 'test.Ev', key.message = 'test.Key', schema.location = '%s')", k.with("earliest"), loc))
	expectSQLState(t, db, pgerr.FeatureNotSupported, "source", create("SOURCE s", "UPSERT", "message = 'test.Ev', schema.location = '"+loc+"'"))
	// The hint names the messages there are.
	_, err := db.Exec(context.Background(), create("SOURCE s", "PLAIN", "message = 'Ev', schema.location = '"+loc+"'"))
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code != pgerr.UndefinedObject || !strings.Contains(pe.Hint, "test.Ev, test.Key, test.Nested") {
		t.Errorf("a missing message's hint: %v", err)
	}
	// A plain table (no primary key) and a source both work.
	mustExec(t, db, create("TABLE ok", "PLAIN", "message = 'test.Key', schema.location = '"+loc+"'"))
	mustExec(t, db, create("SOURCE ok2", "PLAIN", "message = 'test.Key', schema.location = '"+loc+"'"))
	// The stored descriptor set is not among the options psql's \d shows.
	if opts := queryRows(t, db, "SELECT ftoptions::text FROM pg_foreign_table WHERE ftrelid = 'ok2'::regclass"); len(opts) != 1 ||
		strings.Contains(opts[0], "descriptors") || !strings.Contains(opts[0], "message=test.Key") {
		t.Errorf("pg_foreign_table.ftoptions = %q", opts)
	}
}

// pbRegistry is a Confluent schema registry in the test serving PROTOBUF
// schemas with references: subjects' versions and schemas by id. Close
// stops it (connections refused, as a registry that is down).
type pbRegistry struct {
	srv      *httptest.Server
	byID     map[int]map[string]any
	subjects map[string][]int
}

func newPBRegistry(t *testing.T) *pbRegistry {
	r := &pbRegistry{byID: map[int]map[string]any{}, subjects: map[string][]int{}}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
		id := 0
		switch {
		case len(parts) == 4 && parts[0] == "subjects":
			ids := r.subjects[parts[1]]
			if v, err := strconv.Atoi(parts[3]); err == nil && v >= 1 && v <= len(ids) {
				id = ids[v-1]
			} else if parts[3] == "latest" && len(ids) > 0 {
				id = ids[len(ids)-1]
			}
		case len(parts) == 3 && parts[0] == "schemas":
			id, _ = strconv.Atoi(parts[2])
		}
		s, ok := r.byID[id]
		if !ok {
			registryAnswer(w, http.StatusNotFound, map[string]any{"error_code": 40401, "message": "not found"})
			return
		}
		registryAnswer(w, http.StatusOK, s)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// add registers a .proto under subject with references and returns its id
// (set up before the database reads it: no lock needed).
func (r *pbRegistry) add(subject, schema string, refs ...map[string]any) int {
	id := len(r.byID) + 1
	r.byID[id] = map[string]any{"id": id, "schemaType": "PROTOBUF", "schema": schema, "references": refs}
	r.subjects[subject] = append(r.subjects[subject], id)
	return id
}

// pbCompile compiles the .proto files (main first) as the registry's
// clients do.
func pbCompile(t *testing.T, files map[string]string, main string) protoreflect.FileDescriptor {
	t.Helper()
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
		Accessor: protocompile.SourceAccessorFromMap(files)})}
	fs, err := c.Compile(context.Background(), main)
	if err != nil {
		t.Fatal(err)
	}
	return fs[0]
}

// pbFramed is m in Confluent's Protobuf framing with schema id and
// message indexes idx.
func pbFramed(t *testing.T, id int, idx []int, m *dynamicpb.Message) []byte {
	b := binenc.BigEndian.AppendUint32([]byte{0}, uint32(id))
	if len(idx) == 1 && idx[0] == 0 {
		b = append(b, 0)
	} else {
		b = binenc.AppendVarint(b, int64(len(idx)))
		for _, i := range idx {
			b = binenc.AppendVarint(b, int64(i))
		}
	}
	return append(b, pbBytes(t, m)...)
}

const (
	pbRegCommon = `syntax = "proto3"; package common; message Tag { string name = 1; }`
	pbRegV1     = `syntax = "proto3"; package shop; import "common.proto";
message Order { int64 id = 1; string name = 2; common.Tag tag = 3; }
message Other { int64 id = 1; string name = 2; message Inner { int64 id = 1; string name = 2; } }
`
	pbRegV2 = `syntax = "proto3"; package shop; import "common.proto";
message Order { int64 id = 1; string name = 2; common.Tag tag = 3; int32 extra = 4; }
`
	pbRegKey = `syntax = "proto3"; package shop; message OrderKey { int64 id = 1; }`
)

// TestKafkaProtobufRegistry: ENCODE PROTOBUF with schema.registry. The
// value schema (with a reference) gives a source's columns; messages in
// the Confluent framing with index arrays [0], [1], [1,0] and of a
// second schema version (an added field) read into a view equal to what
// was produced; bad framing and an unknown id are listed in
// source_errors; after a reopen with the registry stopped, messages of
// the stored schema still read. An UPSERT table keyed by <topic>-key's
// message applies values and deletes. CREATE errors: 08001, 42704.
func TestKafkaProtobufRegistry(t *testing.T) {
	verifyNoLeaks(t)
	reg := newPBRegistry(t)
	ref := map[string]any{"name": "common.proto", "subject": "common", "version": 1}
	reg.add("common", pbRegCommon)
	k := newKafkaTopic(t, "pbr")
	v1 := reg.add(k.topic+"-value", pbRegV1, ref)
	v2 := reg.add("other-value", pbRegV2, ref) // a later version, registered elsewhere so CREATE reads v1
	kid := reg.add(k.topic+"-key", pbRegKey)
	fd1 := pbCompile(t, map[string]string{"m.proto": pbRegV1, "common.proto": pbRegCommon}, "m.proto")
	fd2 := pbCompile(t, map[string]string{"m.proto": pbRegV2, "common.proto": pbRegCommon}, "m.proto")
	fdk := pbCompile(t, map[string]string{"k.proto": pbRegKey}, "k.proto")

	dir := t.TempDir()
	db := openKafkaDB(t, dir)
	enc := fmt.Sprintf("ENCODE PROTOBUF (message = 'shop.Order', schema.registry = '%s')", reg.srv.URL)
	for sql, code := range map[string]string{
		fmt.Sprintf("CREATE SOURCE e1 WITH (%s) FORMAT PLAIN ENCODE PROTOBUF (message = 'shop.Order', schema.registry = 'http://127.0.0.1:1')", k.with("earliest")): "08001",
		fmt.Sprintf("CREATE SOURCE e2 WITH (%s) FORMAT PLAIN ENCODE PROTOBUF (message = 'shop.Nope', schema.registry = '%s')", k.with("earliest"), reg.srv.URL):     pgerr.UndefinedObject,
	} {
		var pe *pgerr.Error
		if _, err := db.Exec(context.Background(), sql); !errors.As(err, &pe) || pe.Code != code {
			t.Errorf("%s: %v, want %s", sql, err, code)
		}
	}
	mustExec(t, db, fmt.Sprintf("CREATE SOURCE s WITH (%s) FORMAT PLAIN %s", k.with("earliest"), enc))
	mustExec(t, db, "CREATE MATERIALIZED VIEW v AS SELECT id, name, tag->>'name' AS tag FROM s")
	mustExec(t, db, fmt.Sprintf("CREATE TABLE u (PRIMARY KEY (id)) WITH (%s) FORMAT UPSERT %s", k.with("earliest"), enc))

	msg := func(fd protoreflect.FileDescriptor, path []string, id int64, extra bool) *dynamicpb.Message {
		md := fd.Messages().ByName(protoreflect.Name(path[0]))
		if len(path) > 1 {
			md = md.Messages().ByName(protoreflect.Name(path[1]))
		}
		m := dynamicpb.NewMessage(md)
		m.Set(md.Fields().ByName("id"), protoreflect.ValueOfInt64(id))
		m.Set(md.Fields().ByName("name"), protoreflect.ValueOfString(fmt.Sprint("n", id)))
		if f := md.Fields().ByName("tag"); f != nil {
			tag := dynamicpb.NewMessage(f.Message())
			tag.Set(f.Message().Fields().ByName("name"), protoreflect.ValueOfString(fmt.Sprint("t", id)))
			m.Set(f, protoreflect.ValueOfMessage(tag))
		}
		if extra {
			m.Set(md.Fields().ByName("extra"), protoreflect.ValueOfInt32(7))
		}
		return m
	}
	key := func(id int64) []byte {
		md := fdk.Messages().Get(0)
		m := dynamicpb.NewMessage(md)
		m.Set(md.Fields().ByName("id"), protoreflect.ValueOfInt64(id))
		return pbFramed(t, kid, []int{0}, m)
	}
	var recs []*kgo.Record
	var want []string
	for id := int64(0); id < 40; id++ {
		var val []byte
		var w string
		switch id % 4 {
		case 0:
			val, w = pbFramed(t, v1, []int{0}, msg(fd1, []string{"Order"}, id, false)), fmt.Sprintf("%d|n%d|t%d", id, id, id)
		case 1:
			val, w = pbFramed(t, v1, []int{1}, msg(fd1, []string{"Other"}, id, false)), fmt.Sprintf("%d|n%d|NULL", id, id)
		case 2:
			val, w = pbFramed(t, v1, []int{1, 0}, msg(fd1, []string{"Other", "Inner"}, id, false)), fmt.Sprintf("%d|n%d|NULL", id, id)
		case 3:
			val, w = pbFramed(t, v2, []int{0}, msg(fd2, []string{"Order"}, id, true)), fmt.Sprintf("%d|n%d|t%d", id, id, id)
		}
		recs = append(recs, &kgo.Record{Topic: k.topic, Partition: 0, Key: key(id), Value: val})
		want = append(want, w)
	}
	bad := []*kgo.Record{
		{Topic: k.topic, Partition: 0, Key: key(100), Value: []byte{1, 2, 3}},
		{Topic: k.topic, Partition: 0, Key: key(101), Value: pbFramed(t, 77, []int{0}, msg(fd1, []string{"Order"}, 101, false))},
	}
	recs = append(recs, bad...)
	// Deletes of ids 0 and 1 in the UPSERT table.
	recs = append(recs, &kgo.Record{Topic: k.topic, Partition: 0, Key: key(0)}, &kgo.Record{Topic: k.topic, Partition: 0, Key: key(1)})
	k.produce(t, recs)
	check := func(n int) {
		t.Helper()
		waitFor(t, 60*time.Second, "rows in v and u", func() bool {
			return queryInt(t, db, "SELECT count(*) FROM v") >= int64(n) && queryInt(t, db, "SELECT count(*) FROM u") >= int64(n-2)
		})
		mustExec(t, db, "FLUSH")
		sorted := func(rows []string) []string { return slices.Sorted(slices.Values(rows)) }
		got := queryRows(t, db, "SELECT id, name, coalesce(tag, 'NULL') FROM v")
		if d := rowsDiff(sorted(got), sorted(want)); d != "" {
			t.Fatalf("v differs from what was produced:\n%s", d)
		}
		got = queryRows(t, db, "SELECT id, name, coalesce(tag->>'name', 'NULL') FROM u")
		if d := rowsDiff(sorted(got), sorted(want[2:])); d != "" {
			t.Fatalf("u differs from the messages folded by key:\n%s", d)
		}
	}
	check(40)
	errs := queryRows(t, db, "SELECT source, error FROM streamdb_catalog.source_errors WHERE source = 's'")
	if len(errs) != 2 || !strings.Contains(errs[0], "Confluent wire format") || !strings.Contains(errs[1], "unknown Protobuf schema id 77") {
		t.Fatalf("source_errors:\n%s", strings.Join(errs, "\n"))
	}

	// Reopen with the registry stopped: the stored schema reads on.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	reg.srv.Close()
	db = openKafkaDB(t, dir)
	defer db.Close()
	recs = nil
	for id := int64(40); id < 50; id++ {
		recs = append(recs, &kgo.Record{Topic: k.topic, Partition: 0, Key: key(id), Value: pbFramed(t, v1, []int{0}, msg(fd1, []string{"Order"}, id, false))})
		want = append(want, fmt.Sprintf("%d|n%d|t%d", id, id, id))
	}
	k.produce(t, recs)
	check(50)
}
