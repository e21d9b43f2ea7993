package tests

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamdb/streamdb"
)

// TestKill9NeverRepeatsSequenceValues hands out sequence values from
// several connections (nextval, and the serial ids of INSERTs) while the
// server is killed with SIGKILL, twice; after each restart no value is
// handed out again, and every id a serial INSERT acknowledged is stored.
func TestKill9NeverRepeatsSequenceValues(t *testing.T) {
	dir := t.TempDir()
	p := startProc(t, dir)
	ctx := context.Background()
	c := p.connect(t)
	execAll(t, c, "CREATE SEQUENCE sq", "CREATE TABLE s (id bigserial PRIMARY KEY, v int)")
	c.Close(ctx)
	seen := map[string]string{} // sequence and value -> who got it
	var ids []int64
	for round := 0; round < 3; round++ {
		if round > 0 {
			p = startProc(t, dir)
		}
		vals, got := handOutUntilKilled(t, p, round < 2)
		for _, v := range vals {
			key := fmt.Sprintf("%s %d", v.seq, v.n)
			if who, dup := seen[key]; dup {
				t.Fatalf("round %d: value %d of %s (%s) was handed out before (%s)", round, v.n, v.seq, v.who, who)
			}
			seen[key] = fmt.Sprintf("round %d %s", round, v.who)
		}
		ids = append(ids, got...)
		if len(vals) == 0 {
			t.Fatalf("round %d: no value was handed out", round)
		}
	}
	c = p.connect(t)
	defer c.Close(ctx)
	rows, err := c.Query(ctx, "SELECT id FROM s")
	if err != nil {
		t.Fatal(err)
	}
	stored := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		stored[id] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if !stored[id] {
			t.Fatalf("acknowledged serial id %d is not stored (%d of %d rows)", id, len(stored), len(ids))
		}
	}
}

type handedOut struct {
	seq string
	n   int64
	who string
}

// handOutUntilKilled runs nextval and serial INSERTs on three
// connections for a while, then kills the server (kill) or stops them
// and keeps it running; it returns the values acknowledged and the ids of
// the acknowledged INSERTs.
func handOutUntilKilled(t *testing.T, p *serverProc, kill bool) ([]handedOut, []int64) {
	ctx := context.Background()
	var mu sync.Mutex
	var vals []handedOut
	var ids []int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		c := p.connect(t)
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			defer c.Close(context.Background())
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				var v int64
				seq, who := "sq", fmt.Sprintf("conn %d", w)
				var err error
				if w == 0 {
					seq = "s_id_seq"
					err = c.QueryRow(ctx, "INSERT INTO s (v) VALUES ($1) RETURNING id", i).Scan(&v)
				} else {
					err = c.QueryRow(ctx, "SELECT nextval('sq')").Scan(&v)
				}
				if err != nil {
					return // the kill
				}
				mu.Lock()
				vals = append(vals, handedOut{seq, v, who})
				if w == 0 {
					ids = append(ids, v)
				}
				mu.Unlock()
			}
		}(w)
	}
	time.Sleep(600 * time.Millisecond)
	if kill {
		p.kill()
	} else {
		close(stop)
	}
	wg.Wait()
	return vals, ids
}

// TestSequenceConcurrentSessions calls nextval from many sessions at
// once: every value is handed out once, and with no restart in between
// they are exactly 1..n.
func TestSequenceConcurrentSessions(t *testing.T) {
	db := openMem(t)
	mustExec(t, db, "CREATE SEQUENCE sq")
	mustExec(t, db, "CREATE TABLE s (id serial PRIMARY KEY, w int)")
	const workers, each = 6, 150
	var mu sync.Mutex
	var got, ids []int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			s := db.NewSession()
			defer s.Close()
			for i := 0; i < each; i++ {
				v, err := scanInt(s, "SELECT nextval('sq')")
				if err != nil {
					errs <- err
					return
				}
				cur, err := scanInt(s, "SELECT currval('sq')")
				if err != nil || cur != v {
					errs <- fmt.Errorf("currval %d after nextval %d (%v)", cur, v, err)
					return
				}
				id, err := scanInt(s, fmt.Sprintf("INSERT INTO s (w) VALUES (%d) RETURNING id", w))
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				got, ids = append(got, v), append(ids, id)
				mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, vs := range [][]int64{got, ids} {
		sort.Slice(vs, func(i, j int) bool { return vs[i] < vs[j] })
		for i, v := range vs {
			if v != int64(i+1) {
				t.Fatalf("value %d is %d: values are not 1..%d once each", i, v, len(vs))
			}
		}
	}
}

func scanInt(s *streamdb.Session, q string) (int64, error) {
	rows, err := s.Query(context.Background(), q)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var v int64
	if !rows.Next() {
		return 0, fmt.Errorf("%s: no row (%v)", q, rows.Err())
	}
	if err := rows.Scan(&v); err != nil {
		return 0, err
	}
	return v, rows.Err()
}

// TestSequenceErrors checks the SQLSTATEs of the sequence functions and
// statements.
func TestSequenceErrors(t *testing.T) {
	db := openMem(t)
	mustExec(t, db, "CREATE SEQUENCE sq MAXVALUE 2")
	mustExec(t, db, "CREATE TABLE t (a int)")
	s := db.NewSession()
	defer s.Close()
	for _, c := range []struct{ sql, code string }{
		{"SELECT currval('sq')", "55000"},
		{"SELECT lastval()", "55000"},
		{"SELECT nextval('nope')", "42P01"},
		{"SELECT nextval('t')", "42809"},
		{"SELECT nextval('sq'), nextval('sq'), nextval('sq')", "2200H"},
		{"SELECT setval('sq', 3)", "22003"},
		{"CREATE SEQUENCE sq", "42P07"},
		{"CREATE SEQUENCE bad INCREMENT 0", "22023"},
		{"CREATE SEQUENCE bad MINVALUE 5 MAXVALUE 5", "22023"},
		{"CREATE SEQUENCE bad AS text", "22023"},
		{"ALTER SEQUENCE sq RESTART WITH 9", "22023"},
		{"CREATE MATERIALIZED VIEW mv AS SELECT a, nextval('sq') FROM t", "0A000"},
		{"CREATE MATERIALIZED VIEW mv AS SELECT last_value FROM sq", "0A000"},
		{"DROP SEQUENCE t", "42809"},
		{"CREATE TABLE u (a int UNIQUE NULLS NOT DISTINCT)", "0A000"},
		{"ALTER TABLE t ADD COLUMN u int UNIQUE", "0A000"},
		{"ALTER TABLE t ADD COLUMN u serial", "0A000"},
		{"CREATE TABLE u (a int, UNIQUE (b))", "42703"},
	} {
		_, err := s.Exec(context.Background(), c.sql)
		var pe *streamdb.Error
		if !errors.As(err, &pe) || pe.Code != c.code {
			t.Errorf("%s: got %v, want SQLSTATE %s", c.sql, err, c.code)
		}
	}
	// After the failed nextval, the sequence is still at its end.
	if _, err := s.Exec(context.Background(), "SELECT nextval('sq')"); err == nil || !strings.Contains(err.Error(), "reached maximum value") {
		t.Errorf("nextval past the end: %v", err)
	}
}
