package pgwire

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

func checkMessages(t *testing.T, c *client, want ...string) {
	t.Helper()
	if got := c.until(); !slices.Equal(got, want) {
		t.Fatalf("\n got %q\nwant %q", got, want)
	}
}

func TestExtendedPagesThroughPortal(t *testing.T) {
	ts := startServer(t, Options{})
	c := connect(t, ts.addr)
	c.send(&pgproto3.Parse{Query: "series 5"}, &pgproto3.Bind{}, &pgproto3.Describe{ObjectType: 'P'},
		&pgproto3.Execute{MaxRows: 2}, &pgproto3.Execute{MaxRows: 2}, &pgproto3.Execute{MaxRows: 2},
		&pgproto3.Execute{}, &pgproto3.Sync{})
	checkMessages(t, c, "ParseComplete", "BindComplete", "RowDescription n:20/0",
		`DataRow "0"`, `DataRow "1"`, "PortalSuspended",
		`DataRow "2"`, `DataRow "3"`, "PortalSuspended",
		`DataRow "4"`, "CommandComplete SELECT 5",
		"CommandComplete SELECT 5", // executing a finished portal
		"ReadyForQuery I")
	// The unnamed portal ended with the implicit transaction at Sync.
	c.send(&pgproto3.Execute{}, &pgproto3.Sync{})
	checkMessages(t, c, `ErrorResponse ERROR 34000 portal "" does not exist`, "ReadyForQuery I")
}

func TestExtendedStreamsWithoutLimit(t *testing.T) {
	ts := startServer(t, Options{})
	c := connect(t, ts.addr)
	c.send(&pgproto3.Parse{Name: "s", Query: "series 3"}, &pgproto3.Bind{PreparedStatement: "s", ResultFormatCodes: []int16{1}},
		&pgproto3.Execute{}, &pgproto3.Sync{})
	checkMessages(t, c, "ParseComplete", "BindComplete",
		`DataRow "\x00\x00\x00\x00\x00\x00\x00\x00"`, `DataRow "\x00\x00\x00\x00\x00\x00\x00\x01"`,
		`DataRow "\x00\x00\x00\x00\x00\x00\x00\x02"`, "CommandComplete SELECT 3", "ReadyForQuery I")
}

func TestExtendedDescribe(t *testing.T) {
	ts := startServer(t, Options{})
	c := connect(t, ts.addr)
	c.send(&pgproto3.Parse{Name: "q1", Query: "SELECT $1::int8, $2"}, &pgproto3.Describe{ObjectType: 'S', Name: "q1"},
		&pgproto3.Parse{Name: "q2", Query: "insert"}, &pgproto3.Describe{ObjectType: 'S', Name: "q2"},
		&pgproto3.Parse{Name: "q3", Query: "SELECT $1", ParameterOIDs: []uint32{23}}, &pgproto3.Describe{ObjectType: 'S', Name: "q3"},
		&pgproto3.Bind{PreparedStatement: "q1", DestinationPortal: "p", ResultFormatCodes: []int16{1, 0},
			Parameters: [][]byte{nil, []byte("x")}},
		&pgproto3.Describe{ObjectType: 'P', Name: "p"}, &pgproto3.Execute{Portal: "p"}, &pgproto3.Sync{})
	checkMessages(t, c,
		"ParseComplete", "ParameterDescription [20 25]", "RowDescription p1:20/0,p2:25/0",
		"ParseComplete", "ParameterDescription []", "NoData",
		"ParseComplete", "ParameterDescription [23]", "RowDescription p1:23/0",
		"BindComplete", "RowDescription p1:20/1,p2:25/0", `DataRow NULL,"x"`, "CommandComplete SELECT 1",
		"ReadyForQuery I")
}

func TestExtendedBinaryParameters(t *testing.T) {
	ts := startServer(t, Options{})
	c := connect(t, ts.addr)
	c.send(&pgproto3.Parse{Query: "SELECT $1::int8, $2::int2, $3::bool, $4"},
		&pgproto3.Bind{ParameterFormatCodes: []int16{1},
			Parameters:        [][]byte{binary.BigEndian.AppendUint64(nil, 1<<40), {0, 7}, {1}, []byte("tx")},
			ResultFormatCodes: []int16{0}},
		&pgproto3.Execute{}, &pgproto3.Sync{})
	checkMessages(t, c, "ParseComplete", "BindComplete", `DataRow "1099511627776","7","t","tx"`,
		"CommandComplete SELECT 1", "ReadyForQuery I")
}

