package sql

import (
	"reflect"
	"testing"
	"time"
)

func parseCursorStmt(t *testing.T, q string) (Node, error) {
	t.Helper()
	stmts, err := NewParser().Parse(q)
	if err != nil {
		return nil, err
	}
	if len(stmts) != 1 {
		t.Fatalf("%s: %d statements", q, len(stmts))
	}
	return stmts[0].Node, nil
}

func TestParseDeclare(t *testing.T) {
	since := uint64(42)
	for _, tc := range []struct {
		q    string
		want DeclareStmt // Query only checked for presence
		text string      // the inner query's text
	}{
		{q: "DECLARE c CURSOR FOR SELECT 1", want: DeclareStmt{Name: "c"}, text: "SELECT 1"},
		{q: `DECLARE "My C" NO SCROLL CURSOR WITHOUT HOLD FOR SELECT * FROM t WHERE a = $1`,
			want: DeclareStmt{Name: "My C"}, text: "SELECT * FROM t WHERE a = $1"},
		{q: "declare _psql_cursor no scroll cursor for\nselect g from generate_series(1, 3) g",
			want: DeclareStmt{Name: "_psql_cursor"}, text: "select g from generate_series(1, 3) g"},
		{q: "DECLARE C BINARY INSENSITIVE SCROLL CURSOR WITH HOLD FOR VALUES (1)",
			want: DeclareStmt{Name: "c", Binary: true, Scroll: true, Hold: true}, text: "VALUES (1)"},
		{q: "DECLARE c ASENSITIVE CURSOR FOR WITH x AS (SELECT 1) SELECT * FROM x",
			want: DeclareStmt{Name: "c"}, text: "WITH x AS (SELECT 1) SELECT * FROM x"},
		{q: "DECLARE s SUBSCRIPTION CURSOR FOR sub", want: DeclareStmt{Name: "s", SubscriptionName: "sub"}},
		{q: "DECLARE s SUBSCRIPTION CURSOR FOR public.sub SINCE 42",
			want: DeclareStmt{Name: "s", SubscriptionName: "public.sub", Since: &since}},
		{q: "DECLARE s SUBSCRIPTION CURSOR FOR sub FULL", want: DeclareStmt{Name: "s", SubscriptionName: "sub", Full: true}},
	} {
		n, err := parseCursorStmt(t, tc.q)
		if err != nil {
			t.Errorf("%s: %v", tc.q, err)
			continue
		}
		d, ok := n.(*DeclareStmt)
		if !ok {
			t.Errorf("%s: %T", tc.q, n)
			continue
		}
		got := *d
		if tc.text != "" {
			if got.Query == nil || got.Query.Text != tc.text {
				t.Errorf("%s: query %+v, want text %q", tc.q, got.Query, tc.text)
				continue
			}
			if _, ok := got.Query.Node.(*SelectStmt); !ok {
				t.Errorf("%s: query node %T", tc.q, got.Query.Node)
			}
		} else if got.Query != nil {
			t.Errorf("%s: a subscription cursor has a query", tc.q)
		}
		got.Query = nil
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.q, got, tc.want)
		}
	}
}

func TestParseDeclareParams(t *testing.T) {
	stmts, err := NewParser().Parse("DECLARE c CURSOR WITH HOLD FOR SELECT $2, $1")
	if err != nil {
		t.Fatal(err)
	}
	d := stmts[0].Node.(*DeclareStmt)
	if stmts[0].NumParams != 2 || d.Query.NumParams != 2 {
		t.Fatalf("params: outer %d, inner %d", stmts[0].NumParams, d.Query.NumParams)
	}
}

