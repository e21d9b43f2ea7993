//go:build linux

package tests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgServer is a throwaway PostgreSQL cluster started for one test.
type pgServer struct {
	dir  string // temp dir: data/, sock/, owned by the server's user
	port int
	cmd  *exec.Cmd
	log  *syncBuffer
	done chan error
}

// syncBuffer collects a child's output for diagnostics.
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

// findPostgresBin returns the bin directory of the newest installed
// PostgreSQL server (Debian layout, /usr/lib/postgresql/N/bin), or of the
// server binaries on PATH.
func findPostgresBin() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return vi > vj
	})
	for _, d := range dirs {
		if isExecutable(filepath.Join(d, "initdb")) && isExecutable(filepath.Join(d, "postgres")) {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		d := filepath.Dir(p)
		if isExecutable(filepath.Join(d, "postgres")) {
			return d, nil
		}
	}
	return "", errors.New("no PostgreSQL server found (looked for /usr/lib/postgresql/*/bin/{initdb,postgres} and initdb on PATH)")
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// requirePostgres returns the server's bin directory, skipping the test
// when PostgreSQL is not installed, or failing it under CI, where .ci/run
// installs it.
func requirePostgres(t *testing.T) string {
	t.Helper()
	bin, err := findPostgresBin()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("PostgreSQL is required in CI (.ci/run installs it): %v", err)
		}
		t.Skipf("skipping: %v; install it with apt-get install -y postgresql", err)
	}
	return bin
}

// serverCredential returns the credential to run the server binaries
// with: nil when not root; the postgres user when root, since PostgreSQL
// refuses to run as root.
func serverCredential() (*syscall.Credential, int, int, error) {
	if os.Geteuid() != 0 {
		return nil, -1, -1, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, 0, 0, fmt.Errorf("running as root and there is no postgres user to run PostgreSQL as: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, uid, gid, nil
}

// startPostgres initdb's a cluster in a new temp dir and starts it on a
// free loopback port with its unix socket in the temp dir. Cleanup stops
// the server and removes the dir.
func startPostgres(t *testing.T) *pgServer {
	t.Helper()
	bin := requirePostgres(t)
	cred, uid, gid, err := serverCredential()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skipf("skipping: %v", err)
	}
	// Not t.TempDir: its parent is private to the test's user, and the
	// server may run as another.
	dir, err := os.MkdirTemp("", "pgoracle")
	if err != nil {
		t.Fatal(err)
	}
	s := &pgServer{dir: dir, log: &syncBuffer{}}
	t.Cleanup(func() {
		s.stop(t)
		if err := os.RemoveAll(dir); err != nil {
			t.Errorf("remove %s: %v", dir, err)
		}
	})
	for _, d := range []string{dir, filepath.Join(dir, "sock")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if cred != nil {
			if err := os.Chown(d, uid, gid); err != nil {
				t.Fatal(err)
			}
		}
	}
	command := func(name string, args ...string) *exec.Cmd {
		cmd := exec.Command(filepath.Join(bin, name), args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "LC_ALL=C", "LANG=C", "HOME="+dir, "TZ=UTC")
		// The server dies with the test process even when that is killed
		// (a go test timeout): SIGQUIT makes postgres shut down at once.
		// Linux sets the signal after switching credentials.
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT}
		return cmd
	}
	data := filepath.Join(dir, "data")
	// Collation C: text sorts by bytes, as streamdb's does. Character
	// classes from C.UTF-8, so upper/lower/ILIKE know non-ASCII letters;
	// plain C where that locale is missing.
	for _, ctype := range []string{"C.UTF-8", ""} {
		args := []string{"-D", data, "-U", "postgres", "--auth=trust",
			"--encoding=UTF8", "--locale=C", "--no-sync", "--no-instructions"}
		if ctype != "" {
			args = append(args, "--lc-ctype="+ctype)
		}
		out, err := command("initdb", args...).CombinedOutput()
		if err == nil {
			break
		}
		if ctype == "" {
			t.Fatalf("initdb: %v\n%s", err, out)
		}
		t.Logf("initdb with LC_CTYPE %s failed, trying C: %v\n%s", ctype, err, out)
		if err := os.RemoveAll(data); err != nil {
			t.Fatal(err)
		}
	}

	for attempt := 0; ; attempt++ {
		s.port = freePort(t)
		s.log = &syncBuffer{}
		s.cmd = command("postgres", "-D", data, "-p", strconv.Itoa(s.port),
			"-k", filepath.Join(dir, "sock"),
			"-c", "listen_addresses=127.0.0.1",
			"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
			"-c", "shared_buffers=16MB", "-c", "max_connections=10",
			"-c", "logging_collector=off", "-c", "TimeZone=UTC")
		s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
		if err := s.cmd.Start(); err != nil {
			t.Fatalf("start postgres: %v", err)
		}
		s.done = make(chan error, 1)
		go func(cmd *exec.Cmd, done chan error) { done <- cmd.Wait() }(s.cmd, s.done)
		err := s.waitReady(30 * time.Second)
		if err == nil {
			return s
		}
		s.stop(t)
		if attempt == 2 {
			t.Fatalf("postgres did not start: %v\n%s", err, s.log.String())
		}
		t.Logf("postgres did not start on port %d, retrying: %v", s.port, err)
	}
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func (s *pgServer) waitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		select {
		case err := <-s.done:
			s.done <- err
			return fmt.Errorf("postgres exited: %v", err)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c, err := s.connect(ctx)
		cancel()
		if err == nil {
			c.Close(context.Background())
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// connect opens a connection that uses the simple query protocol, so
// every value comes back as text, with the session settings the oracle
// relies on.
func (s *pgServer) connect(ctx context.Context) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(fmt.Sprintf("host=127.0.0.1 port=%d user=postgres dbname=postgres sslmode=disable connect_timeout=5", s.port))
	if err != nil {
		return nil, err
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	cfg.RuntimeParams["TimeZone"] = "UTC"
	cfg.RuntimeParams["DateStyle"] = "ISO, MDY"
	cfg.RuntimeParams["IntervalStyle"] = "postgres"
	cfg.RuntimeParams["extra_float_digits"] = "1"
	return pgx.ConnectConfig(ctx, cfg)
}

// stop shuts the server down (fast shutdown, then kill).
func (s *pgServer) stop(t *testing.T) {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	cmd, done := s.cmd, s.done
	s.cmd = nil
	select {
	case <-done:
		return
	default:
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Logf("postgres did not stop on SIGINT; killing it")
		_ = cmd.Process.Kill()
		<-done
	}
}
