package tests

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/testcert"
	"github.com/streamdb/streamdb/pgwire"
)

// The TLS tests run the server with a self-signed certificate for
// 127.0.0.1, written as PEM files, and connect with pgx, psql and the
// client programs under clients/.

// testCert is a self-signed certificate (its own CA) for 127.0.0.1 and
// localhost, as PEM files.
type testCert struct {
	certFile, keyFile string
	pool              *x509.CertPool
}

func newTestCert(t *testing.T) testCert {
	t.Helper()
	cert, pool, err := testcert.New()
	if err != nil {
		t.Fatal(err)
	}
	c := testCert{pool: pool}
	if c.certFile, c.keyFile, err = testcert.WriteFiles(t.TempDir(), cert); err != nil {
		t.Fatal(err)
	}
	return c
}

// startTLSProc starts the streamdb binary on an in-memory store with
// extra serve flags and returns its port.
func startTLSProc(t *testing.T, flags ...string) int {
	t.Helper()
	port := freeLoopbackPort(t)
	args := append([]string{"serve", "--data-dir", ":memory:", "--listen", fmt.Sprintf("127.0.0.1:%d", port)}, flags...)
	cmd := exec.Command(streamdbBinary(t), args...)
	var log bytes.Buffer
	cmd.Stderr = &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serverProc{cmd: cmd, port: port}
	t.Cleanup(func() { p.kill() })
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			return port
		}
	}
	p.kill()
	t.Fatalf("streamdb %q did not start:\n%s", args, log.String())
	return 0
}

// tlsFlags are the serve flags for cert.
func (c testCert) tlsFlags() []string {
	return []string{"--tls-cert", c.certFile, "--tls-key", c.keyFile}
}

// pgxConnectTLS connects with sslmode; verify modes trust pool.
func pgxConnectTLS(t *testing.T, port int, sslmode string, pool *x509.CertPool) (*pgx.Conn, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg, err := pgx.ParseConfig(fmt.Sprintf("postgres://tester@127.0.0.1:%d/dev?sslmode=%s", port, sslmode))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.TLSConfig != nil && pool != nil {
		cfg.TLSConfig.RootCAs = pool
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err == nil {
		t.Cleanup(func() { conn.Close(context.Background()) })
	}
	return conn, err
}

// checkQuery runs a query on conn and checks whether it runs over TLS.
func checkQuery(t *testing.T, conn *pgx.Conn, what string, wantTLS bool) {
	t.Helper()
	if _, isTLS := conn.PgConn().Conn().(*tls.Conn); isTLS != wantTLS {
		t.Errorf("%s: TLS = %v, want %v", what, isTLS, wantTLS)
	}
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "CREATE TABLE IF NOT EXISTS t (k int PRIMARY KEY)"); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	var n int64
	if err := conn.QueryRow(ctx, "SELECT count(*) + 41 FROM t").Scan(&n); err != nil || n != 41 {
		t.Errorf("%s: SELECT = %d, %v; want 41", what, n, err)
	}
}

func TestTLSServePgx(t *testing.T) {
	cert := newTestCert(t)
	port := startTLSProc(t, cert.tlsFlags()...)
	for _, mode := range []string{"require", "verify-ca", "verify-full", "prefer"} {
		conn, err := pgxConnectTLS(t, port, mode, cert.pool)
		if err != nil {
			t.Fatalf("sslmode=%s: %v", mode, err)
		}
		checkQuery(t, conn, "sslmode="+mode, true)
	}
	conn, err := pgxConnectTLS(t, port, "disable", nil)
	if err != nil {
		t.Fatalf("sslmode=disable without --require-tls: %v", err)
	}
	checkQuery(t, conn, "sslmode=disable", false)
	// verify-full with a root that did not sign the certificate fails.
	var unknown x509.UnknownAuthorityError
	if _, err := pgxConnectTLS(t, port, "verify-full", newTestCert(t).pool); !errors.As(err, &unknown) {
		t.Errorf("verify-full with the wrong root: %v, want x509.UnknownAuthorityError", err)
	}
}

