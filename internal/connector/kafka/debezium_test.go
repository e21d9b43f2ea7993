package kafka

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/types"
)

var dbzCols = []connector.Column{
	{Name: "id", Type: types.TInt32}, {Name: "name", Type: types.TText}, {Name: "ts", Type: types.TTimestamp},
	{Name: "tz", Type: types.TTimestampTZ}, {Name: "d", Type: types.TDate}, {Name: "amount", Type: types.Type{ID: types.IDNumeric, Precision: 10, Scale: 2}},
	{Name: "raw", Type: types.TBytea}, {Name: "doc", Type: types.TJSONB}, {Name: "ok", Type: types.TBool}, {Name: "iv", Type: types.TInterval},
}

func dbzReader(t *testing.T, include ...Include) *Reader {
	t.Helper()
	cols := dbzCols
	for range include {
		cols = append(cols[:len(cols):len(cols)], connector.Column{Name: "inc", Type: types.TVarchar})
	}
	r, err := NewReader(Options{Encode: "json", Debezium: true, Include: include}, cols)
	if err != nil {
		t.Fatal(err)
	}
	r.SetKey([]int{0})
	return r
}

// formatRecord renders a split record: its op, Before and Row.
func formatRecord(rec connector.SplitRecord, cols []connector.Column) string {
	row := func(r []types.Datum) string {
		var parts []string
		for i, d := range r {
			t := types.TVarchar
			if i < len(cols) {
				t = cols[i].Type
			}
			if d == nil {
				parts = append(parts, "NULL")
			} else {
				parts = append(parts, types.Format(d, t))
			}
		}
		return strings.Join(parts, "|")
	}
	switch {
	case rec.Err != nil:
		return "error: " + rec.Err.Error()
	case rec.Row == nil:
		return "skip"
	case rec.Delete:
		return "delete " + row(rec.Row)
	case rec.Before != nil:
		return "delete " + row(rec.Before) + " then upsert " + row(rec.Row)
	}
	return "upsert " + row(rec.Row)
}

