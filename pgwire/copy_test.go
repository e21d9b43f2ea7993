package pgwire

import (
	"slices"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

func copyData(s string) *pgproto3.CopyData { return &pgproto3.CopyData{Data: []byte(s)} }

func expectMessages(t *testing.T, c *client, what string, want []string) {
	t.Helper()
	if got := c.until(); !slices.Equal(got, want) {
		t.Fatalf("%s:\n got %q\nwant %q", what, got, want)
	}
}

// expectCopyIn reads the CopyInResponse that starts a copy-in.
func expectCopyIn(t *testing.T, c *client, want string) {
	t.Helper()
	if got := summary(c.recv()); got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestCopyInSimple(t *testing.T) {
	ts := startServer(t, Options{})
	c := connect(t, ts.addr)
	c.send(&pgproto3.Query{String: "copyin; SELECT 1"})
	expectCopyIn(t, c, "CopyInResponse 0 [0]")
	// Data split anywhere, with Flush and Sync (ignored) in between.
	c.send(copyData("a\nb"), &pgproto3.Flush{}, copyData("\nc\n"), &pgproto3.Sync{}, &pgproto3.CopyDone{})
	expectMessages(t, c, "copy-in", []string{"CommandComplete COPY 3", "RowDescription ?column?:23/0",
		`DataRow "1"`, "CommandComplete SELECT 1", "ReadyForQuery I"})

	c.send(&pgproto3.Query{String: "copyin binary"})
	expectCopyIn(t, c, "CopyInResponse 1 [1]")
	c.send(&pgproto3.CopyDone{})
	expectMessages(t, c, "empty copy-in", []string{"CommandComplete COPY 0", "ReadyForQuery I"})
}

func TestCopyInFail(t *testing.T) {
	ts := startServer(t, Options{})
	c := connect(t, ts.addr)
	c.send(&pgproto3.Query{String: "copyin; SELECT 1"})
	expectCopyIn(t, c, "CopyInResponse 0 [0]")
	c.send(copyData("a\n"), &pgproto3.CopyFail{Message: "client gave up"})
	expectMessages(t, c, "CopyFail", []string{"ErrorResponse ERROR 57014 COPY from stdin failed: client gave up", "ReadyForQuery I"})
	c.send(&pgproto3.Query{String: "SELECT 2"})
	expectMessages(t, c, "after CopyFail", []string{"RowDescription ?column?:23/0", `DataRow "2"`, "CommandComplete SELECT 1", "ReadyForQuery I"})
}

// TestCopyInStatementError: the statement fails while the client is still
// sending; what it sends after the error is discarded.
func TestCopyInStatementError(t *testing.T) {
	ts := startServer(t, Options{})
	c := connect(t, ts.addr)
	c.send(&pgproto3.Query{String: "copyin"})
	expectCopyIn(t, c, "CopyInResponse 0 [0]")
	c.send(copyData("ok\nbad\n"))
	expectMessages(t, c, "bad row", []string{"ErrorResponse ERROR 22P02 bad line 2", "ReadyForQuery I"})
	c.send(copyData("more\n"), copyData("data\n"), &pgproto3.CopyDone{}, &pgproto3.Query{String: "SELECT 3"})
	expectMessages(t, c, "after error", []string{"RowDescription ?column?:23/0", `DataRow "3"`, "CommandComplete SELECT 1", "ReadyForQuery I"})
}

func TestCopyInUnexpectedMessage(t *testing.T) {
	ts := startServer(t, Options{})
	c := connect(t, ts.addr)
	c.send(&pgproto3.Query{String: "copyin"})
	expectCopyIn(t, c, "CopyInResponse 0 [0]")
	c.send(copyData("a\n"), &pgproto3.Query{String: "SELECT 1"})
	expectMessages(t, c, "query in copy", []string{"ErrorResponse ERROR 08P01 unexpected message type 0x51 during COPY from stdin", "ReadyForQuery I"})
	c.send(&pgproto3.Query{String: "SELECT 4"})
	expectMessages(t, c, "after", []string{"RowDescription ?column?:23/0", `DataRow "4"`, "CommandComplete SELECT 1", "ReadyForQuery I"})
}

// TestCopyInExtended runs COPY FROM STDIN through Parse/Bind/Execute with
// Sync sent right after Execute, as some drivers do: the Sync arriving in
// copy-in is ignored, and the one after CopyDone ends the exchange.
func TestCopyInExtended(t *testing.T) {
	ts := startServer(t, Options{})
	c := connect(t, ts.addr)
	c.send(&pgproto3.Parse{Query: "copyin"}, &pgproto3.Bind{}, &pgproto3.Describe{ObjectType: 'P'},
		&pgproto3.Execute{}, &pgproto3.Sync{})
	for _, want := range []string{"ParseComplete", "BindComplete", "NoData", "CopyInResponse 0 [0]"} {
		if got := summary(c.recv()); got != want {
			t.Fatalf("got %s, want %s", got, want)
		}
	}
	c.send(copyData("x\ny\n"), &pgproto3.CopyDone{}, &pgproto3.Sync{})
	expectMessages(t, c, "extended copy-in", []string{"CommandComplete COPY 2", "ReadyForQuery I"})

	// A failure discards messages up to the next Sync.
	c.send(&pgproto3.Parse{Query: "copyin"}, &pgproto3.Bind{}, &pgproto3.Execute{})
	for _, want := range []string{"ParseComplete", "BindComplete", "CopyInResponse 0 [0]"} {
		if got := summary(c.recv()); got != want {
			t.Fatalf("got %s, want %s", got, want)
		}
	}
	c.send(copyData("bad\n"), copyData("ignored\n"), &pgproto3.CopyDone{}, &pgproto3.Sync{})
	expectMessages(t, c, "extended error", []string{"ErrorResponse ERROR 22P02 bad line 1", "ReadyForQuery I"})
	c.send(&pgproto3.Query{String: "SELECT 5"})
	expectMessages(t, c, "after", []string{"RowDescription ?column?:23/0", `DataRow "5"`, "CommandComplete SELECT 1", "ReadyForQuery I"})
}

func TestCopyOut(t *testing.T) {
	ts := startServer(t, Options{})
	c := connect(t, ts.addr)
	c.send(&pgproto3.Query{String: "copyout 2; SELECT 1"})
	expectMessages(t, c, "copy-out", []string{"CopyOutResponse 0 [0]", `CopyData "0\n"`, `CopyData "1\n"`, "CopyDone",
		"CommandComplete COPY 2", "RowDescription ?column?:23/0", `DataRow "1"`, "CommandComplete SELECT 1", "ReadyForQuery I"})

	// Extended, with a row limit: COPY streams regardless.
	c.send(&pgproto3.Parse{Query: "copyout 3 binary"}, &pgproto3.Bind{}, &pgproto3.Describe{ObjectType: 'P'},
		&pgproto3.Execute{MaxRows: 1}, &pgproto3.Sync{})
	expectMessages(t, c, "extended copy-out", []string{"ParseComplete", "BindComplete", "NoData", "CopyOutResponse 1 [1]",
		`CopyData "0\n"`, `CopyData "1\n"`, `CopyData "2\n"`, "CopyDone", "CommandComplete COPY 3", "ReadyForQuery I"})
}
