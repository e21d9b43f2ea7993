package tests

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestArrayColumnsWire: array columns through pgx in its extended mode
// (binary arrays both ways) and COPY in text and binary.
func TestArrayColumnsWire(t *testing.T) {
	ctx := context.Background()
	db := openMem(t)
	conn := pgxConnect(t, startServer(t, db), pgx.QueryExecModeCacheStatement)
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE TABLE ac (id int PRIMARY KEY, n int[], s text[])"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO ac VALUES ($1, $2, $3)", 1, []int32{3, 1, 2}, []string{"a b", "c"}); err != nil {
		t.Fatalf("INSERT of array parameters: %v", err)
	}
	var n []int32
	var s []string
	if err := conn.QueryRow(ctx, "SELECT n, s FROM ac WHERE id = 1").Scan(&n, &s); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(n, []int32{3, 1, 2}) || !slices.Equal(s, []string{"a b", "c"}) {
		t.Errorf("read back %v %v", n, s)
	}
	rows := [][]any{{int32(2), []int32{7}, []string{}}, {int32(3), nil, []string{"x"}}}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"ac"}, []string{"id", "n", "s"}, pgx.CopyFromRows(rows)); err != nil {
		t.Fatalf("binary COPY FROM: %v", err)
	}
	if _, err := db.CopyFrom(ctx, "COPY ac FROM STDIN", strings.NewReader("4\t{5,NULL}\t{\"q r\"}\n")); err != nil {
		t.Fatalf("text COPY FROM: %v", err)
	}
	var out strings.Builder
	if _, err := db.CopyTo(ctx, "COPY (SELECT * FROM ac ORDER BY id) TO STDOUT", &out); err != nil {
		t.Fatal(err)
	}
	want := "1\t{3,1,2}\t{\"a b\",c}\n2\t{7}\t{}\n3\t\\N\t{x}\n4\t{5,NULL}\t{\"q r\"}\n"
	if out.String() != want {
		t.Errorf("COPY TO:\n%s\nwant\n%s", out.String(), want)
	}
}
