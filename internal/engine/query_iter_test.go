package engine

import (
	"context"
	"testing"
)

// TestQueryIter: a SELECT opened with OpenQuery yields its rows as they
// are pulled, equal to the in-memory result; arguments bind; a statement
// that is not a SELECT comes back in memory; an iterator left open is
// closed by DB.Close, which does not wait for it, and then fails.
func TestQueryIter(t *testing.T) {
	db, err := Open(":memory:", &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	s := db.NewSession()
	for _, q := range []string{
		"CREATE TABLE t (id int PRIMARY KEY, v text)",
		"INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 20000) AS g",
	} {
		if _, err := s.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	it, rows, err := s.OpenQuery(ctx, "SELECT id, v FROM t WHERE id > $1 ORDER BY id", 100)
	if err != nil || rows != nil || it == nil {
		t.Fatalf("OpenQuery: %v %v %v", it, rows, err)
	}
	if len(it.Columns) != 2 || it.Columns[0].Name != "id" || it.Columns[1].Name != "v" {
		t.Fatalf("columns %v", it.Columns)
	}
	want := int64(101)
	for {
		row, err := it.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if row == nil {
			break
		}
		if row[0] != want {
			t.Fatalf("row %v, want id %d", row, want)
		}
		want++
	}
	if want != 20001 || it.Tag() != "SELECT 19900" {
		t.Fatalf("ended at %d, tag %q", want, it.Tag())
	}
	if row, err := it.Next(ctx); row != nil || err != nil {
		t.Fatalf("after the end: %v %v", row, err)
	}
	it.Close()
	if _, err := it.Next(ctx); err == nil {
		t.Fatal("Next after Close did not fail")
	}

	it, rows, err = s.OpenQuery(ctx, "SHOW TABLES")
	if err != nil || it != nil || rows == nil || rows.Len() != 1 {
		t.Fatalf("SHOW TABLES: %v %v %v", it, rows, err)
	}

	// Left open across Close.
	it, _, err = s.OpenQuery(ctx, "SELECT * FROM t")
	if err != nil {
		t.Fatal(err)
	}
	if row, err := it.Next(ctx); err != nil || row == nil {
		t.Fatalf("first row: %v %v", row, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := it.Next(ctx); err == nil {
		t.Fatal("Next after DB.Close did not fail")
	}
}
