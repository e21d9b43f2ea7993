package pgwire

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/lib/pq"
)

func pgxConnect(t *testing.T, ts *testServer) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// No sslmode: pgx tries TLS first and falls back when refused.
	conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://u@%s/d", ts.addr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func TestPgx(t *testing.T) {
	ts := startServer(t, Options{})
	conn := pgxConnect(t, ts)
	ctx := context.Background()
	if v := conn.PgConn().ParameterStatus("server_version"); v != "15.0" {
		t.Errorf("server_version = %q", v)
	}

	var n int32
	if err := conn.QueryRow(ctx, "SELECT 7").Scan(&n); err != nil || n != 7 {
		t.Fatalf("SELECT 7 = %d, %v", n, err)
	}

	rows, _ := conn.Query(ctx, "series 1000")
	sum, count := int64(0), 0
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		sum += v
		count++
	}
	if err := rows.Err(); err != nil || count != 1000 || sum != 999*1000/2 {
		t.Fatalf("series 1000: %d rows, sum %d, %v", count, sum, err)
	}
	if tag := rows.CommandTag(); tag.String() != "SELECT 1000" {
		t.Errorf("tag = %q", tag)
	}

	_, err := conn.Exec(ctx, "failexec")
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "22012" {
		t.Fatalf("failexec: %v, want 22012", err)
	}
	tag, err := conn.Exec(ctx, "insert")
	if err != nil || tag.RowsAffected() != 5 {
		t.Fatalf("insert: %v %v", tag, err)
	}
}

func TestPgxBinaryRoundTrip(t *testing.T) {
	ts := startServer(t, Options{})
	conn := pgxConnect(t, ts)
	ctx := context.Background()
	var (
		b    bool
		i2   int16
		i4   int32
		i8   int64
		f4   float32
		f8   float64
		num  pgtype.Numeric
		s    string
		vc   string
		d    time.Time
		ts1  time.Time
		tstz time.Time
		iv   pgtype.Interval
	)
	err := conn.QueryRow(ctx, "types").Scan(&b, &i2, &i4, &i8, &f4, &f8, &num, &s, &vc, &d, &ts1, &tstz, &iv)
	if err != nil {
		t.Fatal(err)
	}
	wantTime := time.UnixMicro(1_700_000_000_123_456).UTC()
	numText, _ := num.Value()
	if !b || i2 != 1 || i4 != 2 || i8 != 3 || f4 != 1.5 || f8 != 2.25 || numText != "12.345" || s != "hi" || vc != "v" ||
		!d.Equal(time.Date(2022, 1, 8, 0, 0, 0, 0, time.UTC)) || !ts1.Equal(wantTime) || !tstz.Equal(wantTime) ||
		iv != (pgtype.Interval{Months: 1, Days: 2, Microseconds: 3_000_000, Valid: true}) {
		t.Fatalf("types row: %v %v %v %v %v %v %v %q %q %v %v %v %+v", b, i2, i4, i8, f4, f8, numText, s, vc, d, ts1, tstz, iv)
	}

	// Parameters go out in binary, are decoded by pgwire, echoed by the
	// fake and encoded back.
	day := time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)
	in := []any{int64(-5), int16(300), true, 2.5, day, wantTime, pgtype.Interval{Days: 3, Microseconds: 7, Valid: true}, "12345.678", "plain"}
	var (
		o8   int64
		o2   int16
		ob   bool
		of   float64
		od   time.Time
		ots  time.Time
		oiv  pgtype.Interval
		onum pgtype.Numeric
		os   string
	)
	err = conn.QueryRow(ctx, "SELECT $1::int8, $2::int2, $3::bool, $4::float8, $5::date, $6::timestamptz, $7::interval, $8::numeric, $9", in...).
		Scan(&o8, &o2, &ob, &of, &od, &ots, &oiv, &onum, &os)
	if err != nil {
		t.Fatal(err)
	}
	onumText, _ := onum.Value()
	if o8 != -5 || o2 != 300 || !ob || of != 2.5 || !od.Equal(day) || !ots.Equal(wantTime) || oiv != in[6] || onumText != "12345.678" || os != "plain" {
		t.Fatalf("echo: %v %v %v %v %v %v %+v %v %q", o8, o2, ob, of, od, ots, oiv, onumText, os)
	}

	var null *string
	if err := conn.QueryRow(ctx, "null").Scan(&null); err != nil || null != nil {
		t.Fatalf("null: %v %v", null, err)
	}
}

