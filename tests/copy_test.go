package tests

import (
	"bytes"
	"context"
	"database/sql"
	binenc "encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/lib/pq"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// The COPY tests drive COPY FROM STDIN and COPY TO STDOUT through real
// clients (pgx, lib/pq, psql, a raw protocol client) against a server.
// testdata/copy_alltypes.{txt,csv,pgcopy} are the text, CSV (with HEADER)
// and binary output of PostgreSQL 15 for the four rows of alltypes below,
// so loading them checks that streamdb reads PostgreSQL's encodings, and
// copying out compares streamdb's encodings with PostgreSQL's.

// copyIn runs a COPY ... FROM STDIN with data through pgconn.
func copyIn(t *testing.T, conn *pgx.Conn, query, data string) (pgconn.CommandTag, error) {
	t.Helper()
	return conn.PgConn().CopyFrom(context.Background(), strings.NewReader(data), query)
}

// copyOutText runs a COPY ... TO STDOUT through pgconn and returns the data.
func copyOutText(t *testing.T, conn *pgx.Conn, query string) string {
	t.Helper()
	var buf bytes.Buffer
	if _, err := conn.PgConn().CopyTo(context.Background(), &buf, query); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return buf.String()
}

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func pgxExec(t *testing.T, conn *pgx.Conn, sql string) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func pgxCount(t *testing.T, conn *pgx.Conn, sql string) int64 {
	t.Helper()
	var n int64
	if err := conn.QueryRow(context.Background(), sql).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// TestCopyAllTypesFormats loads PostgreSQL's output of every type in each
// format and copies it out again in each format.
func TestCopyAllTypesFormats(t *testing.T) {
	db := openMem(t)
	conn := pgxConnect(t, startServer(t, db), pgx.QueryExecModeCacheStatement)
	wantText := readTestdata(t, "copy_alltypes.txt")
	wantCSV := readTestdata(t, "copy_alltypes.csv")
	wantBinary := readTestdata(t, "copy_alltypes.pgcopy")
	for _, in := range []struct{ name, opts, data string }{
		{"text", "", wantText},
		{"csv", "WITH (FORMAT csv, HEADER true)", wantCSV},
		{"binary", "WITH (FORMAT binary)", wantBinary},
		{"legacy_csv", "WITH CSV HEADER", wantCSV},
		{"legacy_binary", "BINARY", wantBinary},
	} {
		t.Run(in.name, func(t *testing.T) {
			table := "alltypes_" + in.name
			pgxExec(t, conn, strings.Replace(driverTableDDL, "alltypes", table, 1))
			tag, err := copyIn(t, conn, fmt.Sprintf("COPY %s FROM STDIN %s", table, in.opts), in.data)
			if err != nil || tag.String() != "COPY 4" {
				t.Fatalf("COPY FROM: %q, %v", tag, err)
			}
			ordered := "COPY (SELECT * FROM " + table + " ORDER BY id) TO STDOUT"
			if got := copyOutText(t, conn, ordered); got != wantText {
				t.Errorf("text:\n got %q\nwant %q", got, wantText)
			}
			if got := copyOutText(t, conn, ordered+" (FORMAT csv, HEADER)"); got != wantCSV {
				t.Errorf("csv:\n got %q\nwant %q", got, wantCSV)
			}
			if got := copyOutText(t, conn, ordered+" (FORMAT binary)"); got != wantBinary {
				t.Errorf("binary:\n got %x\nwant %x", got, wantBinary)
			}
		})
	}
}

// TestCopyPgxCopyFrom loads rows with pgx's CopyFrom (the binary format,
// after pgx describes the columns) and reads them back.
func TestCopyPgxCopyFrom(t *testing.T) {
	db := openMem(t)
	conn := pgxConnect(t, startServer(t, db), pgx.QueryExecModeCacheStatement)
	ctx := context.Background()
	pgxExec(t, conn, driverTableDDL)
	pgxExec(t, conn, driverViewDDL)
	num := pgtype.Numeric{Int: big.NewInt(12345678), Exp: -3, Valid: true}
	cols := []string{"id", "c_smallint", "c_int", "c_bigint", "c_real", "c_double", "c_numeric",
		"c_text", "c_varchar", "c_bool", "c_date", "c_timestamp", "c_timestamptz", "c_interval"}
	rows := [][]any{
		{1, int16(-32768), int32(2147483647), int64(9223372036854775807), float32(1.5), 2.718281828459045,
			num, wantText, "vc", true, wantDate, wantTimestamp, wantTimestampTZ, wantInterval},
		{2, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil},
	}
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"alltypes"}, cols, pgx.CopyFromRows(rows))
	if err != nil || n != 2 {
		t.Fatalf("CopyFrom: %d, %v", n, err)
	}
	want := strings.Join(strings.SplitAfter(readTestdata(t, "copy_alltypes.txt"), "\n")[:2], "")
	if got := copyOutText(t, conn, "COPY (SELECT * FROM alltypes ORDER BY id) TO STDOUT"); got != want {
		t.Errorf("copied out:\n got %q\nwant %q", got, want)
	}
	checkPgxView(t, conn, "true|1|9223372036854775807|2024-02-29", "NULL|1|NULL|NULL")

	// A column subset, with a schema-qualified name; the rest are NULL.
	n, err = conn.CopyFrom(ctx, pgx.Identifier{"public", "alltypes"}, []string{"c_bool", "id"},
		pgx.CopyFromRows([][]any{{true, 3}, {false, 4}}))
	if err != nil || n != 2 {
		t.Fatalf("CopyFrom subset: %d, %v", n, err)
	}
	checkPgxView(t, conn, "false|1|NULL|NULL", "true|2|9223372036854775807|2024-02-29", "NULL|1|NULL|NULL")
	// A duplicate key fails the whole COPY.
	_, err = conn.CopyFrom(ctx, pgx.Identifier{"alltypes"}, []string{"id"}, pgx.CopyFromRows([][]any{{5}, {1}}))
	checkPgxCode(t, err, "23505")
	if n := pgxCount(t, conn, "SELECT count(*) FROM alltypes"); n != 4 {
		t.Fatalf("count after the failed COPY = %d, want 4", n)
	}
}