func TestParseFetch(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want FetchStmt
	}{
		{"FETCH c", FetchStmt{Name: "c", Count: 1}},
		{"FETCH next", FetchStmt{Name: "next", Count: 1}},
		{"FETCH NEXT FROM c", FetchStmt{Name: "c", Count: 1}},
		{"FETCH NEXT c", FetchStmt{Name: "c", Count: 1}},
		{"FETCH FORWARD 1000 FROM _psql_cursor", FetchStmt{Name: "_psql_cursor", Count: 1000}},
		{"FETCH FORWARD ALL IN c", FetchStmt{Name: "c", Count: -1}},
		{"FETCH FORWARD c", FetchStmt{Name: "c", Count: 1}},
		{"FETCH FORWARD 0 c", FetchStmt{Name: "c", Count: 0}},
		{"fetch 5 in C", FetchStmt{Name: "c", Count: 5}},
		{"FETCH +5 FROM c", FetchStmt{Name: "c", Count: 5}},
		{"FETCH ALL FROM \"Cur\"", FetchStmt{Name: "Cur", Count: -1}},
		{"FETCH FROM c", FetchStmt{Name: "c", Count: 1}},
		{"MOVE 3 IN c", FetchStmt{Name: "c", Count: 3, Move: true}},
		{"MOVE ALL c", FetchStmt{Name: "c", Count: -1, Move: true}},
		{"FETCH NEXT FROM s WITH (timeout = '1s')", FetchStmt{Name: "s", Count: 1, Timeout: time.Second}},
		{"FETCH 10 FROM s WITH (timeout = '250ms')", FetchStmt{Name: "s", Count: 10, Timeout: 250 * time.Millisecond}},
		{"FETCH 10 FROM s WITH (timeout = 100)", FetchStmt{Name: "s", Count: 10, Timeout: 100 * time.Millisecond}},
		{"FETCH s WITH (TIMEOUT = '2 min')", FetchStmt{Name: "s", Count: 1, Timeout: 2 * time.Minute}},
	} {
		n, err := parseCursorStmt(t, tc.q)
		if err != nil {
			t.Errorf("%s: %v", tc.q, err)
			continue
		}
		if f, ok := n.(*FetchStmt); !ok || *f != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.q, n, tc.want)
		}
	}
}

func TestParseClose(t *testing.T) {
	for q, want := range map[string]CloseStmt{
		"CLOSE c":     {Name: "c"},
		"CLOSE \"C\"": {Name: "C"},
		"close all":   {All: true},
	} {
		n, err := parseCursorStmt(t, q)
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		if c, ok := n.(*CloseStmt); !ok || *c != want {
			t.Errorf("%s: got %+v, want %+v", q, n, want)
		}
	}
}

// TestParseCursorErrors: errors are positioned, with PostgreSQL's
// SQLSTATE: 42601 for syntax, 0A000 for directions that go backward.
func TestParseCursorErrors(t *testing.T) {
	for _, tc := range []struct{ q, code, msg string }{
		{"DECLARE c CURSOR FOR INSERT INTO t VALUES (1)", "42601", `syntax error at or near "INSERT"`},
		{"DECLARE c CURSOR SELECT 1", "42601", `syntax error at or near "SELECT"`},
		{"DECLARE c CURSOR FOR", "42601", "syntax error at end of input"},
		{"DECLARE CURSOR FOR SELECT 1", "42601", `syntax error at or near "FOR"`},
		{"DECLARE c CURSOR WITH HOLD FOR SELEC 1", "42601", `syntax error at or near "SELEC"`},
		{"DECLARE s SUBSCRIPTION CURSOR FOR sub SINCE x", "42601", `syntax error at or near "x"`},
		{"DECLARE s SUBSCRIPTION CURSOR FOR sub SINCE 99999999999999999999", "22023", "SINCE must be an unsigned 64-bit integer, not 99999999999999999999"},
		{"DECLARE s SUBSCRIPTION CURSOR FOR sub FULL 1", "42601", `syntax error at or near "1"`},
		{"FETCH 1", "42601", "syntax error at end of input"},
		{"FETCH FROM", "42601", "syntax error at end of input"},
		{"FETCH ALL", "42601", "syntax error at end of input"},
		{"FETCH 1.5 FROM c", "42601", `syntax error at or near "1.5"`},
		{"FETCH c d", "42601", `syntax error at or near "d"`},
		{"FETCH -1 FROM c", "0A000", "fetching backward is not supported: cursors only scan forward"},
		{"FETCH FORWARD -2 FROM c", "0A000", "fetching backward is not supported: cursors only scan forward"},
		{"FETCH BACKWARD 1 FROM c", "0A000", "BACKWARD is not supported: cursors only scan forward"},
		{"FETCH PRIOR FROM c", "0A000", "PRIOR is not supported: cursors only scan forward"},
		{"MOVE ABSOLUTE 3 IN c", "0A000", "ABSOLUTE is not supported: cursors only scan forward"},
		{"FETCH s WITH (timeout = 'soon')", "22023", `invalid value for FETCH option "timeout": "soon"`},
		{"FETCH s WITH (wait = '1s')", "22023", `unrecognized FETCH option "wait"`},
		{"MOVE s WITH (timeout = '1s')", "42601", `syntax error at or near "WITH"`},
		{"CLOSE", "42601", "syntax error at end of input"},
		{"CLOSE a, b", "42601", `syntax error at or near ","`},
	} {
		_, err := parseCursorStmt(t, tc.q)
		if err == nil {
			t.Errorf("%s: no error", tc.q)
			continue
		}
		pe := asPgErr(t, err)
		if pe.Code != tc.code || pe.Message != tc.msg {
			t.Errorf("%s: %s %q, want %s %q", tc.q, pe.Code, pe.Message, tc.code, tc.msg)
		}
	}
}
