package kafka

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/types"
)

func TestIncludeColumn(t *testing.T) {
	for _, tc := range []struct {
		kind, header, typ string
		name              string
		want              types.Type
	}{
		{"key", "", "", "_kafka_key", types.TBytea},
		{"PARTITION", "", "", "_kafka_partition", types.TVarchar},
		{"offset", "", "", "_kafka_offset", types.TVarchar},
		{"timestamp", "", "", "_kafka_timestamp", types.TTimestampTZ},
		{"header", "", "", "_kafka_header", types.TJSONB},
		{"header", "trace", "", "_kafka_header_trace", types.TBytea},
		{"header", "trace", "varchar", "_kafka_header_trace", types.TVarchar},
	} {
		_, name, typ, err := IncludeColumn(tc.kind, tc.header, tc.typ)
		if err != nil || name != tc.name || typ != tc.want {
			t.Errorf("INCLUDE %s %q %s = %s %s, %v", tc.kind, tc.header, tc.typ, name, typ, err)
		}
	}
	for _, tc := range [][3]string{{"payload", "", ""}, {"key", "", "varchar"}, {"header", "x", "int"}} {
		if _, _, _, err := IncludeColumn(tc[0], tc[1], tc[2]); err == nil {
			t.Errorf("INCLUDE %v: no error", tc)
		}
	}
	in := []Include{{Kind: "key"}, {Kind: "header", Header: "a,b\"c", Text: true}}
	back, err := ParseIncludes(FormatIncludes(in))
	if err != nil || len(back) != 2 || back[1] != in[1] {
		t.Fatalf("ParseIncludes(FormatIncludes(%v)) = %v, %v", in, back, err)
	}
}

func TestRecordIncludes(t *testing.T) {
	o := Options{Encode: "json", Include: []Include{{Kind: "key"}, {Kind: "partition"}, {Kind: "offset"},
		{Kind: "timestamp"}, {Kind: "header"}, {Kind: "header", Header: "h"}, {Kind: "header", Header: "h", Text: true}}}
	cols := []connector.Column{{Name: "id", Type: types.TInt64}, {Name: "k", Type: types.TBytea}, {Name: "p", Type: types.TVarchar},
		{Name: "o", Type: types.TVarchar}, {Name: "ts", Type: types.TTimestampTZ}, {Name: "hs", Type: types.TJSONB},
		{Name: "h1", Type: types.TBytea}, {Name: "h2", Type: types.TVarchar}}
	r, err := NewReader(o, cols)
	if err != nil {
		t.Fatal(err)
	}
	at := time.UnixMilli(1700000000123)
	rec := &kgo.Record{Key: []byte("k1"), Value: []byte(`{"id": 7}`), Partition: 3, Offset: 42, Timestamp: at,
		Headers: []kgo.RecordHeader{{Key: "h", Value: []byte("one")}, {Key: "bin", Value: []byte{0, 0xff}}, {Key: "nul", Value: []byte{0, 'a'}},
			{Key: "h", Value: []byte("two")}, {Key: "none"}}}
	got := r.record(rec)
	want := []types.Datum{int64(7), "k1", "3", "42", types.Timestamp(at.UnixMicro()),
		`[{"key": "h", "value": "one"}, {"key": "bin", "value": "\\x00ff"}, {"key": "nul", "value": "\\x0061"}, {"key": "h", "value": "two"}, {"key": "none", "value": null}]`, "two", "two"}
	if got.Err != nil || got.Delete || len(got.Row) != len(want) {
		t.Fatalf("record = %+v", got)
	}
	for i := range want {
		if got.Row[i] != want[i] {
			t.Errorf("column %s = %#v, want %#v", cols[i].Name, got.Row[i], want[i])
		}
	}
	rec.Headers, rec.Key = nil, nil
	got = r.record(rec)
	if got.Row[1] != nil || got.Row[5] != "[]" || got.Row[6] != nil {
		t.Errorf("no key, no headers: %#v", got.Row)
	}
}

func TestRecordUpsert(t *testing.T) {
	o := Options{Encode: "json", Upsert: true, Include: []Include{{Kind: "key"}}}
	cols := []connector.Column{{Name: "id", Type: types.TInt64}, {Name: "v", Type: types.TText}, {Name: "k", Type: types.TBytea}}
	r, err := NewReader(o, cols)
	if err != nil {
		t.Fatal(err)
	}
	up := r.record(&kgo.Record{Key: []byte("a"), Value: []byte(`{"id": 1, "v": "x"}`)})
	if up.Delete || up.Err != nil || len(up.Row) != 3 || up.Row[0] != int64(1) || up.Row[2] != "a" {
		t.Errorf("upsert = %+v", up)
	}
	del := r.record(&kgo.Record{Key: []byte("a")})
	if !del.Delete || del.Err != nil || len(del.Row) != 3 || del.Row[0] != nil || del.Row[2] != "a" {
		t.Errorf("tombstone = %+v", del)
	}
	noKey := r.record(&kgo.Record{Value: []byte(`{"id": 1}`)})
	if !errors.Is(noKey.Err, ErrNoKey) || noKey.Row != nil {
		t.Errorf("no key = %+v", noKey)
	}
	bad := r.record(&kgo.Record{Key: []byte("b"), Value: []byte(`{"id": "x"}`)})
	if bad.Err == nil || bad.Row != nil || bad.Delete {
		t.Errorf("bad value = %+v", bad)
	}
	// An empty value is not a tombstone: it is not JSON.
	if empty := r.record(&kgo.Record{Key: []byte("b"), Value: []byte{}}); empty.Err == nil || empty.Delete {
		t.Errorf("empty value = %+v", empty)
	}
	if _, err := ParseOptions(map[string]string{"connector": "kafka", "topic": "t", OptBootstrap: "a:1",
		OptFormat: "upsert", OptEncode: "csv"}); err == nil || !strings.Contains(err.Error(), "UPSERT ENCODE CSV") {
		t.Errorf("UPSERT CSV: %v", err)
	}
}

func TestRecordPlainTombstone(t *testing.T) {
	r, err := NewReader(Options{Encode: "json"}, []connector.Column{{Name: "id", Type: types.TInt64}})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.record(&kgo.Record{Key: []byte("a")}); got.Row != nil || got.Err != nil || got.Delete {
		t.Errorf("a plain tombstone = %+v, want skipped silently", got)
	}
}
