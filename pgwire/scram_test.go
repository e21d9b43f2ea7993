package pgwire

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/lib/pq"
	"github.com/streamdb/streamdb/internal/pgerr"
)

const scramTestPassword = "s3cret pässword"

// TestSCRAMExchangeRFC7677 runs the server side of the exchange of RFC
// 7677 §3 (user "user", password "pencil") and checks every message.
func TestSCRAMExchangeRFC7677(t *testing.T) {
	salt, _ := base64.StdEncoding.DecodeString("W22ZaJ0SNY7soEsUEjb6gQ==")
	v, err := scramVerifierFor("pencil", salt, 4096)
	if err != nil {
		t.Fatal(err)
	}
	ex := &scramExchange{v: v, user: "user", serverNonce: "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"}
	first, err := ex.clientFirst("n,,n=user,r=rOprNGfwEbeRWgbNEkqO")
	if err != nil {
		t.Fatal(err)
	}
	if want := "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"; first != want {
		t.Fatalf("server-first-message %q, want %q", first, want)
	}
	final, err := ex.clientFinal("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
	if err != nil {
		t.Fatal(err)
	}
	if want := "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="; final != want {
		t.Fatalf("server-final-message %q, want %q", final, want)
	}
}

// TestSCRAMRejectsMalformedMessages checks the errors of bad
// client-first and client-final messages.
func TestSCRAMRejectsMalformedMessages(t *testing.T) {
	v, err := scramVerifierFor("pencil", []byte("salt"), 4096)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ first, final, code string }{
		{first: "", code: pgerr.ProtocolViolation},
		{first: "p=tls-server-end-point,,n=,r=abc", code: pgerr.ProtocolViolation},
		{first: "n,a=admin,n=,r=abc", code: pgerr.FeatureNotSupported},
		{first: "n,,m=ext,n=,r=abc", code: pgerr.FeatureNotSupported},
		{first: "n,,n=,r=", code: pgerr.ProtocolViolation},
		{first: "n,,r=abc", code: pgerr.ProtocolViolation},
		{first: "n,,n=,r=abc", final: "c=biws,r=abcS", code: pgerr.ProtocolViolation},
		{first: "n,,n=,r=abc", final: "c=biws,r=abcS,p=!!", code: pgerr.ProtocolViolation},
		{first: "n,,n=,r=abc", final: "c=eSws,r=abcS,p=" + strings.Repeat("A", 43) + "=", code: pgerr.ProtocolViolation},
		{first: "n,,n=,r=abc", final: "c=biws,r=abcX,p=" + strings.Repeat("A", 43) + "=", code: pgerr.ProtocolViolation},
		{first: "n,,n=,r=abc", final: "c=biws,r=abcS,p=" + strings.Repeat("A", 43) + "=", code: codeInvalidPass},
	} {
		ex := &scramExchange{v: v, user: "u", serverNonce: "S"}
		_, err := ex.clientFirst(tc.first)
		if err == nil {
			_, err = ex.clientFinal(tc.final)
		}
		if got := pgerr.Code(err); got != tc.code {
			t.Errorf("first %q final %q: %v (%s), want %s", tc.first, tc.final, err, got, tc.code)
		}
	}
}

func scramURL(ts *testServer, user, password string) string {
	return fmt.Sprintf("postgres://%s:%s@%s/d?sslmode=disable", user, password, ts.addr)
}

