package pgwire

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/streamdb/streamdb/internal/testcert"
)

// testCert returns a self-signed certificate for 127.0.0.1 and localhost,
// and a pool that trusts it.
func testCert(t testing.TB) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	cert, pool, err := testcert.New()
	if err != nil {
		t.Fatal(err)
	}
	return cert, pool
}

// startTLSServer starts a server with a test certificate and returns it
// and the pool that trusts the certificate.
func startTLSServer(t *testing.T, opts Options) (*testServer, *x509.CertPool) {
	t.Helper()
	cert, pool := testCert(t)
	opts.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
	return startServer(t, opts), pool
}

// sslRequest sends an SSLRequest and returns the server's one-byte answer.
func (c *client) sslRequest() byte {
	c.t.Helper()
	c.send(&pgproto3.SSLRequest{})
	var b [1]byte
	if _, err := io.ReadFull(c.nc, b[:]); err != nil {
		c.t.Fatalf("answer to SSLRequest: %v", err)
	}
	return b[0]
}

// dialTLS connects, asks for TLS and completes the handshake.
func dialTLS(t *testing.T, addr string, pool *x509.CertPool) *client {
	t.Helper()
	c := dial(t, addr)
	if b := c.sslRequest(); b != 'S' {
		t.Fatalf("answer to SSLRequest = %q, want 'S'", b)
	}
	tc := tls.Client(c.nc, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})
	if err := tc.Handshake(); err != nil {
		t.Fatalf("TLS handshake: %v", err)
	}
	c.nc, c.fe = tc, pgproto3.NewFrontend(tc, tc)
	return c
}

func TestTLSPgxVerifyFull(t *testing.T) {
	ts, pool := startTLSServer(t, Options{RequireTLS: true})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, mode := range []string{"require", "verify-full"} {
		cfg, err := pgx.ParseConfig(fmt.Sprintf("postgres://u@%s/d?sslmode=%s", ts.addr, mode))
		if err != nil {
			t.Fatal(err)
		}
		if mode == "verify-full" {
			cfg.TLSConfig.RootCAs = pool
		}
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatalf("sslmode=%s: %v", mode, err)
		}
		if _, ok := conn.PgConn().Conn().(*tls.Conn); !ok {
			t.Errorf("sslmode=%s: connection is %T, want *tls.Conn", mode, conn.PgConn().Conn())
		}
		var n int32
		if err := conn.QueryRow(ctx, "SELECT 7").Scan(&n); err != nil || n != 7 {
			t.Errorf("sslmode=%s: SELECT 7 = %d, %v", mode, n, err)
		}
		conn.Close(ctx)
	}
}

func TestTLSVerifyFullRejectsUntrusted(t *testing.T) {
	ts, _ := startTLSServer(t, Options{})
	_, other := testCert(t)
	cfg, err := pgx.ParseConfig(fmt.Sprintf("postgres://u@%s/d?sslmode=verify-full", ts.addr))
	if err != nil {
		t.Fatal(err)
	}
	cfg.TLSConfig.RootCAs = other
	var unknown x509.UnknownAuthorityError
	if _, err := pgx.ConnectConfig(context.Background(), cfg); !errors.As(err, &unknown) {
		t.Fatalf("connect with the wrong root: %v, want x509.UnknownAuthorityError", err)
	}
}

func TestTLSRawSession(t *testing.T) {
	ts, pool := startTLSServer(t, Options{})
	c := dialTLS(t, ts.addr, pool)
	c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "u"}})
	c.readStartup()
	c.send(&pgproto3.Query{String: "SELECT 1"})
	if got := c.until(); got[1] != `DataRow "1"` {
		t.Fatalf("over TLS: %v", got)
	}
}

func TestTLSRequireRefusesPlain(t *testing.T) {
	ts, _ := startTLSServer(t, Options{RequireTLS: true})
	c := dial(t, ts.addr)
	c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "u"}})
	e := c.expectError()
	if e.Code != "28000" || e.Severity != "FATAL" {
		t.Fatalf("plain startup: %s %s %q, want FATAL 28000", e.Severity, e.Code, e.Message)
	}
	c.expectClosed()
	if n := ts.fake.opened.Load(); n != 0 {
		t.Errorf("%d sessions opened, want 0", n)
	}
}

