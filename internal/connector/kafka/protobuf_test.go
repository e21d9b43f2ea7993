package kafka

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// protoTestSchema is a message of every field shape the mapping has.
const protoTestSchema = `syntax = "proto3";
package test;
import "google/protobuf/timestamp.proto";
enum Color { RED = 0; GREEN = 1; }
message Inner { int32 x = 1; string y = 2; }
message Ev {
  int64 id = 1; int32 i32 = 2; sint32 s32 = 3; sfixed32 sf32 = 4; sint64 s64 = 5; sfixed64 sf64 = 6;
  uint32 u32 = 7; fixed32 f32 = 8; uint64 u64 = 9; fixed64 f64 = 10; float fl = 11; double db = 12;
  bool b = 13; string s = 14; bytes by = 15; Color color = 16; google.protobuf.Timestamp ts = 17;
  repeated int32 ri = 18; repeated string rs = 19; Inner inner = 20; map<string, int64> m = 21;
  repeated Inner rin = 22; repeated bytes rb = 23;
  oneof choice { string oa = 24; int32 ob = 25; }
  optional int32 opt = 26;
}
message Key { int64 id = 1; }
`

// compileProto compiles one .proto file's text into a serialized
// FileDescriptorSet with its imports (what protoc --include_imports
// --descriptor_set_out writes).
func compileProto(t testing.TB, text string) ([]byte, protoreflect.FileDescriptor) {
	t.Helper()
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
		Accessor: protocompile.SourceAccessorFromMap(map[string]string{"ev.proto": text})})}
	files, err := c.Compile(context.Background(), "ev.proto")
	if err != nil {
		t.Fatal(err)
	}
	set := &descriptorpb.FileDescriptorSet{}
	seen := map[string]bool{}
	var add func(fd protoreflect.FileDescriptor)
	add = func(fd protoreflect.FileDescriptor) {
		if seen[fd.Path()] {
			return
		}
		seen[fd.Path()] = true
		for i := 0; i < fd.Imports().Len(); i++ {
			add(fd.Imports().Get(i).FileDescriptor)
		}
		set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
	}
	add(files[0])
	b, err := proto.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	return b, files[0]
}

func writeSchema(t *testing.T, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "schema.pb")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return "file://" + path
}

// TestProtobufColumns: the type mapping of every field shape, from a
// FileDescriptorSet read by file:// and by http://.
func TestProtobufColumns(t *testing.T) {
	set, _ := compileProto(t, protoTestSchema)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(set) }))
	defer srv.Close()
	const want = "id bigint, i32 integer, s32 integer, sf32 integer, s64 bigint, sf64 bigint, u32 bigint, f32 bigint, " +
		"u64 numeric, f64 numeric, fl real, db double precision, b boolean, s character varying, by bytea, " +
		"color character varying, ts timestamp with time zone, ri integer[], rs character varying[], inner jsonb, m jsonb, " +
		"rin jsonb, rb jsonb, oa character varying, ob integer, opt integer"
	for _, loc := range []string{writeSchema(t, set), srv.URL + "/schema.pb"} {
		o := Options{Topic: "t", Encode: EncodeProtobuf, Protobuf: ProtobufOptions{Message: "test.Ev", Location: loc}}
		src, err := ResolveProtobufSource(context.Background(), o, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range src.Columns {
			got = append(got, c.Name+" "+c.Type.String())
		}
		if strings.Join(got, ", ") != want {
			t.Fatalf("%s: columns\n%s\nwant\n%s", loc, strings.Join(got, ", "), want)
		}
		if src.Stored[optProtoDescriptors] == "" {
			t.Fatal("the schema was not stored")
		}
	}
}

