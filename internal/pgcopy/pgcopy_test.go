package pgcopy

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

var allTypes = []types.Type{
	types.TBool, types.TInt16, types.TInt32, types.TInt64, types.TFloat32, types.TFloat64,
	types.TNumeric, types.TText, {ID: types.IDVarchar, Width: 20}, types.TDate, types.TTimestamp,
	types.TTimestampTZ, types.TInterval,
}

func colNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = string(rune('a' + i))
	}
	return names
}

func num(s string) *apd.Decimal {
	d, _, err := apd.NewFromString(s)
	if err != nil {
		panic(err)
	}
	return d
}

// sampleRows are rows of allTypes, with awkward values.
func sampleRows() [][]types.Datum {
	return [][]types.Datum{
		{true, int64(-32768), int64(2147483647), int64(-9223372036854775808), 1.5, 2.25,
			num("12.345"), "plain", "v", types.Date(19000), types.Timestamp(1_700_000_000_123_456),
			types.Timestamp(-1_000_000), types.Interval{Months: 14, Days: -3, Micros: 3_723_000_001}},
		{false, int64(0), int64(-1), int64(1), -0.25, 1e300, num("-0.000001"),
			"tab\there, nl\nthere, cr\rback\\slash \"q\" 'a' ,;|", "ünïcødé", types.DateInfinity,
			types.TimestampNegInfinity, types.TimestampInfinity, types.Interval{}},
		{nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil},
		{true, int64(1), int64(2), int64(3), 3.5, -4.5, num("NaN"), "", "", types.DateNegInfinity,
			types.Timestamp(0), types.Timestamp(0), types.Interval{Micros: -1}},
		{true, int64(1), int64(2), int64(3), 3.5, -4.5, num("1e20"), `\.`, `\N`, types.Date(-700000),
			types.Timestamp(0), types.Timestamp(0), types.Interval{Micros: -1}},
	}
}

// write encodes rows with a Writer and returns every Write as a separate
// message.
func write(t *testing.T, opts Options, ts []types.Type, rows [][]types.Datum) [][]byte {
	t.Helper()
	var msgs msgWriter
	w := NewWriter(&msgs, opts, colNames(len(ts)), ts, nil)
	if err := w.Begin(); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.WriteRow(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.End(); err != nil {
		t.Fatal(err)
	}
	return msgs
}

type msgWriter [][]byte

func (m *msgWriter) Write(p []byte) (int, error) {
	*m = append(*m, append([]byte(nil), p...))
	return len(p), nil
}

// readAll decodes data with a Reader and a Decoder.
func readAll(opts Options, ts []types.Type, data []byte) ([][]types.Datum, error) {
	rd := NewReader(bytes.NewReader(data), opts, colNames(len(ts)))
	dec := NewDecoder(opts.Format, ts)
	var rows [][]types.Datum
	for {
		fields, err := rd.Next()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return rows, err
		}
		row := make([]types.Datum, len(fields))
		for i, f := range fields {
			if f == nil {
				continue
			}
			if row[i], err = dec.Decode(i, f); err != nil {
				return rows, err
			}
		}
		rows = append(rows, row)
	}
}

func mustOptions(t *testing.T, from bool, opts ...Option) Options {
	t.Helper()
	o, err := ParseOptions(opts, from)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestRoundTripAllFormats(t *testing.T) {
	for _, f := range []string{"text", "csv", "binary"} {
		for _, header := range []bool{false, true} {
			if f == "binary" && header {
				continue
			}
			opts := []Option{{Name: "format", Value: f, HasValue: true}}
			if header {
				opts = append(opts, Option{Name: "header"})
			}
			out := mustOptions(t, false, opts...)
			in := mustOptions(t, true, opts...)
			msgs := write(t, out, allTypes, sampleRows())
			want := len(sampleRows()) + map[bool]int{true: 1}[header]
			if f == "binary" {
				want += 2 // header and trailer
			}
			if len(msgs) != want {
				t.Errorf("%s: %d writes, want %d", f, len(msgs), want)
			}
			got, err := readAll(in, allTypes, bytes.Join(msgs, nil))
			if err != nil {
				t.Fatalf("%s header=%v: %v", f, header, err)
			}
			checkRows(t, f, got, sampleRows())
		}
	}
}

func checkRows(t *testing.T, what string, got, want [][]types.Datum) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	for i := range want {
		for j := range want[i] {
			g, w := got[i][j], want[i][j]
			if gd, ok := g.(*apd.Decimal); ok {
				if wd, ok := w.(*apd.Decimal); ok && gd.Cmp(wd) == 0 || gd.Form == apd.NaN && w.(*apd.Decimal).Form == apd.NaN {
					continue
				}
			}
			if !reflect.DeepEqual(g, w) {
				t.Errorf("%s: row %d col %d: got %#v, want %#v", what, i, j, g, w)
			}
		}
	}
}