// copyTable is the table of the error tests, with a view over it.
const copyTableDDL = `CREATE TABLE t (id int PRIMARY KEY, v int, s text);
CREATE MATERIALIZED VIEW t_sum AS SELECT count(*) AS n, sum(v) AS total FROM t`

// binaryCopy builds binary COPY data of (int4, int4, text) rows; a nil
// value is NULL, and a []byte is sent as is.
func binaryCopy(rows ...[]any) string {
	b := []byte("PGCOPY\n\xff\r\n\x00")
	b = binenc.BigEndian.AppendUint64(b, 0)
	for _, r := range rows {
		b = binenc.BigEndian.AppendUint16(b, uint16(len(r)))
		for _, v := range r {
			switch v := v.(type) {
			case nil:
				b = binenc.BigEndian.AppendUint32(b, 0xFFFFFFFF)
			case int:
				b = binenc.BigEndian.AppendUint32(b, 4)
				b = binenc.BigEndian.AppendUint32(b, uint32(v))
			case string:
				b = binenc.BigEndian.AppendUint32(b, uint32(len(v)))
				b = append(b, v...)
			case []byte:
				b = binenc.BigEndian.AppendUint32(b, uint32(len(v)))
				b = append(b, v...)
			}
		}
	}
	return string(binenc.BigEndian.AppendUint16(b, 0xFFFF))
}

