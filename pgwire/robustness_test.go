package pgwire

import (
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// sendCancel sends a CancelRequest for key on a new connection and waits
// for the server to close it.
func sendCancel(t *testing.T, addr string, pid uint32, secret []byte) {
	t.Helper()
	c := dial(t, addr)
	c.send(&pgproto3.CancelRequest{ProcessID: pid, SecretKey: secret})
	var b [1]byte
	if n, err := c.nc.Read(b[:]); n != 0 || err == nil {
		t.Fatalf("cancel connection: read %d bytes, %v; want it closed", n, err)
	}
}

func TestCancelRequestCancelsRunningStatement(t *testing.T) {
	ts := startServer(t, Options{})
	ts.fake.running = make(chan struct{}, 1)
	ts.fake.ended = make(chan struct{}, 1)
	c := connect(t, ts.addr)
	other := connect(t, ts.addr)

	c.send(&pgproto3.Query{String: "sleep"})
	<-ts.fake.running
	// A wrong secret, or another connection's key, cancels nothing.
	sendCancel(t, ts.addr, c.key.ProcessID, []byte{0, 0, 0, 0})
	sendCancel(t, ts.addr, other.key.ProcessID, other.key.SecretKey)
	select {
	case <-ts.fake.ended:
		t.Fatal("a cancel with the wrong key ended the statement")
	case <-time.After(100 * time.Millisecond):
	}
	sendCancel(t, ts.addr, c.key.ProcessID, c.key.SecretKey)
	<-ts.fake.ended
	checkMessages(t, c, "RowDescription x:23/0", "ErrorResponse ERROR 57014 canceling statement due to user request", "ReadyForQuery I")
	// The connection goes on, and the other one was untouched.
	for _, cl := range []*client{c, other} {
		cl.send(&pgproto3.Query{String: "SELECT 5"})
		checkMessages(t, cl, "RowDescription ?column?:23/0", `DataRow "5"`, "CommandComplete SELECT 1", "ReadyForQuery I")
	}
}

func TestCancelInExtendedProtocol(t *testing.T) {
	ts := startServer(t, Options{})
	ts.fake.running = make(chan struct{}, 1)
	c := connect(t, ts.addr)
	c.send(&pgproto3.Parse{Query: "sleep"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	<-ts.fake.running
	sendCancel(t, ts.addr, c.key.ProcessID, c.key.SecretKey)
	checkMessages(t, c, "ParseComplete", "BindComplete", "ErrorResponse ERROR 57014 canceling statement due to user request", "ReadyForQuery I")
}

func TestPanicClosesOnlyItsConnection(t *testing.T) {
	ts := startServer(t, Options{})
	c := connect(t, ts.addr)
	other := connect(t, ts.addr)
	c.send(&pgproto3.Query{String: "boom"})
	e := c.expectError()
	if e.Code != "XX000" || e.Severity != "FATAL" || !strings.Contains(e.Message, "boom") {
		t.Fatalf("got %s %s %q, want FATAL XX000 about boom", e.Severity, e.Code, e.Message)
	}
	c.expectClosed()
	other.send(&pgproto3.Query{String: "SELECT 1"})
	checkMessages(t, other, "RowDescription ?column?:23/0", `DataRow "1"`, "CommandComplete SELECT 1", "ReadyForQuery I")
}

func TestOversizedMessageClosesConnection(t *testing.T) {
	ts := startServer(t, Options{MaxMessageSize: 1024})
	c := connect(t, ts.addr)
	c.send(&pgproto3.Query{String: "SELECT " + strings.Repeat("1,", 1000) + "1"})
	if e := c.expectError(); e.Code != "08P01" || e.Severity != "FATAL" || !strings.Contains(e.Message, "exceeds the maximum of 1024") {
		t.Fatalf("got %s %s %q", e.Severity, e.Code, e.Message)
	}
	c.expectClosed()
}

func TestMalformedMessagesCloseOnlyTheirConnection(t *testing.T) {
	ts := startServer(t, Options{})
	other := connect(t, ts.addr)
	for name, raw := range map[string][]byte{
		"unknown type":   {'z', 0, 0, 0, 4},
		"bad length":     {'Q', 0, 0, 0, 1},
		"truncated bind": {'B', 0, 0, 0, 6, 0, 0},
		"password":       {'p', 0, 0, 0, 5, 0},
	} {
		c := connect(t, ts.addr)
		c.nc.Write(raw)
		if e := c.expectError(); e.Code != "08P01" || e.Severity != "FATAL" {
			t.Errorf("%s: got %s %s %q", name, e.Severity, e.Code, e.Message)
		}
		c.expectClosed()
	}
	other.send(&pgproto3.Query{String: "SELECT 1"})
	checkMessages(t, other, "RowDescription ?column?:23/0", `DataRow "1"`, "CommandComplete SELECT 1", "ReadyForQuery I")
}

func TestTerminateEndsSession(t *testing.T) {
	ts := startServer(t, Options{})
	c := connect(t, ts.addr)
	c.send(&pgproto3.Terminate{})
	c.expectClosed()
	waitFor(t, func() bool { return ts.fake.closed.Load() == 1 })
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
	}
}

func TestMaxConnections(t *testing.T) {
	ts := startServer(t, Options{MaxConnections: 2})
	a := connect(t, ts.addr)
	connect(t, ts.addr)
	c := dial(t, ts.addr)
	rawStartup(c, 3<<16, "user", "u")
	if e := c.expectError(); e.Code != "53300" || e.Severity != "FATAL" || !strings.Contains(e.Message, "too many connections") {
		t.Fatalf("got %s %s %q, want FATAL 53300", e.Severity, e.Code, e.Message)
	}
	c.expectClosed()
	// Cancel requests are served even at the limit.
	sendCancel(t, ts.addr, a.key.ProcessID, a.key.SecretKey)
	a.send(&pgproto3.Terminate{})
	a.expectClosed()
	waitFor(t, func() bool { return ts.fake.closed.Load() == 1 })
	// The slot is given back when the connection's goroutine ends, just
	// after its session closes.
	waitFor(t, func() bool {
		ts.mu.Lock()
		defer ts.mu.Unlock()
		return ts.sessions == 1
	})
	connect(t, ts.addr)
}

func TestCloseTerminatesConnections(t *testing.T) {
	ts := startServer(t, Options{})
	ts.fake.running = make(chan struct{}, 1)
	busy := connect(t, ts.addr)
	idle := connect(t, ts.addr)
	starting := dial(t, ts.addr) // accepted, no startup yet
	busy.send(&pgproto3.Query{String: "sleep"})
	<-ts.fake.running
	done := make(chan struct{})
	go func() { ts.Close(); close(done) }()
	for _, c := range []*client{busy, idle} {
		for {
			m := c.recv()
			if isRowDescription(m) {
				continue
			}
			e, ok := m.(*pgproto3.ErrorResponse)
			if !ok || e.Code != "57P01" || e.Severity != "FATAL" {
				t.Fatalf("got %s, want FATAL 57P01", summary(m))
			}
			break
		}
		c.expectClosed()
	}
	var b [1]byte
	if n, _ := starting.nc.Read(b[:]); n != 0 {
		t.Fatal("a starting connection got data at Close")
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return")
	}
	if _, err := net.Dial("tcp", ts.addr); err == nil {
		t.Fatal("server still accepts after Close")
	}
	if err := ts.Serve(mustListen(t)); err != ErrServerClosed {
		t.Fatalf("Serve after Close = %v", err)
	}
}

func mustListen(t *testing.T) net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

func isRowDescription(m pgproto3.BackendMessage) bool {
	_, ok := m.(*pgproto3.RowDescription)
	return ok
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestConnectionErrorsAreLoggedAtDebug(t *testing.T) {
	var logs syncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ts := startServer(t, Options{Logger: logger})
	c := connect(t, ts.addr)
	c.nc.Write([]byte{'Q', 0, 0, 0, 100, 'S'}) // then vanish mid-message
	c.nc.Close()
	waitFor(t, func() bool { return ts.fake.closed.Load() == 1 })
	if out := logs.String(); !strings.Contains(out, "level=DEBUG") || !strings.Contains(out, "reading from client") ||
		!strings.Contains(out, "unexpected EOF") {
		t.Fatalf("log = %q, want a debug line about the broken read", out)
	}
}