func TestTLSRequireRefusesPlain(t *testing.T) {
	cert := newTestCert(t)
	port := startTLSProc(t, append(cert.tlsFlags(), "--require-tls")...)
	_, err := pgxConnectTLS(t, port, "disable", nil)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "28000" || pgErr.Severity != "FATAL" || !strings.Contains(pgErr.Message, "requires SSL") {
		t.Fatalf("plain connection to --require-tls: %v, want FATAL 28000 requires SSL", err)
	}
	conn, err := pgxConnectTLS(t, port, "require", nil)
	if err != nil {
		t.Fatalf("sslmode=require: %v", err)
	}
	checkQuery(t, conn, "sslmode=require", true)
}

func TestTLSPreferWithoutCert(t *testing.T) {
	port := startTLSProc(t)
	conn, err := pgxConnectTLS(t, port, "prefer", nil)
	if err != nil {
		t.Fatalf("sslmode=prefer without a certificate: %v", err)
	}
	checkQuery(t, conn, "sslmode=prefer", false)
	if _, err := pgxConnectTLS(t, port, "require", nil); err == nil || !strings.Contains(err.Error(), "refused TLS") {
		t.Errorf("sslmode=require without a certificate: %v, want the server to refuse TLS", err)
	}
}

// psqlConninfo runs psql with a libpq connection string and returns its
// output and error.
func psqlConninfo(t *testing.T, conninfo string, cmds ...string) (string, error) {
	t.Helper()
	args := []string{"-X", conninfo}
	for _, c := range cmds {
		args = append(args, "-c", c)
	}
	cmd := exec.Command(psqlPath, args...)
	cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=5", "PAGER=cat", "PGSSLMODE=", "PGSSLROOTCERT=")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestTLSPsql(t *testing.T) {
	requirePsql(t)
	cert := newTestCert(t)
	port := startTLSProc(t, append(cert.tlsFlags(), "--require-tls")...)
	base := fmt.Sprintf("host=127.0.0.1 port=%d user=tester dbname=dev", port)
	for _, mode := range []string{"sslmode=require", "sslmode=verify-full sslrootcert=" + cert.certFile} {
		out, err := psqlConninfo(t, base+" "+mode, "SELECT 40 + 2 AS answer", `\conninfo`)
		if err != nil || !strings.Contains(out, "42") || !strings.Contains(out, "SSL connection (protocol: TLSv1.3") {
			t.Errorf("psql %s: %v\n%s", mode, err, out)
		}
	}
	out, err := psqlConninfo(t, base+" sslmode=disable", "SELECT 1")
	if err == nil || !strings.Contains(out, "FATAL:  connection requires SSL") {
		t.Errorf("psql sslmode=disable to --require-tls: %v\n%s", err, out)
	}
}

func TestTLSPsqlPreferWithoutCert(t *testing.T) {
	requirePsql(t)
	port := startTLSProc(t)
	out, err := psqlConninfo(t, fmt.Sprintf("host=127.0.0.1 port=%d user=tester dbname=dev sslmode=prefer", port), "SELECT 40 + 2 AS answer", `\conninfo`)
	if err != nil || !strings.Contains(out, "42") || strings.Contains(out, "SSL connection") {
		t.Errorf("psql sslmode=prefer without a certificate: %v\n%s", err, out)
	}
}

// startTLSServer serves db in-process with cert, refusing plain clients,
// and returns the port.
func startTLSServer(t *testing.T, db *streamdb.DB, cert testCert) int {
	t.Helper()
	pair, err := tls.LoadX509KeyPair(cert.certFile, cert.keyFile)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := pgwire.NewServer(db.Backend(), pgwire.Options{TLSConfig: &tls.Config{Certificates: []tls.Certificate{pair}}, RequireTLS: true})
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		srv.Close()
		<-done
	})
	return ln.Addr().(*net.TCPAddr).Port
}