func TestTextOutput(t *testing.T) {
	ts := []types.Type{types.TInt32, types.TText, types.TText}
	rows := [][]types.Datum{{int64(1), "a\tb\\c\nd", nil}, {int64(2), "", "x|y"}}
	got := string(bytes.Join(write(t, mustOptions(t, false, Option{Name: "header"}), ts, rows), nil))
	want := "a\tb\tc\n1\ta\\tb\\\\c\\nd\t\\N\n2\t\tx|y\n"
	if got != want {
		t.Errorf("text:\n got %q\nwant %q", got, want)
	}
	opts := mustOptions(t, false, Option{Name: "delimiter", Value: "|", HasValue: true}, Option{Name: "null", Value: "NULL", HasValue: true})
	got = string(bytes.Join(write(t, opts, ts, rows), nil))
	want = "1|a\\tb\\\\c\\nd|NULL\n2||x\\|y\n"
	if got != want {
		t.Errorf("text |:\n got %q\nwant %q", got, want)
	}
}

func TestCSVOutput(t *testing.T) {
	ts := []types.Type{types.TInt32, types.TText, types.TText}
	rows := [][]types.Datum{{int64(1), `say "hi", ok`, nil}, {int64(2), "", "two\nlines"}, {int64(3), "plain", `\.`}}
	csv := Option{Name: "format", Value: "csv", HasValue: true}
	got := string(bytes.Join(write(t, mustOptions(t, false, csv, Option{Name: "header"}), ts, rows), nil))
	want := "a,b,c\n1,\"say \"\"hi\"\", ok\",\n2,\"\",\"two\nlines\"\n3,plain,\\.\n"
	if got != want {
		t.Errorf("csv:\n got %q\nwant %q", got, want)
	}
	var msgs msgWriter
	o := mustOptions(t, false, csv, Option{Name: "force_quote", Star: true, HasValue: true}, Option{Name: "escape", Value: `\`, HasValue: true})
	w := NewWriter(&msgs, o, colNames(3), ts, []bool{true, true, true})
	if err := w.WriteRow(rows[0]); err != nil {
		t.Fatal(err)
	}
	if got, want := string(msgs[0]), "\"1\",\"say \\\"hi\\\", ok\",\n"; got != want {
		t.Errorf("force quote: got %q, want %q", got, want)
	}
}

func TestTextInput(t *testing.T) {
	ts := []types.Type{types.TInt32, types.TText}
	data := "1\tplain\n2\t\\N\n3\tesc \\t\\n\\\\ \\101\\x41\\q\r\n4\tcontinued\\\nline\n\\.\nignored garbage\n"
	got, err := readAll(mustOptions(t, true), ts, []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	want := [][]types.Datum{{int64(1), "plain"}, {int64(2), nil}, {int64(3), "esc \t\n\\ AAq"}, {int64(4), "continued\nline"}}
	checkRows(t, "text", got, want)

	// One column: an empty line is an empty string.
	got, err = readAll(mustOptions(t, true), []types.Type{types.TText}, []byte("\nx\n"))
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, "one column", got, [][]types.Datum{{""}, {"x"}})
}

func TestCSVInput(t *testing.T) {
	ts := []types.Type{types.TInt32, types.TText, types.TText}
	data := "a,b,c\n1,\"multi\nline, \"\"quoted\"\"\",\n2,\"\",x\r\n3,a\"b\"c,\"\"\n\\.\n"
	opts := mustOptions(t, true, Option{Name: "format", Value: "csv", HasValue: true}, Option{Name: "header", Value: "match", HasValue: true})
	rd := NewReader(strings.NewReader(data), opts, colNames(3))
	var lines []int64
	for {
		_, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, rd.Line())
	}
	if !reflect.DeepEqual(lines, []int64{3, 4, 5}) {
		t.Errorf("lines %v, want [3 4 5] (a record's line is its last, as in PostgreSQL)", lines)
	}
	got, err := readAll(opts, ts, []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	want := [][]types.Datum{{int64(1), "multi\nline, \"quoted\"", nil}, {int64(2), "", "x"}, {int64(3), "abc", ""}}
	checkRows(t, "csv", got, want)

	force := mustOptions(t, true, Option{Name: "format", Value: "csv", HasValue: true},
		Option{Name: "force_not_null", Columns: []string{"b"}, HasValue: true},
		Option{Name: "force_null", Columns: []string{"c"}, HasValue: true})
	got, err = readAll(force, ts, []byte("1,,\"\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, "force", got, [][]types.Datum{{int64(1), "", nil}})

	esc := mustOptions(t, true, Option{Name: "format", Value: "csv", HasValue: true}, Option{Name: "escape", Value: `\`, HasValue: true})
	got, err = readAll(esc, ts, []byte(`1,"a\"b\\c""d",\x`+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, "escape", got, [][]types.Datum{{int64(1), `a"b\cd`, `\x`}}) // as PostgreSQL reads it
}

func TestInputErrors(t *testing.T) {
	ts := []types.Type{types.TInt32, types.TText}
	csv := Option{Name: "format", Value: "csv", HasValue: true}
	for _, tc := range []struct {
		opts       []Option
		data, code string
		msg        string
		line       int64
	}{
		{nil, "1\ta\n2\n", pgerr.BadCopyFileFormat, `missing data for column "b"`, 2},
		{nil, "1\ta\tx\n", pgerr.BadCopyFileFormat, "extra data after last expected column", 1},
		{nil, "1\ta\nx\tb\n", pgerr.InvalidTextRep, `invalid input syntax for type integer: "x"`, 2},
		{nil, "1\ta\rb\n", pgerr.BadCopyFileFormat, "literal carriage return found in data", 1},
		{nil, "1\t\\.x\n\\.x\n", pgerr.BadCopyFileFormat, "end-of-copy marker corrupt", 2},
		{nil, "1\t\xff\n", pgerr.CharacterNotInRepertoire, `invalid byte sequence for encoding "UTF8"`, 1},
		{nil, "1\t\\377\n", pgerr.CharacterNotInRepertoire, `invalid byte sequence for encoding "UTF8"`, 1},
		{[]Option{csv}, "1,\"open\n2,b\n", pgerr.BadCopyFileFormat, "unterminated CSV quoted field", 3},
		{[]Option{csv}, "1,a,b\n", pgerr.BadCopyFileFormat, "extra data after last expected column", 1},
		{[]Option{csv, {Name: "header", Value: "match", HasValue: true}}, "a,x\n", pgerr.BadCopyFileFormat,
			`column name mismatch in header line field 2: got "x", expected "b"`, 1},
		{[]Option{csv, {Name: "header", Value: "match", HasValue: true}}, "a\n", pgerr.BadCopyFileFormat,
			"wrong number of fields in header line: got 1, expected 2", 1},
		{[]Option{{Name: "format", Value: "binary", HasValue: true}}, "PGCOPY\n", pgerr.BadCopyFileFormat, "COPY file signature not recognized", 0},
		{[]Option{{Name: "format", Value: "binary", HasValue: true}}, binarySignature + "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01",
			pgerr.BadCopyFileFormat, "row field count is 1, expected 2", 1},
		{[]Option{{Name: "format", Value: "binary", HasValue: true}}, binarySignature + "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x02\x00\x01\xff\xff\xff\xff",
			pgerr.InvalidBinaryRep, "incorrect binary data format", 1},
		{[]Option{{Name: "format", Value: "binary", HasValue: true}}, binarySignature + "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x04\x00",
			pgerr.BadCopyFileFormat, "unexpected EOF in COPY data", 1},
		{[]Option{{Name: "format", Value: "binary", HasValue: true}}, binarySignature + "\x00\x00\x00\x00\x00\x00\x00\x00\xff\xffjunk",
			pgerr.BadCopyFileFormat, "received copy data after EOF marker", 1},
	} {
		opts := mustOptions(t, true, tc.opts...)
		rd := NewReader(strings.NewReader(tc.data), opts, colNames(2))
		dec := NewDecoder(opts.Format, ts)
		var err error
		for err == nil {
			var fields [][]byte
			fields, err = rd.Next()
			for i, f := range fields {
				if f != nil && err == nil {
					_, err = dec.Decode(i, f)
				}
			}
		}
		pe := pgerr.As(err)
		if errors.Is(err, io.EOF) || pe.Code != tc.code || pe.Message != tc.msg || rd.Line() != tc.line {
			t.Errorf("%q: got %v (%s) at line %d, want %s %q at line %d", tc.data, err, pe.Code, rd.Line(), tc.code, tc.msg, tc.line)
		}
	}
}

func TestOptionErrors(t *testing.T) {
	csv := Option{Name: "format", Value: "csv", HasValue: true}
	bin := Option{Name: "format", Value: "binary", HasValue: true}
	for _, tc := range []struct {
		from bool
		opts []Option
		code string
		msg  string
	}{
		{true, []Option{{Name: "format", Value: "xml", HasValue: true}}, pgerr.InvalidParameterValue, `COPY format "xml" not recognized`},
		{true, []Option{csv, csv}, pgerr.SyntaxError, "conflicting or redundant options"},
		{true, []Option{{Name: "bogus"}}, pgerr.SyntaxError, `option "bogus" not recognized`},
		{true, []Option{{Name: "delimiter", Value: "ab", HasValue: true}}, pgerr.FeatureNotSupported, "COPY delimiter must be a single one-byte character"},
		{true, []Option{{Name: "delimiter", Value: "\\", HasValue: true}}, pgerr.InvalidParameterValue, `COPY delimiter cannot be "\\"`},
		{true, []Option{{Name: "quote", Value: "'", HasValue: true}}, pgerr.FeatureNotSupported, "COPY quote available only in CSV mode"},
		{true, []Option{bin, {Name: "header"}}, pgerr.FeatureNotSupported, "cannot specify HEADER in BINARY mode"},
		{true, []Option{bin, {Name: "delimiter", Value: ",", HasValue: true}}, pgerr.SyntaxError, "cannot specify DELIMITER in BINARY mode"},
		{true, []Option{{Name: "header", Value: "maybe", HasValue: true}}, pgerr.SyntaxError, "header requires a Boolean value"},
		{false, []Option{{Name: "header", Value: "match", HasValue: true}}, pgerr.FeatureNotSupported, `cannot use "match" with HEADER in COPY TO`},
		{true, []Option{csv, {Name: "force_quote", Star: true, HasValue: true}}, pgerr.FeatureNotSupported, "COPY force quote only available using COPY TO"},
		{false, []Option{{Name: "force_quote", Star: true, HasValue: true}}, pgerr.FeatureNotSupported, "COPY force quote available only in CSV mode"},
		{true, []Option{csv, {Name: "delimiter", Value: `"`, HasValue: true}}, pgerr.FeatureNotSupported, "COPY delimiter and quote must be different"},
		{true, []Option{{Name: "null", Value: "a\tb", HasValue: true}}, pgerr.FeatureNotSupported, "COPY delimiter must not appear in the NULL specification"},
		{true, []Option{{Name: "encoding", Value: "latin1", HasValue: true}}, pgerr.FeatureNotSupported, `COPY encoding "latin1" is not supported: only UTF8 is`},
	} {
		_, err := ParseOptions(tc.opts, tc.from)
		pe := pgerr.As(err)
		if err == nil || pe.Code != tc.code || pe.Message != tc.msg {
			t.Errorf("%+v: got %v (%s), want %s %q", tc.opts, err, pe.Code, tc.code, tc.msg)
		}
	}
}

// TestReaderLongLines reads lines longer than the read buffer.
func TestReaderLongLines(t *testing.T) {
	long := strings.Repeat("x", 3*readBufferSize+17)
	data := "1\t" + long + "\n2\tshort\n"
	got, err := readAll(mustOptions(t, true), []types.Type{types.TInt32, types.TText}, []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, "long", got, [][]types.Datum{{int64(1), long}, {int64(2), "short"}})
}

// TestByteaFormats: bytea round-trips in every format, prints its hex
// form (the backslash escaped in text, as PostgreSQL's COPY does), and is
// its raw bytes in binary.
func TestByteaFormats(t *testing.T) {
	ts := []types.Type{types.TBytea}
	rows := [][]types.Datum{{"\x00\xff"}, {`a\b`}, {""}, {"\n\t\r\xc3\x28"}, {nil}}
	for _, f := range []string{"text", "csv", "binary"} {
		opt := Option{Name: "format", Value: f, HasValue: true}
		msgs := write(t, mustOptions(t, false, opt), ts, rows)
		got, err := readAll(mustOptions(t, true, opt), ts, bytes.Join(msgs, nil))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		checkRows(t, f, got, rows)
		switch f {
		case "text":
			if got, want := string(bytes.Join(msgs, nil)), "\\\\x00ff\n\\\\x615c62\n\\\\x\n\\\\x0a090dc328\n\\N\n"; got != want {
				t.Errorf("text: got %q, want %q", got, want)
			}
		case "binary":
			if field := []byte{0, 1, 0, 0, 0, 2, 0x00, 0xff}; !bytes.Contains(msgs[1], field) {
				t.Errorf("binary: row %x lacks the field %x", msgs[1], field)
			}
		}
	}
}
