package kafka

import (
	"fmt"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/types"
)

func TestParseOptions(t *testing.T) {
	base := map[string]string{"connector": "kafka", "topic": "t", OptBootstrap: "a:1, b:2"}
	o, err := ParseOptions(base)
	if err != nil || o.Topic != "t" || len(o.Brokers) != 2 || o.Startup != StartEarliest || o.Encode != "json" {
		t.Fatalf("ParseOptions = %+v, %v", o, err)
	}
	for _, tc := range []struct{ k, v, want string }{
		{OptStartupMode, "sideways", "scan.startup.mode"},
		{OptFormat, "canal", "FORMAT CANAL"},
		{OptEncode, "bytes", "ENCODE BYTES"},
		{"properties.sasl", "x", "unrecognized"},
		{OptEncodePrefix + "delimiter", ";;", "delimiter"},
	} {
		opts := map[string]string{tc.k: tc.v}
		for k, v := range base {
			opts[k] = v
		}
		if _, err := ParseOptions(opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s = %q: %v, want an error about %s", tc.k, tc.v, err, tc.want)
		}
	}
	opts := map[string]string{OptStartupMillis: "1700000000000"}
	for k, v := range base {
		opts[k] = v
	}
	if o, err := ParseOptions(opts); err != nil || o.Startup != StartTimestamp || o.StartMillis != 1700000000000 {
		t.Errorf("a timestamp alone: %+v, %v", o, err)
	}
	offs := map[int32]int64{0: 5, 3: 0, 1: 17}
	if got, err := ParseStartOffsets(FormatStartOffsets(offs)); err != nil || fmt.Sprint(got) != fmt.Sprint(offs) {
		t.Errorf("start offsets round trip: %v, %v", got, err)
	}
}

var testCols = []connector.Column{
	{Name: "id", Type: types.TInt64}, {Name: "Name", Type: types.TText}, {Name: "ok", Type: types.TBool},
	{Name: "x", Type: types.TFloat64}, {Name: "doc", Type: types.TJSONB}, {Name: "d", Type: types.TDate},
}

func TestJSONDecode(t *testing.T) {
	dec, err := NewDecoder(Options{Encode: "json"}, testCols)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"id": 1, "name": "a", "ok": true, "x": 1.5, "doc": {"b": [1]}, "d": "2024-02-29"}`, "1|a|true|1.5|{\"b\": [1]}|19782"},
		{`{"ID": "7", "NAME": 3, "other": 1}`, "7|3|<nil>|<nil>|<nil>|<nil>"},
		{`{"id": null, "x": 2}`, "<nil>|<nil>|<nil>|2|<nil>|<nil>"},
		{`{"name": {"a": 1}}`, "<nil>|{\"a\": 1}|<nil>|<nil>|<nil>|<nil>"},
		{`{"id": true}`, `error: field "id": cannot cast jsonb boolean to type bigint`},
		{`{"id": 1.5e300}`, "error: "},
		{`{"ok": "maybe"}`, "error: "},
		{`{"d": 3}`, "error: "},
		{`[1]`, "error: a message is a JSON array, not an object"},
		{`{`, "error: "},
	} {
		row, err := dec.Decode([]byte(tc.in), nil)
		got := renderRow(row, err)
		if !strings.HasPrefix(got, tc.want) || (err == nil) != !strings.HasPrefix(tc.want, "error") {
			t.Errorf("%s: %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestCSVDecode(t *testing.T) {
	dec, err := NewDecoder(Options{Encode: "csv", Delimiter: ';'}, testCols)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dec.Decode([]byte("ID;name;ok;x;doc;d"), nil); err != ErrHeader {
		t.Errorf("a header: %v", err)
	}
	row, err := dec.Decode([]byte(`3;"a;b";t;0.5;[1];2024-01-01`), nil)
	if got := renderRow(row, err); got != "3|a;b|true|0.5|[1]|19723" {
		t.Errorf("a record: %s", got)
	}
	if _, err := dec.Decode([]byte("1;2"), nil); err == nil {
		t.Errorf("a short record decoded")
	}
}

func renderRow(row []types.Datum, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	parts := make([]string, len(row))
	for i, d := range row {
		parts[i] = fmt.Sprint(d)
	}
	return strings.Join(parts, "|")
}
