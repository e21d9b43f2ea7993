//go:build linux

// Package pgserver starts a throwaway PostgreSQL cluster from the server
// binaries Debian's postgresql package installs: initdb into a new temp
// dir, a postgres on a free loopback port, stopped and removed by Stop.
// The PostgreSQL oracle tests and `streamdb bench --compare postgres` use
// it.
package pgserver

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
	"time"

	"github.com/jackc/pgx/v5"
)

// Options configure a cluster.
type Options struct {
	// Fast turns off durability (fsync, synchronous_commit,
	// full_page_writes) and shrinks shared_buffers, for tests. Benchmarks
	// leave it false: PostgreSQL's defaults.
	Fast bool
	// Settings are extra -c name=value settings.
	Settings []string
	// Logf, when set, receives progress notes (retries).
	Logf func(format string, args ...any)
}

// Server is a running cluster.
type Server struct {
	Dir  string // temp dir: data/, sock/, owned by the server's user
	Port int
	cmd  *exec.Cmd
	log  *syncBuffer
	done chan error
}

// ErrNotInstalled is returned (wrapped) by FindBin and Start when no
// PostgreSQL server is installed.
var ErrNotInstalled = errors.New("no PostgreSQL server found (looked for /usr/lib/postgresql/*/bin/{initdb,postgres} and initdb on PATH); install it with apt-get install -y postgresql")

// FindBin returns the bin directory of the newest installed PostgreSQL
// server (Debian layout, /usr/lib/postgresql/N/bin), or of the server
// binaries on PATH.
func FindBin() (string, error) {
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
	return "", ErrNotInstalled
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// credential returns the credential to run the server binaries with: nil
// when not root; the postgres user when root, since PostgreSQL refuses to
// run as root.
func credential() (*syscall.Credential, int, int, error) {
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

// Start initdb's a cluster in a new temp dir and starts it on a free
// loopback port with its unix socket in the temp dir. The caller must
// Stop it.
func Start(opts Options) (_ *Server, err error) {
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	bin, err := FindBin()
	if err != nil {
		return nil, err
	}
	cred, uid, gid, err := credential()
	if err != nil {
		return nil, err
	}
	// Not a test's TempDir: its parent is private to the test's user, and
	// the server may run as another.
	dir, err := os.MkdirTemp("", "streamdb-pg")
	if err != nil {
		return nil, err
	}
	s := &Server{Dir: dir, log: &syncBuffer{}}
	defer func() {
		if err != nil {
			s.Stop()
		}
	}()
	for _, d := range []string{dir, filepath.Join(dir, "sock")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
		if cred != nil {
			if err := os.Chown(d, uid, gid); err != nil {
				return nil, err
			}
		}
	}
	command := func(name string, args ...string) *exec.Cmd {
		cmd := exec.Command(filepath.Join(bin, name), args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "LC_ALL=C", "LANG=C", "HOME="+dir, "TZ=UTC")
		// The server dies with this process even when that is killed (a
		// go test timeout): SIGQUIT makes postgres shut down at once.
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
			"--encoding=UTF8", "--locale=C", "--no-instructions"}
		if opts.Fast {
			args = append(args, "--no-sync")
		}
		if ctype != "" {
			args = append(args, "--lc-ctype="+ctype)
		}
		out, err := command("initdb", args...).CombinedOutput()
		if err == nil {
			break
		}
		if ctype == "" {
			return nil, fmt.Errorf("initdb: %v\n%s", err, out)
		}
		logf("initdb with LC_CTYPE %s failed, trying C: %v\n%s", ctype, err, out)
		if err := os.RemoveAll(data); err != nil {
			return nil, err
		}
	}
	settings := []string{"listen_addresses=127.0.0.1", "max_connections=20", "logging_collector=off", "TimeZone=UTC"}
	if opts.Fast {
		settings = append(settings, "fsync=off", "synchronous_commit=off", "full_page_writes=off", "shared_buffers=16MB")
	}
	settings = append(settings, opts.Settings...)
	for attempt := 0; ; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		s.Port = port
		s.log = &syncBuffer{}
		args := []string{"-D", data, "-p", strconv.Itoa(s.Port), "-k", filepath.Join(dir, "sock")}
		for _, kv := range settings {
			args = append(args, "-c", kv)
		}
		s.cmd = command("postgres", args...)
		s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
		if err := s.cmd.Start(); err != nil {
			return nil, fmt.Errorf("start postgres: %w", err)
		}
		s.done = make(chan error, 1)
		go func(cmd *exec.Cmd, done chan error) { done <- cmd.Wait() }(s.cmd, s.done)
		err = s.waitReady(30 * time.Second)
		if err == nil {
			return s, nil
		}
		s.stopServer()
		if attempt == 2 {
			return nil, fmt.Errorf("postgres did not start: %v\n%s", err, s.log.String())
		}
		logf("postgres did not start on port %d, retrying: %v", s.Port, err)
	}
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// ConnString is a libpq-style connection string for the cluster's
// postgres database as user postgres.
func (s *Server) ConnString() string {
	return fmt.Sprintf("host=127.0.0.1 port=%d user=postgres dbname=postgres sslmode=disable connect_timeout=5", s.Port)
}

func (s *Server) waitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		select {
		case err := <-s.done:
			s.done <- err
			return fmt.Errorf("postgres exited: %v", err)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c, err := pgx.Connect(ctx, s.ConnString())
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

// Log returns what the server has printed.
func (s *Server) Log() string { return s.log.String() }

// Stop shuts the server down (fast shutdown, then kill) and removes its
// directory.
func (s *Server) Stop() error {
	s.stopServer()
	return os.RemoveAll(s.Dir)
}

func (s *Server) stopServer() {
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
		_ = cmd.Process.Kill()
		<-done
	}
}

// PID is the postmaster's process id (0 when not running).
func (s *Server) PID() int {
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// syncBuffer collects a child's output for diagnostics.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
