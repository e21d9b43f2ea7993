package tests

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/lib/pq"
)

// The driver tests (here for the Go drivers, in clients_test.go for the
// others) each run the same session against a real server: a table with a
// column of every type streamdb supports, rows inserted with parameters,
// every value read back and compared, a materialized view created over the
// table and read (also after a further insert), and the SQLSTATEs of a
// duplicate key (23505) and an unknown table (42P01).

// driverTableDDL is the table every driver test creates.
const driverTableDDL = `CREATE TABLE alltypes (
  id int PRIMARY KEY,
  c_smallint smallint,
  c_int integer,
  c_bigint bigint,
  c_real real,
  c_double double precision,
  c_numeric numeric(12,3),
  c_text text,
  c_varchar varchar(20),
  c_bool boolean,
  c_date date,
  c_timestamp timestamp,
  c_timestamptz timestamptz,
  c_interval interval)`

const driverInsert = `INSERT INTO alltypes (id, c_smallint, c_int, c_bigint, c_real, c_double, c_numeric,
  c_text, c_varchar, c_bool, c_date, c_timestamp, c_timestamptz, c_interval)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`

const driverSelect = `SELECT id, c_smallint, c_int, c_bigint, c_real, c_double, c_numeric,
  c_text, c_varchar, c_bool, c_date, c_timestamp, c_timestamptz, c_interval
  FROM alltypes WHERE id = $1`

const driverViewDDL = `CREATE MATERIALIZED VIEW alltypes_summary AS
  SELECT c_bool, count(*) AS n, sum(c_bigint) AS total, max(c_date) AS last_day FROM alltypes GROUP BY c_bool`

// The values of row 1 (row 2 is NULL everywhere but id).
var (
	wantTimestamp   = time.Date(2024, 1, 2, 3, 4, 5, 123456000, time.UTC)
	wantTimestampTZ = time.Date(2024, 1, 2, 3, 4, 5, 500000000, time.UTC)
	wantDate        = time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)
	wantInterval    = pgtype.Interval{Months: 1, Days: 2, Microseconds: (3*3600 + 4*60 + 5) * 1e6, Valid: true}
	wantText        = "it's ☃ \"quoted\"\nline"
)

const wantNumeric = "12345.678"

func pgxConnect(t *testing.T, port int, mode pgx.QueryExecMode) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(fmt.Sprintf("postgres://tester@127.0.0.1:%d/dev?sslmode=disable", port))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = mode
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func TestDriverPgx(t *testing.T) {
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol,
		pgx.QueryExecModeDescribeExec, pgx.QueryExecModeExec} {
		t.Run(mode.String(), func(t *testing.T) {
			db := openMem(t)
			port := startServer(t, db)
			runPgxSession(t, pgxConnect(t, port, mode))
		})
	}
}

