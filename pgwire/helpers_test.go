package pgwire

import (
	"errors"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testServer is a Server on a loopback port with a fakeBackend.
type testServer struct {
	*Server
	fake *fakeBackend
	addr string
}

func startServer(t testing.TB, opts Options) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fake := &fakeBackend{}
	srv := NewServer(fake, opts)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		srv.Close()
		if err := <-done; !errors.Is(err, ErrServerClosed) {
			t.Errorf("Serve returned %v, want ErrServerClosed", err)
		}
		if o, c := fake.opened.Load(), fake.closed.Load(); o != c {
			t.Errorf("sessions: %d opened, %d closed", o, c)
		}
	})
	return &testServer{Server: srv, fake: fake, addr: ln.Addr().String()}
}

// client is a raw protocol client.
type client struct {
	t      testing.TB
	nc     net.Conn
	fe     *pgproto3.Frontend
	params map[string]string
	key    *pgproto3.BackendKeyData
}

// dial connects without starting up.
func dial(t testing.TB, addr string) *client {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	return &client{t: t, nc: nc, fe: pgproto3.NewFrontend(nc, nc), params: map[string]string{}}
}

// connect dials and completes a startup as user u on database d.
func connect(t testing.TB, addr string) *client {
	t.Helper()
	c := dial(t, addr)
	c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30,
		Parameters: map[string]string{"user": "u", "database": "d", "application_name": "pgwire-test"}})
	c.readStartup()
	return c
}

// readStartup reads through the first ReadyForQuery, keeping the
// parameters and key; it fails on an ErrorResponse.
func (c *client) readStartup() {
	c.t.Helper()
	for {
		switch m := c.recv().(type) {
		case *pgproto3.ParameterStatus:
			c.params[m.Name] = m.Value
		case *pgproto3.BackendKeyData:
			c.key = &pgproto3.BackendKeyData{ProcessID: m.ProcessID, SecretKey: append([]byte(nil), m.SecretKey...)}
		case *pgproto3.ReadyForQuery:
			return
		case *pgproto3.ErrorResponse:
			c.t.Fatalf("startup failed: %s %s", m.Code, m.Message)
		}
	}
}

func (c *client) send(msgs ...pgproto3.FrontendMessage) {
	c.t.Helper()
	for _, m := range msgs {
		c.fe.Send(m)
	}
	if err := c.fe.Flush(); err != nil {
		c.t.Fatal(err)
	}
}

func (c *client) recv() pgproto3.BackendMessage {
	c.t.Helper()
	m, err := c.fe.Receive()
	if err != nil {
		c.t.Fatalf("receive: %v", err)
	}
	return m
}

// until collects messages (copies of their summaries) through the next
// ReadyForQuery.
func (c *client) until() []string {
	c.t.Helper()
	var out []string
	for {
		m := c.recv()
		out = append(out, summary(m))
		if _, ok := m.(*pgproto3.ReadyForQuery); ok {
			return out
		}
	}
}

// expectError reads an ErrorResponse and returns a copy.
func (c *client) expectError() pgproto3.ErrorResponse {
	c.t.Helper()
	m := c.recv()
	if _, ok := m.(*pgproto3.AuthenticationOk); ok {
		m = c.recv() // a session refused after authentication
	}
	e, ok := m.(*pgproto3.ErrorResponse)
	if !ok {
		c.t.Fatalf("got %s, want ErrorResponse", summary(m))
	}
	return *e
}

// expectClosed checks that the server closes the connection.
func (c *client) expectClosed() {
	c.t.Helper()
	if m, err := c.fe.Receive(); err == nil {
		c.t.Fatalf("got %s, want the connection closed", summary(m))
	}
}
