package slt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestStatement(t *testing.T) {
	db := newFakeDB().
		on("CREATE TABLE t (a INT)", response{}).
		on("DROP TABLE nope", response{err: errors.New(`table "nope" does not exist`)}).
		on("INSERT INTO t VALUES (1), (2)", response{count: 2})
	s := runScript(t, db, `
statement ok
CREATE TABLE t (a INT)

statement error does not exist
DROP TABLE nope

statement error
DROP TABLE nope

statement error table "\w+" does
DROP TABLE nope

statement count 2
INSERT INTO t VALUES (1), (2)

# failures below
statement ok
DROP TABLE nope

statement error syntax
DROP TABLE nope

statement error
CREATE TABLE t (a INT)

statement count 3
INSERT INTO t VALUES (1), (2)
`, Options{})
	expectCounts(t, s, 5, 4, 0)
	wantMsgs := []string{
		`statement failed: table "nope" does not exist`,
		"error message mismatch\n[Expected] (regex) syntax\n[Actual] table \"nope\" does not exist",
		"statement is expected to fail, but actually succeed\n[Expected] (any)",
		"statement count mismatch\n[Expected] 3\n[Actual] 2",
	}
	wantLines := []int{18, 21, 24, 27}
	for i, f := range s.Failures {
		if f.Message != wantMsgs[i] || f.Line != wantLines[i] {
			t.Errorf("failure %d: line %d message %q; want line %d message %q", i, f.Line, f.Message, wantLines[i], wantMsgs[i])
		}
	}
}

