package pgwire

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// lazyBackend's sessions are fakeSessions that also open portals
// (PortalOpener): "series N" is N int8 rows read one at a time, and
// "seriesfail N K" fails with 22012 when asked for row K. It counts the
// rows read and the sources opened and closed.
type lazyBackend struct {
	fakeBackend
	read, opened, closed atomic.Int64
}

func (b *lazyBackend) NewSession(ctx context.Context, user, database string) (Session, error) {
	s, err := b.fakeBackend.NewSession(ctx, user, database)
	if err != nil {
		return nil, err
	}
	return &lazySession{fakeSession: s.(*fakeSession), b: b}, nil
}

type lazySession struct {
	*fakeSession
	b *lazyBackend
}

func (s *lazySession) Prepare(ctx context.Context, query string, ptypes []types.Type) ([]types.Type, []Column, error) {
	if strings.HasPrefix(query, "seriesfail ") {
		return nil, []Column{{"n", types.TInt64}}, nil
	}
	return s.fakeSession.Prepare(ctx, query, ptypes)
}

func (s *lazySession) OpenPortal(ctx context.Context, query string, args []types.Datum, w ResultWriter) (RowSource, error) {
	word, rest, _ := strings.Cut(query, " ")
	if word != "series" && word != "seriesfail" {
		return nil, s.fakeSession.Execute(ctx, query, args, w)
	}
	src := &lazyRows{b: s.b, failAt: -1}
	nk := strings.Fields(rest)
	src.n, _ = strconv.ParseInt(nk[0], 10, 64)
	if len(nk) > 1 {
		src.failAt, _ = strconv.ParseInt(nk[1], 10, 64)
	}
	s.b.opened.Add(1)
	return src, nil
}

type lazyRows struct {
	b            *lazyBackend
	n, i, failAt int64
	closed       bool
}

func (r *lazyRows) Columns() []Column { return []Column{{"n", types.TInt64}} }

func (r *lazyRows) Next(ctx context.Context) ([]types.Datum, error) {
	switch {
	case r.closed:
		return nil, errors.New("lazyRows: Next after Close")
	case r.i == r.failAt:
		return nil, pgerr.New(pgerr.DivisionByZero, "division by zero")
	case r.i == r.n:
		return nil, nil
	}
	r.b.read.Add(1)
	r.i++
	return []types.Datum{r.i - 1}, nil
}

func (r *lazyRows) Close() {
	if !r.closed {
		r.closed = true
		r.b.closed.Add(1)
	}
}

func startLazyServer(t *testing.T) (*lazyBackend, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &lazyBackend{}
	srv := NewServer(b, Options{})
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		srv.Close()
		<-done
		if o, c := b.opened.Load(), b.closed.Load(); o != c {
			t.Errorf("row sources: %d opened, %d closed", o, c)
		}
	})
	return b, ln.Addr().String()
}

func checkSources(t *testing.T, b *lazyBackend, opened, closed int64) {
	t.Helper()
	if o, c := b.opened.Load(), b.closed.Load(); o != opened || c != closed {
		t.Fatalf("row sources: %d opened, %d closed; want %d, %d", o, c, opened, closed)
	}
}

// TestPortalReadsLazily: an Execute with a row limit reads only the rows
// it sends, then suspends; the next Execute goes on; closing the portal
// before its end releases the rows.
func TestPortalReadsLazily(t *testing.T) {
	b, addr := startLazyServer(t)
	c := connect(t, addr)
	c.send(&pgproto3.Parse{Query: "series 1000000"}, &pgproto3.Bind{}, &pgproto3.Describe{ObjectType: 'P'},
		&pgproto3.Execute{MaxRows: 2}, &pgproto3.Execute{MaxRows: 3}, &pgproto3.Close{ObjectType: 'P'}, &pgproto3.Sync{})
	checkMessages(t, c, "ParseComplete", "BindComplete", "RowDescription n:20/0",
		`DataRow "0"`, `DataRow "1"`, "PortalSuspended",
		`DataRow "2"`, `DataRow "3"`, `DataRow "4"`, "PortalSuspended",
		"CloseComplete", "ReadyForQuery I")
	if n := b.read.Load(); n != 5 {
		t.Fatalf("%d rows read, want the 5 sent", n)
	}
	checkSources(t, b, 1, 1)
}

// TestPortalCompletes: as PostgreSQL, the Execute that reaches the end
// completes with the count of its own rows, and a finished portal
// completes with SELECT 0; a limit that ends exactly on the last row
// suspends, and the next Execute finds the end. Without a limit the
// statement streams as before, and statements without rows run whole.
func TestPortalCompletes(t *testing.T) {
	b, addr := startLazyServer(t)
	c := connect(t, addr)
	c.send(&pgproto3.Parse{Query: "series 5"}, &pgproto3.Bind{},
		&pgproto3.Execute{MaxRows: 2}, &pgproto3.Execute{MaxRows: 2}, &pgproto3.Execute{MaxRows: 2},
		&pgproto3.Execute{MaxRows: 2}, &pgproto3.Execute{}, &pgproto3.Sync{})
	checkMessages(t, c, "ParseComplete", "BindComplete",
		`DataRow "0"`, `DataRow "1"`, "PortalSuspended",
		`DataRow "2"`, `DataRow "3"`, "PortalSuspended",
		`DataRow "4"`, "CommandComplete SELECT 1",
		"CommandComplete SELECT 0", "CommandComplete SELECT 0", "ReadyForQuery I")
	checkSources(t, b, 1, 1) // released when drained
	c.send(&pgproto3.Parse{Query: "series 4"}, &pgproto3.Bind{},
		&pgproto3.Execute{MaxRows: 2}, &pgproto3.Execute{MaxRows: 2}, &pgproto3.Execute{MaxRows: 2}, &pgproto3.Sync{})
	checkMessages(t, c, "ParseComplete", "BindComplete",
		`DataRow "0"`, `DataRow "1"`, "PortalSuspended",
		`DataRow "2"`, `DataRow "3"`, "PortalSuspended",
		"CommandComplete SELECT 0", "ReadyForQuery I")
	c.send(&pgproto3.Parse{Query: "series 3"}, &pgproto3.Bind{}, &pgproto3.Execute{MaxRows: 1},
		&pgproto3.Execute{}, &pgproto3.Sync{})
	checkMessages(t, c, "ParseComplete", "BindComplete", `DataRow "0"`, "PortalSuspended",
		`DataRow "1"`, `DataRow "2"`, "CommandComplete SELECT 2", "ReadyForQuery I")
	c.send(&pgproto3.Parse{Query: "insert"}, &pgproto3.Bind{}, &pgproto3.Execute{MaxRows: 1}, &pgproto3.Sync{})
	checkMessages(t, c, "ParseComplete", "BindComplete", "CommandComplete INSERT 0 5", "ReadyForQuery I")
	checkSources(t, b, 3, 3)
}