// TestCopyBadRow: a bad row fails the COPY with PostgreSQL's error and
// CONTEXT, and nothing of the COPY is loaded.
func TestCopyBadRow(t *testing.T) {
	db := openMem(t)
	conn := pgxConnect(t, startServer(t, db), pgx.QueryExecModeCacheStatement)
	for _, stmt := range strings.Split(copyTableDDL, ";") {
		pgxExec(t, conn, stmt)
	}
	pgxExec(t, conn, "INSERT INTO t VALUES (1, 10, 'a'), (2, 20, 'b')")
	for _, tc := range []struct {
		name, opts, data string
		code, msg, where string
	}{
		{"text value", "", "10\t1\tx\n11\tabc\ty\n12\t3\tz\n", "22P02", `invalid input syntax for type integer: "abc"`,
			`COPY t, line 2, column v: "abc"`},
		{"text missing", "", "10\t1\tx\n11\t2\n", "22P04", `missing data for column "s"`, "COPY t, line 2: \"11\t2\""},
		{"text extra", "", "10\t1\tx\t9\n", "22P04", "extra data after last expected column", "COPY t, line 1: \"10\t1\tx\t9\""},
		{"text null pk", "", "10\t1\tx\n\\N\t1\tx\n", "23502", `null value in column "id" of relation "t" violates not-null constraint`,
			"COPY t, line 2: \"\\N\t1\tx\""},
		{"dup in copy", "", "10\t1\tx\n11\t1\tx\n10\t2\ty\n12\t1\tx\n", "23505", `duplicate key value violates unique constraint "t_pkey"`,
			"COPY t, line 3"},
		{"dup of table", "", "10\t1\tx\n11\t1\tx\n2\t2\ty\n", "23505", `duplicate key value violates unique constraint "t_pkey"`,
			"COPY t, line 3"},
		{"first failing line", "", "10\t1\tx\n11\t1\tx\n12\t1\tx\n11\t1\tx\n1\t1\tx\n", "23505",
			`duplicate key value violates unique constraint "t_pkey"`, "COPY t, line 4"},
		// PostgreSQL inserts in batches (see TestCopyErrorOrder): a bad
		// row in the batch of a duplicate is the error.
		{"dup before bad value", "", "10\t1\tx\n10\t2\ty\n11\tabc\tz\n", "22P02", `invalid input syntax for type integer: "abc"`,
			`COPY t, line 3, column v: "abc"`},
		{"bad value before dup", "", "10\t1\tx\n11\tabc\ty\n10\t2\ty\n", "22P02", `invalid input syntax for type integer: "abc"`,
			`COPY t, line 2, column v: "abc"`},
		{"varchar", "", "10\t99999999999\tx\n", "22003", `value "99999999999" is out of range for type integer`,
			`COPY t, line 1, column v: "99999999999"`},
		{"csv header", "(FORMAT csv, HEADER)", "id,v,s\n10,1,x\n11,1,\"un\nterminated\n", "22P04", "unterminated CSV quoted field",
			"COPY t, line 5: \"11,1,\"un\nterminated\n\""},
		{"csv line after multi-line value", "(FORMAT csv, HEADER)", "id,v,s\n10,1,\"a\nb\"\n11,x,y\n", "22P02",
			`invalid input syntax for type integer: "x"`, `COPY t, line 4, column v: "x"`},
		{"csv value", "(FORMAT csv, HEADER)", "id,v,s\n10,1,x\n11,1.5,y\n", "22P02", `invalid input syntax for type integer: "1.5"`,
			`COPY t, line 3, column v: "1.5"`},
		{"binary count", "(FORMAT binary)", binaryCopy([]any{10, 1, "x"}, []any{11, 1}), "22P04", "row field count is 2, expected 3",
			"COPY t, line 2"},
		{"binary size", "(FORMAT binary)", binaryCopy([]any{10, 1, "x"}, []any{11, []byte{0, 1}, "y"}), "22P03",
			"incorrect binary data format", "COPY t, line 2, column v"},
		{"binary dup", "(FORMAT binary)", binaryCopy([]any{10, 1, "x"}, []any{1, 1, "y"}), "23505",
			`duplicate key value violates unique constraint "t_pkey"`, "COPY t, line 2"},
		{"binary null pk", "(FORMAT binary)", binaryCopy([]any{nil, 1, "x"}), "23502",
			`null value in column "id" of relation "t" violates not-null constraint`, "COPY t, line 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := copyIn(t, conn, "COPY t FROM STDIN "+tc.opts, tc.data)
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != tc.code || pe.Message != tc.msg || pe.Where != tc.where {
				t.Fatalf("got %v (where %q), want %s %q where %q", err, whereOf(err), tc.code, tc.msg, tc.where)
			}
			if got := queryRows(t, db, "SELECT * FROM t_sum"); fmt.Sprint(got) != "[2|30]" {
				t.Fatalf("view after the failed COPY: %v", got)
			}
			if n := pgxCount(t, conn, "SELECT count(*) FROM t"); n != 2 {
				t.Fatalf("count after the failed COPY = %d", n)
			}
		})
	}
	_, err := copyIn(t, conn, "COPY t FROM STDIN", "10\t1\tx\n1\t1\tx\n")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Detail != "Key (id)=(1) already exists." {
		t.Fatalf("duplicate detail: %v", err)
	}
}