// TestDebeziumEvents: each kind of change event, with and without the
// schema wrapper, becomes the right record.
func TestDebeziumEvents(t *testing.T) {
	r := dbzReader(t)
	const nulls = "NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL"
	for _, tc := range []struct{ in, want string }{
		{`{"before": null, "after": {"id": 1, "name": "a"}, "op": "c", "ts_ms": 1}`, "upsert 1|a|" + nulls},
		{`{"schema": {"type": "struct"}, "payload": {"before": null, "after": {"id": 1, "name": "a"}, "op": "r"}}`, "upsert 1|a|" + nulls},
		{`{"before": {"id": 1, "name": "a"}, "after": {"id": 1, "name": "b"}, "op": "u"}`, "upsert 1|b|" + nulls},
		{`{"before": null, "after": {"id": 1, "name": "b"}, "op": "u"}`, "upsert 1|b|" + nulls},
		{`{"before": {"id": 1, "name": "b"}, "after": {"ID": 2, "Name": "b"}, "op": "u"}`, "delete 1|b|" + nulls + " then upsert 2|b|" + nulls},
		{`{"before": {"id": 2}, "after": null, "op": "d"}`, "delete 2|NULL|" + nulls},
		{`{"schema": null, "payload": null}`, "skip"},
		{`{"before": null, "after": {"id": 1}, "op": "t"}`, `error: a Debezium "t" event is not supported (only c, r, u and d)`},
		{`{"before": null, "after": null, "op": "d"}`, `error: a Debezium "d" event without "before"`},
		{`{"before": null, "after": {"name": "x"}, "op": "c"}`, `error: a Debezium "c" event without its key column 1`},
		{`{"after": {"id": 1}}`, `error: a Debezium message without "op"`},
		{`{"after": {"id": "x"}, "op": "c"}`, `error: after.id: invalid input syntax for type integer: "x"`},
		{`[1]`, "error: a Debezium message is a JSON array, not an object"},
		{`{"payload": 3}`, "error: a Debezium payload is a JSON number, not an object"},
	} {
		got := formatRecord(r.record(&kgo.Record{Value: []byte(tc.in)}), dbzCols)
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
	if got := formatRecord(r.record(&kgo.Record{Key: []byte(`{"id":2}`)}), dbzCols); got != "skip" {
		t.Errorf("a tombstone: %s", got)
	}
	// Without the key known, an update deletes its before image's key first.
	r.SetKey(nil)
	in := `{"before": {"id": 1, "name": "a"}, "after": {"id": 1, "name": "b"}, "op": "u"}`
	if got := formatRecord(r.record(&kgo.Record{Value: []byte(in)}), dbzCols); !strings.HasPrefix(got, "delete 1|a|") {
		t.Errorf("without a key: %s", got)
	}
}

// TestDebeziumTypes: Debezium's encodings of temporal, decimal, binary,
// JSON and boolean values, by the schema's semantic types and without
// them.
func TestDebeziumTypes(t *testing.T) {
	r := dbzReader(t)
	b64 := func(b ...byte) string { return base64.StdEncoding.EncodeToString(b) }
	schema := `{"type": "struct", "fields": [{"field": "before", "type": "struct", "fields": []},
		{"field": "after", "type": "struct", "fields": [
			{"field": "id", "type": "int32"},
			{"field": "ts", "type": "int64", "name": "io.debezium.time.MicroTimestamp"},
			{"field": "tz", "type": "string", "name": "io.debezium.time.ZonedTimestamp"},
			{"field": "d", "type": "int32", "name": "io.debezium.time.Date"},
			{"field": "amount", "type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "parameters": {"scale": "2"}},
			{"field": "doc", "type": "string", "name": "io.debezium.data.Json"},
			{"field": "iv", "type": "int64", "name": "io.debezium.time.MicroDuration"}]}]}`
	withSchema := func(after string) string {
		return `{"schema": ` + schema + `, "payload": {"before": null, "after": ` + after + `, "op": "c"}}`
	}
	for _, tc := range []struct{ in, want string }{
		// Guessed units: seconds, milliseconds, microseconds, nanoseconds.
		{`{"op": "c", "after": {"id": 1, "ts": 1700000000, "tz": 1700000000123}}`,
			"1|NULL|2023-11-14 22:13:20|2023-11-14 22:13:20.123+00|NULL|NULL|NULL|NULL|NULL|NULL"},
		{`{"op": "c", "after": {"id": 1, "ts": 1700000000123456, "tz": 1700000000123456789}}`,
			"1|NULL|2023-11-14 22:13:20.123456|2023-11-14 22:13:20.123456+00|NULL|NULL|NULL|NULL|NULL|NULL"},
		{`{"op": "c", "after": {"id": 1, "ts": "2024-04-11 02:00:00.5", "tz": "2024-04-11T02:00:00.654321Z", "d": 19782}}`,
			"1|NULL|2024-04-11 02:00:00.5|2024-04-11 02:00:00.654321+00|2024-02-29|NULL|NULL|NULL|NULL|NULL"},
		{`{"op": "c", "after": {"id": 1, "amount": "12.345", "raw": "` + b64(0, 0xff) + `", "doc": "{\"a\": [1]}", "ok": 1, "iv": 90000000}}`,
			`1|NULL|NULL|NULL|NULL|12.35|\x00ff|{"a": [1]}|t|00:01:30`},
		{`{"op": "c", "after": {"id": 1, "doc": "plain text", "ok": 0}}`,
			`1|NULL|NULL|NULL|NULL|NULL|NULL|"plain text"|f|NULL`},
		{`{"op": "c", "after": {"id": 1, "doc": {"nested": true}, "amount": {"scale": 1, "value": "` + b64(0xff, 0x85) + `"}}}`,
			`1|NULL|NULL|NULL|NULL|-12.30|NULL|{"nested": true}|NULL|NULL`},
		// The schema names the units.
		{withSchema(`{"id": 2, "ts": 1700000000, "d": -1, "amount": "` + b64(0x30, 0x39) + `", "doc": "[1, 2]", "iv": 1000000}`),
			`2|NULL|1970-01-01 00:28:20|NULL|1969-12-31|123.45|NULL|[1, 2]|NULL|00:00:01`},
		{`{"op": "c", "after": {"id": 1, "ok": 2}}`, `error: after.ok: cannot convert the number 2 to boolean`},
		{`{"op": "c", "after": {"id": 1, "raw": "%%"}}`, `error: after.raw: bytea is base64 in a Debezium message: illegal base64 data at input byte 0`},
		{`{"op": "c", "after": {"id": 1, "d": 99999999999}}`, `error: after.d: 99999999999 days is out of range for type date`},
	} {
		got := formatRecord(r.record(&kgo.Record{Value: []byte(tc.in)}), dbzCols)
		if got != "upsert "+tc.want && got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

// TestDebeziumIncludes: the INCLUDE columns follow the payload's, in the
// row and in a key change's Before.
func TestDebeziumIncludes(t *testing.T) {
	r := dbzReader(t, Include{Kind: IncludePartition})
	rec := r.record(&kgo.Record{Partition: 3, Value: []byte(`{"op": "u", "before": {"id": 1}, "after": {"id": 2}}`)})
	if len(rec.Row) != len(dbzCols)+1 || rec.Row[len(dbzCols)] != "3" || len(rec.Before) != len(dbzCols)+1 || rec.Before[len(dbzCols)] != "3" {
		t.Fatalf("record %+v", rec)
	}
}

// TestDebeziumSinkRoundTrip: what the DEBEZIUM sink encoder writes, the
// source reads back as the same changes.
func TestDebeziumSinkRoundTrip(t *testing.T) {
	var sc []SinkColumn
	for i, c := range dbzCols {
		sc = append(sc, SinkColumn{Name: c.Name, Type: c.Type, Index: i})
	}
	enc := NewSinkEncoder(SinkOptions{Format: SinkDebezium, Topic: "t"}, sc, sc[:1])
	amount, _ := types.ParseNumeric("-7.50", dbzCols[5].Type)
	row1 := []types.Datum{int64(1), "a\"b", types.Timestamp(1_700_000_000_123_456), types.Timestamp(-5), types.Date(19782), amount,
		"\x00\x01bin", `{"k": [1, "x"]}`, true, types.Interval{Months: 1, Days: 2, Micros: 3}}
	row2 := append([]types.Datum{int64(2)}, row1[1:]...)
	row3 := append([]types.Datum{int64(2), nil}, row1[2:]...)
	changes := []struct {
		op  chunk.Op
		row []types.Datum
	}{{chunk.Insert, row1}, {chunk.UpdateDelete, row1}, {chunk.UpdateInsert, row2}, {chunk.UpdateDelete, row2}, {chunk.UpdateInsert, row3}, {chunk.Delete, row3}}
	msgs := enc.Encode(nil, len(changes), func(i int) (chunk.Op, []types.Datum) { return changes[i].op, changes[i].row }, 42)
	r := dbzReader(t)
	var got []string
	for _, m := range msgs {
		got = append(got, formatRecord(r.record(&kgo.Record{Key: m.Key, Value: m.Value}), dbzCols))
	}
	f := func(row []types.Datum) string {
		return strings.TrimPrefix(formatRecord(connector.SplitRecord{Row: row}, dbzCols), "upsert ")
	}
	want := []string{"upsert " + f(row1), "delete " + f(row1), "skip", "upsert " + f(row2), "upsert " + f(row3), "delete " + f(row3), "skip"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("read back:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
