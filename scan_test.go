package streamdb_test

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb"
)

// allTypesDDL is a table with a column of every storable type; row 1
// holds values, row 2 NULLs.
var allTypesDDL = []string{
	`CREATE TABLE all_types (id int PRIMARY KEY, i16 smallint, i32 int, i64 bigint,
		f32 real, f64 double precision, n numeric, n2 numeric(10,2), t text, vc varchar(10),
		b boolean, d date, ts timestamp, tstz timestamp with time zone, bt bytea, iv interval, j jsonb)`,
	`INSERT INTO all_types VALUES (1, -7, 123456, 9000000000, 1.5, 2.25, 10.75, 3.10, 'héllo', 'vc',
		true, '2024-02-29', '2024-02-29 12:34:56.789', '2024-02-29 12:34:56.789+00', '\x00ff41', '1 day 02:00:00', '{"a": 1}')`,
	`INSERT INTO all_types (id) VALUES (2)`,
}

func openAllTypes(t *testing.T) (*streamdb.DB, context.Context) {
	t.Helper()
	db, err := streamdb.Open("", &streamdb.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	for _, q := range allTypesDDL {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return db, ctx
}

// queryRow runs query, expecting one row, and scans it into dest.
func queryRow(t *testing.T, db *streamdb.DB, query string, dest ...any) error {
	t.Helper()
	rows, err := db.Query(context.Background(), query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	if !rows.Next() {
		t.Fatalf("%s: no row (%v)", query, rows.Err())
	}
	return rows.Scan(dest...)
}

// TestScanTypes scans a row of every type into its natural Go types.
func TestScanTypes(t *testing.T) {
	db, _ := openAllTypes(t)
	var (
		i16               int16
		i32               int32
		i64               int64
		f32               float32
		f64               float64
		n, n2             apd.Decimal
		ns                string
		txt, vc, iv, js   string
		b                 bool
		d, ts, tstz       time.Time
		by                []byte
		anyN, anyB, anyTS any
		asInt             int
	)
	err := queryRow(t, db, "SELECT i16, i32, i64, f32, f64, n, n2, n, t, vc, b, d, ts, tstz, bt, iv, j, n, bt, ts, i32 FROM all_types WHERE id = 1",
		&i16, &i32, &i64, &f32, &f64, &n, &n2, &ns, &txt, &vc, &b, &d, &ts, &tstz, &by, &iv, &js, &anyN, &anyB, &anyTS, &asInt)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{int16(-7), int32(123456), int64(9000000000), float32(1.5), 2.25, "10.75", "3.10", "10.75", "héllo", "vc", true,
		time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), time.Date(2024, 2, 29, 12, 34, 56, 789000000, time.UTC),
		time.Date(2024, 2, 29, 12, 34, 56, 789000000, time.UTC), []byte{0, 0xff, 0x41}, "1 day 02:00:00", `{"a": 1}`,
		"10.75", []byte{0, 0xff, 0x41}, time.Date(2024, 2, 29, 12, 34, 56, 789000000, time.UTC), 123456}
	got := []any{i16, i32, i64, f32, f64, n.String(), n2.String(), ns, txt, vc, b, d, ts, tstz, by, iv, js, anyN, anyB, anyTS, asInt}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("column %d: got %#v, want %#v", i, got[i], want[i])
		}
	}

	// Conversions: integers widen to floats and decimals, an integral
	// numeric narrows to an int, anything scans into a string as text.
	var fi float64
	var di apd.Decimal
	var ni int64
	var bs, ds string
	if err := queryRow(t, db, "SELECT i32, i64, CAST(n2 * 100 AS numeric), b, d FROM all_types WHERE id = 1", &fi, &di, &ni, &bs, &ds); err != nil {
		t.Fatal(err)
	}
	if fi != 123456 || di.String() != "9000000000" || ni != 310 || bs != "t" || ds != "2024-02-29" {
		t.Fatalf("conversions: %v %v %v %q %q", fi, di.String(), ni, bs, ds)
	}
}

// TestScanNulls: NULL scans into the sql.Null types, *any and pointers
// to pointers; into any other destination it is an error (22004).
func TestScanNulls(t *testing.T) {
	db, _ := openAllTypes(t)
	var (
		ni  sql.NullInt64
		n32 sql.NullInt32
		ns  sql.NullString
		nf  sql.NullFloat64
		nb  sql.NullBool
		nt  sql.NullTime
		a   any = "set"
		pi      = new(int)
		dec apd.Decimal
	)
	if err := queryRow(t, db, "SELECT i64, i32, t, f64, b, tstz, n, i16 FROM all_types WHERE id = 2", &ni, &n32, &ns, &nf, &nb, &nt, &a, &pi); err != nil {
		t.Fatal(err)
	}
	if ni.Valid || n32.Valid || ns.Valid || nf.Valid || nb.Valid || nt.Valid || a != nil || pi != nil {
		t.Fatalf("NULLs: %v %v %v %v %v %v %v %v", ni, n32, ns, nf, nb, nt, a, pi)
	}
	// The same destinations, valid.
	if err := queryRow(t, db, "SELECT i64, i32, t, f64, b, tstz, n, i16 FROM all_types WHERE id = 1", &ni, &n32, &ns, &nf, &nb, &nt, &a, &pi); err != nil {
		t.Fatal(err)
	}
	if ni.Int64 != 9000000000 || n32.Int32 != 123456 || ns.String != "héllo" || nf.Float64 != 2.25 || !nb.Bool ||
		!nt.Time.Equal(time.Date(2024, 2, 29, 12, 34, 56, 789000000, time.UTC)) || a != "10.75" || pi == nil || *pi != -7 {
		t.Fatalf("valid: %v %v %v %v %v %v %v %v", ni, n32, ns, nf, nb, nt, a, pi)
	}
	for _, c := range []struct {
		col  string
		dest any
	}{{"i64", new(int64)}, {"t", new(string)}, {"b", new(bool)}, {"tstz", new(time.Time)}, {"f64", new(float64)},
		{"bt", new([]byte)}, {"n", &dec}, {"i32", new(int)}} {
		err := queryRow(t, db, "SELECT "+c.col+" FROM all_types WHERE id = 2", c.dest)
		var pe *streamdb.Error
		if !errors.As(err, &pe) || pe.Code != "22004" {
			t.Errorf("NULL %s into %T: %v", c.col, c.dest, err)
		}
	}
}

// TestScanErrors: a value that does not fit or does not convert, the
// wrong number of destinations, Scan before Next.
func TestScanErrors(t *testing.T) {
	db, ctx := openAllTypes(t)
	for _, c := range []struct {
		col, code string
		dest      any
	}{
		{"i64", "22003", new(int32)}, {"i32", "22003", new(int16)}, {"t", "42804", new(int)},
		{"f64", "42804", new(int64)}, {"n", "42804", new(int64)}, {"i64", "42804", new(bool)},
		{"t", "42804", new(time.Time)}, {"i64", "42804", new(struct{})},
	} {
		err := queryRow(t, db, "SELECT "+c.col+" FROM all_types WHERE id = 1", c.dest)
		var pe *streamdb.Error
		if !errors.As(err, &pe) || pe.Code != c.code {
			t.Errorf("%s into %T: got %v, want %s", c.col, c.dest, err, c.code)
		}
	}
	var a, b int
	if err := queryRow(t, db, "SELECT 1", &a, &b); err == nil {
		t.Error("two destinations for one column did not fail")
	}
	rows, err := db.Query(ctx, "SELECT 1")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if err := rows.Scan(&a); err == nil {
		t.Error("Scan before Next did not fail")
	}
}