// TestPortalErrorMidway: a row source that fails after sending rows
// sends the error, closes the portal and discards messages until Sync.
func TestPortalErrorMidway(t *testing.T) {
	b, addr := startLazyServer(t)
	c := connect(t, addr)
	c.send(&pgproto3.Parse{Query: "seriesfail 10 3"}, &pgproto3.Bind{},
		&pgproto3.Execute{MaxRows: 2}, &pgproto3.Execute{MaxRows: 2}, &pgproto3.Execute{MaxRows: 2}, &pgproto3.Sync{})
	checkMessages(t, c, "ParseComplete", "BindComplete",
		`DataRow "0"`, `DataRow "1"`, "PortalSuspended",
		`DataRow "2"`, "ErrorResponse ERROR 22012 division by zero", "ReadyForQuery I")
	checkSources(t, b, 1, 1)
	c.send(&pgproto3.Execute{MaxRows: 2}, &pgproto3.Sync{})
	checkMessages(t, c, `ErrorResponse ERROR 34000 portal "" does not exist`, "ReadyForQuery I")
}

// TestPortalTransactionBlock: in a transaction block a suspended portal
// survives Sync and goes on; COMMIT ends it; a new Bind of the unnamed
// portal replaces (and releases) the old one; the end of the connection
// releases what is left.
func TestPortalTransactionBlock(t *testing.T) {
	b, addr := startLazyServer(t)
	c := connect(t, addr)
	c.send(&pgproto3.Query{String: "begin"})
	c.until()
	c.send(&pgproto3.Parse{Name: "s", Query: "series 100"}, &pgproto3.Bind{PreparedStatement: "s", DestinationPortal: "p"},
		&pgproto3.Execute{Portal: "p", MaxRows: 1}, &pgproto3.Sync{})
	checkMessages(t, c, "ParseComplete", "BindComplete", `DataRow "0"`, "PortalSuspended", "ReadyForQuery T")
	c.send(&pgproto3.Execute{Portal: "p", MaxRows: 1}, &pgproto3.Sync{})
	checkMessages(t, c, `DataRow "1"`, "PortalSuspended", "ReadyForQuery T")
	checkSources(t, b, 1, 0)
	c.send(&pgproto3.Query{String: "commit"})
	checkMessages(t, c, "CommandComplete COMMIT", "ReadyForQuery I")
	checkSources(t, b, 1, 1)
	c.send(&pgproto3.Execute{Portal: "p", MaxRows: 1}, &pgproto3.Sync{})
	checkMessages(t, c, `ErrorResponse ERROR 34000 portal "p" does not exist`, "ReadyForQuery I")

	c.send(&pgproto3.Query{String: "begin"})
	c.until()
	c.send(&pgproto3.Bind{PreparedStatement: "s"}, &pgproto3.Execute{MaxRows: 1},
		&pgproto3.Bind{PreparedStatement: "s"}, &pgproto3.Execute{MaxRows: 1},
		&pgproto3.Bind{PreparedStatement: "s", DestinationPortal: "q"}, &pgproto3.Execute{Portal: "q", MaxRows: 1}, &pgproto3.Sync{})
	checkMessages(t, c, "BindComplete", `DataRow "0"`, "PortalSuspended",
		"BindComplete", `DataRow "0"`, "PortalSuspended",
		"BindComplete", `DataRow "0"`, "PortalSuspended", "ReadyForQuery T")
	checkSources(t, b, 4, 2) // the first unnamed portal was replaced
	c.send(&pgproto3.Terminate{})
	c.expectClosed()
	deadline := time.Now().Add(5 * time.Second)
	for b.closed.Load() != 4 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	checkSources(t, b, 4, 4)
}

// TestPortalCloseStatement: closing a statement closes its portals and
// their rows.
func TestPortalCloseStatement(t *testing.T) {
	b, addr := startLazyServer(t)
	c := connect(t, addr)
	c.send(&pgproto3.Query{String: "begin"})
	c.until()
	c.send(&pgproto3.Parse{Name: "s", Query: "series 10"}, &pgproto3.Bind{PreparedStatement: "s", DestinationPortal: "p"},
		&pgproto3.Execute{Portal: "p", MaxRows: 1}, &pgproto3.Close{ObjectType: 'S', Name: "s"}, &pgproto3.Sync{})
	checkMessages(t, c, "ParseComplete", "BindComplete", `DataRow "0"`, "PortalSuspended", "CloseComplete", "ReadyForQuery T")
	checkSources(t, b, 1, 1)
	if got := fmt.Sprint(b.read.Load()); got != "1" {
		t.Fatalf("%s rows read", got)
	}
}
