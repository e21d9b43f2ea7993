package pgwire

import (
	"slices"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

func TestSimpleQuery(t *testing.T) {
	ts := startServer(t, Options{})
	c := connect(t, ts.addr)
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"SELECT 1, 2", []string{"RowDescription ?column?:23/0,?column?:23/0", `DataRow "1","2"`, "CommandComplete SELECT 1", "ReadyForQuery I"}},
		{"series 2; insert", []string{"RowDescription n:20/0", `DataRow "0"`, `DataRow "1"`, "CommandComplete SELECT 2",
			"CommandComplete INSERT 0 5", "ReadyForQuery I"}},
		{"null", []string{"RowDescription x:25/0", "DataRow NULL", "CommandComplete SELECT 1", "ReadyForQuery I"}},
		{"", []string{"EmptyQueryResponse", "ReadyForQuery I"}},
		{" ;; ", []string{"EmptyQueryResponse", "ReadyForQuery I"}},
		{"notice", []string{"NoticeResponse NOTICE progress 50%", "CommandComplete DO", "ReadyForQuery I"}},
		{"series 1; failexec; series 1", []string{"RowDescription n:20/0", `DataRow "0"`, "CommandComplete SELECT 1",
			"ErrorResponse ERROR 22012 division by zero", "ReadyForQuery I"}},
	} {
		c.send(&pgproto3.Query{String: tc.query})
		if got := c.until(); !slices.Equal(got, tc.want) {
			t.Errorf("%q:\n got %q\nwant %q", tc.query, got, tc.want)
		}
	}
}

func TestErrorResponseFields(t *testing.T) {
	ts := startServer(t, Options{})
	c := connect(t, ts.addr)
	c.send(&pgproto3.Query{String: "fail"})
	e := c.expectError()
	if e.Severity != "ERROR" || e.SeverityUnlocalized != "ERROR" || e.Code != "42601" || e.Position != 1 ||
		e.Detail != "some detail" || e.Hint != "some hint" || e.Message != `syntax error at or near "fail"` {
		t.Fatalf("ErrorResponse = %+v", e)
	}
	if got := c.until(); !slices.Equal(got, []string{"ReadyForQuery I"}) {
		t.Fatalf("after error: %v", got)
	}
}

func TestTransactionStatusFromTags(t *testing.T) {
	ts := startServer(t, Options{})
	c := connect(t, ts.addr)
	for _, step := range []struct {
		query  string
		status string
	}{
		{"begin", "T"}, {"SELECT 1", "T"}, {"failexec", "E"}, {"rollback", "I"},
		{"begin; insert", "T"}, {"commit", "I"}, {"failexec", "I"},
	} {
		c.send(&pgproto3.Query{String: step.query})
		got := c.until()
		if last := got[len(got)-1]; last != "ReadyForQuery "+step.status {
			t.Fatalf("%q: %s, want status %s", step.query, last, step.status)
		}
	}
}

type statusSession struct {
	*fakeSession
	status byte
}

func (s statusSession) TxStatus() byte { return s.status }

func TestTxStatuserOverridesTracking(t *testing.T) {
	c := &conn{sess: statusSession{status: 'E'}, txStatus: 'I'}
	c.noteTag("BEGIN")
	if got := c.status(); got != 'E' {
		t.Fatalf("status = %c, want the session's E", got)
	}
}

func TestLargeResultStreams(t *testing.T) {
	ts := startServer(t, Options{})
	c := connect(t, ts.addr)
	c.send(&pgproto3.Query{String: "series 50000"})
	got := c.until()
	if len(got) != 50003 || got[50000] != `DataRow "49999"` || got[50001] != "CommandComplete SELECT 50000" {
		t.Fatalf("got %d messages ending %v", len(got), got[len(got)-3:])
	}
}
