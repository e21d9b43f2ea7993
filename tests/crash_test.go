package tests

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb/internal/failpoint"
)

var binary struct {
	once sync.Once
	path string
	err  error
}

// streamdbBinary builds cmd/streamdb once per test run; under -tags
// invariants with the tag too (invariant checks, and failpoints set in
// STREAMDB_FAILPOINTS).
func streamdbBinary(t *testing.T) string {
	t.Helper()
	binary.once.Do(func() {
		dir, err := os.MkdirTemp("", "streamdb-bin")
		if err != nil {
			binary.err = err
			return
		}
		binary.path = filepath.Join(dir, "streamdb")
		args := []string{"build", "-o", binary.path}
		if failpoint.Enabled {
			args = append(args, "-tags", "invariants")
		}
		out, err := exec.Command("go", append(args, "../cmd/streamdb")...).CombinedOutput()
		if err != nil {
			binary.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binary.err != nil {
		t.Fatal(binary.err)
	}
	return binary.path
}

func freeLoopbackPort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// serverProc is a streamdb server running as a child process.
type serverProc struct {
	cmd  *exec.Cmd
	port int
	log  string // where its stderr goes, when not the test's
}

func startProc(t *testing.T, dataDir string) *serverProc {
	t.Helper()
	return startProcOpts(t, dataDir, nil, os.Stderr)
}

// startProcOpts starts a server with extra environment variables, its
// stderr going to stderr.
func startProcOpts(t *testing.T, dataDir string, env []string, stderr io.Writer) *serverProc {
	t.Helper()
	port := freeLoopbackPort(t)
	cmd := exec.Command(streamdbBinary(t), "serve", "--data-dir", dataDir, "--listen", fmt.Sprintf("127.0.0.1:%d", port))
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serverProc{cmd: cmd, port: port}
	t.Cleanup(func() { p.kill() })
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			return p
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("server on port %d did not start", port)
	return nil
}

func (p *serverProc) kill() {
	if p.cmd.ProcessState == nil {
		p.cmd.Process.Signal(syscall.SIGKILL)
		p.cmd.Wait()
	}
}

func (p *serverProc) connect(t *testing.T) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, fmt.Sprintf("postgres://tester@127.0.0.1:%d/dev?sslmode=disable", p.port))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestKill9KeepsAcknowledgedWrites writes rows one statement at a time
// while the server runs, kills it with SIGKILL at an arbitrary moment, and
// checks after a restart that every acknowledged row is there, that views
// equal their queries, and that views keep being maintained.
func TestKill9KeepsAcknowledgedWrites(t *testing.T) {
	dir := t.TempDir()
	p := startProc(t, dir)
	ctx := context.Background()
	c := p.connect(t)
	for _, s := range []string{
		"CREATE TABLE t (id int PRIMARY KEY, k int, v int)",
		"CREATE MATERIALIZED VIEW agg AS SELECT k, count(*) AS n, sum(v) AS s FROM t GROUP BY k",
	} {
		if _, err := c.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	acked := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			if _, err := c.Exec(ctx, fmt.Sprintf("INSERT INTO t VALUES (%d, %d, %d)", i, i%7, i)); err != nil {
				return
			}
			acked = i + 1
		}
	}()
	time.Sleep(700 * time.Millisecond)
	p.kill()
	<-done
	c.Close(ctx)
	if acked == 0 {
		t.Fatal("no insert was acknowledged before the kill")
	}

	p = startProc(t, dir)
	c = p.connect(t)
	defer c.Close(ctx)
	var n, maxID int
	if err := c.QueryRow(ctx, "SELECT count(*), coalesce(max(id), -1) FROM t").Scan(&n, &maxID); err != nil {
		t.Fatal(err)
	}
	if n < acked || maxID < acked-1 {
		t.Fatalf("after kill -9: %d rows (max id %d), but %d inserts were acknowledged", n, maxID, acked)
	}
	checkAggView(t, c)
	if _, err := c.Exec(ctx, "INSERT INTO t VALUES (-1, 100, 5)"); err != nil {
		t.Fatal(err)
	}
	checkAggView(t, c)
}

func checkAggView(t *testing.T, c *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	var diff int
	q := `SELECT count(*) FROM (SELECT k, count(*) AS n, sum(v) AS s FROM t GROUP BY k) q
	      FULL JOIN agg ON q.k = agg.k AND q.n = agg.n AND q.s = agg.s
	      WHERE q.k IS NULL OR agg.k IS NULL`
	if err := c.QueryRow(ctx, q).Scan(&diff); err != nil {
		t.Fatal(err)
	}
	if diff != 0 {
		t.Fatalf("view agg differs from its query in %d rows", diff)
	}
}

// pgJob reads a creating view's progress row from ddl_progress.
func pgJob(t *testing.T, c *pgx.Conn, view string) (phase string, read int64, ok bool) {
	t.Helper()
	err := c.QueryRow(context.Background(),
		"SELECT phase, rows_read FROM streamdb_catalog.ddl_progress WHERE statement LIKE $1",
		"% "+view+" %").Scan(&phase, &read)
	if err == pgx.ErrNoRows {
		return "", 0, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return phase, read, true
}

// waitJob polls the job until cond holds or fails after a deadline.
func waitJobPhase(t *testing.T, c *pgx.Conn, view string, cond func(phase string, read int64) bool) (string, int64) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		phase, read, ok := pgJob(t, c, view)
		if !ok {
			t.Fatalf("job of %s is gone", view)
		}
		if cond(phase, read) {
			return phase, read
		}
	}
	t.Fatalf("job of %s did not reach the expected state", view)
	return "", 0
}