func TestTLSGSSEncStillRefused(t *testing.T) {
	ts, pool := startTLSServer(t, Options{})
	c := dial(t, ts.addr)
	c.send(&pgproto3.GSSEncRequest{})
	var b [1]byte
	if _, err := io.ReadFull(c.nc, b[:]); err != nil || b[0] != 'N' {
		t.Fatalf("answer to GSSENCRequest = %q, %v; want 'N'", b[0], err)
	}
	if b := c.sslRequest(); b != 'S' {
		t.Fatalf("SSLRequest after GSSENCRequest = %q, want 'S'", b)
	}
	tc := tls.Client(c.nc, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})
	if err := tc.Handshake(); err != nil {
		t.Fatalf("TLS handshake: %v", err)
	}
}

// TestTLSDuplicateRequest checks that a second SSLRequest, refused or
// over TLS, ends the connection with FATAL 08P01.
func TestTLSDuplicateRequest(t *testing.T) {
	plain := startServer(t, Options{})
	c := dial(t, plain.addr)
	if b := c.sslRequest(); b != 'N' {
		t.Fatalf("without a TLSConfig: answer %q, want 'N'", b)
	}
	c.send(&pgproto3.SSLRequest{})
	if e := c.expectError(); e.Code != "08P01" || e.Severity != "FATAL" {
		t.Fatalf("second SSLRequest: %s %s %q, want FATAL 08P01", e.Severity, e.Code, e.Message)
	}
	c.expectClosed()

	ts, pool := startTLSServer(t, Options{})
	c = dialTLS(t, ts.addr, pool)
	c.send(&pgproto3.SSLRequest{})
	if e := c.expectError(); e.Code != "08P01" || e.Severity != "FATAL" {
		t.Fatalf("SSLRequest over TLS: %s %s %q, want FATAL 08P01", e.Severity, e.Code, e.Message)
	}
	c.expectClosed()
	connect(t, plain.addr)
	dialTLS(t, ts.addr, pool)
}

// TestTLSBadHandshake sends garbage, then a TLS 1.1-only hello, after 'S':
// each connection closes and the server goes on serving.
func TestTLSBadHandshake(t *testing.T) {
	ts, pool := startTLSServer(t, Options{})
	c := dial(t, ts.addr)
	if b := c.sslRequest(); b != 'S' {
		t.Fatalf("answer %q, want 'S'", b)
	}
	if _, err := c.nc.Write([]byte("GET / HTTP/1.0\r\n\r\n" + string(make([]byte, 300)))); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(c.nc); err != nil {
		t.Fatalf("after garbage: %v, want the connection closed", err)
	}

	c = dial(t, ts.addr)
	if b := c.sslRequest(); b != 'S' {
		t.Fatalf("answer %q, want 'S'", b)
	}
	old := tls.Client(c.nc, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MaxVersion: tls.VersionTLS11})
	if err := old.Handshake(); err == nil {
		t.Fatal("TLS 1.1 handshake succeeded, want it refused")
	}
	dialTLS(t, ts.addr, pool)
}

// TestTLSUnencryptedDataAfterRequest checks the defence against buffer
// stuffing: bytes sent with the SSLRequest, before the answer, are refused.
func TestTLSUnencryptedDataAfterRequest(t *testing.T) {
	ts, _ := startTLSServer(t, Options{})
	c := dial(t, ts.addr)
	c.fe.Send(&pgproto3.SSLRequest{})
	c.fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "u"}})
	if err := c.fe.Flush(); err != nil {
		t.Fatal(err)
	}
	if e := c.expectError(); e.Code != "08P01" || e.Severity != "FATAL" {
		t.Fatalf("got %s %s %q, want FATAL 08P01", e.Severity, e.Code, e.Message)
	}
	c.expectClosed()
}

func TestTLSOptionsValidate(t *testing.T) {
	cert, _ := testCert(t)
	for _, tc := range []struct {
		opts Options
		want error
	}{
		{Options{RequireTLS: true}, ErrRequireTLSWithoutConfig},
		{Options{TLSConfig: &tls.Config{}}, ErrTLSWithoutCertificate},
		{Options{TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}}, RequireTLS: true}, nil},
	} {
		if err := tc.opts.Validate(); !errors.Is(err, tc.want) {
			t.Errorf("Validate(%+v) = %v, want %v", tc.opts, err, tc.want)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(&fakeBackend{}, Options{RequireTLS: true})
	if err := srv.Serve(ln); !errors.Is(err, ErrRequireTLSWithoutConfig) {
		t.Fatalf("Serve = %v, want ErrRequireTLSWithoutConfig", err)
	}
	srv.Close()
	if got := (Options{TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}}}).EnsureDefaults(); got.TLSConfig.MinVersion != tls.VersionTLS12 {
		t.Errorf("MinVersion = %x, want TLS 1.2", got.TLSConfig.MinVersion)
	}
}
