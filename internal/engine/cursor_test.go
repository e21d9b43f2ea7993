package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/streamdb/streamdb/exec/batch"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

func openCursorDB(t *testing.T, rows int) (*DB, *Session) {
	t.Helper()
	db, err := Open(":memory:", &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s := db.NewSession()
	for _, q := range []string{
		"CREATE TABLE t (id int PRIMARY KEY, v text)",
		fmt.Sprintf("INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, %d) AS g", rows),
	} {
		if _, err := s.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return db, s
}

// ids runs a query on s and returns its first column as int64s, and
// its tag.
func ids(t *testing.T, s *Session, q string) ([]int64, string) {
	t.Helper()
	rows, err := s.Query(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	var out []int64
	for rows.Next() {
		out = append(out, rows.Row()[0].(int64))
	}
	return out, rows.Tag
}

func wantCode(t *testing.T, s *Session, q, code, msg string) {
	t.Helper()
	_, err := s.Exec(context.Background(), q)
	if pe := pgerr.As(err); err == nil || pe.Code != code || pe.Message != msg {
		t.Fatalf("%s: got %v, want %s %q", q, err, code, msg)
	}
}

func mustExec(t *testing.T, s *Session, qs ...string) {
	t.Helper()
	for _, q := range qs {
		if _, err := s.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// openIterCount is how many QueryIters the DB holds open.
func openIterCount(db *DB) int {
	db.iters.mu.Lock()
	defer db.iters.mu.Unlock()
	return len(db.iters.m)
}

// TestCursorFetchMoveClose: FETCH and MOVE walk a cursor forward with
// PostgreSQL's tags; FETCH 0 refetches the current row; the cursor reads
// the snapshot of its DECLARE; CLOSE releases its snapshot.
func TestCursorFetchMoveClose(t *testing.T) {
	db, s := openCursorDB(t, 10)
	mustExec(t, s, "BEGIN", "DECLARE c NO SCROLL CURSOR FOR SELECT id FROM t ORDER BY id")
	mustExec(t, s, "INSERT INTO t VALUES (11, 'late')") // after the DECLARE: not seen
	for _, step := range []struct {
		q    string
		want []int64
		tag  string
	}{
		{"FETCH 0 FROM c", nil, "FETCH 0"},
		{"FETCH 2 FROM c", []int64{1, 2}, "FETCH 2"},
		{"FETCH 0 FROM c", []int64{2}, "FETCH 1"},
		{"MOVE 0 IN c", nil, "MOVE 1"},
		{"FETCH c", []int64{3}, "FETCH 1"},
		{"MOVE 3 c", nil, "MOVE 3"},
		{"FETCH NEXT FROM c", []int64{7}, "FETCH 1"},
		{"FETCH FORWARD 2 IN c", []int64{8, 9}, "FETCH 2"},
		{"FETCH FORWARD ALL FROM c", []int64{10}, "FETCH 1"},
		{"FETCH 0 c", nil, "FETCH 0"},
		{"FETCH ALL c", nil, "FETCH 0"},
		{"MOVE ALL c", nil, "MOVE 0"},
	} {
		got, tag := ids(t, s, step.q)
		if fmt.Sprint(got) != fmt.Sprint(step.want) || tag != step.tag {
			t.Fatalf("%s: %v %q, want %v %q", step.q, got, tag, step.want, step.tag)
		}
	}
	if n := openIterCount(db); n != 1 {
		t.Fatalf("%d iterators open, want 1", n)
	}
	if r, err := s.Exec(context.Background(), "CLOSE c"); err != nil || r.Tag != "CLOSE CURSOR" {
		t.Fatalf("CLOSE: %v %v", r, err)
	}
	if n := openIterCount(db); n != 0 {
		t.Fatalf("%d iterators open after CLOSE", n)
	}
	wantCode(t, s, "FETCH c", "34000", `cursor "c" does not exist`)
	wantCode(t, s, "CLOSE c", "34000", `cursor "c" does not exist`)
	wantCode(t, s, "MOVE 1 IN x", "34000", `cursor "x" does not exist`)
	mustExec(t, s, "COMMIT")
}

// TestCursorTransactions: a cursor without HOLD needs a transaction
// block, which closes it; a WITH HOLD cursor lives until CLOSE or the
// end of the session; names are unique.
func TestCursorTransactions(t *testing.T) {
	db, s := openCursorDB(t, 5)
	wantCode(t, s, "DECLARE c CURSOR FOR SELECT id FROM t", "25P01", "DECLARE CURSOR can only be used in transaction blocks")
	mustExec(t, s, "DECLARE h CURSOR WITH HOLD FOR SELECT id FROM t ORDER BY id")
	wantCode(t, s, "DECLARE h CURSOR WITH HOLD FOR SELECT 1", "42P03", `cursor "h" already exists`)
	mustExec(t, s, "BEGIN", "DECLARE c CURSOR FOR SELECT id FROM t", "DECLARE d CURSOR WITHOUT HOLD FOR SELECT 1")
	wantCode(t, s, "DECLARE c CURSOR FOR SELECT 2", "42P03", `cursor "c" already exists`)
	if got, _ := ids(t, s, "FETCH 2 FROM h"); fmt.Sprint(got) != "[1 2]" {
		t.Fatalf("FETCH 2 FROM h: %v", got)
	}
	mustExec(t, s, "COMMIT")
	wantCode(t, s, "FETCH c", "34000", `cursor "c" does not exist`)
	wantCode(t, s, "FETCH d", "34000", `cursor "d" does not exist`)
	if got, _ := ids(t, s, "FETCH ALL FROM h"); fmt.Sprint(got) != "[3 4 5]" {
		t.Fatalf("FETCH ALL FROM h after COMMIT: %v", got)
	}
	mustExec(t, s, "BEGIN", "DECLARE c CURSOR FOR SELECT id FROM t", "DECLARE rh CURSOR WITH HOLD FOR SELECT 1", "ROLLBACK")
	wantCode(t, s, "CLOSE c", "34000", `cursor "c" does not exist`)
	// A ROLLBACK drops the held cursors its block declared, not older ones.
	wantCode(t, s, "CLOSE rh", "34000", `cursor "rh" does not exist`)
	if n := openIterCount(db); n != 1 {
		t.Fatalf("%d iterators open, want h's", n)
	}
	mustExec(t, s, "BEGIN", "DECLARE c CURSOR FOR SELECT id FROM t")
	if r, err := s.Exec(context.Background(), "CLOSE ALL"); err != nil || r.Tag != "CLOSE CURSOR ALL" {
		t.Fatalf("CLOSE ALL: %v %v", r, err)
	}
	wantCode(t, s, "FETCH h", "34000", `cursor "h" does not exist`)
	mustExec(t, s, "COMMIT", "DECLARE h CURSOR WITH HOLD FOR SELECT id FROM t")
	s2 := db.NewSession()
	wantCode(t, s2, "FETCH h", "34000", `cursor "h" does not exist`) // cursors are per session
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := openIterCount(db); n != 0 {
		t.Fatalf("%d iterators open after the session closed", n)
	}
}

// TestCursorRefusals: what cursors do not do fails with 0A000, and a
// subscription cursor reaches its (stub) implementation.
func TestCursorRefusals(t *testing.T) {
	_, s := openCursorDB(t, 3)
	mustExec(t, s, "BEGIN")
	wantCode(t, s, "DECLARE c SCROLL CURSOR FOR SELECT 1", "0A000", "SCROLL cursors are not supported: cursors only scan forward")
	wantCode(t, s, "DECLARE c BINARY CURSOR FOR SELECT 1", "0A000", "BINARY cursors are not supported")
	wantCode(t, s, "FETCH BACKWARD 1 FROM c", "0A000", "BACKWARD is not supported: cursors only scan forward")
	mustExec(t, s, "DECLARE c CURSOR FOR SELECT id FROM t")
	wantCode(t, s, "FETCH NEXT FROM c WITH (timeout = '1s')", "0A000", "FETCH ... WITH (timeout) is only supported for subscription cursors")
	wantCode(t, s, "DECLARE c CURSOR FOR SELECT nope FROM t", "42P03", `cursor "c" already exists`)
	wantCode(t, s, "DECLARE e CURSOR FOR SELECT nope FROM t", "42703", `column "nope" does not exist`)
	mustExec(t, s, "COMMIT")
	// A subscription cursor may be declared outside a transaction
	// block: the DECLARE reaches declareSubscriptionCursor, which fails
	// here (no such subscription, or none supported), and leaves no
	// cursor behind.
	_, err := s.Exec(context.Background(), "DECLARE sc SUBSCRIPTION CURSOR FOR nosuch SINCE 1")
	if code := pgerr.As(err).Code; err == nil || code == "25P01" || code == pgerr.SyntaxError {
		t.Fatalf("DECLARE SUBSCRIPTION CURSOR: %v", err)
	}
	wantCode(t, s, "FETCH sc", "34000", `cursor "sc" does not exist`)
}

// TestCursorReadsLazily: a cursor over a large table reads it a chunk at
// a time. Each row's second column divides by zero at one row, the
// 2049th in scan order: FETCH 1 and FETCH 1100 succeed, so no more than
// the first two chunks (2048 rows) were read of the million; the FETCH
// that reaches the third chunk fails (22012) and the rows before it in
// that FETCH went out.
func TestCursorReadsLazily(t *testing.T) {
	const n = 1_000_000
	db, s := openCursorDB(t, n)
	ctx := context.Background()
	it, _, err := s.OpenQuery(ctx, "SELECT id FROM t")
	if err != nil {
		t.Fatal(err)
	}
	var sentinel int64
	for i := 0; i <= 2*batch.ChunkSize; i++ {
		row, err := it.Next(ctx)
		if err != nil || row == nil {
			t.Fatalf("scan row %d: %v %v", i, row, err)
		}
		sentinel = row[0].(int64)
	}
	it.Close()
	mustExec(t, s, "BEGIN", fmt.Sprintf("DECLARE c CURSOR FOR SELECT id, 1 / (id - %d) FROM t", sentinel))
	if got, tag := ids(t, s, "FETCH 1 FROM c"); len(got) != 1 || tag != "FETCH 1" {
		t.Fatalf("FETCH 1: %v %q", got, tag)
	}
	if got, _ := ids(t, s, "FETCH 1100 FROM c"); len(got) != 1100 {
		t.Fatalf("FETCH 1100: %d rows", len(got))
	}
	c := &collector{}
	err = s.Run(ctx, "FETCH ALL FROM c", c)
	if pe := pgerr.As(err); err == nil || pe.Code != pgerr.DivisionByZero {
		t.Fatalf("FETCH ALL: %v", err)
	}
	if len(c.rows) != 2*batch.ChunkSize-1101 {
		t.Fatalf("FETCH ALL sent %d rows before failing, want %d", len(c.rows), 2*batch.ChunkSize-1101)
	}
	mustExec(t, s, "ROLLBACK")
	if n := openIterCount(db); n != 0 {
		t.Fatalf("%d iterators open after ROLLBACK", n)
	}
}

// TestCursorPrepared: DECLARE takes parameters through Prepare and
// Execute, as drivers send it; FETCH is described with its cursor's
// columns, MOVE and CLOSE with none.
func TestCursorPrepared(t *testing.T) {
	_, s := openCursorDB(t, 10)
	ctx := context.Background()
	const declare = "DECLARE p CURSOR WITH HOLD FOR SELECT id, v FROM t WHERE id > $1 ORDER BY id"
	params, cols, err := s.Prepare(ctx, declare, []types.Type{types.TUnknown})
	if err != nil || len(params) != 1 || params[0] != types.TInt32 || cols != nil {
		t.Fatalf("Prepare DECLARE: %v %v %v", params, cols, err)
	}
	c := &collector{}
	if err := s.Execute(ctx, declare, []types.Datum{"7"}, c); err != nil || c.tag != "DECLARE CURSOR" {
		t.Fatalf("Execute DECLARE: %q %v", c.tag, err)
	}
	_, cols, err = s.Prepare(ctx, "FETCH 2 FROM p", nil)
	if err != nil || len(cols) != 2 || cols[0].Name != "id" || cols[1].Name != "v" {
		t.Fatalf("Prepare FETCH: %v %v", cols, err)
	}
	for _, q := range []string{"MOVE 1 IN p", "CLOSE p", "FETCH nosuch"} {
		if _, cols, err := s.Prepare(ctx, q, nil); err != nil || cols != nil {
			t.Fatalf("Prepare %s: %v %v", q, cols, err)
		}
	}
	c = &collector{}
	if err := s.Execute(ctx, "FETCH 2 FROM p", nil, c); err != nil || c.tag != "FETCH 2" || len(c.rows) != 2 ||
		c.rows[0][0] != int64(8) || c.rows[1][1] != "v9" {
		t.Fatalf("Execute FETCH: %v %q %v", c.rows, c.tag, err)
	}
}