func TestStatementCountNeedsRowCounter(t *testing.T) {
	db := newFakeDB().on("DELETE FROM t", response{count: 1})
	dir := writeFiles(t, map[string]string{"t.slt": "statement count 1\nDELETE FROM t\n"})
	open := func(ctx context.Context) (Conn, error) {
		c, err := db.open(ctx)
		return execOnly{c}, err
	}
	s, err := Run(context.Background(), open, []string{filepath.Join(dir, "t.slt")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	expectCounts(t, s, 0, 1, 0)
	if !strings.Contains(s.Failures[0].Message, "RowCounter") {
		t.Errorf("message %q does not name RowCounter", s.Failures[0].Message)
	}
}

func TestMultilineError(t *testing.T) {
	msg := "Failed to run the query\n\nCaused by:\n  table not found: t"
	db := newFakeDB().on("SELECT * FROM t", response{err: errors.New(msg)})
	s := runScript(t, db, `statement error
SELECT * FROM t
----
Failed to run the query

Caused by:
  table not found: t


query error
SELECT * FROM t
----
Failed to run the query

Caused by:
  table not found: u


statement ok
SELECT * FROM t
`, Options{})
	// The blank line inside the first message does not end it; the second
	// message differs; the last record really is a separate statement.
	expectCounts(t, s, 1, 2, 0)
	if s.Failures[0].Line != 10 || !strings.Contains(s.Failures[0].Message, "(multiline) Failed to run the query\n\nCaused by:\n  table not found: u") {
		t.Errorf("unexpected first failure:\n%s", s.Failures[0])
	}
	if s.Failures[1].Line != 19 {
		t.Errorf("last failure at line %d, want 19", s.Failures[1].Line)
	}
}

func TestQueryResults(t *testing.T) {
	db := newFakeDB().
		on("SELECT a, b, c FROM t", response{rows: rows(row("1", "<null>", ""), row("2", "x  y", " z"))}).
		on("SELECT 1 WHERE false", response{})
	s := runScript(t, db, `query ITT
SELECT a, b, c FROM t
----
1 NULL (empty)
2   x y   z

query I
SELECT 1 WHERE false

query I
SELECT 1 WHERE false
----

query ITT
SELECT a, b, c FROM t
----
1 NULL (empty)
3 x y z
`, Options{})
	expectCounts(t, s, 3, 1, 0)
	f := s.Failures[0]
	want := "query result mismatch\n[Diff] (-expected|+actual)\n    1 NULL (empty)\n-   3 x y z\n+   2 x y z"
	if f.Message != want || f.Line != 14 || f.SQL != "SELECT a, b, c FROM t" {
		t.Errorf("failure:\n%s\nwant message:\n%s", f, want)
	}
}

func TestQueryError(t *testing.T) {
	db := newFakeDB().
		on("SELECT 1/0", response{err: errors.New("division by zero")}).
		on("SELECT 1", response{rows: rows(row("1"))})
	s := runScript(t, db, `query error division by zero
SELECT 1/0

query error ^division
SELECT 1/0

query I
SELECT 1/0
----
1

query error
SELECT 1
`, Options{})
	expectCounts(t, s, 2, 2, 0)
	if got := s.Failures[0].Message; got != "query failed: division by zero" {
		t.Errorf("message %q", got)
	}
	if got := s.Failures[1].Message; !strings.HasPrefix(got, "query is expected to fail, but actually succeed") {
		t.Errorf("message %q", got)
	}
}

func TestSortModes(t *testing.T) {
	unsorted := response{rows: rows(row("b", "2"), row("a", "3"), row("c", "1"))}
	db := newFakeDB().on("SELECT * FROM t", unsorted)
	s := runScript(t, db, `query TI rowsort
SELECT * FROM t
----
a 3
b 2
c 1

query TI rowsort
SELECT * FROM t
----
c 1
a 3
b 2

query TI valuesort
SELECT * FROM t
----
1 2 3
a b c

query TI nosort
SELECT * FROM t
----
b 2
a 3
c 1

query TI
SELECT * FROM t
----
a 3
b 2
c 1

control sortmode rowsort

query TI
SELECT * FROM t
----
a 3
b 2
c 1

query TI nosort
SELECT * FROM t
----
a 3
b 2
c 1
`, Options{})
	// Fails: the default nosort before control, and the explicit nosort after.
	expectCounts(t, s, 5, 2, 0)
	if s.Failures[0].Line != 28 || s.Failures[1].Line != 44 {
		t.Errorf("failures at lines %d and %d, want 28 and 44", s.Failures[0].Line, s.Failures[1].Line)
	}
}

func TestValueSortMismatchShowsValues(t *testing.T) {
	db := newFakeDB().on("SELECT * FROM t", response{rows: rows(row("b", "2"), row("a", "3"))})
	s := runScript(t, db, "query TI valuesort\nSELECT * FROM t\n----\na 2\nb 4\n", Options{})
	expectCounts(t, s, 0, 1, 0)
	want := "query result mismatch\n[Diff] (-expected|+actual)\n    2\n-   4\n+   3\n    a\n    b"
	if s.Failures[0].Message != want {
		t.Errorf("message:\n%s\nwant:\n%s", s.Failures[0].Message, want)
	}
}

func TestRetry(t *testing.T) {
	notYet := response{err: errors.New("not ready")}
	db := newFakeDB().
		on("SELECT count(*) FROM mv", response{rows: rows(row("0"))}, response{rows: rows(row("0"))}, response{rows: rows(row("5"))}).
		on("FLUSH", notYet, response{}).
		on("SELECT 2", response{rows: rows(row("1"))}).
		on("DROP x", notYet, notYet, response{err: errors.New("gone")})
	sl := &sleeps{}
	s := runScript(t, db, `query I retry 3 backoff 2s
SELECT count(*) FROM mv
----
5

retry 1 backoff 500ms
statement ok
FLUSH

query I rowsort retry 2 backoff 1ms
SELECT 2
----
2

statement error gone retry 2 backoff 10ms
DROP x
`, Options{Sleep: sl.sleep})
	expectCounts(t, s, 3, 1, 0)
	want := []time.Duration{2 * time.Second, 2 * time.Second, 500 * time.Millisecond, time.Millisecond, time.Millisecond, 10 * time.Millisecond, 10 * time.Millisecond}
	if !slices.Equal(sl.ds, want) {
		t.Errorf("sleeps %v, want %v", sl.ds, want)
	}
	if got := strings.Count(strings.Join(db.sqls(), ";"), "SELECT 2"); got != 3 {
		t.Errorf("SELECT 2 ran %d times, want 3", got)
	}
	if !strings.HasSuffix(s.Failures[0].Message, "[Attempts] 3") {
		t.Errorf("message %q lacks attempt count", s.Failures[0].Message)
	}
}

func TestSkipifOnlyif(t *testing.T) {
	db := newFakeDB().on("A", response{}).on("B", response{}).on("C", response{}).on("D", response{})
	src := `skipif streamdb
statement ok
A

onlyif streamdb
statement ok
B

onlyif postgres
statement ok
C

onlyif streamdb
skipif risingwave
statement ok
D
`
	s := runScript(t, db, src, Options{})
	expectCounts(t, s, 2, 0, 2)
	if got := db.sqls(); !slices.Equal(got, []string{"B", "D"}) {
		t.Errorf("ran %v, want [B D]", got)
	}
	db.calls = nil
	s = runScript(t, db, src, Options{Labels: []string{"postgres", "risingwave"}})
	expectCounts(t, s, 2, 0, 2)
	if got := db.sqls(); !slices.Equal(got, []string{"A", "C"}) {
		t.Errorf("ran %v, want [A C]", got)
	}
}

func TestHalt(t *testing.T) {
	db := newFakeDB().on("A", response{}).on("B", response{})
	dir := writeFiles(t, map[string]string{
		"1.slt": "statement ok\nA\n\nonlyif other\nhalt\n\nstatement ok\nA\n\nhalt\n\nstatement ok\nB\n",
		"2.slt": "statement ok\nA\n",
	})
	s, err := Run(context.Background(), db.open, []string{filepath.Join(dir, "1.slt"), filepath.Join(dir, "2.slt")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	expectCounts(t, s, 3, 0, 0)
	if got := db.sqls(); !slices.Equal(got, []string{"A", "A", "A"}) {
		t.Errorf("ran %v; B after halt must not run", got)
	}
}

func TestInclude(t *testing.T) {
	db := newFakeDB().on("A", response{}).on("B", response{}).on("C", response{}).
		on("BAD", response{err: errors.New("boom")})
	dir := writeFiles(t, map[string]string{
		"main.slt":          "statement ok\nA\n\ninclude inc/*.slt\n\nstatement ok\nC\n",
		"inc/1.slt":         "statement ok\nB\n\ninclude ../deep/x.slt.part\n",
		"inc/2.slt":         "control sortmode rowsort\n",
		"deep/x.slt.part":   "\n\nstatement ok\nBAD\n",
		"inc/ignored.other": "halt\n",
	})
	s, err := Run(context.Background(), db.open, []string{filepath.Join(dir, "main.slt")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	expectCounts(t, s, 3, 1, 0)
	if got := db.sqls(); !slices.Equal(got, []string{"A", "B", "BAD", "C"}) {
		t.Errorf("ran %v", got)
	}
	f := s.Failures[0]
	wantFrom := []Location{{filepath.Join(dir, "inc/1.slt"), 4}, {filepath.Join(dir, "main.slt"), 4}}
	if f.File != filepath.Join(dir, "deep/x.slt.part") || f.Line != 3 || !slices.Equal(f.IncludedFrom, wantFrom) {
		t.Errorf("failure at %s:%d from %v", f.File, f.Line, f.IncludedFrom)
	}
	if !strings.Contains(f.String(), "\nat "+filepath.Join(dir, "main.slt")+":4\n") {
		t.Errorf("String() lacks include trail:\n%s", f)
	}
}

func TestIncludeErrors(t *testing.T) {
	cases := []struct {
		name, file string
		files      map[string]string
		line       int
		msg        string
	}{
		{"no match", "a.slt", map[string]string{"a.slt": "\ninclude nothing*.slt\n"}, 2, `matches no file`},
		{"cycle", "b.slt", map[string]string{"a.slt": "include b.slt\n", "b.slt": "\n\ninclude a.slt\n"}, 3, "include cycle"},
		{"parse error inside", "b.slt", map[string]string{"a.slt": "include b.slt\n", "b.slt": "statement ok\nX\n\nbogus\n"}, 4, `invalid line: "bogus"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := newFakeDB()
			dir := writeFiles(t, c.files)
			s, err := Run(context.Background(), db.open, []string{filepath.Join(dir, "a.slt")}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			expectCounts(t, s, 0, 1, 0)
			f := s.Failures[0]
			if f.File != filepath.Join(dir, c.file) || f.Line != c.line || !strings.Contains(f.Message, c.msg) {
				t.Errorf("got %s:%d %q; want %s:%d containing %q", f.File, f.Line, f.Message, c.file, c.line, c.msg)
			}
			if db.opened != 0 {
				t.Errorf("opened %d connections for a file that does not load", db.opened)
			}
		})
	}
}

func TestSubstitution(t *testing.T) {
	env := map[string]string{"TABLE": "t1", "HOST": "h"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	db := newFakeDB().
		on("SELECT * FROM $TABLE", response{}).
		on("SELECT * FROM t1 WHERE h = 'h' AND p = 5432 AND x = $1 AND s = $$a$$ AND d = '$'", response{}).
		on("SELECT 'unset: ${NOPE}'", response{})
	s := runScript(t, db, `statement ok
SELECT * FROM $TABLE

control substitution on

statement ok
SELECT * FROM ${TABLE} WHERE h = '$HOST' AND p = ${PORT:5432} AND x = $1 AND s = $$a$$ AND d = '\$'

statement ok
SELECT 'unset: ${NOPE}'

statement ok
$__TEST_DIR__

control substitution off

statement ok
SELECT 'unset: ${NOPE}'
`, Options{LookupEnv: lookup})
	// Failures: the undefined variable, and $__TEST_DIR__ (no script; we
	// read the substituted path back from the error).
	expectCounts(t, s, 3, 2, 0)
	if !strings.Contains(s.Failures[0].Message, `undefined variable "NOPE"`) {
		t.Errorf("message %q", s.Failures[0].Message)
	}
	testDir := strings.TrimSuffix(strings.TrimPrefix(s.Failures[1].Message, `statement failed: fake: no script for "`), `"`)
	if !strings.Contains(testDir, "slt-test-dir-") {
		t.Fatalf("$__TEST_DIR__ became %q", testDir)
	}
	if _, err := os.Stat(testDir); !os.IsNotExist(err) {
		t.Errorf("test dir %s not removed after the file: %v", testDir, err)
	}
}

func TestSubstitutionTestDirOption(t *testing.T) {
	db := newFakeDB().on("COPY TO '/data/x'", response{})
	s := runScript(t, db, "control substitution on\n\nstatement ok\nCOPY TO '${__TEST_DIR__}/x'\n", Options{TestDir: "/data"})
	expectCounts(t, s, 1, 0, 0)
}

func TestSleep(t *testing.T) {
	db := newFakeDB().on("A", response{})
	sl := &sleeps{}
	s := runScript(t, db, "sleep 1s\n\nsleep 500ms\nsleep 2min\nsleep 1h30m\n\nstatement ok\nA\n", Options{Sleep: sl.sleep})
	expectCounts(t, s, 1, 0, 0)
	want := []time.Duration{time.Second, 500 * time.Millisecond, 2 * time.Minute, 90 * time.Minute}
	if !slices.Equal(sl.ds, want) {
		t.Errorf("sleeps %v, want %v", sl.ds, want)
	}
}

func TestConnections(t *testing.T) {
	db := newFakeDB().on("BEGIN", response{}).on("SELECT 1", response{rows: rows(row("1"))})
	dir := writeFiles(t, map[string]string{
		"a.slt": `statement ok
BEGIN

connection other
statement ok
BEGIN

connection other
query I
SELECT 1
----
1

connection default
statement ok
BEGIN

statement ok
BEGIN
`,
		"b.slt": "statement ok\nBEGIN\n",
	})
	s, err := Run(context.Background(), db.open, []string{filepath.Join(dir, "a.slt"), filepath.Join(dir, "b.slt")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	expectCounts(t, s, 6, 0, 0)
	var conns []int
	for _, c := range db.calls {
		conns = append(conns, c.conn)
	}
	if want := []int{1, 2, 2, 1, 1, 3}; !slices.Equal(conns, want) {
		t.Errorf("connections used %v, want %v", conns, want)
	}
	if want := []int{1, 2, 3}; !slices.Equal(db.closed, want) {
		t.Errorf("closed %v, want %v", db.closed, want)
	}
}

func TestOpenError(t *testing.T) {
	db := newFakeDB()
	db.openErr = errors.New("refused")
	s := runScript(t, db, "statement ok\nA\n\nquery I\nB\n", Options{})
	expectCounts(t, s, 0, 2, 0)
	if got := s.Failures[0].Message; got != `open connection "default": refused` {
		t.Errorf("message %q", got)
	}
}

func TestSystemUnsupported(t *testing.T) {
	s := runScript(t, newFakeDB(), "system ok\necho hi\n", Options{})
	expectCounts(t, s, 0, 1, 0)
	if s.Failures[0].SQL != "echo hi" || !strings.Contains(s.Failures[0].Message, "not supported") {
		t.Errorf("failure %+v", s.Failures[0])
	}
}

func TestMissingFile(t *testing.T) {
	s, err := Run(context.Background(), newFakeDB().open, []string{"/nonexistent/x.slt"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	expectCounts(t, s, 0, 1, 0)
	if f := s.Failures[0]; f.File != "/nonexistent/x.slt" || !strings.HasPrefix(f.Message, "load: ") {
		t.Errorf("failure %+v", f)
	}
}

func TestContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	db := newFakeDB().on("A", response{})
	dir := writeFiles(t, map[string]string{"t.slt": "statement ok\nA\n\nsleep 1h\n\nstatement ok\nA\n"})
	sleep := func(ctx context.Context, d time.Duration) error { cancel(); return ctx.Err() }
	s, err := Run(ctx, db.open, []string{filepath.Join(dir, "t.slt"), filepath.Join(dir, "t.slt")}, Options{Sleep: sleep})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	expectCounts(t, s, 1, 0, 0)
	if !slices.Equal(db.closed, []int{1}) {
		t.Errorf("closed %v, want [1]", db.closed)
	}
}

func TestRealSleepHonoursContext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := sleepCtx(ctx, time.Hour); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatal("sleep ignored the context")
	}
	if err := sleepCtx(context.Background(), time.Millisecond); err != nil {
		t.Fatal(err)
	}
}

func TestFormatSummary(t *testing.T) {
	if got := FormatSummary(Summary{Passed: 12, Failed: 3, Skipped: 4}); got != "12 passed, 3 failed" {
		t.Errorf("got %q", got)
	}
	f := Failure{File: "a.slt", Line: 7, SQL: "SELECT 1", Message: "query failed: x"}
	if got, want := f.String(), "a.slt:7\n[SQL] SELECT 1\nquery failed: x"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// TestProgress: OnProgress sees each file start and every record done,
// with the counts so far.
func TestProgress(t *testing.T) {
	db := newFakeDB().
		on("CREATE TABLE t (a INT)", response{}).
		on("DROP TABLE nope", response{err: errors.New(`table "nope" does not exist`)})
	var got []Progress
	runScript(t, db, `
statement ok
CREATE TABLE t (a INT)

statement ok
DROP TABLE nope

skipif streamdb
statement ok
DROP TABLE nope
`, Options{OnProgress: func(p Progress) { got = append(got, p) }})
	want := []Progress{{Total: 3}, {Done: 1, Total: 3, Passed: 1}, {Done: 2, Total: 3, Passed: 1, Failed: 1},
		{Done: 3, Total: 3, Passed: 1, Failed: 1, Skipped: 1}}
	if len(got) != len(want) {
		t.Fatalf("got %d progress reports %+v, want %d", len(got), got, len(want))
	}
	for i := range got {
		if !strings.HasSuffix(got[i].File, "t.slt") {
			t.Errorf("report %d: file %q", i, got[i].File)
		}
		got[i].File = ""
		if got[i] != want[i] {
			t.Errorf("report %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}