// copyErrorOrderCases are COPYs with a duplicate key and a later bad row.
// PostgreSQL inserts a COPY's rows in batches of 1000 rows or 65535 bytes
// of line text, finding duplicates as it inserts a full batch: the error
// is the duplicate when a full batch ends between the two, else the bad
// row. The table holds ids 1 and 2.
func copyErrorOrderCases() []struct{ name, opts, data, code, where string } {
	// rows renders n text rows, the one on line dup repeating the first's
	// key, the one on line bad with a bad value; each line is width bytes
	// (at least).
	rows := func(n, dup, bad, width int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			id, v := 100+i, "1"
			if i == dup {
				id = 101
			}
			if i == bad {
				v = "abc"
			}
			line := fmt.Sprintf("%d\t%s\t", id, v)
			b.WriteString(line + strings.Repeat("x", max(width-len(line), 1)) + "\n")
		}
		return b.String()
	}
	binRows := func(n, dup, bad int) string {
		var rs [][]any
		for i := 1; i <= n; i++ {
			r := []any{100 + i, 1, "x"}
			if i == dup {
				r[0] = 101
			}
			if i == bad {
				r = r[:2]
			}
			rs = append(rs, r)
		}
		return binaryCopy(rs...)
	}
	return []struct{ name, opts, data, code, where string }{
		{"one batch", "", rows(3, 2, 3, 0), "22P02", `COPY t, line 3, column v: "abc"`},
		{"bad row ends the batch", "", rows(1000, 2, 1000, 0), "22P02", `COPY t, line 1000, column v: "abc"`},
		{"bad row after a full batch", "", rows(1001, 2, 1001, 0), "23505", "COPY t, line 2"},
		{"dup in the second batch", "", rows(2001, 1500, 2001, 0), "23505", "COPY t, line 1500"},
		{"dup after the last full batch", "", rows(1500, 1200, 1500, 0), "22P02", `COPY t, line 1500, column v: "abc"`},
		{"dup of the table", "", "2\t1\tx\n" + rows(1001, 0, 1000, 0), "23505", "COPY t, line 1"},
		{"bytes: bad row ends the batch", "", rows(94, 2, 94, 700), "22P02", `COPY t, line 94, column v: "abc"`},
		{"bytes: bad row after a full batch", "", rows(95, 2, 95, 700), "23505", "COPY t, line 2"},
		{"csv header", "(FORMAT csv, HEADER)", "id,v,s\n" + strings.ReplaceAll(rows(1000, 2, 1000, 0), "\t", ","), "22P02",
			`COPY t, line 1001, column v: "abc"`},
		{"csv header after a full batch", "(FORMAT csv, HEADER)", "id,v,s\n" + strings.ReplaceAll(rows(1001, 2, 1001, 0), "\t", ","),
			"23505", "COPY t, line 3"},
		{"binary", "(FORMAT binary)", binRows(1000, 2, 1000), "22P04", "COPY t, line 1000"},
		{"binary after a full batch", "(FORMAT binary)", binRows(1001, 2, 1001), "23505", "COPY t, line 2"},
	}
}

// TestCopyErrorOrder checks which of a duplicate key and a later bad row
// a COPY reports, as PostgreSQL does.
func TestCopyErrorOrder(t *testing.T) {
	db := openMem(t)
	conn := pgxConnect(t, startServer(t, db), pgx.QueryExecModeCacheStatement)
	checkCopyErrorOrder(t, conn)
}

