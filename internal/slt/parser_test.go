package slt

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseErrors(t *testing.T) {
	cases := []struct {
		src  string
		line int
		msg  string
	}{
		{"statement ok\nA\n\nfrobnicate\n", 4, `invalid line: "frobnicate"`},
		{"\nstatement maybe\nA\n", 2, "invalid statement header"},
		{"statement ok\n", 1, "missing SQL"},
		{"statement ok\n\nA\n", 1, "missing SQL"},
		{"statement ok\nA\n----\n1\n", 1, "use `query` instead"},
		{"statement error [unclosed\nA\n", 1, "invalid error message regex"},
		{"statement error x\nA\n----\nx\n", 1, "duplicated error messages"},
		{"statement count lots\nA\n", 1, `invalid number: "lots"`},
		{"query I sideways\nA\n----\n1\n", -1, ""}, // label, not an error
		{"query I sideways label\nA\n", 1, `invalid sort mode: "sideways"`},
		{"query I rowsort label extra\nA\n", 1, "unexpected \"extra\""},
		{"sleep forever\n", 1, `invalid duration: "forever"`},
		{"sleep\n", 1, "invalid line"},
		{"control sortmode random\n", 1, `invalid sort mode: "random"`},
		{"control substitution maybe\n", 1, "substitution must be on or off"},
		{"control frob on\n", 1, "invalid control"},
		{"hash-threshold x\n", 1, "invalid number"},
		{"skipif\n", 1, "skipif takes one label"},
		{"connection a b\n", 1, "connection takes one name"},
		{"retry 3 backoff\n", 1, "invalid retry"},
		{"retry x backoff 1s\n", 1, `invalid number: "x"`},
		{"statement ok retry 2 backoff soon\nA\n", 1, `invalid duration: "soon"`},
		{"system maybe\nls\n", 1, "invalid system header"},
	}
	for _, c := range cases {
		_, err := parse("f.slt", nil, c.src)
		if c.line < 0 {
			if err != nil {
				t.Errorf("%q: unexpected error %v", c.src, err)
			}
			continue
		}
		pe, ok := err.(*ParseError)
		if !ok {
			t.Errorf("%q: err = %v, want *ParseError", c.src, err)
			continue
		}
		if pe.File != "f.slt" || pe.Line != c.line || !strings.Contains(pe.Msg, c.msg) {
			t.Errorf("%q: got %v; want f.slt:%d containing %q", c.src, pe, c.line, c.msg)
		}
		if !strings.HasPrefix(pe.Error(), "f.slt:") {
			t.Errorf("Error() = %q lacks location", pe.Error())
		}
	}
}

func TestParseErrorStopsFile(t *testing.T) {
	db := newFakeDB().on("A", response{})
	s := runScript(t, db, "statement ok\nA\n\nstatement ok\nA\n\n\nnonsense here\n", Options{})
	expectCounts(t, s, 0, 1, 0)
	f := s.Failures[0]
	if f.Line != 8 || f.Message != `parse error: invalid line: "nonsense here"` || !strings.HasSuffix(f.File, "t.slt") {
		t.Errorf("failure %+v", f)
	}
	if len(db.calls) != 0 || db.opened != 0 {
		t.Errorf("a file with a parse error ran %d statements", len(db.calls))
	}
}

func TestParseRecords(t *testing.T) {
	src := "# comment\n  # indented comment\n" +
		"onlyif streamdb\nskipif pg\nconnection c2\nquery IT rowsort lbl retry 4 backoff 3s\nSELECT 1,\n  'a'\n----\n1 a\n\n" +
		"query T label2\nSELECT 2\n\n" +
		"query\nSELECT 3\n\n" +
		"statement error\r\nX\r\n\r\n" +
		"hash-threshold 8\nsubtest foo\n" +
		"connection default\nstatement ok\nY\n"
	recs, err := parse("f.slt", nil, src)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 5 {
		t.Fatalf("got %d records, want 5", len(recs))
	}
	q := recs[0].(*queryRecord)
	if q.Line != 6 || q.types != "IT" || q.sortMode != RowSort || !q.hasSort || q.label != "lbl" ||
		q.retry != (retry{attempts: 4, backoff: 3 * time.Second}) || q.connection != "c2" ||
		q.sql != "SELECT 1,\n  'a'" || len(q.rows) != 1 || q.rows[0] != "1 a" || len(q.conditions) != 2 {
		t.Errorf("first query parsed as %+v", q)
	}
	if q2 := recs[1].(*queryRecord); q2.label != "label2" || q2.hasSort || q2.connection != "" || q2.conditions != nil || q2.retry != (retry{}) {
		t.Errorf("attributes leaked into the second query: %+v", q2)
	}
	if q3 := recs[2].(*queryRecord); q3.types != "" || q3.rows != nil {
		t.Errorf("bare query parsed as %+v", q3)
	}
	if st := recs[3].(*statementRecord); st.sql != "X" || st.expectErr == nil || st.expectErr.re != nil || st.expectErr.multi {
		t.Errorf("CRLF statement error parsed as %+v", st)
	}
	if st := recs[4].(*statementRecord); st.connection != "" || st.Line != 24 {
		t.Errorf("last statement parsed as %+v", st)
	}
}