func runPgxSession(t *testing.T, conn *pgx.Conn) {
	ctx := context.Background()
	mustPgx := func(sql string, args ...any) pgconn.CommandTag {
		t.Helper()
		tag, err := conn.Exec(ctx, sql, args...)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return tag
	}
	mustPgx(driverTableDDL)
	num := pgtype.Numeric{Int: big.NewInt(12345678), Exp: -3, Valid: true}
	tag := mustPgx(driverInsert, 1, int16(-32768), int32(2147483647), int64(9223372036854775807), float32(1.5), 2.718281828459045,
		num, wantText, "vc", true, wantDate, wantTimestamp, wantTimestampTZ, wantInterval)
	if tag.String() != "INSERT 0 1" {
		t.Fatalf("insert tag %q", tag)
	}
	mustPgx(driverInsert, 2, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil)

	var (
		id          int32
		i2          int16
		i4          int32
		i8          int64
		f4          float32
		f8          float64
		n           pgtype.Numeric
		s, vc       string
		b           bool
		d, ts, tstz time.Time
		iv          pgtype.Interval
	)
	err := conn.QueryRow(ctx, driverSelect, 1).Scan(&id, &i2, &i4, &i8, &f4, &f8, &n, &s, &vc, &b, &d, &ts, &tstz, &iv)
	if err != nil {
		t.Fatal(err)
	}
	nv, _ := n.Value()
	if id != 1 || i2 != -32768 || i4 != 2147483647 || i8 != 9223372036854775807 || f4 != 1.5 || f8 != 2.718281828459045 ||
		nv != wantNumeric || s != wantText || vc != "vc" || !b || !d.Equal(wantDate) || !ts.Equal(wantTimestamp) ||
		!tstz.Equal(wantTimestampTZ) || iv != wantInterval {
		t.Fatalf("row 1: %v %v %v %v %v %v %v %q %q %v %v %v %v %+v", id, i2, i4, i8, f4, f8, nv, s, vc, b, d, ts, tstz, iv)
	}

	vals := make([]any, 14)
	ptrs := make([]any, 14)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := conn.QueryRow(ctx, driverSelect, 2).Scan(ptrs...); err != nil {
		t.Fatal(err)
	}
	for i, v := range vals[1:] {
		if v != nil {
			t.Errorf("row 2 column %d = %v, want NULL", i+1, v)
		}
	}

	// Parameters in WHERE, compared against every type.
	var count int64
	err = conn.QueryRow(ctx, `SELECT count(*) FROM alltypes WHERE c_smallint = $1 AND c_bigint = $2 AND c_real = $3
		AND c_numeric = $4 AND c_varchar = $5 AND c_bool = $6 AND c_date = $7 AND c_timestamp = $8 AND c_interval = $9`,
		-32768, int64(9223372036854775807), 1.5, num, "vc", true, wantDate, wantTimestamp, wantInterval).Scan(&count)
	if err != nil || count != 1 {
		t.Fatalf("count with parameters = %d, %v", count, err)
	}

	// Parameters typed by the function or CASE that takes them: described
	// as numbers and booleans, never as text, so pgx can send Go numbers.
	var (
		co   int32
		sub  string
		cs   int32
		rnd  pgtype.Numeric
		grt  int64
		nlif *int32
	)
	err = conn.QueryRow(ctx, `SELECT coalesce($1, c_int), substr(c_text, $2, $3), CASE WHEN $4 THEN c_int ELSE $5 END,
		round(c_numeric, $6), greatest($7, c_bigint), nullif(c_int, $8) FROM alltypes WHERE id = 1`,
		7, 1, 2, false, 9, 1, int64(-3), 2147483647).Scan(&co, &sub, &cs, &rnd, &grt, &nlif)
	if rv, _ := rnd.Value(); err != nil || co != 7 || sub != "it" || cs != 9 || rv != "12345.7" || grt != 9223372036854775807 || nlif != nil {
		t.Fatalf("parameters typed by calls: %v %q %v %v %v %v, %v", co, sub, cs, rv, grt, nlif, err)
	}

	mustPgx(driverViewDDL)
	checkPgxView(t, conn, "true|1|9223372036854775807|2024-02-29", "NULL|1|NULL|NULL")
	mustPgx(driverInsert, 3, 1, 2, -5, 0.25, -1.0, "0.001", "x", "y", true, time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC),
		wantTimestamp, wantTimestampTZ, pgtype.Interval{Days: -1, Valid: true})
	mustPgx(`UPDATE alltypes SET c_bigint = $1 WHERE id = $2`, int64(10), 1)
	checkPgxView(t, conn, "true|2|5|2025-03-01", "NULL|1|NULL|NULL")

	// RETURNING over every protocol: described, with parameters, rows
	// after the statement commits.
	var retID int32
	var retBig int64
	var retText string
	err = conn.QueryRow(ctx, `UPDATE alltypes SET c_bigint = c_bigint + $1 WHERE id = $2 RETURNING id, c_bigint, upper(c_text)`,
		int64(5), 1).Scan(&retID, &retBig, &retText)
	if err != nil || retID != 1 || retBig != 15 || retText != strings.ToUpper(wantText) {
		t.Fatalf("UPDATE ... RETURNING: %v %v %q, %v", retID, retBig, retText, err)
	}
	rows, err := conn.Query(ctx, `DELETE FROM alltypes WHERE id >= $1 RETURNING id`, 3)
	if err != nil {
		t.Fatal(err)
	}
	var deleted []int32
	for rows.Next() {
		var v int32
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		deleted = append(deleted, v)
	}
	if rows.Err() != nil || rows.CommandTag().String() != "DELETE 1" || len(deleted) != 1 || deleted[0] != 3 {
		t.Fatalf("DELETE ... RETURNING: %v, tag %q, %v", deleted, rows.CommandTag(), rows.Err())
	}
	mustPgx(driverInsert, 3, 1, 2, -5, 0.25, -1.0, "0.001", "x", "y", true, time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC),
		wantTimestamp, wantTimestampTZ, pgtype.Interval{Days: -1, Valid: true})

	_, err = conn.Exec(ctx, driverInsert, 1, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil)
	checkPgxCode(t, err, "23505")
	_, err = conn.Exec(ctx, "SELECT * FROM nope WHERE x = $1", 1)
	checkPgxCode(t, err, "42P01")
	// The connection is still usable after errors.
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM alltypes").Scan(&count); err != nil || count != 3 {
		t.Fatalf("count after errors = %d, %v", count, err)
	}
}

// checkPgxView compares the rows of alltypes_summary, ordered by c_bool.
func checkPgxView(t *testing.T, conn *pgx.Conn, want ...string) {
	t.Helper()
	rows, err := conn.Query(context.Background(), "SELECT c_bool, n, total, last_day FROM alltypes_summary ORDER BY c_bool")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var b *bool
		var n int64
		var total pgtype.Numeric
		var day pgtype.Date
		if err := rows.Scan(&b, &n, &total, &day); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s|%d|%s|%s", nullText(b), n, numericText(total), dateText(day)))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("view rows %q, want %q", got, want)
	}
}

func nullText[T any](p *T) string {
	if p == nil {
		return "NULL"
	}
	return fmt.Sprint(*p)
}

