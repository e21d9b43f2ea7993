package tests

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestJSONBWire: json and jsonb through the wire protocol in both formats
// (pgx sends and reads jsonb in binary in its extended mode: a version
// byte, then the text), COPY in text, CSV and binary (pgx's CopyFrom),
// and COPY TO; values come back in jsonb's normal form.
func TestJSONBWire(t *testing.T) {
	ctx := context.Background()
	db := openMem(t)
	port := startServer(t, db)
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeExec, pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
		conn := pgxConnect(t, port, mode)
		if _, err := conn.Exec(ctx, "DROP TABLE IF EXISTS jw"); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, "CREATE TABLE jw (id int PRIMARY KEY, j jsonb, r json)"); err != nil {
			t.Fatal(err)
		}
		var in any = map[string]any{"b": []any{1.5, "x"}, "a": nil}
		if mode != pgx.QueryExecModeCacheStatement {
			in = `{"b": [1.5, "x"], "a": null}` // no described parameter types to encode a map with
		}
		if _, err := conn.Exec(ctx, "INSERT INTO jw VALUES ($1, $2, $3)", 1, in, `{"z": 1,  "y": 2}`); err != nil {
			t.Fatalf("mode %v: INSERT with jsonb parameters: %v", mode, err)
		}
		var text, raw string
		var back map[string]any
		if err := conn.QueryRow(ctx, "SELECT j::text, r::text, j FROM jw WHERE id = $1", 1).Scan(&text, &raw, &back); err != nil {
			t.Fatalf("mode %v: %v", mode, err)
		}
		if text != `{"a": null, "b": [1.5, "x"]}` || raw != `{"z": 1,  "y": 2}` {
			t.Errorf("mode %v: read back %s and %s", mode, text, raw)
		}
		if len(back) != 2 || back["a"] != nil {
			t.Errorf("mode %v: scanned %v", mode, back)
		}
		var user string
		if err := conn.QueryRow(ctx, "SELECT j -> 'b' ->> $1::int FROM jw", 1).Scan(&user); err != nil || user != "x" {
			t.Errorf("mode %v: j -> 'b' ->> $1::int: %q, %v", mode, user, err)
		}
		var has bool
		if err := conn.QueryRow(ctx, "SELECT j @> $1 FROM jw", `{"b": ["x"]}`).Scan(&has); err != nil || !has {
			t.Errorf("mode %v: j @> $1: %v, %v", mode, has, err)
		}
		conn.Close(ctx)
	}

	conn := pgxConnect(t, port, pgx.QueryExecModeCacheStatement)
	defer conn.Close(ctx)
	rows := [][]any{{int32(2), map[string]any{"k": []any{true}}, `[1]`}, {int32(3), nil, nil}}
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"jw"}, []string{"id", "j", "r"}, pgx.CopyFromRows(rows))
	if err != nil || n != 2 {
		t.Fatalf("binary COPY FROM: %d, %v", n, err)
	}
	if _, err := db.CopyFrom(ctx, "COPY jw FROM STDIN", strings.NewReader("4\t{\"b\":1,\"a\":[]}\t\"s\"\n")); err != nil {
		t.Fatalf("text COPY FROM: %v", err)
	}
	if _, err := db.CopyFrom(ctx, "COPY jw FROM STDIN (FORMAT csv)", strings.NewReader("5,\"{\"\"q\"\": 1}\",null\n")); err != nil {
		t.Fatalf("CSV COPY FROM: %v", err)
	}
	if _, err := db.CopyFrom(ctx, "COPY jw FROM STDIN", strings.NewReader("6\t{bad\t1\n")); err == nil ||
		!strings.Contains(err.Error(), "invalid input syntax for type json") {
		t.Errorf("COPY of bad jsonb: %v", err)
	}
	var out strings.Builder
	if _, err := db.CopyTo(ctx, "COPY (SELECT id, j, r FROM jw WHERE id > 1 ORDER BY id) TO STDOUT", &out); err != nil {
		t.Fatal(err)
	}
	want := "2\t{\"k\": [true]}\t[1]\n3\t\\N\t\\N\n4\t{\"a\": [], \"b\": 1}\t\"s\"\n5\t{\"q\": 1}\tnull\n"
	if out.String() != want {
		t.Errorf("COPY TO:\n%s\nwant\n%s", out.String(), want)
	}
}
