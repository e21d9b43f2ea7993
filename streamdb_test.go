package streamdb_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/streamdb/streamdb"
)

// TestErrorFields checks that a statement's error is a *streamdb.Error an
// embedding program can inspect: SQLSTATE, message and position.
func TestErrorFields(t *testing.T) {
	db, err := streamdb.Open("", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	_, err = db.Query(ctx, "SELECT * FROM nope")
	var pe *streamdb.Error
	if !errors.As(err, &pe) || pe.Code != "42P01" || pe.SQLState() != "42P01" ||
		pe.Message != `relation "nope" does not exist` || pe.Position != 15 {
		t.Fatalf("got %#v", err)
	}
	_, err = db.Exec(ctx, "SELECT 1 FROM")
	if !errors.As(err, &pe) || pe.Code != "42601" || pe.Position != 14 {
		t.Fatalf("syntax error: got %#v", err)
	}
	_, err = db.Query(ctx, "SELECT 1,\n  2 +")
	if !errors.As(err, &pe) || pe.Code != "42601" || pe.Position == 0 {
		t.Fatalf("syntax error: got %#v", err)
	}
	if _, err := db.Exec(ctx, "CREATE TABLE t (id int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(ctx, "INSERT INTO t VALUES (1), (1)")
	if !errors.As(err, &pe) || pe.Code != "23505" || pe.Detail != "Key (id)=(1) already exists." {
		t.Fatalf("got %#v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = db.Query(cctx, "SELECT 1")
	if !errors.As(err, &pe) || pe.Code != "57014" || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: got %#v", err)
	}
}

// TestSessionSettings checks that a Session keeps its settings between
// statements and that sessions do not share them.
func TestSessionSettings(t *testing.T) {
	db, err := streamdb.Open("", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	s := db.NewSession()
	defer s.Close()
	if _, err := s.Exec(ctx, "SET streaming_parallelism = 3"); err != nil {
		t.Fatal(err)
	}
	if v, ok := s.Var("streaming_parallelism"); !ok || v != "3" {
		t.Fatalf("session: %q %v", v, ok)
	}
	if v, _ := db.NewSession().Var("streaming_parallelism"); v == "3" {
		t.Fatal("a new session sees another session's setting")
	}
	rows, err := s.Query(ctx, "SELECT $1::int + 1", 41)
	if err != nil {
		t.Fatal(err)
	}
	if !rows.Next() || rows.Values()[0] != int64(42) || rows.Next() {
		t.Fatalf("rows: %v", rows)
	}
}

// TestDriverStreams: database/sql's rows come from the streaming Rows:
// scanned as database/sql converts them, closed early, and an error the
// executor raises mid-stream comes from Rows.Err as a *streamdb.Error.
func TestDriverStreams(t *testing.T) {
	db, err := sql.Open("streamdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE t (id int PRIMARY KEY, v text, n numeric)",
		"INSERT INTO t SELECT g, 'v' || g, g / 4.0 FROM generate_series(1, 30000) AS g",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := db.QueryContext(ctx, "SELECT id, v, n FROM t ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		var id int
		var v string
		var num float64
		if err := rows.Scan(&id, &v, &num); err != nil {
			t.Fatal(err)
		}
		if n++; id != n || num != float64(n)/4 {
			t.Fatalf("row %d: %d %q %v", n, id, v, num)
		}
	}
	if err := rows.Err(); err != nil || n != 30000 {
		t.Fatalf("%d rows: %v", n, err)
	}

	rows, err = db.QueryContext(ctx, "SELECT id FROM t")
	if err != nil {
		t.Fatal(err)
	}
	rows.Next()
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}

	rows, err = db.QueryContext(ctx, "SELECT 10 / (id - 20000) FROM t")
	if err != nil {
		t.Fatal(err)
	}
	n = 0
	for rows.Next() {
		n++
	}
	var pe *streamdb.Error
	if !errors.As(rows.Err(), &pe) || pe.Code != "22012" || n == 0 {
		t.Fatalf("after %d rows: %v", n, rows.Err())
	}
	rows.Close()
	var one int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&one); err != nil || one != 30000 {
		t.Fatalf("count: %d %v", one, err)
	}
}

// TestRowsOpenAtClose: DB.Close ends rows left open, which then report
// an error rather than reading a closed store.
func TestRowsOpenAtClose(t *testing.T) {
	db, err := streamdb.Open("", nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := db.Exec(ctx, "CREATE TABLE t (id int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, "INSERT INTO t SELECT g FROM generate_series(1, 10000) AS g"); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(ctx, "SELECT id FROM t")
	if err != nil {
		t.Fatal(err)
	}
	if !rows.Next() {
		t.Fatal(rows.Err())
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
	}
	var pe *streamdb.Error
	if !errors.As(rows.Err(), &pe) || pe.Code != "24000" {
		t.Fatalf("rows after DB.Close: %v", rows.Err())
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
}
