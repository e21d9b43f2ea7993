package slt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// response is one scripted answer of the fake database.
type response struct {
	rows  [][]Value
	err   error
	count int64
}

// fakeDB answers SQL from a script: each SQL text has a queue of
// responses, consumed one per call, the last one repeating. It records
// every call and every connection's lifetime.
type fakeDB struct {
	mu      sync.Mutex
	script  map[string][]response
	calls   []call
	opened  int
	closed  []int
	openErr error
}

type call struct {
	conn int
	sql  string
}

func newFakeDB() *fakeDB { return &fakeDB{script: map[string][]response{}} }

func (db *fakeDB) on(sql string, rs ...response) *fakeDB {
	db.script[sql] = append(db.script[sql], rs...)
	return db
}

func (db *fakeDB) open(context.Context) (Conn, error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.openErr != nil {
		return nil, db.openErr
	}
	db.opened++
	return &fakeConn{db: db, id: db.opened}, nil
}

// answer returns the next scripted response for sql on conn id.
func (db *fakeDB) answer(id int, sql string) response {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.calls = append(db.calls, call{conn: id, sql: sql})
	q, ok := db.script[sql]
	if !ok {
		return response{err: fmt.Errorf("fake: no script for %q", sql)}
	}
	if len(q) > 1 {
		db.script[sql] = q[1:]
	}
	return q[0]
}

func (db *fakeDB) sqls() []string {
	var out []string
	for _, c := range db.calls {
		out = append(out, c.sql)
	}
	return out
}

type fakeConn struct {
	db     *fakeDB
	id     int
	closed bool
}

func (c *fakeConn) Exec(_ context.Context, sql string) error {
	return c.use(sql).err
}

func (c *fakeConn) ExecCount(_ context.Context, sql string) (int64, error) {
	r := c.use(sql)
	return r.count, r.err
}

func (c *fakeConn) Query(_ context.Context, sql string) ([][]Value, error) {
	r := c.use(sql)
	return r.rows, r.err
}

func (c *fakeConn) use(sql string) response {
	if c.closed {
		return response{err: errors.New("fake: use after close")}
	}
	return c.db.answer(c.id, sql)
}

func (c *fakeConn) Close() error {
	c.closed = true
	c.db.mu.Lock()
	c.db.closed = append(c.db.closed, c.id)
	c.db.mu.Unlock()
	return nil
}

// execOnly is a Conn without RowCounter.
type execOnly struct{ Conn }

// rows builds result rows from strings; "<null>" is NULL.
func rows(rs ...[]string) [][]Value {
	out := make([][]Value, len(rs))
	for i, r := range rs {
		for _, s := range r {
			if s == "<null>" {
				out[i] = append(out[i], Null())
			} else {
				out[i] = append(out[i], Text(s))
			}
		}
	}
	return out
}

func row(vals ...string) []string { return vals }

// writeFiles writes name -> content under a fresh directory and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// sleeps records the durations the runner asked to sleep, without waiting.
type sleeps struct {
	mu sync.Mutex
	ds []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ds = append(s.ds, d)
	return ctx.Err()
}

// runScript runs one file with content src against db, with sleeps faked.
func runScript(t *testing.T, db *fakeDB, src string, opts Options) Summary {
	t.Helper()
	dir := writeFiles(t, map[string]string{"t.slt": src})
	if opts.Sleep == nil {
		opts.Sleep = (&sleeps{}).sleep
	}
	s, err := Run(context.Background(), db.open, []string{filepath.Join(dir, "t.slt")}, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return s
}

// expectCounts checks a summary's counts and, on mismatch, shows failures.
func expectCounts(t *testing.T, s Summary, passed, failed, skipped int) {
	t.Helper()
	if s.Passed != passed || s.Failed != failed || s.Skipped != skipped {
		for _, f := range s.Failures {
			t.Logf("failure:\n%s", f)
		}
		t.Fatalf("got %d passed, %d failed, %d skipped; want %d, %d, %d",
			s.Passed, s.Failed, s.Skipped, passed, failed, skipped)
	}
}
