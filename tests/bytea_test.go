package tests

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// byteaSamples are bytea values with the bytes that text forms escape:
// NUL, 0xff, a backslash, invalid UTF-8, and the empty value.
var byteaSamples = [][]byte{{0x00, 0xff}, []byte(`a\b`), {0xc3, 0x28, 0x00}, {}}

// TestByteaWire: bytea through pgx in its three modes (the extended ones
// send and read bytea in binary, the raw bytes; the simple protocol in
// its \x hex text), as parameters compared with a primary key, and
// through COPY FROM in binary (pgx's CopyFrom), text and CSV, and COPY
// TO in text, CSV and binary.
func TestByteaWire(t *testing.T) {
	ctx := context.Background()
	db := openMem(t)
	port := startServer(t, db)
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeExec, pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
		conn := pgxConnect(t, port, mode)
		for _, stmt := range []string{"DROP TABLE IF EXISTS bw", "CREATE TABLE bw (k bytea PRIMARY KEY, id int)"} {
			if _, err := conn.Exec(ctx, stmt); err != nil {
				t.Fatal(err)
			}
		}
		for i, b := range byteaSamples {
			if _, err := conn.Exec(ctx, "INSERT INTO bw VALUES ($1, $2)", b, i); err != nil {
				t.Fatalf("mode %v: INSERT of %x: %v", mode, b, err)
			}
		}
		for i, b := range byteaSamples {
			var back []byte
			var n int32
			if err := conn.QueryRow(ctx, "SELECT k, length(k) FROM bw WHERE k = $1", b).Scan(&back, &n); err != nil {
				t.Fatalf("mode %v: SELECT of %x: %v", mode, b, err)
			}
			if !bytes.Equal(back, b) || int(n) != len(b) {
				t.Errorf("mode %v: sample %d: read back %x (length %d), want %x", mode, i, back, n, b)
			}
		}
		var hex string
		if err := conn.QueryRow(ctx, "SELECT encode(k || $1, 'hex') FROM bw WHERE id = 0", []byte{0x5c}).Scan(&hex); err != nil || hex != "00ff5c" {
			t.Errorf("mode %v: k || $1: %q, %v", mode, hex, err)
		}
		conn.Close(ctx)
	}

	conn := pgxConnect(t, port, pgx.QueryExecModeCacheStatement)
	defer conn.Close(ctx)
	rows := [][]any{{[]byte{0x01, 0x00}, int32(10)}, {[]byte{}, int32(11)}}
	if _, err := conn.Exec(ctx, "DELETE FROM bw"); err != nil {
		t.Fatal(err)
	}
	if n, err := conn.CopyFrom(ctx, pgx.Identifier{"bw"}, []string{"k", "id"}, pgx.CopyFromRows(rows)); err != nil || n != 2 {
		t.Fatalf("binary COPY FROM: %d, %v", n, err)
	}
	// Text COPY escapes backslashes: \\x02ff is '\x02ff', a\\\\b is 'a\\b'.
	if _, err := db.CopyFrom(ctx, "COPY bw FROM STDIN", strings.NewReader("\\\\x02ff\t12\na\\\\\\\\b\t13\n")); err != nil {
		t.Fatalf("text COPY FROM: %v", err)
	}
	if _, err := db.CopyFrom(ctx, "COPY bw FROM STDIN (FORMAT csv)", strings.NewReader("\\x03,14\nabc\\000,15\n")); err != nil {
		t.Fatalf("CSV COPY FROM: %v", err)
	}
	if _, err := db.CopyFrom(ctx, "COPY bw FROM STDIN", strings.NewReader("\\\\xzz\t16\n")); err == nil ||
		!strings.Contains(err.Error(), `invalid hexadecimal digit: "z"`) {
		t.Errorf("COPY of a bad bytea: %v", err)
	}
	for _, c := range []struct{ format, want string }{
		{"text", "\\\\x\t11\n\\\\x0100\t10\n\\\\x02ff\t12\n\\\\x03\t14\n\\\\x615c62\t13\n\\\\x61626300\t15\n"},
		{"csv", "\\x,11\n\\x0100,10\n\\x02ff,12\n\\x03,14\n\\x615c62,13\n\\x61626300,15\n"},
	} {
		var out strings.Builder
		if _, err := db.CopyTo(ctx, "COPY (SELECT k, id FROM bw ORDER BY k) TO STDOUT (FORMAT "+c.format+")", &out); err != nil {
			t.Fatal(err)
		}
		if out.String() != c.want {
			t.Errorf("COPY TO (%s):\n%s\nwant\n%s", c.format, out.String(), c.want)
		}
	}
	var bin bytes.Buffer
	if _, err := db.CopyTo(ctx, "COPY (SELECT k FROM bw WHERE id = 12) TO STDOUT (FORMAT binary)", &bin); err != nil {
		t.Fatal(err)
	}
	if field := []byte{0, 1, 0, 0, 0, 2, 0x02, 0xff}; !bytes.Contains(bin.Bytes(), field) {
		t.Errorf("binary COPY TO: %x lacks the field %x", bin.Bytes(), field)
	}

	// bytea[]: binary arrays of raw bytes both ways.
	if _, err := conn.Exec(ctx, "CREATE TABLE ba (id int PRIMARY KEY, bs bytea[])"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO ba VALUES ($1, $2)", 1, byteaSamples); err != nil {
		t.Fatalf("INSERT of a bytea[] parameter: %v", err)
	}
	var back [][]byte
	var text string
	if err := conn.QueryRow(ctx, "SELECT bs, bs::text FROM ba").Scan(&back, &text); err != nil {
		t.Fatal(err)
	}
	if len(back) != len(byteaSamples) || text != `{"\\x00ff","\\x615c62","\\xc32800","\\x"}` {
		t.Fatalf("bytea[] read back %x, %s", back, text)
	}
	for i := range back {
		if !bytes.Equal(back[i], byteaSamples[i]) {
			t.Errorf("bytea[] element %d: %x, want %x", i, back[i], byteaSamples[i])
		}
	}
}

// TestByteaGoAPI: the embedding API takes []byte arguments as bytea and
// returns bytea as []byte.
func TestByteaGoAPI(t *testing.T) {
	ctx := context.Background()
	db := openMem(t)
	if _, err := db.Exec(ctx, "CREATE TABLE bg (k bytea PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, "INSERT INTO bg VALUES ($1)", []byte(`a\b`)); err != nil {
		t.Fatalf("INSERT of a []byte argument: %v", err)
	}
	rows, err := db.Query(ctx, `SELECT k, 'x'::text FROM bg WHERE k = $1`, []byte(`a\b`))
	if err != nil {
		t.Fatal(err)
	}
	if !rows.Next() {
		t.Fatal("no row")
	}
	v := rows.Values()
	if b, ok := v[0].([]byte); !ok || !bytes.Equal(b, []byte(`a\b`)) || v[1] != "x" {
		t.Errorf("Values() = %#v", v)
	}
	if txt := rows.Text(); *txt[0] != `\x615c62` {
		t.Errorf("Text() = %q", *txt[0])
	}
	if rows.Columns[0].Type != "bytea" || rows.Columns[0].OID != 17 {
		t.Errorf("column %+v", rows.Columns[0])
	}
}