func TestExtendedErrorsDiscardUntilSync(t *testing.T) {
	ts := startServer(t, Options{})
	c := connect(t, ts.addr)
	c.send(&pgproto3.Parse{Query: "fail"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Flush{},
		&pgproto3.Query{String: "SELECT 1"}, &pgproto3.Sync{})
	checkMessages(t, c, `ErrorResponse ERROR 42601 syntax error at or near "fail"`, "ReadyForQuery I")
	c.send(&pgproto3.Parse{Query: "SELECT 4"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	checkMessages(t, c, "ParseComplete", "BindComplete", `DataRow "4"`, "CommandComplete SELECT 1", "ReadyForQuery I")
	c.send(&pgproto3.Parse{Query: "failexec"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Parse{Query: "SELECT 1"}, &pgproto3.Sync{})
	checkMessages(t, c, "ParseComplete", "BindComplete", "ErrorResponse ERROR 22012 division by zero", "ReadyForQuery I")
}

func TestExtendedProtocolErrors(t *testing.T) {
	ts := startServer(t, Options{})
	c := connect(t, ts.addr)
	for _, tc := range []struct {
		name string
		msgs []pgproto3.FrontendMessage
		want string
	}{
		{"duplicate statement", []pgproto3.FrontendMessage{&pgproto3.Parse{Name: "a", Query: "SELECT 1"}, &pgproto3.Parse{Name: "a", Query: "SELECT 1"}}, "42P05"},
		{"unknown statement", []pgproto3.FrontendMessage{&pgproto3.Bind{PreparedStatement: "nope"}}, "26000"},
		{"unknown portal", []pgproto3.FrontendMessage{&pgproto3.Describe{ObjectType: 'P', Name: "nope"}}, "34000"},
		{"parameter count", []pgproto3.FrontendMessage{&pgproto3.Parse{Query: "SELECT $1"}, &pgproto3.Bind{}}, "08P01"},
		{"result format count", []pgproto3.FrontendMessage{&pgproto3.Parse{Query: "SELECT 1"}, &pgproto3.Bind{ResultFormatCodes: []int16{0, 0}}}, "08P01"},
		{"bad binary", []pgproto3.FrontendMessage{&pgproto3.Parse{Query: "SELECT $1::int8"},
			&pgproto3.Bind{ParameterFormatCodes: []int16{1}, Parameters: [][]byte{{1, 2}}}}, "22P03"},
		{"unsupported type", []pgproto3.FrontendMessage{&pgproto3.Parse{Query: "SELECT $1", ParameterOIDs: []uint32{600}}}, "42704"}, // point
		{"function call", []pgproto3.FrontendMessage{&pgproto3.FunctionCall{}}, "0A000"},
	} {
		msgs := append(tc.msgs, &pgproto3.Sync{})
		c.send(msgs...)
		got := c.until()
		i := slices.IndexFunc(got, func(s string) bool { return len(s) > 14 && s[:14] == "ErrorResponse " })
		if i < 0 || got[i][20:25] != tc.want || got[len(got)-1] != "ReadyForQuery I" {
			t.Errorf("%s: got %q, want error %s", tc.name, got, tc.want)
		}
	}
}

func TestTextParameterForTypedParameterIsParsed(t *testing.T) {
	ts := startServer(t, Options{})
	c := connect(t, ts.addr)
	c.send(&pgproto3.Parse{Query: "SELECT $1::int8"}, &pgproto3.Bind{Parameters: [][]byte{[]byte("not a number")}},
		&pgproto3.Execute{}, &pgproto3.Sync{})
	checkMessages(t, c, "ParseComplete", `ErrorResponse ERROR 22P02 invalid input syntax for type bigint: "not a number"`, "ReadyForQuery I")
	c.send(&pgproto3.Parse{Query: "SELECT $1::int8"}, &pgproto3.Bind{Parameters: [][]byte{[]byte("42")}},
		&pgproto3.Execute{}, &pgproto3.Sync{})
	checkMessages(t, c, "ParseComplete", "BindComplete", `DataRow "42"`, "CommandComplete SELECT 1", "ReadyForQuery I")
}

func TestCloseStatementClosesItsPortals(t *testing.T) {
	ts := startServer(t, Options{})
	c := connect(t, ts.addr)
	c.send(&pgproto3.Query{String: "begin"})
	c.until()
	c.send(&pgproto3.Parse{Name: "s", Query: "series 2"}, &pgproto3.Bind{PreparedStatement: "s", DestinationPortal: "p"},
		&pgproto3.Sync{})
	checkMessages(t, c, "ParseComplete", "BindComplete", "ReadyForQuery T")
	// In a transaction block the portal survives Sync.
	c.send(&pgproto3.Execute{Portal: "p", MaxRows: 1}, &pgproto3.Sync{})
	checkMessages(t, c, `DataRow "0"`, "PortalSuspended", "ReadyForQuery T")
	c.send(&pgproto3.Close{ObjectType: 'S', Name: "s"}, &pgproto3.Execute{Portal: "p"}, &pgproto3.Sync{})
	checkMessages(t, c, "CloseComplete", `ErrorResponse ERROR 34000 portal "p" does not exist`, "ReadyForQuery E")
	c.send(&pgproto3.Close{ObjectType: 'S', Name: "never"}, &pgproto3.Close{ObjectType: 'P', Name: "never"}, &pgproto3.Sync{})
	checkMessages(t, c, "CloseComplete", "CloseComplete", "ReadyForQuery E")
}

func TestEmptyPreparedQuery(t *testing.T) {
	ts := startServer(t, Options{})
	c := connect(t, ts.addr)
	c.send(&pgproto3.Parse{Query: " "}, &pgproto3.Bind{}, &pgproto3.Describe{ObjectType: 'P'}, &pgproto3.Execute{}, &pgproto3.Sync{})
	checkMessages(t, c, "ParseComplete", "BindComplete", "NoData", "EmptyQueryResponse", "ReadyForQuery I")
}