// TestCopyErrorOrderPostgres checks copyErrorOrderCases against
// PostgreSQL, when it is installed.
func TestCopyErrorOrderPostgres(t *testing.T) {
	pg := startPostgres(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pg.connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	checkCopyErrorOrder(t, conn)
}

func checkCopyErrorOrder(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	pgxExec(t, conn, "CREATE TABLE t (id int PRIMARY KEY, v int, s text)")
	pgxExec(t, conn, "INSERT INTO t VALUES (1, 10, 'a'), (2, 20, 'b')")
	for _, tc := range copyErrorOrderCases() {
		_, err := copyIn(t, conn, "COPY t FROM STDIN "+tc.opts, tc.data)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != tc.code || pe.Where != tc.where {
			t.Errorf("%s: got %v (where %q), want %s where %q", tc.name, err, whereOf(err), tc.code, tc.where)
		}
	}
	if n := pgxCount(t, conn, "SELECT count(*) FROM t"); n != 2 {
		t.Errorf("rows after the failed COPYs: %d", n)
	}
}

func whereOf(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Where
	}
	return ""
}

// failingReader returns its data, then an error.
type failingReader struct {
	data string
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if r.data == "" {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestCopyFail: a client that gives up (CopyFail) loads nothing, and the
// connection stays usable.
func TestCopyFail(t *testing.T) {
	db := openMem(t)
	conn := pgxConnect(t, startServer(t, db), pgx.QueryExecModeCacheStatement)
	for _, stmt := range strings.Split(copyTableDDL, ";") {
		pgxExec(t, conn, stmt)
	}
	pgxExec(t, conn, "INSERT INTO t VALUES (1, 10, 'a')")
	r := &failingReader{data: "10\t1\tx\n11\t2\ty\n", err: errors.New("disk on fire")}
	_, err := conn.PgConn().CopyFrom(context.Background(), r, "COPY t FROM STDIN")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "57014" || pe.Message != "COPY from stdin failed: disk on fire" {
		t.Fatalf("got %v, want 57014 COPY from stdin failed", err)
	}
	if got := queryRows(t, db, "SELECT * FROM t_sum"); fmt.Sprint(got) != "[1|10]" {
		t.Fatalf("view after CopyFail: %v", got)
	}
	tag, err := copyIn(t, conn, "COPY t FROM STDIN", "10\t1\tx\n11\t2\ty\n")
	if err != nil || tag.String() != "COPY 2" {
		t.Fatalf("COPY after CopyFail: %q, %v", tag, err)
	}
	if got := queryRows(t, db, "SELECT * FROM t_sum"); fmt.Sprint(got) != "[3|13]" {
		t.Fatalf("view after COPY: %v", got)
	}
}

// TestCopyView: views over a table see the rows of a COPY (one epoch).
func TestCopyView(t *testing.T) {
	db := openMem(t)
	conn := pgxConnect(t, startServer(t, db), pgx.QueryExecModeCacheStatement)
	for _, stmt := range strings.Split(copyTableDDL, ";") {
		pgxExec(t, conn, stmt)
	}
	pgxExec(t, conn, "CREATE MATERIALIZED VIEW t_by_s AS SELECT s, count(*) AS n FROM t GROUP BY s")
	var data strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&data, "%d,%d,k%d\n", i, i, i%3)
	}
	tag, err := copyIn(t, conn, "COPY t FROM STDIN WITH CSV", data.String())
	if err != nil || tag.String() != "COPY 3000" {
		t.Fatalf("COPY: %q, %v", tag, err)
	}
	if got := queryRows(t, db, "SELECT * FROM t_sum"); fmt.Sprint(got) != "[3000|4501500]" {
		t.Errorf("t_sum: %v", got)
	}
	if got := queryRows(t, db, "SELECT * FROM t_by_s"); fmt.Sprint(got) != "[k0|1000 k1|1000 k2|1000]" {
		t.Errorf("t_by_s: %v", got)
	}
	// COPY TO of a view and of a query over it.
	if got := copyOutText(t, conn, "COPY t_sum TO STDOUT"); got != "3000\t4501500\n" {
		t.Errorf("COPY t_sum TO: %q", got)
	}
	got := copyOutText(t, conn, "COPY (SELECT s, n FROM t_by_s ORDER BY s DESC) TO STDOUT (FORMAT csv, HEADER, FORCE_QUOTE (s))")
	if want := "s,n\n\"k2\",1000\n\"k1\",1000\n\"k0\",1000\n"; got != want {
		t.Errorf("COPY (query) TO:\n got %q\nwant %q", got, want)
	}
	if got := copyOutText(t, conn, "COPY t (s, id) TO STDOUT WITH CSV"); strings.Count(got, "\n") != 3000 || !strings.Contains(got, "k1,1\n") {
		t.Errorf("COPY t (s, id) TO: %d lines", strings.Count(got, "\n"))
	}
}