func execAll(t *testing.T, c *pgx.Conn, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := c.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// TestKill9DuringBackfill kills the server with SIGKILL while a view
// backfills, once in the snapshot phase and once in the log-store phase;
// after each restart the job resumes from its progress (not from zero) and
// the view ends equal to its query.
func TestKill9DuringBackfill(t *testing.T) {
	dir := t.TempDir()
	p := startProc(t, dir)
	c := p.connect(t)
	const q = "SELECT k, count(*) AS n, sum(v) AS s FROM t GROUP BY k"
	execAll(t, c,
		"CREATE TABLE t (id int PRIMARY KEY, k int, v int)",
		"INSERT INTO t SELECT g, g % 13, g FROM generate_series(1, 6000) AS g",
		"SET background_ddl = true",
		"SET backfill_rate_limit = 2000",
		"CREATE MATERIALIZED VIEW agg AS "+q,
		// Changes after the snapshot epoch go to the log store.
		"INSERT INTO t SELECT g, g % 7, 1 FROM generate_series(10001, 14000) AS g",
		"DELETE FROM t WHERE id % 10 = 0")
	_, before := waitJobPhase(t, c, "agg", func(ph string, read int64) bool { return ph == "snapshot" && read >= 1000 })
	execAll(t, c, "FLUSH")
	_, before = waitJobPhase(t, c, "agg", func(string, int64) bool { return true })
	p.kill()

	p = startProc(t, dir)
	c = p.connect(t)
	_, after := waitJobPhase(t, c, "agg", func(ph string, _ int64) bool { return ph != "starting" })
	if after < before-200 {
		t.Fatalf("snapshot restarted from %d rows, had read %d before the kill", after, before)
	}
	t.Logf("snapshot phase: %d rows read before kill -9, %d after restart", before, after)
	phase, _ := waitJobPhase(t, c, "agg", func(ph string, _ int64) bool { return ph == "log store" })
	execAll(t, c, "FLUSH")
	p.kill()

	p = startProc(t, dir)
	c = p.connect(t)
	defer c.Close(context.Background())
	phase, _ = waitJobPhase(t, c, "agg", func(ph string, _ int64) bool { return ph != "starting" })
	if phase == "snapshot" {
		t.Fatalf("after a kill in the log-store phase the job went back to %q", phase)
	}
	execAll(t, c, "ALTER MATERIALIZED VIEW agg SET BACKFILL_RATE_LIMIT = DEFAULT", "WAIT")
	var diff int
	err := c.QueryRow(context.Background(), `SELECT count(*) FROM (`+q+`) q FULL JOIN agg
		ON q.k = agg.k AND q.n = agg.n AND q.s = agg.s WHERE q.k IS NULL OR agg.k IS NULL`).Scan(&diff)
	if err != nil {
		t.Fatal(err)
	}
	if diff != 0 {
		t.Fatalf("view differs from its query in %d rows after two kills", diff)
	}
}

// TestKill9DuringDrop: the server dies (catalog/drop-purge=exit) half-way
// through deleting a dropped view's state. After the restart the view is
// gone and its name free: before the catalog entry went first, the view
// came back created over a half-deleted state (found by TestChaos: a view
// with no rows). Needs -tags invariants (failpoints).
func TestKill9DuringDrop(t *testing.T) {
	if !failpoint.Enabled {
		t.Skip("failpoints need -tags invariants")
	}
	dir := t.TempDir()
	const q = "SELECT k, count(*) AS n, sum(v) AS s FROM t GROUP BY k"
	p := startProcOpts(t, dir, []string{"STREAMDB_FAILPOINTS=catalog/drop-purge=exit"}, os.Stderr)
	c := p.connect(t)
	execAll(t, c, "CREATE TABLE t (id int PRIMARY KEY, k int, v int)",
		"INSERT INTO t SELECT g, g % 7, g FROM generate_series(1, 500) AS g",
		"CREATE MATERIALIZED VIEW agg AS "+q)
	if _, err := c.Exec(context.Background(), "DROP MATERIALIZED VIEW agg"); err == nil {
		t.Fatal("DROP succeeded: the failpoint did not stop the server")
	}
	if err := p.cmd.Wait(); err == nil {
		t.Fatal("the server exited cleanly")
	}

	p = startProc(t, dir)
	c = p.connect(t)
	defer c.Close(context.Background())
	if got := pgLines(t, c, "SHOW MATERIALIZED VIEWS"); len(got) != 0 {
		t.Fatalf("views after a crash during DROP: %v", got)
	}
	execAll(t, c, "INSERT INTO t VALUES (1000, 1, 1)", "CREATE MATERIALIZED VIEW agg AS "+q)
	checkAggView(t, c)
}
