package tests

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// The client tests run the programs under clients/ (psycopg 3,
// node-postgres, pgjdbc) against a real server; each runs the session the
// Go driver tests run (drivers_test.go) and exits non-zero on the first
// difference. A test whose runtime or library is missing is skipped with
// the reason, except under CI=true, where .ci/run installs them all and a
// missing one is a failure.

// requireClient skips (or under CI fails) the test when err says that a
// client's runtime or library is missing.
func requireClient(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is required in CI (.ci/run installs it): %v", what, err)
	}
	t.Skipf("skipping: %s is not available: %v", what, err)
}

// runClient runs a client program with the libpq environment pointing at
// the server on port, and fails the test with its output if it fails.
func runClient(t *testing.T, port int, name string, args ...string) {
	t.Helper()
	runClientEnv(t, port, nil, name, args...)
}

// runClientEnv is runClient with more environment variables (such as
// PGSSLMODE), which override its own.
func runClientEnv(t *testing.T, port int, env []string, name string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), "PGHOST=127.0.0.1", fmt.Sprintf("PGPORT=%d", port), "PGUSER=tester",
		"PGDATABASE=dev", "PGSSLMODE=disable", "PGSSLROOTCERT=", "PGCONNECT_TIMEOUT=10", "PGPASSWORD=", "PGSERVICEFILE=/nonexistent",
		"PGPASSFILE=/nonexistent", "PGOPTIONS=", "TZ=UTC")
	cmd.Env = append(cmd.Env, env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out.String())
	}
	t.Logf("%s", bytes.TrimSpace(out.Bytes()))
}

// systemPython is Debian's python3, which python3-psycopg installs into
// (a pyenv shim earlier in PATH would hide it).
const systemPython = "/usr/bin/python3"

// requirePsycopg skips (or under CI fails) the test without psycopg 3.
func requirePsycopg(t *testing.T) {
	t.Helper()
	_, err := os.Stat(systemPython)
	if err == nil {
		var out []byte
		if out, err = exec.Command(systemPython, "-c", "import psycopg").CombinedOutput(); err != nil {
			err = fmt.Errorf("psycopg 3 (Debian package python3-psycopg): %v: %s", err, bytes.TrimSpace(out))
		}
	}
	requireClient(t, "psycopg 3 for "+systemPython, err)
}

func TestClientPsycopg(t *testing.T) {
	requirePsycopg(t)
	db := openMem(t)
	port := startServer(t, db)
	runClient(t, port, systemPython, filepath.Join("clients", "python", "psycopg_client.py"))
}

// TestClientPsycopgTLS runs the psycopg session over TLS (libpq's
// sslmode=verify-full) against a server that refuses plain clients.
func TestClientPsycopgTLS(t *testing.T) {
	requirePsycopg(t)
	cert := newTestCert(t)
	port := startTLSServer(t, openMem(t), cert)
	runClientEnv(t, port, []string{"PGSSLMODE=verify-full", "PGSSLROOTCERT=" + cert.certFile},
		systemPython, filepath.Join("clients", "python", "psycopg_client.py"))
}

func TestClientNodePostgres(t *testing.T) {
	node, err := exec.LookPath("node")
	requireClient(t, "node", err)
	dir := filepath.Join("clients", "node")
	_, err = os.Stat(filepath.Join(dir, "node_modules", "pg", "package.json"))
	if err != nil {
		err = fmt.Errorf("node-postgres is not installed (run npm ci in tests/clients/node): %w", err)
	}
	requireClient(t, "node-postgres", err)
	db := openMem(t)
	port := startServer(t, db)
	runClient(t, port, node, filepath.Join(dir, "pg_client.js"))
}

// pgjdbcJar is where Debian's libpostgresql-jdbc-java installs pgjdbc.
const pgjdbcJar = "/usr/share/java/postgresql.jar"

// buildPgJDBCClient compiles the pgjdbc client and returns the java
// command and the arguments that run it, but for the URL.
func buildPgJDBCClient(t *testing.T) (string, []string) {
	t.Helper()
	javac, err := exec.LookPath("javac")
	requireClient(t, "javac (a JDK, e.g. default-jdk-headless)", err)
	java, err := exec.LookPath("java")
	requireClient(t, "java", err)
	_, err = os.Stat(pgjdbcJar)
	requireClient(t, "pgjdbc (Debian package libpostgresql-jdbc-java)", err)

	classes := t.TempDir()
	src := filepath.Join("clients", "java", "PgJdbcClient.java")
	if out, err := exec.Command(javac, "-cp", pgjdbcJar, "-d", classes, src).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	return java, []string{"-cp", pgjdbcJar + string(filepath.ListSeparator) + classes, "PgJdbcClient"}
}

func TestClientPgJDBC(t *testing.T) {
	java, args := buildPgJDBCClient(t)
	db := openMem(t)
	port := startServer(t, db)
	runClient(t, port, java, append(args, fmt.Sprintf("jdbc:postgresql://127.0.0.1:%d/dev", port))...)
}

// TestClientPgJDBCTLS runs the pgjdbc session over TLS (sslmode=verify-full,
// read by the client from PGSSLMODE) against a server that refuses plain
// clients.
func TestClientPgJDBCTLS(t *testing.T) {
	java, args := buildPgJDBCClient(t)
	cert := newTestCert(t)
	port := startTLSServer(t, openMem(t), cert)
	runClientEnv(t, port, []string{"PGSSLMODE=verify-full", "PGSSLROOTCERT=" + cert.certFile},
		java, append(args, fmt.Sprintf("jdbc:postgresql://127.0.0.1:%d/dev", port))...)
}