// TestCopyStatementErrors: what COPY refuses, before any data.
func TestCopyStatementErrors(t *testing.T) {
	db := openMem(t)
	conn := pgxConnect(t, startServer(t, db), pgx.QueryExecModeCacheStatement)
	for _, stmt := range strings.Split(copyTableDDL, ";") {
		pgxExec(t, conn, stmt)
	}
	for _, tc := range []struct{ sql, code, msg string }{
		{"COPY t_sum FROM STDIN", "42809", `cannot copy to materialized view "t_sum"`},
		{"COPY streamdb_catalog.rate_limits FROM STDIN", "42809", `cannot copy to system view "streamdb_catalog.rate_limits"`},
		{"COPY nope FROM STDIN", "42P01", `relation "nope" does not exist`},
		{"COPY nope TO STDOUT", "42P01", `relation "nope" does not exist`},
		{"COPY t (id, nope) FROM STDIN", "42703", `column "nope" of relation "t" does not exist`},
		{"COPY t (id, id) FROM STDIN", "42701", `column "id" specified more than once`},
		{"COPY t FROM '/etc/passwd'", "0A000", "COPY from a file is not supported: the server reads and writes no files"},
		{"COPY t TO '/tmp/x'", "0A000", "COPY to a file is not supported: the server reads and writes no files"},
		{"COPY t TO PROGRAM 'cat'", "0A000", "COPY to an external program is not supported: the server reads and writes no files"},
		{"COPY t FROM STDIN WHERE id > 1", "0A000", "COPY FROM ... WHERE is not supported"},
		{"COPY t FROM STDIN (FORMAT xml)", "22023", `COPY format "xml" not recognized`},
		{"COPY t FROM STDIN (FORMAT csv, FORMAT text)", "42601", "conflicting or redundant options"},
		{"COPY t FROM STDIN (FORMAT binary, HEADER)", "0A000", "cannot specify HEADER in BINARY mode"},
		{"COPY t (id) FROM STDIN (FORMAT csv, FORCE_NOT_NULL (v))", "42P10", `FORCE_NOT_NULL column "v" not referenced by COPY`},
		{"COPY t FROM STDIN (FORMAT csv, FORCE_NOT_NULL (zz))", "42703", `column "zz" of relation "t" does not exist`},
		{"COPY (SELECT 1 AS a) TO STDOUT (FORMAT csv, FORCE_QUOTE (zz))", "42P10", `FORCE_QUOTE column "zz" not referenced by COPY`},
		{"COPY (SELECT * FROM nope) TO STDOUT", "42P01", `relation "nope" does not exist`},
	} {
		var err error
		if strings.Contains(tc.sql, " TO ") {
			_, err = conn.PgConn().CopyTo(context.Background(), io.Discard, tc.sql)
		} else {
			_, err = copyIn(t, conn, tc.sql, "")
		}
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != tc.code || pe.Message != tc.msg {
			t.Errorf("%s: got %v, want %s %q", tc.sql, err, tc.code, tc.msg)
		}
	}
	if n := pgxCount(t, conn, "SELECT count(*) FROM t"); n != 0 {
		t.Fatalf("count = %d", n)
	}
}

