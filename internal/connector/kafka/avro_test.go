package kafka

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hamba/avro/v2"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// TestAvroColumnTypes: the type mapping, and unions other than
// ["null", T] refused with 42804 naming the field.
func TestAvroColumnTypes(t *testing.T) {
	s, err := parseAvroSchema(`{"type": "record", "name": "r", "fields": [
		{"name": "a", "type": ["null", "int"]}, {"name": "b", "type": ["string", "null"]},
		{"name": "c", "type": {"type": "fixed", "name": "f", "size": 2}},
		{"name": "d", "type": {"type": "fixed", "name": "du", "size": 12, "logicalType": "duration"}},
		{"name": "e", "type": {"type": "long", "logicalType": "local-timestamp-millis"}},
		{"name": "g", "type": {"type": "array", "items": {"type": "record", "name": "x", "fields": []}}},
		{"name": "h", "type": {"type": "array", "items": ["null", "double"]}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	cols, err := AvroColumns(s)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cols {
		got = append(got, c.Name+" "+c.Type.String())
	}
	want := "a integer, b character varying, c bytea, d interval, e timestamp without time zone, g jsonb, h double precision[]"
	if strings.Join(got, ", ") != want {
		t.Fatalf("columns %s\nwant %s", strings.Join(got, ", "), want)
	}
	for field, code := range map[string]string{
		`["null", "int", "string"]`:                     pgerr.DatatypeMismatch,
		`["int", "string"]`:                             pgerr.DatatypeMismatch,
		`{"type": "int", "logicalType": "time-millis"}`: pgerr.FeatureNotSupported,
	} {
		s := avro.MustParse(`{"type": "record", "name": "r", "fields": [{"name": "bad", "type": ` + field + `}]}`)
		_, err := AvroColumns(s)
		var pe *pgerr.Error
		if !errors.As(err, &pe) || pe.Code != code || !strings.Contains(pe.Message, `"bad"`) {
			t.Errorf("%s: %v, want %s naming the field", field, err, code)
		}
	}
}

// TestAvroSinkEncodeDecode: a sink's records decode back, through a
// source's decoder over the schema the sink would register, into the
// same datums; a tombstone keeps its key.
func TestAvroSinkEncodeDecode(t *testing.T) {
	cols := []SinkColumn{{"id", types.TInt64, 0}, {"n", types.Type{ID: types.IDNumeric, Precision: 8, Scale: 2}, 1},
		{"d", types.TDate, 2}, {"ts", types.TTimestamp, 3}, {"arr", types.ArrayOf(types.IDInt32), 4}, {"s", types.TText, 5}}
	value, err := sinkAvroSchema("my sink", cols)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := sinkAvroSchema("my sink_key", cols[:1])
	n, _ := types.ParseNumeric("12.30", types.TNumeric)
	row := []types.Datum{int64(7), n, types.Date(19000), types.Timestamp(1700000000123456), "{1,NULL,3}", nil}
	o := SinkOptions{Format: SinkUpsert, Encode: EncodeAvro, Avro: AvroOptions{Value: RegistrySchema{ID: 3, Schema: value}, Key: RegistrySchema{ID: 4, Schema: key}}}
	enc := NewSinkEncoder(o, cols, cols[:1])
	msgs := enc.Encode(nil, 2, func(i int) (chunk.Op, []types.Datum) { return []chunk.Op{chunk.Insert, chunk.Delete}[i], row }, 0)
	if enc.Err() != nil || len(msgs) != 2 || msgs[1].Value != nil {
		t.Fatalf("messages %v, %v", msgs, enc.Err())
	}
	vcols, err := AvroColumns(avro.MustParse(value))
	if err != nil {
		t.Fatal(err)
	}
	so := Options{Topic: "t", Encode: EncodeAvro, Upsert: true, Avro: AvroOptions{Value: o.Avro.Value, Key: o.Avro.Key, KeyColumns: []string{"id"}}}
	dec, err := NewDecoder(so, vcols)
	if err != nil {
		t.Fatal(err)
	}
	got, err := dec.Decode(msgs[0].Value, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range vcols {
		if g, w := types.Format(got[i], c.Type), types.Format(row[i], cols[i].Type); got[i] != nil && g != w || (got[i] == nil) != (row[i] == nil) {
			t.Errorf("column %s: %q, want %q", c.Name, g, w)
		}
	}
	tomb := make([]types.Datum, len(vcols))
	if err := dec.(keyDecoder).DecodeKey(msgs[1].Key, tomb); err != nil || tomb[0] != int64(7) {
		t.Fatalf("the tombstone's key: %v, %v", tomb, err)
	}
	if _, err := dec.Decode([]byte{0, 0, 0, 0, 9, 1}, nil); err == nil || !strings.Contains(err.Error(), "schema registry") {
		t.Errorf("a new schema id without a registry: %v", err)
	}
	if _, err := sinkAvroSchema("s", []SinkColumn{{"a-b", types.TInt64, 0}}); err == nil {
		t.Error("a column name that is no Avro name was accepted")
	}
}

// TestRegistryErrors: the SQLSTATEs of a registry's answers at CREATE.
func TestRegistryErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "secret") {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error_code": 40401, "message": "Subject not found."}`))
	}))
	defer srv.Close()
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	o := Options{Topic: "t", Avro: AvroOptions{Registry: []string{srv.URL}}}
	for _, tc := range []struct {
		topic, url, code string
	}{{"t", srv.URL, pgerr.UndefinedObject}, {"secret", srv.URL, "28000"}, {"t", down.URL, "08001"}} {
		o.Topic, o.Avro.Registry = tc.topic, []string{tc.url}
		_, err := ResolveAvroSource(context.Background(), o, nil)
		var pe *pgerr.Error
		if !errors.As(err, &pe) || pe.Code != tc.code {
			t.Errorf("%s at %s: %v, want %s", tc.topic, tc.url, err, tc.code)
		}
	}
}
