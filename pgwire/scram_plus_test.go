package pgwire

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"errors"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// scramClient computes a client's side of an exchange: the
// client-final-message for password, given the gs2 header and channel
// binding data it sends in c=.
func scramClientFinal(t *testing.T, password, clientBare, serverFirst, cbind string) string {
	t.Helper()
	var nonce, salt string
	var iters int
	for _, a := range strings.Split(serverFirst, ",") {
		switch {
		case strings.HasPrefix(a, "r="):
			nonce = a[2:]
		case strings.HasPrefix(a, "s="):
			salt = a[2:]
		case strings.HasPrefix(a, "i="):
			fmt.Sscan(a[2:], &iters)
		}
	}
	rawSalt, err := base64.StdEncoding.DecodeString(salt)
	if err != nil {
		t.Fatal(err)
	}
	salted, err := pbkdf2.Key(sha256.New, password, rawSalt, iters, sha256.Size)
	if err != nil {
		t.Fatal(err)
	}
	mac := func(key []byte, msg string) []byte {
		h := hmac.New(sha256.New, key)
		h.Write([]byte(msg))
		return h.Sum(nil)
	}
	clientKey := mac(salted, "Client Key")
	stored := sha256.Sum256(clientKey)
	withoutProof := "c=" + base64.StdEncoding.EncodeToString([]byte(cbind)) + ",r=" + nonce
	sig := mac(stored[:], clientBare+","+serverFirst+","+withoutProof)
	subtle.XORBytes(sig, sig, clientKey)
	return withoutProof + ",p=" + base64.StdEncoding.EncodeToString(sig)
}

// TestSCRAMPlusExchange: with SCRAM-SHA-256-PLUS the proof passes only
// with the channel's binding data in c=; a client that binds to another
// certificate (a man in the middle) fails; the flags that do not match
// the mechanism are refused with PostgreSQL's messages.
func TestSCRAMPlusExchange(t *testing.T) {
	v, err := scramVerifierFor("pencil", []byte("salt"), 4096)
	if err != nil {
		t.Fatal(err)
	}
	hash := bytes.Repeat([]byte{0xab}, 32)
	const bare = "n=,r=abc"
	const header = "p=tls-server-end-point,,"
	run := func(plus bool, first, cbind string) (string, error) {
		ex := &scramExchange{v: v, user: "u", serverNonce: "S", certHash: hash, plus: plus}
		serverFirst, err := ex.clientFirst(first)
		if err != nil {
			return "", err
		}
		return ex.clientFinal(scramClientFinal(t, "pencil", bare, serverFirst, cbind))
	}
	if _, err := run(true, header+bare, header+string(hash)); err != nil {
		t.Fatalf("bound to the channel's certificate: %v", err)
	}
	other := bytes.Repeat([]byte{0xcd}, 32)
	if _, err := run(true, header+bare, header+string(other)); pgerr.Code(err) != pgerr.ProtocolViolation ||
		!strings.Contains(err.Error(), "channel binding check failed") {
		t.Fatalf("bound to another certificate: %v, want the binding check to fail", err)
	}
	if _, err := run(true, header+bare, header); pgerr.Code(err) != pgerr.ProtocolViolation {
		t.Fatalf("PLUS without the binding data: %v", err)
	}
	// Without -PLUS over TLS, "n" binds nothing and passes.
	if _, err := run(false, "n,,"+bare, "n,,"); err != nil {
		t.Fatalf("SCRAM-SHA-256 with n over TLS: %v", err)
	}
	for _, tc := range []struct {
		plus   bool
		first  string
		detail string
	}{
		{true, "n,," + bare, "does not include channel binding data"},
		{true, "y,," + bare, "does not include channel binding data"},
		{false, "y,," + bare, "thinks the server does not"},
		{false, header + bare, "includes channel binding data"},
		{true, "p=tls-unique,," + bare, `Unsupported SCRAM channel-binding type "tls-unique"`},
		{true, "p=tls-server-end-point", "Comma expected"},
	} {
		ex := &scramExchange{v: v, user: "u", serverNonce: "S", certHash: hash, plus: tc.plus}
		_, err := ex.clientFirst(tc.first)
		var e *pgerr.Error
		if !errors.As(err, &e) || e.Code != pgerr.ProtocolViolation || !strings.Contains(e.Message+" "+e.Detail, tc.detail) {
			t.Errorf("plus %v, first %q: %v, want 08P01 with %q", tc.plus, tc.first, err, tc.detail)
		}
	}
	// Without TLS (no binding data), "y" is right and passes.
	ex := &scramExchange{v: v, user: "u", serverNonce: "S"}
	serverFirst, err := ex.clientFirst("y,," + bare)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ex.clientFinal(scramClientFinal(t, "pencil", bare, serverFirst, "y,,")); err != nil {
		t.Fatalf("y without TLS: %v", err)
	}
}

// TestEndPointHash: the binding data is the SHA-256 of the certificate's
// DER form for a SHA-256 signature, and undefined (no -PLUS) for Ed25519.
func TestEndPointHash(t *testing.T) {
	cert, _ := testCert(t)
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	want := sha256.Sum256(leaf.Raw)
	if got := endPointHash(&cert); !bytes.Equal(got, want[:]) {
		t.Fatalf("hash of a %v certificate: %x, want %x", leaf.SignatureAlgorithm, got, want)
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "x"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, priv)
	if err != nil {
		t.Fatal(err)
	}
	if got := endPointHash(&tls.Certificate{Certificate: [][]byte{der}}); got != nil {
		t.Fatalf("hash of an Ed25519 certificate: %x, want none", got)
	}
	if endPointHash(nil) != nil {
		t.Fatal("hash of no certificate")
	}
}

