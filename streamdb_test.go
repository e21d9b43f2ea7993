package streamdb_test

import (
	"context"
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