func numericText(n pgtype.Numeric) string {
	if !n.Valid {
		return "NULL"
	}
	v, _ := n.Value()
	return fmt.Sprint(v)
}

func dateText(d pgtype.Date) string {
	if !d.Valid {
		return "NULL"
	}
	return d.Time.Format("2006-01-02")
}

func checkPgxCode(t *testing.T, err error, code string) {
	t.Helper()
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != code {
		t.Fatalf("error %v, want SQLSTATE %s", err, code)
	}
}

func TestDriverLibPQ(t *testing.T) {
	db := openMem(t)
	port := startServer(t, db)
	sdb, err := sql.Open("postgres", fmt.Sprintf("host=127.0.0.1 port=%d user=tester dbname=dev sslmode=disable", port))
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	sdb.SetMaxOpenConns(1)
	must := func(q string, args ...any) sql.Result {
		t.Helper()
		r, err := sdb.Exec(q, args...)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return r
	}
	must(driverTableDDL)
	// lib/pq sends every parameter as text, typed by the statement.
	r := must(driverInsert, 1, -32768, 2147483647, int64(9223372036854775807), float32(1.5), 2.718281828459045,
		"12345.678", wantText, "vc", true, wantDate, wantTimestamp, wantTimestampTZ, "1 mon 2 days 03:04:05")
	if n, _ := r.RowsAffected(); n != 1 {
		t.Fatalf("RowsAffected = %d", n)
	}
	must(driverInsert, 2, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil)

	var (
		id, i2, i4, i8 int64
		f4             float32
		f8             float64
		n, s, vc, iv   string
		b              bool
		d, ts, tstz    time.Time
	)
	err = sdb.QueryRow(driverSelect, 1).Scan(&id, &i2, &i4, &i8, &f4, &f8, &n, &s, &vc, &b, &d, &ts, &tstz, &iv)
	if err != nil {
		t.Fatal(err)
	}
	if id != 1 || i2 != -32768 || i4 != 2147483647 || i8 != 9223372036854775807 || f4 != 1.5 || f8 != 2.718281828459045 ||
		n != wantNumeric || s != wantText || vc != "vc" || !b || !d.Equal(wantDate) || !ts.Equal(wantTimestamp) ||
		!tstz.Equal(wantTimestampTZ) || iv != "1 mon 2 days 03:04:05" {
		t.Fatalf("row 1: %v %v %v %v %v %v %v %q %q %v %v %v %v %q", id, i2, i4, i8, f4, f8, n, s, vc, b, d, ts, tstz, iv)
	}
	vals := make([]any, 14)
	ptrs := make([]any, 14)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := sdb.QueryRow(driverSelect, 2).Scan(ptrs...); err != nil {
		t.Fatal(err)
	}
	for i, v := range vals[1:] {
		if v != nil {
			t.Errorf("row 2 column %d = %v, want NULL", i+1, v)
		}
	}

	must(driverViewDDL)
	checkSQLView(t, sdb, "true|1|9223372036854775807|2024-02-29", "NULL|1|NULL|NULL")
	must(driverInsert, 3, 1, 2, -5, 0.25, -1.0, "0.001", "x", "y", true, "2025-03-01", wantTimestamp, wantTimestampTZ, "-1 days")
	must(`UPDATE alltypes SET c_bigint = $1 WHERE id = $2`, 10, 1)
	checkSQLView(t, sdb, "true|2|5|2025-03-01", "NULL|1|NULL|NULL")

	_, err = sdb.Exec(driverInsert, 1, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil)
	checkPQCode(t, err, "23505")
	_, err = sdb.Exec("SELECT * FROM nope")
	checkPQCode(t, err, "42P01")
	_, err = sdb.Query("SELECT * FROM nope WHERE x = $1", 1)
	checkPQCode(t, err, "42P01")
	var count int64
	if err := sdb.QueryRow("SELECT count(*) FROM alltypes").Scan(&count); err != nil || count != 3 {
		t.Fatalf("count after errors = %d, %v", count, err)
	}
}

func checkSQLView(t *testing.T, db *sql.DB, want ...string) {
	t.Helper()
	rows, err := db.Query("SELECT c_bool, n, total, last_day FROM alltypes_summary ORDER BY c_bool")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var b sql.NullBool
		var n int64
		var total, day sql.NullString
		if err := rows.Scan(&b, &n, &total, &day); err != nil {
			t.Fatal(err)
		}
		bs, ts, ds := "NULL", "NULL", "NULL"
		if b.Valid {
			bs = fmt.Sprint(b.Bool)
		}
		if total.Valid {
			ts = total.String
		}
		if day.Valid {
			ds = day.String[:10]
		}
		got = append(got, fmt.Sprintf("%s|%d|%s|%s", bs, n, ts, ds))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("view rows %q, want %q", got, want)
	}
}

func checkPQCode(t *testing.T, err error, code string) {
	t.Helper()
	var pqErr *pq.Error
	if !errors.As(err, &pqErr) || string(pqErr.Code) != code {
		t.Fatalf("error %v, want SQLSTATE %s", err, code)
	}
}