func TestPgxCancelAndTransaction(t *testing.T) {
	ts := startServer(t, Options{})
	ts.fake.running = make(chan struct{}, 1)
	conn := pgxConnect(t, ts)
	ctx := context.Background()

	errc := make(chan error, 1)
	go func() {
		_, err := conn.PgConn().Exec(ctx, "sleep").ReadAll()
		errc <- err
	}()
	<-ts.fake.running
	if err := conn.PgConn().CancelRequest(ctx); err != nil {
		t.Fatal(err)
	}
	var pgErr *pgconn.PgError
	if err := <-errc; !errors.As(err, &pgErr) || pgErr.Code != "57014" {
		t.Fatalf("cancelled statement: %v, want 57014", err)
	}

	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st := conn.PgConn().TxStatus(); st != 'T' {
		t.Fatalf("after BEGIN TxStatus = %c", st)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if st := conn.PgConn().TxStatus(); st != 'I' {
		t.Fatalf("after COMMIT TxStatus = %c", st)
	}
}

func TestLibPQ(t *testing.T) {
	ts := startServer(t, Options{})
	host, port, _ := strings.Cut(ts.addr, ":")
	db, err := sql.Open("postgres", fmt.Sprintf("host=%s port=%s user=u dbname=d sslmode=disable", host, port))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	var s string
	var n int64
	if err := db.QueryRow("SELECT $1, $2::int8", "hello", 42).Scan(&s, &n); err != nil || s != "hello" || n != 42 {
		t.Fatalf("echo = %q %d, %v", s, n, err)
	}
	rows, err := db.Query("series 3") // no arguments: the simple protocol
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for rows.Next() {
		var v int64
		rows.Scan(&v)
		got = append(got, v)
	}
	if rows.Close(); fmt.Sprint(got) != "[0 1 2]" {
		t.Fatalf("series 3 = %v", got)
	}
	res, err := db.Exec("insert")
	if err != nil {
		t.Fatal(err)
	}
	if ra, _ := res.RowsAffected(); ra != 5 {
		t.Fatalf("RowsAffected = %d", ra)
	}
	_, err = db.Exec("failexec")
	var pqErr *pq.Error
	if !errors.As(err, &pqErr) || pqErr.Code != "22012" {
		t.Fatalf("failexec: %v", err)
	}
	stmt, err := db.Prepare("SELECT $1::int8")
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()
	for i := range int64(3) {
		if err := stmt.QueryRow(i * 10).Scan(&n); err != nil || n != i*10 {
			t.Fatalf("prepared: %d %v", n, err)
		}
	}
}

func TestPsql(t *testing.T) {
	const psql = "/usr/bin/psql"
	if _, err := os.Stat(psql); err != nil {
		t.Skipf("skipping: %s not found (%v)", psql, err)
	}
	ts := startServer(t, Options{})
	host, port, _ := strings.Cut(ts.addr, ":")
	run := func(query string) (string, string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, psql, "-X", "-h", host, "-p", port, "-U", "u", "-d", "d", "-c", query)
		cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=10", "PGPASSWORD=", "PGSERVICEFILE=/nonexistent")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}
	out, errOut, err := run("series 2")
	if err != nil || errOut != "" {
		t.Fatalf("psql: %v, stderr %q", err, errOut)
	}
	if want := " n \n---\n 0\n 1\n(2 rows)\n\n"; out != want {
		t.Fatalf("psql output %q, want %q", out, want)
	}
	_, errOut, err = run("fail")
	if err == nil || !strings.Contains(errOut, `ERROR:  syntax error at or near "fail"`) ||
		!strings.Contains(errOut, "LINE 1: fail\n        ^") || !strings.Contains(errOut, "HINT:  some hint") {
		t.Fatalf("psql error: %v, stderr %q", err, errOut)
	}
}