// TestSCRAMPlusPgx: over TLS the server offers SCRAM-SHA-256-PLUS first,
// and pgx with channel_binding=require authenticates with it; with
// channel_binding=disable it uses SCRAM-SHA-256; without TLS no -PLUS is
// offered, so channel_binding=require fails on the client's side.
func TestSCRAMPlusPgx(t *testing.T) {
	cert, pool := testCert(t)
	ts := startServer(t, Options{Password: scramTestPassword, TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	connect := func(params string) error {
		cfg, err := pgx.ParseConfig(fmt.Sprintf("postgres://u@%s/d?%s", ts.addr, params))
		if err != nil {
			t.Fatal(err)
		}
		if cfg.TLSConfig != nil {
			cfg.TLSConfig.RootCAs = pool
		}
		cfg.Password = scramTestPassword
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		var n int32
		if err := conn.QueryRow(ctx, "SELECT 7").Scan(&n); err != nil || n != 7 {
			t.Fatalf("%s: SELECT 7 = %d, %v", params, n, err)
		}
		return nil
	}
	for _, params := range []string{
		"sslmode=verify-full&channel_binding=require",
		"sslmode=require&channel_binding=prefer",
		"sslmode=require&channel_binding=disable",
	} {
		if err := connect(params); err != nil {
			t.Errorf("%s: %v", params, err)
		}
	}
	if err := connect("sslmode=disable&channel_binding=require"); err == nil ||
		!strings.Contains(err.Error(), "channel binding required") {
		t.Errorf("channel_binding=require without TLS: %v, want the client to refuse", err)
	}
	cfg, err := pgx.ParseConfig(fmt.Sprintf("postgres://u@%s/d?sslmode=require&channel_binding=require", ts.addr))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Password = "wrong"
	_, err = pgx.ConnectConfig(ctx, cfg)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "28P01" {
		t.Fatalf("wrong password with channel binding: %v, want 28P01", err)
	}
}

// TestSCRAMPlusRawProtocol: the mechanisms offered over TLS, and a
// client that binds to another certificate's hash.
func TestSCRAMPlusRawProtocol(t *testing.T) {
	cert, pool := testCert(t)
	ts := startServer(t, Options{Password: "pw", TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}}})
	c := dialTLS(t, ts.addr, pool)
	c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "u"}})
	m, ok := c.recv().(*pgproto3.AuthenticationSASL)
	if !ok || strings.Join(m.AuthMechanisms, " ") != "SCRAM-SHA-256-PLUS SCRAM-SHA-256" {
		t.Fatalf("got %+v, want AuthenticationSASL [SCRAM-SHA-256-PLUS SCRAM-SHA-256]", m)
	}
	const bare = "n=,r=abc"
	const header = "p=tls-server-end-point,,"
	c.send(&pgproto3.SASLInitialResponse{AuthMechanism: "SCRAM-SHA-256-PLUS", Data: []byte(header + bare)})
	cont, ok := c.recv().(*pgproto3.AuthenticationSASLContinue)
	if !ok {
		t.Fatal("want AuthenticationSASLContinue")
	}
	// The right password, bound to a certificate the client saw from a
	// man in the middle: the binding check fails.
	wrong := sha256.Sum256([]byte("another certificate"))
	c.send(&pgproto3.SASLResponse{Data: []byte(scramClientFinal(t, "pw", bare, string(cont.Data), header+string(wrong[:])))})
	if e := c.expectError(); e.Code != pgerr.ProtocolViolation || !strings.Contains(e.Message, "channel binding check failed") {
		t.Fatalf("bound to another certificate: %+v", e)
	}
	c.expectClosed()
}

// TestSCRAMPlusPsql: psql 15 with channel_binding=require over TLS.
func TestSCRAMPlusPsql(t *testing.T) {
	const psql = "/usr/bin/psql"
	if _, err := os.Stat(psql); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("psql is required in CI: %v", err)
		}
		t.Skipf("skipping: %s not found (%v)", psql, err)
	}
	cert, _ := testCert(t)
	ts := startServer(t, Options{Password: scramTestPassword, RequireTLS: true,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}}})
	host, port, _ := strings.Cut(ts.addr, ":")
	for _, cb := range []string{"require", "disable"} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		cmd := exec.CommandContext(ctx, psql, "-X", "-w", "-At", "-h", host, "-p", port, "-U", "bob", "-d", "d", "-c", "SELECT 1, 2")
		cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=10", "PGPASSWORD="+scramTestPassword,
			"PGSERVICEFILE=/nonexistent", "PGPASSFILE=/nonexistent", "PGSSLMODE=require", "PGCHANNELBINDING="+cb)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		cancel()
		if err != nil || stdout.String() != "1|2\n" {
			t.Errorf("channel_binding=%s: %v, stdout %q, stderr %q", cb, err, stdout.String(), stderr.String())
		}
	}
}
