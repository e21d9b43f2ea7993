package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// syncBuffer is a bytes.Buffer safe for the server's logger and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
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

// TestServeLoopbackRule checks that serve without a password refuses a
// non-loopback address and explains how to set one.
func TestServeLoopbackRule(t *testing.T) {
	t.Setenv(passwordEnv, "")
	for _, addr := range []string{"0.0.0.0:0", ":0"} {
		var out syncBuffer
		code := run([]string{"serve", "--listen", addr, "--data-dir", ":memory:"}, &out, &out)
		msg := out.String()
		if code != 1 || !strings.Contains(msg, "refusing to listen on "+addr) ||
			!strings.Contains(msg, "--password") || !strings.Contains(msg, passwordEnv) ||
			!strings.Contains(msg, "trust") {
			t.Errorf("serve --listen %s without a password: exit %d, output %q", addr, code, msg)
		}
	}
}

// startServe runs serve until the test ends and returns the address it
// listens on and its log.
func startServe(t *testing.T, args ...string) (string, *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	errc := make(chan error, 1)
	go func() { errc <- serve(ctx, append([]string{"--data-dir", ":memory:"}, args...), &out, &out) }()
	t.Cleanup(func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	re := regexp.MustCompile(`streamdb serving" addr=(\S+)`)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			return m[1], &out
		}
		select {
		case err := <-errc:
			errc <- err
			t.Fatalf("serve ended: %v\n%s", err, out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start:\n%s", out.String())
		}
	}
}

func TestServeLoopbackTrust(t *testing.T) {
	t.Setenv(passwordEnv, "")
	addr, log := startServe(t, "--listen", "localhost:0")
	if !strings.Contains(log.String(), "authentication is off (trust)") || !strings.Contains(log.String(), "loopback only") {
		t.Errorf("start log does not say authentication is off:\n%s", log)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://anyone@%s/d?sslmode=disable", addr))
	if err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
}

func TestServeAuthPasswordFromEnv(t *testing.T) {
	t.Setenv(passwordEnv, "from-env")
	addr, log := startServe(t, "--listen", "0.0.0.0:0")
	if !strings.Contains(log.String(), "SCRAM-SHA-256") {
		t.Errorf("start log does not name the authentication:\n%s", log)
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://u:from-env@127.0.0.1:%s/d?sslmode=disable", port))
	if err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	_, err = pgx.Connect(ctx, fmt.Sprintf("postgres://u:wrong@127.0.0.1:%s/d?sslmode=disable", port))
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "28P01" {
		t.Fatalf("wrong password: %v, want 28P01", err)
	}
}

func TestServeAuthPasswordFlag(t *testing.T) {
	t.Setenv(passwordEnv, "")
	addr, _ := startServe(t, "--listen", "127.0.0.1:0", "--password", "flagpw")
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://u:flagpw@%s/d?sslmode=disable", addr))
	if err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	_, err = pgx.Connect(ctx, fmt.Sprintf("postgres://u@%s/d?sslmode=disable", addr))
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "28P01" {
		t.Fatalf("no password: %v, want 28P01", err)
	}
}