func TestSCRAMPgx(t *testing.T) {
	ts := startServer(t, Options{Password: scramTestPassword})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg, err := pgx.ParseConfig(scramURL(ts, "u", "x"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Password = scramTestPassword
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("correct password: %v", err)
	}
	var n int32
	if err := conn.QueryRow(ctx, "SELECT 7").Scan(&n); err != nil || n != 7 {
		t.Fatalf("SELECT 7 = %d, %v", n, err)
	}
	conn.Close(ctx)

	for _, pw := range []string{"wrong", "", scramTestPassword + " "} {
		cfg.Password = pw
		_, err = pgx.ConnectConfig(ctx, cfg)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "28P01" || pgErr.Severity != "FATAL" ||
			pgErr.Message != `password authentication failed for user "u"` {
			t.Fatalf("password %q: %v, want FATAL 28P01", pw, err)
		}
	}
}

func TestSCRAMLibPQ(t *testing.T) {
	ts := startServer(t, Options{Password: scramTestPassword})
	host, port, _ := strings.Cut(ts.addr, ":")
	open := func(pw string) *sql.DB {
		db, err := sql.Open("postgres", fmt.Sprintf("host=%s port=%s user=alice dbname=d sslmode=disable password='%s'", host, port, pw))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	var n int64
	if err := open(scramTestPassword).QueryRow("SELECT $1::int8", 42).Scan(&n); err != nil || n != 42 {
		t.Fatalf("correct password: %d, %v", n, err)
	}
	err := open("nope").Ping()
	var pqErr *pq.Error
	if !errors.As(err, &pqErr) || pqErr.Code != "28P01" || pqErr.Message != `password authentication failed for user "alice"` {
		t.Fatalf("wrong password: %v, want 28P01", err)
	}
}

func TestSCRAMPsql(t *testing.T) {
	const psql = "/usr/bin/psql"
	if _, err := os.Stat(psql); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("psql is required in CI: %v", err)
		}
		t.Skipf("skipping: %s not found (%v)", psql, err)
	}
	ts := startServer(t, Options{Password: scramTestPassword})
	host, port, _ := strings.Cut(ts.addr, ":")
	run := func(password string) (string, string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, psql, "-X", "-w", "-At", "-h", host, "-p", port, "-U", "bob", "-d", "d", "-c", "SELECT 1, 2")
		cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=10", "PGPASSWORD="+password,
			"PGSERVICEFILE=/nonexistent", "PGPASSFILE=/nonexistent", "PGSSLMODE=disable")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}
	out, errOut, err := run(scramTestPassword)
	if err != nil || out != "1|2\n" {
		t.Fatalf("correct password: %v, stdout %q, stderr %q", err, out, errOut)
	}
	_, errOut, err = run("bad")
	if err == nil || !strings.Contains(errOut, `FATAL:  password authentication failed for user "bob"`) {
		t.Fatalf("wrong password: %v, stderr %q", err, errOut)
	}
}

// TestSCRAMRawProtocol drives the exchange by hand: the mechanisms
// offered, a wrong mechanism, and a message that is not a SASL response.
func TestSCRAMRawProtocol(t *testing.T) {
	ts := startServer(t, Options{Password: "pw"})
	start := func() *client {
		c := dial(t, ts.addr)
		c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "u"}})
		m, ok := c.recv().(*pgproto3.AuthenticationSASL)
		if !ok || len(m.AuthMechanisms) != 1 || m.AuthMechanisms[0] != "SCRAM-SHA-256" {
			t.Fatalf("got %+v, want AuthenticationSASL [SCRAM-SHA-256]", m)
		}
		return c
	}
	c := start()
	c.send(&pgproto3.SASLInitialResponse{AuthMechanism: "SCRAM-SHA-256-PLUS", Data: []byte("p=tls-server-end-point,,n=,r=x")})
	if e := c.expectError(); e.Code != pgerr.ProtocolViolation || e.Severity != "FATAL" {
		t.Fatalf("wrong mechanism: %+v", e)
	}
	c.expectClosed()

	c = start()
	c.send(&pgproto3.Query{String: "SELECT 1"})
	if e := c.expectError(); e.Code != pgerr.ProtocolViolation {
		t.Fatalf("query during authentication: %+v", e)
	}
	c.expectClosed()

	// A client that goes away mid-exchange leaves nothing behind.
	c = start()
	c.send(&pgproto3.SASLInitialResponse{AuthMechanism: "SCRAM-SHA-256", Data: []byte("n,,n=,r=abc")})
	if _, ok := c.recv().(*pgproto3.AuthenticationSASLContinue); !ok {
		t.Fatal("want AuthenticationSASLContinue")
	}
	c.nc.Close()
	for deadline := time.Now().Add(5 * time.Second); ts.liveConns() > 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the connection did not end after its client went away")
		}
	}
}

// FuzzSCRAMExchange feeds arbitrary client messages to the server side of
// the exchange: it must never panic, and never accept a proof it cannot
// have checked.
func FuzzSCRAMExchange(f *testing.F) {
	f.Add("n,,n=user,r=rOprNGfwEbeRWgbNEkqO", "c=biws,r=rOprNGfwEbeRWgbNEkqOS,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
	f.Add("y,,n=,r=a,ext=1", "c=eSws,r=aS,x=y,p=")
	f.Add("p=x,,", ",p=,p=")
	v, err := scramVerifierFor("pencil", []byte("salt"), 1)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, first, final string) {
		ex := &scramExchange{v: v, user: "u", serverNonce: "S"}
		if _, err := ex.clientFirst(first); err != nil {
			return
		}
		if _, err := ex.clientFinal(final); err == nil {
			t.Fatalf("accepted %q then %q", first, final)
		}
	})
}