// TestCopyExtendedProtocol runs COPY through Parse/Bind/Execute, with a
// Sync right after Execute as some drivers send it.
func TestCopyExtendedProtocol(t *testing.T) {
	db := openMem(t)
	port := startServer(t, db)
	mustExec(t, db, "CREATE TABLE t (id int PRIMARY KEY, v text)")
	nc, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	fe := pgproto3.NewFrontend(nc, nc)
	send := func(msgs ...pgproto3.FrontendMessage) {
		for _, m := range msgs {
			fe.Send(m)
		}
		if err := fe.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	// until returns the type names of the messages up to ReadyForQuery (or
	// up to the first of type stop), with CopyData payloads and tags.
	until := func(stop string) []string {
		var got []string
		for {
			m, err := fe.Receive()
			if err != nil {
				t.Fatal(err)
			}
			s := strings.TrimPrefix(fmt.Sprintf("%T", m), "*pgproto3.")
			switch m := m.(type) {
			case *pgproto3.CopyData:
				s += " " + string(m.Data)
			case *pgproto3.CommandComplete:
				s += " " + string(m.CommandTag)
			case *pgproto3.ErrorResponse:
				s += " " + m.Code
			}
			got = append(got, s)
			if s == "ReadyForQuery" || s == stop {
				return got
			}
		}
	}
	send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "u", "database": "d"}})
	until("")
	send(&pgproto3.Parse{Query: "COPY t FROM STDIN WITH (FORMAT csv)"}, &pgproto3.Bind{}, &pgproto3.Describe{ObjectType: 'P'},
		&pgproto3.Execute{}, &pgproto3.Sync{})
	if got := until("CopyInResponse"); fmt.Sprint(got) != "[ParseComplete BindComplete NoData CopyInResponse]" {
		t.Fatalf("start: %v", got)
	}
	send(&pgproto3.CopyData{Data: []byte("1,a\n2,")}, &pgproto3.Flush{}, &pgproto3.CopyData{Data: []byte("b\n")},
		&pgproto3.CopyDone{}, &pgproto3.Sync{})
	if got := until(""); fmt.Sprint(got) != "[CommandComplete COPY 2 ReadyForQuery]" {
		t.Fatalf("end: %v", got)
	}
	send(&pgproto3.Parse{Query: "COPY t TO STDOUT"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	got := until("")
	if fmt.Sprint(got) != "[ParseComplete BindComplete CopyOutResponse CopyData 1\ta\n CopyData 2\tb\n CopyDone CommandComplete COPY 2 ReadyForQuery]" &&
		fmt.Sprint(got) != "[ParseComplete BindComplete CopyOutResponse CopyData 2\tb\n CopyData 1\ta\n CopyDone CommandComplete COPY 2 ReadyForQuery]" {
		t.Fatalf("copy out: %q", got)
	}
	// A bad row: the error, then everything up to Sync is discarded.
	send(&pgproto3.Parse{Query: "COPY t FROM STDIN"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	until("CopyInResponse")
	send(&pgproto3.CopyData{Data: []byte("3\tc\nx\td\n")}, &pgproto3.CopyData{Data: []byte("5\te\n")}, &pgproto3.CopyDone{}, &pgproto3.Sync{})
	if got := until(""); fmt.Sprint(got) != "[ErrorResponse 22P02 ReadyForQuery]" {
		t.Fatalf("bad row: %v", got)
	}
	if got := queryRows(t, db, "SELECT * FROM t"); fmt.Sprint(got) != "[1|a 2|b]" {
		t.Fatalf("rows: %v", got)
	}
}

// TestCopyLibPQ loads rows with lib/pq's CopyIn (text format, in a
// transaction, as its documentation shows).
func TestCopyLibPQ(t *testing.T) {
	db := openMem(t)
	port := startServer(t, db)
	mustExec(t, db, "CREATE TABLE t (id int PRIMARY KEY, v text, n numeric)")
	sdb, err := sql.Open("postgres", fmt.Sprintf("host=127.0.0.1 port=%d user=tester dbname=dev sslmode=disable", port))
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	txn, err := sdb.Begin()
	if err != nil {
		t.Fatal(err)
	}
	stmt, err := txn.Prepare(pq.CopyIn("t", "id", "v", "n"))
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range []string{"plain", "tab\tnewline\nbackslash\\", ""} {
		if _, err := stmt.Exec(i, v, fmt.Sprintf("%d.5", i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := stmt.Exec(3, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := stmt.Exec(); err != nil {
		t.Fatal(err)
	}
	if err := stmt.Close(); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	want := "[0|plain|0.5 1|tab\tnewline\nbackslash\\|1.5 2||2.5 3|NULL|NULL]"
	if got := queryRows(t, db, "SELECT * FROM t"); fmt.Sprint(got) != want {
		t.Fatalf("rows:\n got %q\nwant %q", fmt.Sprint(got), want)
	}
}

// TestCopyAPI: DB.CopyFrom and DB.CopyTo, and the error of a COPY with
// no data stream.
func TestCopyAPI(t *testing.T) {
	db := openMem(t)
	ctx := context.Background()
	mustExec(t, db, "CREATE TABLE t (id int PRIMARY KEY, v text)")
	res, err := db.CopyFrom(ctx, "COPY t FROM STDIN (FORMAT csv, HEADER)", strings.NewReader("id,v\n1,a\n2,\"b,c\"\n"))
	if err != nil || res.Tag != "COPY 2" || res.RowsAffected != 2 {
		t.Fatalf("CopyFrom: %+v, %v", res, err)
	}
	var out bytes.Buffer
	res, err = db.CopyTo(ctx, "COPY (SELECT v FROM t ORDER BY id) TO STDOUT", &out)
	if err != nil || res.RowsAffected != 2 || out.String() != "a\nb,c\n" {
		t.Fatalf("CopyTo: %+v, %q, %v", res, out.String(), err)
	}
	_, err = db.CopyFrom(ctx, "COPY t FROM STDIN", strings.NewReader("3\tx\n3\ty\n"))
	if pe := pgerr.As(err); pe.Code != "23505" || pe.Where != "COPY t, line 2" {
		t.Fatalf("CopyFrom duplicate: %v (%s)", err, pe.Where)
	}
	_, err = db.Exec(ctx, "COPY t FROM STDIN")
	if pe := pgerr.As(err); pe.Code != "0A000" || !strings.Contains(pe.Message, "DB.CopyFrom") {
		t.Fatalf("Exec of COPY FROM STDIN: %v", err)
	}
	_, err = db.Exec(ctx, "COPY t TO STDOUT")
	if pe := pgerr.As(err); pe.Code != "0A000" || !strings.Contains(pe.Message, "DB.CopyTo") {
		t.Fatalf("Exec of COPY TO STDOUT: %v", err)
	}
	if _, err := db.CopyFrom(ctx, "SELECT 1", strings.NewReader("")); err == nil {
		t.Fatal("CopyFrom of a SELECT: no error")
	}
	if got := queryRows(t, db, "SELECT * FROM t"); fmt.Sprint(got) != "[1|a 2|b,c]" {
		t.Fatalf("rows: %v", got)
	}
}

var _ = streamdb.Open

// TestCopyFillsDefaults: COPY with a column list fills the other
// columns with their defaults, evaluated per row, as INSERT does.
func TestCopyFillsDefaults(t *testing.T) {
	db := openMem(t)
	ctx := context.Background()
	mustExec(t, db, "CREATE TABLE cdef (id int PRIMARY KEY, name text, qty int DEFAULT 3 + 4, note text DEFAULT 'n/' || 'a', r float8 DEFAULT random())")
	if _, err := db.CopyFrom(ctx, "COPY cdef (id, name) FROM STDIN", strings.NewReader("1\tx\n2\ty\n")); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, "INSERT INTO cdef (id, qty) VALUES (3, DEFAULT)")
	got := queryRows(t, db, "SELECT id, name, qty, note FROM cdef ORDER BY id")
	want := []string{"1|x|7|n/a", "2|y|7|n/a", "3|NULL|7|n/a"}
	if !slices.Equal(got, want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
	if got := queryRows(t, db, "SELECT count(DISTINCT r) FROM cdef"); !slices.Equal(got, []string{"3"}) {
		t.Fatalf("random() defaults: %v distinct values, want 3 (one per row)", got)
	}
}