func TestParseDuration(t *testing.T) {
	cases := map[string]time.Duration{
		"1s": time.Second, "500ms": 500 * time.Millisecond, "1m30s": 90 * time.Second,
		"2min": 2 * time.Minute, "1sec": time.Second, "3secs": 3 * time.Second, "1hour": time.Hour,
		"1h30min": 90 * time.Minute, "1.5s": 1500 * time.Millisecond, "2days": 48 * time.Hour, "0s": 0,
	}
	for in, want := range cases {
		got, err := parseDuration(in)
		if err != nil || got != want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "s", "5", "5 parsecs", "-1s", "1s!"} {
		if _, err := parseDuration(bad); err == nil {
			t.Errorf("parseDuration(%q) accepted", bad)
		}
	}
}

func TestSubstitute(t *testing.T) {
	env := map[string]string{"A": "x", "B_2": "y"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	cases := map[string]string{
		"$A $B_2 ${A}${B_2}":     "x y xy",
		"${MISSING:dflt} ${A:z}": "dflt x",
		`\$A costs $5`:           "$A costs $5",
		"$$ body $$ $fn$ x $fn$": "$$ body $$ $fn$ x $fn$",
		"$A.b $A,":               "x.b x,",
		"trailing $":             "trailing $",
	}
	for in, want := range cases {
		got, err := substitute(in, lookup)
		if err != nil || got != want {
			t.Errorf("substitute(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"$NOPE", "${NOPE}", "${A"} {
		if _, err := substitute(bad, lookup); err == nil {
			t.Errorf("substitute(%q) accepted", bad)
		}
	}
}

func TestDiffLines(t *testing.T) {
	got := diffLines([]string{"a", "b", "c", "d"}, []string{"a", "c", "d", "e"})
	want := "    a\n-   b\n    c\n    d\n+   e\n"
	if got != want {
		t.Errorf("diff:\n%s\nwant:\n%s", got, want)
	}
	if got := diffLines(nil, []string{"x"}); got != "+   x\n" {
		t.Errorf("diff from empty: %q", got)
	}
	big := make([]string, 3000)
	for i := range big {
		big[i] = "r"
	}
	if got := diffLines(big, big[1:]); strings.Count(got, "-   ") != 3000 || strings.Count(got, "+   ") != 2999 {
		t.Error("oversized diff should list both sides whole")
	}
}

func TestRunMultipleFilesAccumulates(t *testing.T) {
	db := newFakeDB().on("A", response{}).on("B", response{err: errorString("no")})
	dir := writeFiles(t, map[string]string{"a.slt": "statement ok\nA\n", "b.slt": "statement ok\nB\n", "c.slt": "bad\n"})
	var streamed []string
	files := []string{filepath.Join(dir, "a.slt"), filepath.Join(dir, "b.slt"), filepath.Join(dir, "c.slt")}
	s, err := Run(context.Background(), db.open, files, Options{OnFailure: func(f Failure) { streamed = append(streamed, filepath.Base(f.File)) }})
	if err != nil {
		t.Fatal(err)
	}
	expectCounts(t, s, 1, 2, 0)
	if strings.Join(streamed, ",") != "b.slt,c.slt" {
		t.Errorf("OnFailure saw %v", streamed)
	}
	if FormatSummary(s) != "1 passed, 2 failed" {
		t.Errorf("summary %q", FormatSummary(s))
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }
