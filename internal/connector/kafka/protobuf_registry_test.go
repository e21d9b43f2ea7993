package kafka

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// fakePBRegistry serves PROTOBUF schemas: by id, subjects' versions
// (latest and by number), with references.
type fakePBRegistry struct {
	byID     map[int]RegistrySchemaInfo
	subjects map[string][]int
}

func (f *fakePBRegistry) serve(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	id := 0
	switch {
	case len(parts) == 4 && parts[0] == "subjects":
		ids := f.subjects[parts[1]]
		if v, err := strconv.Atoi(parts[3]); err == nil && v >= 1 && v <= len(ids) {
			id = ids[v-1]
		} else if parts[3] == "latest" && len(ids) > 0 {
			id = ids[len(ids)-1]
		}
	case len(parts) == 3 && parts[0] == "schemas":
		id, _ = strconv.Atoi(parts[2])
	}
	s, ok := f.byID[id]
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		_ = json.NewEncoder(w).Encode(map[string]any{"error_code": 40401, "message": "not found"})
		return
	}
	s.ID = id
	_ = json.NewEncoder(w).Encode(s)
}

// pbFrame is payload in Confluent's Protobuf framing.
func pbFrame(id int, idx []int, payload []byte) []byte {
	b := binary.BigEndian.AppendUint32([]byte{0}, uint32(id))
	if len(idx) == 1 && idx[0] == 0 {
		b = append(b, 0)
	} else {
		b = binary.AppendVarint(b, int64(len(idx)))
		for _, i := range idx {
			b = binary.AppendVarint(b, int64(i))
		}
	}
	return append(b, payload...)
}

// TestProtobufRegistry: CREATE resolves a registry schema with a
// reference into columns; messages framed with index arrays [0], [1]
// and [1,0] (a nested message) decode, one of a second schema version
// (an added field) maps by name, and bad framing or an unknown id is an
// error of that message.
func TestProtobufRegistry(t *testing.T) {
	common := `syntax = "proto3"; package common; message Money { int64 units = 1; string cur = 2; }`
	v1 := `syntax = "proto3"; package shop; import "common.proto";
message Order { int64 id = 1; string name = 2; common.Money price = 3; }
message Other { int64 id = 1; message Inner { int64 id = 1; string name = 2; } }`
	v2 := `syntax = "proto3"; package shop; import "common.proto";
message Order { int64 id = 1; string name = 2; common.Money price = 3; int32 extra = 4; }`
	ref := []RegistryReference{{Name: "common.proto", Subject: "common", Version: 1}}
	f := &fakePBRegistry{byID: map[int]RegistrySchemaInfo{
		1: {SchemaType: "PROTOBUF", Schema: common},
		2: {SchemaType: "PROTOBUF", Schema: v1, References: ref},
		3: {SchemaType: "PROTOBUF", Schema: v2, References: ref},
	}, subjects: map[string][]int{"common": {1}, "t-value": {2}}}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	defer srv.Close()
	o := Options{Topic: "t", Encode: EncodeProtobuf, Protobuf: ProtobufOptions{Message: "shop.Order"}, Avro: AvroOptions{Registry: []string{srv.URL}}}
	src, err := ResolveProtobufSource(context.Background(), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range src.Columns {
		got = append(got, strings.ToLower(c.Type.String())+":"+c.Name)
	}
	if g := strings.Join(got, ","); g != "bigint:id,character varying:name,jsonb:price" {
		t.Fatalf("columns %s", g)
	}
	f.subjects["t-value"] = append(f.subjects["t-value"], 3) // a second version, after CREATE

	conn := map[string]string{"connector": "kafka", OptTopic: "t", OptBootstrap: "h:1", OptEncode: "protobuf",
		OptProtoMessage: "shop.Order", OptSchemaRegistry: srv.URL}
	for k, v := range src.Stored {
		conn[k] = v
	}
	po, err := ParseOptions(conn)
	if err != nil {
		t.Fatal(err)
	}

	dec, err := newProtobufDecoder(po, src.Columns)
	if err != nil {
		t.Fatal(err)
	}
	// Payloads written by hand: field 1 varint, field 2 string, field 3
	// message {units 7, cur "EUR"}, field 4 varint.
	order := []byte{0x08, 0x05, 0x12, 0x02, 'a', 'b', 0x1a, 0x07, 0x08, 0x07, 0x12, 0x03, 'E', 'U', 'R'}
	for _, tc := range []struct {
		msg  []byte
		want string
	}{
		{pbFrame(2, []int{0}, order), `[5 ab {"cur": "EUR", "units": "7"}]`},
		{pbFrame(2, []int{1}, []byte{0x08, 0x09}), `[9 <nil> <nil>]`},
		{pbFrame(2, []int{1, 0}, []byte{0x08, 0x0a, 0x12, 0x01, 'n'}), `[10 n <nil>]`},
		{pbFrame(3, []int{0}, append(append([]byte{}, order...), 0x20, 0x2a)), `[5 ab {"cur": "EUR", "units": "7"}]`},
	} {
		row, err := dec.Decode(tc.msg, nil)
		if err != nil {
			t.Fatalf("%x: %v", tc.msg, err)
		}
		if g := fmt.Sprint(row); g != tc.want {
			t.Errorf("%x: %s, want %s", tc.msg, g, tc.want)
		}
	}
	for _, bad := range [][]byte{
		{1, 0, 0, 0, 2, 0},                  // magic byte
		{0, 0, 0},                           // short
		pbFrame(2, []int{5}, order),         // no message 5
		pbFrame(99, []int{0}, order),        // unknown id
		pbFrame(2, []int{0}, []byte{0xff}),  // payload
		append([]byte{0, 0, 0, 0, 2}, 0x7f), // index count past the end
	} {
		if _, err := dec.Decode(bad, nil); err == nil {
			t.Errorf("%x decoded", bad)
		}
	}

	for _, tc := range []struct {
		o    Options
		code string
	}{
		{Options{Topic: "none", Protobuf: ProtobufOptions{Message: "shop.Order"}, Avro: AvroOptions{Registry: []string{srv.URL}}}, pgerr.UndefinedObject},
		{Options{Topic: "t", Protobuf: ProtobufOptions{Message: "shop.Nope"}, Avro: AvroOptions{Registry: []string{srv.URL}}}, pgerr.UndefinedObject},
		{Options{Topic: "t", Protobuf: ProtobufOptions{Message: "shop.Order"}, Avro: AvroOptions{Registry: []string{"http://127.0.0.1:1"}}}, sqlstateConnection},
	} {
		_, err := ResolveProtobufSource(context.Background(), tc.o, nil)
		var pe *pgerr.Error
		if !errors.As(err, &pe) || pe.Code != tc.code {
			t.Errorf("%+v: %v, want %s", tc.o, err, tc.code)
		}
	}
}