// protoDecoder returns a decoder of test.Ev over the stored set.
func protoDecoder(t *testing.T, set []byte, keyCols []string) Decoder {
	t.Helper()
	o := Options{Topic: "t", Encode: EncodeProtobuf, Upsert: keyCols != nil,
		Protobuf: ProtobufOptions{Message: "test.Ev", KeyMessage: "test.Key", Descriptors: set, KeyColumns: keyCols}}
	s, err := parseProtobufSchema(set)
	if err != nil {
		t.Fatal(err)
	}
	md, _ := s.message("test.Ev")
	d, err := NewDecoder(o, ProtobufColumns(md))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func formatRow(t *testing.T, d Decoder, row []types.Datum) string {
	t.Helper()
	pd := d.(*protobufDecoder)
	out := make([]string, len(row))
	for i, v := range row {
		out[i] = "NULL"
		if v != nil {
			out[i] = types.Format(v, pd.cols[i].Type)
		}
	}
	return strings.Join(out, "|")
}

// TestProtobufDecode: a message of every field set decodes to its
// values; an empty one to proto3's defaults, NULL for messages and
// unset oneof members; bytes that are not the message are an error; an
// UPSERT key fills the key column.
func TestProtobufDecode(t *testing.T) {
	set, fd := compileProto(t, protoTestSchema)
	ev := fd.Messages().ByName("Ev")
	m := dynamicpb.NewMessage(ev)
	f := ev.Fields().ByName
	set1 := func(name string, v protoreflect.Value) { m.Set(f(protoreflect.Name(name)), v) }
	set1("id", protoreflect.ValueOfInt64(7))
	set1("i32", protoreflect.ValueOfInt32(-3))
	set1("s32", protoreflect.ValueOfInt32(-4))
	set1("sf32", protoreflect.ValueOfInt32(5))
	set1("s64", protoreflect.ValueOfInt64(-1<<40))
	set1("sf64", protoreflect.ValueOfInt64(1<<41))
	set1("u32", protoreflect.ValueOfUint32(4000000000))
	set1("f32", protoreflect.ValueOfUint32(9))
	set1("u64", protoreflect.ValueOfUint64(18446744073709551615))
	set1("f64", protoreflect.ValueOfUint64(12))
	set1("fl", protoreflect.ValueOfFloat32(1.5))
	set1("db", protoreflect.ValueOfFloat64(-2.25))
	set1("b", protoreflect.ValueOfBool(true))
	set1("s", protoreflect.ValueOfString("it's"))
	set1("by", protoreflect.ValueOfBytes([]byte{0, 0xff}))
	set1("color", protoreflect.ValueOfEnum(1))
	ts := dynamicpb.NewMessage(f("ts").Message())
	ts.Set(ts.Descriptor().Fields().ByName("seconds"), protoreflect.ValueOfInt64(1709294400))
	ts.Set(ts.Descriptor().Fields().ByName("nanos"), protoreflect.ValueOfInt32(123456000))
	set1("ts", protoreflect.ValueOfMessage(ts))
	ri := m.Mutable(f("ri")).List()
	ri.Append(protoreflect.ValueOfInt32(1))
	ri.Append(protoreflect.ValueOfInt32(2))
	m.Mutable(f("rs")).List().Append(protoreflect.ValueOfString("a b"))
	inner := dynamicpb.NewMessage(f("inner").Message())
	inner.Set(inner.Descriptor().Fields().ByName("x"), protoreflect.ValueOfInt32(3))
	set1("inner", protoreflect.ValueOfMessage(inner))
	m.Mutable(f("m")).Map().Set(protoreflect.ValueOfString("k").MapKey(), protoreflect.ValueOfInt64(5))
	m.Mutable(f("rin")).List().Append(protoreflect.ValueOfMessage(inner))
	m.Mutable(f("rb")).List().Append(protoreflect.ValueOfBytes([]byte("hi")))
	set1("ob", protoreflect.ValueOfInt32(0)) // set to its default: still the member held
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	d := protoDecoder(t, set, nil)
	row, err := d.Decode(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `7|-3|-4|5|-1099511627776|2199023255552|4000000000|9|18446744073709551615|12|1.5|-2.25|t|it's|\x00ff|GREEN|` +
		`2024-03-01 12:00:00.123456+00|{1,2}|{"a b"}|{"x": 3, "y": ""}|{"k": "5"}|[{"x": 3, "y": ""}]|["aGk="]|NULL|0|0`
	if got := formatRow(t, d, row); got != want {
		t.Fatalf("decoded\n%s\nwant\n%s", got, want)
	}
	row, err = d.Decode(nil, nil) // every field unset
	if err != nil {
		t.Fatal(err)
	}
	want = `0|0|0|0|0|0|0|0|0|0|0|0|f||\x|RED|NULL|{}|{}|NULL|{}|[]|[]|NULL|NULL|0`
	if got := formatRow(t, d, row); got != want {
		t.Fatalf("an empty message decoded\n%s\nwant\n%s", got, want)
	}
	if _, err := d.Decode([]byte{0xff, 0xff, 0xff}, nil); err == nil || !strings.Contains(err.Error(), "does not decode as Protobuf test.Ev") {
		t.Fatalf("bad bytes: %v", err)
	}

	kd := protoDecoder(t, set, []string{"id"})
	key := dynamicpb.NewMessage(fd.Messages().ByName("Key"))
	key.Set(key.Descriptor().Fields().ByName("id"), protoreflect.ValueOfInt64(42))
	kb, _ := proto.Marshal(key)
	tomb := make([]types.Datum, len(ProtobufColumns(ev)))
	if err := kd.(keyDecoder).DecodeKey(kb, tomb); err != nil || tomb[0] != int64(42) {
		t.Fatalf("the key: %v, %v", tomb[0], err)
	}
	if err := kd.(keyDecoder).DecodeKey([]byte{0xff}, tomb); err == nil {
		t.Fatal("a key that does not decode was accepted")
	}
}

// TestProtobufErrors: the SQLSTATEs of CREATE's errors.
func TestProtobufErrors(t *testing.T) {
	set, _ := compileProto(t, protoTestSchema)
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	good := writeSchema(t, set)
	for _, tc := range []struct {
		msg, loc, code, text string
		pk                   []string
	}{
		{"test.Nope", good, pgerr.UndefinedObject, "test.Ev, test.Inner, test.Key", nil},
		{"test.Ev", "file:///no/such/schema.pb", "58P01", "/no/such/schema.pb", nil},
		{"test.Ev", srv.URL + "/x.pb", "58P01", "404", nil},
		{"test.Ev", writeSchema(t, []byte("syntax = \"proto3\";")), pgerr.InvalidTextRep, "FileDescriptorSet", nil},
		{"test.Ev", "ftp://h/x.pb", pgerr.InvalidParameterValue, "schema.location", nil},
		{"test.Ev", good, pgerr.UndefinedColumn, "no field \"s\"", []string{"s"}},
	} {
		o := Options{Topic: "t", Encode: EncodeProtobuf, Protobuf: ProtobufOptions{Message: tc.msg, Location: tc.loc, KeyMessage: "test.Key"}}
		_, err := ResolveProtobufSource(context.Background(), o, tc.pk)
		var pe *pgerr.Error
		if !errors.As(err, &pe) || pe.Code != tc.code || !strings.Contains(pe.Message+" "+pe.Hint, tc.text) {
			t.Errorf("%s at %s: %v, want %s with %q", tc.msg, tc.loc, err, tc.code, tc.text)
		}
	}
	for opts, code := range map[string]string{
		"encode.message=test.Ev":         pgerr.InvalidParameterValue, // no schema.location
		"encode.schema.location=" + good: pgerr.InvalidParameterValue, // no message
		"encode.message=m,encode.schema.registry=http://h,encode.schema.location=" + good: pgerr.InvalidParameterValue, // both
	} {
		conn := map[string]string{"connector": "kafka", OptTopic: "t", OptBootstrap: "h:1", OptEncode: "protobuf"}
		for _, kv := range strings.Split(opts, ",") {
			k, v, _ := strings.Cut(kv, "=")
			conn[k] = v
		}
		_, err := ParseOptions(conn)
		var pe *pgerr.Error
		if !errors.As(err, &pe) || pe.Code != code {
			t.Errorf("%s: %v, want %s", opts, err, code)
		}
	}
}

// BenchmarkProtobufDecode: one message of scalars, an enum, a repeated
// field and a Timestamp, without and with a jsonb column.
func BenchmarkProtobufDecode(b *testing.B) {
	const schema = `syntax = "proto3"; package test; import "google/protobuf/timestamp.proto";
message Inner { int32 x = 1; }
message Ev { int64 id = 1; string s = 2; double d = 3; repeated int32 ri = 4; google.protobuf.Timestamp ts = 5; Inner in = 6; }
message Key { int64 id = 1; }`
	set, fd := compileProto(b, schema)
	ev := fd.Messages().ByName("Ev")
	m := dynamicpb.NewMessage(ev)
	m.Set(ev.Fields().ByName("id"), protoreflect.ValueOfInt64(12345))
	m.Set(ev.Fields().ByName("s"), protoreflect.ValueOfString("a string of some length"))
	m.Set(ev.Fields().ByName("d"), protoreflect.ValueOfFloat64(3.25))
	m.Mutable(ev.Fields().ByName("ri")).List().Append(protoreflect.ValueOfInt32(7))
	in := dynamicpb.NewMessage(ev.Fields().ByName("in").Message())
	in.Set(in.Descriptor().Fields().ByName("x"), protoreflect.ValueOfInt32(3))
	m.Set(ev.Fields().ByName("in"), protoreflect.ValueOfMessage(in))
	msg, _ := proto.Marshal(m)
	cols := ProtobufColumns(ev)
	for _, n := range []int{5, 6} {
		b.Run(fmt.Sprintf("cols=%d", n), func(b *testing.B) {
			o := Options{Encode: EncodeProtobuf, Protobuf: ProtobufOptions{Message: "test.Ev", Descriptors: set}}
			d, err := NewDecoder(o, cols[:n])
			if err != nil {
				b.Fatal(err)
			}
			var row []types.Datum
			b.SetBytes(int64(len(msg)))
			for b.Loop() {
				if row, err = d.Decode(msg, row); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
