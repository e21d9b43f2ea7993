package tests

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/pgerr"
)

var (
	wireUUID  = [16]byte{0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11}
	wireUUIDs = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"
)

// TestUUIDTimeBpcharWire: uuid, time(3) and character(4) through pgx in
// its three modes (the extended ones send and read them in binary:
// uuid_send's 16 bytes, time_send's microseconds, bpcharsend's padded
// text; the simple protocol in text), as parameters compared with keys;
// through binary COPY FROM (pgx's CopyFrom), text and CSV COPY FROM, and
// COPY TO in text, CSV and binary.
func TestUUIDTimeBpcharWire(t *testing.T) {
	ctx := context.Background()
	db := openMem(t)
	port := startServer(t, db)
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeExec, pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
		conn := pgxConnect(t, port, mode)
		for _, stmt := range []string{"DROP TABLE IF EXISTS tw", "CREATE TABLE tw (id uuid PRIMARY KEY, at time(3), code char(4), note varchar(3))"} {
			if _, err := conn.Exec(ctx, stmt); err != nil {
				t.Fatal(err)
			}
		}
		at := pgtype.Time{Microseconds: (12*3600+34*60+56)*1e6 + 789_400, Valid: true} // rounds to .789
		// pgx sends a [16]byte only where it knows the parameter's type
		// (a described statement), in binary; elsewhere the text.
		var idParam any = wireUUIDs
		if mode == pgx.QueryExecModeCacheStatement {
			idParam = wireUUID
		}
		if _, err := conn.Exec(ctx, "INSERT INTO tw VALUES ($1, $2, $3, $4)", idParam, at, "ab", "xyz"); err != nil {
			t.Fatalf("mode %v: INSERT: %v", mode, err)
		}
		var id [16]byte
		var idText, code, atText string
		var back pgtype.Time
		err := conn.QueryRow(ctx, "SELECT id, id::text, at, at::text, code FROM tw WHERE id = $1 AND code = $2 AND at = $3",
			wireUUIDs, "ab  ", "12:34:56.789").Scan(&id, &idText, &back, &atText, &code)
		if err != nil {
			t.Fatalf("mode %v: SELECT: %v", mode, err)
		}
		if id != wireUUID || idText != wireUUIDs || back.Microseconds != (12*3600+34*60+56)*1e6+789_000 || atText != "12:34:56.789" || code != "ab  " {
			t.Errorf("mode %v: read back %x %q %d %q %q", mode, id, idText, back.Microseconds, atText, code)
		}
		var diff pgtype.Interval
		var stamp time.Time
		if err := conn.QueryRow(ctx, "SELECT at - $1::time, date '2024-01-02' + at FROM tw", "10:00").Scan(&diff, &stamp); err != nil {
			t.Fatalf("mode %v: arithmetic: %v", mode, err)
		}
		if diff.Microseconds != (2*3600+34*60+56)*1e6+789_000 || !stamp.Equal(time.Date(2024, 1, 2, 12, 34, 56, 789_000_000, time.UTC)) {
			t.Errorf("mode %v: at - '10:00' = %v, date + at = %v", mode, diff, stamp)
		}
		_, err = conn.Exec(ctx, "INSERT INTO tw VALUES ($1, $2, $3, $4)", "00000000-0000-0000-0000-000000000001", "01:00", "abcde", "x")
		if pgCode(err) != pgerr.StringDataTooLong {
			t.Errorf("mode %v: char(4) parameter too long: %v", mode, err)
		}
		_, err = conn.Exec(ctx, "INSERT INTO tw VALUES ($1, $2, $3, $4)", "00000000-0000-0000-0000-000000000001", "01:00", "a", "wxyz")
		if pgCode(err) != pgerr.StringDataTooLong {
			t.Errorf("mode %v: varchar(3) parameter too long: %v", mode, err)
		}
		_, err = conn.Exec(ctx, "INSERT INTO tw VALUES ($1, $2, $3, $4)", "not-a-uuid", "01:00", "a", "x")
		if pgCode(err) != pgerr.InvalidTextRep {
			t.Errorf("mode %v: bad uuid parameter: %v", mode, err)
		}
		conn.Close(ctx)
	}

	conn := pgxConnect(t, port, pgx.QueryExecModeCacheStatement)
	defer conn.Close(ctx)
	mustExec(t, db, "DELETE FROM tw")
	rows := [][]any{
		{wireUUID, pgtype.Time{Microseconds: 3600e6, Valid: true}, "q", "a"},
		{[16]byte{15: 1}, pgtype.Time{Microseconds: 86400e6, Valid: true}, "wxyz", nil},
	}
	if n, err := conn.CopyFrom(ctx, pgx.Identifier{"tw"}, []string{"id", "at", "code", "note"}, pgx.CopyFromRows(rows)); err != nil || n != 2 {
		t.Fatalf("binary COPY FROM: %d, %v", n, err)
	}
	if _, err := db.CopyFrom(ctx, "COPY tw FROM STDIN", strings.NewReader("{00000000000000000000000000000002}\t23:59:59.9999\tr\t\\N\n")); err != nil {
		t.Fatalf("text COPY FROM: %v", err)
	}
	if _, err := db.CopyFrom(ctx, "COPY tw FROM STDIN (FORMAT csv)", strings.NewReader("00000000-0000-0000-0000-000000000003,04:05 PM,\"s  \",\n")); err != nil {
		t.Fatalf("CSV COPY FROM: %v", err)
	}
	for _, c := range []struct{ sql, code string }{
		{"COPY tw FROM STDIN", "zz\t01:00\ta\t\\N\n"},
		{"COPY tw FROM STDIN", "00000000-0000-0000-0000-000000000009\t25:00\ta\t\\N\n"},
		{"COPY tw FROM STDIN", "00000000-0000-0000-0000-000000000009\t01:00\tabcde\t\\N\n"},
	} {
		_, err := db.CopyFrom(ctx, c.sql, strings.NewReader(c.code))
		if want := map[int]string{0: pgerr.InvalidTextRep, 1: pgerr.DatetimeFieldOverflow, 2: pgerr.StringDataTooLong}; err == nil {
			t.Errorf("COPY of %q succeeded", c.code)
		} else if code := pgerr.Code(err); code != want[0] && code != want[1] && code != want[2] {
			t.Errorf("COPY of %q: %v", c.code, err)
		}
	}
	for _, c := range []struct{ format, want string }{
		{"text", "00000000-0000-0000-0000-000000000001\t24:00:00\twxyz\t\\N\n" +
			"00000000-0000-0000-0000-000000000002\t24:00:00\tr   \t\\N\n" +
			"00000000-0000-0000-0000-000000000003\t16:05:00\ts   \t\\N\n" +
			wireUUIDs + "\t01:00:00\tq   \ta\n"},
		{"csv", "00000000-0000-0000-0000-000000000001,24:00:00,wxyz,\n" +
			"00000000-0000-0000-0000-000000000002,24:00:00,r   ,\n" +
			"00000000-0000-0000-0000-000000000003,16:05:00,s   ,\n" +
			wireUUIDs + ",01:00:00,q   ,a\n"},
	} {
		var out strings.Builder
		if _, err := db.CopyTo(ctx, "COPY (SELECT * FROM tw ORDER BY id) TO STDOUT (FORMAT "+c.format+")", &out); err != nil {
			t.Fatal(err)
		}
		if out.String() != c.want {
			t.Errorf("COPY TO (%s):\n%s\nwant\n%s", c.format, out.String(), c.want)
		}
	}
	var bin bytes.Buffer
	if _, err := db.CopyTo(ctx, "COPY (SELECT id, at, code FROM tw WHERE id = '"+wireUUIDs+"') TO STDOUT (FORMAT binary)", &bin); err != nil {
		t.Fatal(err)
	}
	field := append(append([]byte{0, 3, 0, 0, 0, 16}, wireUUID[:]...), 0, 0, 0, 8, 0, 0, 0, 0, 0xd6, 0x93, 0xa4, 0x00, 0, 0, 0, 4, 'q', ' ', ' ', ' ')
	if !bytes.Contains(bin.Bytes(), field) {
		t.Errorf("binary COPY TO: %x lacks the row %x", bin.Bytes(), field)
	}
}

// TestTypesGoAPI: the embedding API, database/sql and Arrow give a uuid
// and a time as pgx's database/sql driver does (their text), a
// character(n) padded; Scan takes a uuid into [16]byte and a time into a
// time.Duration; Arrow results are fixed_size_binary[16] and time64[us],
// and Append reads them back.
func TestTypesGoAPI(t *testing.T) {
	ctx := context.Background()
	db := openMem(t)
	mustExec(t, db, "CREATE TABLE ga (id uuid PRIMARY KEY, at time, code char(3))")
	mustExec(t, db, "INSERT INTO ga VALUES ($1, $2, $3)", strings.ToUpper(wireUUIDs), "12:34:56.5", "a")
	rows, err := db.Query(ctx, "SELECT id, at, code FROM ga WHERE id = $1 AND id = $2", wireUUIDs, wireUUID)
	if err != nil {
		t.Fatal(err)
	}
	if !rows.Next() {
		t.Fatal("no row")
	}
	if v := rows.Values(); v[0] != wireUUIDs || v[1] != "12:34:56.5" || v[2] != "a  " {
		t.Errorf("Values() = %#v", v)
	}
	var id [16]byte
	var at time.Duration
	var code string
	if err := rows.Scan(&id, &at, &code); err != nil || id != wireUUID || at != 12*time.Hour+34*time.Minute+56500*time.Millisecond || code != "a  " {
		t.Errorf("Scan: %x %v %q, %v", id, at, code, err)
	}
	var n int64
	if err := rows.Scan(&n, &at, &code); err == nil {
		t.Error("Scan of a uuid into *int64 succeeded")
	}
	rows.Close()
	if got, err := db.Query(ctx, "SELECT '12:00+02'::timetz"); err != nil || !got.Next() || got.Values()[0] != "12:00:00+02" {
		t.Errorf("a timetz Value: %v", err)
	} else {
		got.Close()
	}
	if c := rows.Columns; c[0].Type != "uuid" || c[0].OID != 2950 || c[1].OID != 1083 || c[2].Type != "character(3)" || c[2].OID != 1042 {
		t.Errorf("columns %+v", c)
	}

	sdb, err := sql.Open("streamdb", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	if _, err := sdb.ExecContext(ctx, "CREATE TABLE gs (id uuid PRIMARY KEY, at time(0), code char(2))"); err != nil {
		t.Fatal(err)
	}
	if _, err := sdb.ExecContext(ctx, "INSERT INTO gs VALUES ($1, $2, $3)", wireUUIDs, "23:59:59.6", "x"); err != nil {
		t.Fatal(err)
	}
	var sid, sat, scode string
	var anyID any
	if err := sdb.QueryRowContext(ctx, "SELECT id, at, code, id FROM gs").Scan(&sid, &sat, &scode, &anyID); err != nil {
		t.Fatal(err)
	}
	if sid != wireUUIDs || sat != "24:00:00" || scode != "x " || anyID != wireUUIDs {
		t.Errorf("database/sql: %q %q %q %#v", sid, sat, scode, anyID)
	}

	rdr, err := db.QueryArrow(ctx, "SELECT id, at, code FROM ga")
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	if !rdr.Next() {
		t.Fatalf("no Arrow batch: %v", rdr.Err())
	}
	rec := rdr.RecordBatch()
	if got := rec.Schema().Field(0).Type; !arrow.TypeEqual(got, &arrow.FixedSizeBinaryType{ByteWidth: 16}) {
		t.Errorf("uuid's Arrow type %s", got)
	}
	if got := rec.Schema().Field(1).Type; !arrow.TypeEqual(got, arrow.FixedWidthTypes.Time64us) {
		t.Errorf("time's Arrow type %s", got)
	}
	u, ok0 := rec.Column(0).(*array.FixedSizeBinary)
	tm, ok1 := rec.Column(1).(*array.Time64)
	s, ok2 := rec.Column(2).(*array.String)
	if !ok0 || !ok1 || !ok2 || !bytes.Equal(u.Value(0), wireUUID[:]) || tm.Value(0) != arrow.Time64(45296500000) || s.Value(0) != "a  " {
		t.Fatalf("Arrow columns %v %v %v", rec.Column(0), rec.Column(1), rec.Column(2))
	}
	mustExec(t, db, "CREATE TABLE gb (id uuid PRIMARY KEY, at time, code char(3))")
	if err := db.Append(ctx, "gb", rec); err != nil {
		t.Fatalf("Append of the Arrow batch: %v", err)
	}
	appendTextUUID(t, db)
	if got := queryRows(t, db, "SELECT id, at, code || '|' FROM gb"); strings.Join(got, ",") !=
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11|12:34:56.5|a|,b0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11|01:02:03|zz|" {
		t.Errorf("appended rows %v", got)
	}
}

// appendTextUUID appends a row whose uuid and time come as text and an
// Arrow time32[s].
func appendTextUUID(t *testing.T, db *streamdb.DB) {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}, {Name: "at", Type: arrow.FixedWidthTypes.Time32s},
		{Name: "code", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).Append("B0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11")
	b.Field(1).(*array.Time32Builder).Append(3723)
	b.Field(2).(*array.StringBuilder).Append("zz")
	rec := b.NewRecordBatch()
	defer rec.Release()
	if err := db.Append(context.Background(), "gb", rec); err != nil {
		t.Fatalf("Append of text uuids: %v", err)
	}
}

// pgCode is the SQLSTATE of an error from pgx ("" for nil).
func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return pgerr.Code(err)
}

// TestTimeTZWire: timetz through pgx in its three modes (as text: pgx has
// no timetz codec), as a key compared with a parameter; COPY TO in binary
// writes timetz_send's 12 bytes, which binary COPY FROM reads back.
func TestTimeTZWire(t *testing.T) {
	ctx := context.Background()
	db := openMem(t)
	port := startServer(t, db)
	mustExec(t, db, "CREATE TABLE zw (at timetz PRIMARY KEY, n int)")
	mustExec(t, db, "INSERT INTO zw VALUES ('12:00+02', 1), ('10:00+00', 2), ('23:59:59.5-15:59', 3)")
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeExec, pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
		conn := pgxConnect(t, port, mode)
		var at string
		var n int32
		if err := conn.QueryRow(ctx, "SELECT at::text, n FROM zw WHERE at = $1", "12:00:00+02:00").Scan(&at, &n); err != nil || at != "12:00:00+02" || n != 1 {
			t.Errorf("mode %v: %q %d, %v", mode, at, n, err)
		}
		conn.Close(ctx)
	}
	var bin bytes.Buffer
	if _, err := db.CopyTo(ctx, "COPY (SELECT at, n FROM zw ORDER BY at) TO STDOUT (FORMAT binary)", &bin); err != nil {
		t.Fatal(err)
	}
	// 12:00+02: 43200e6 microseconds (0x0a0eebb000), then -7200 seconds west.
	if field := []byte{0, 0, 0, 12, 0, 0, 0, 0x0a, 0x0e, 0xeb, 0xb0, 0x00, 0xff, 0xff, 0xe3, 0xe0}; !bytes.Contains(bin.Bytes(), field) {
		t.Errorf("binary COPY TO: %x lacks %x", bin.Bytes(), field)
	}
	mustExec(t, db, "CREATE TABLE zw2 (at timetz PRIMARY KEY, n int)")
	if _, err := db.CopyFrom(ctx, "COPY zw2 FROM STDIN (FORMAT binary)", bytes.NewReader(bin.Bytes())); err != nil {
		t.Fatalf("binary COPY FROM: %v", err)
	}
	got := queryRows(t, db, "SELECT at, n FROM zw2")
	if want := "10:00:00+00|2 12:00:00+02|1 23:59:59.5-15:59|3"; strings.Join(got, " ") != want {
		t.Errorf("read back %v, want %s", got, want)
	}
}

// TestInetWire: inet and cidr through pgx in its three modes (the
// extended ones in inet_send's binary form, as netip.Prefix), as keys
// compared with parameters; binary COPY TO and back, text COPY, and the
// Go API's text values.
func TestInetWire(t *testing.T) {
	ctx := context.Background()
	db := openMem(t)
	port := startServer(t, db)
	mustExec(t, db, "CREATE TABLE iw (addr inet PRIMARY KEY, net cidr)")
	mustExec(t, db, "INSERT INTO iw VALUES ('10.1.2.3/8', '10/8'), ('::1', '::/0'), ('192.168.0.1', '192.168.0/24')")
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeExec, pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
		conn := pgxConnect(t, port, mode)
		var addr, net netip.Prefix
		var text string
		err := conn.QueryRow(ctx, "SELECT addr, net, addr::text FROM iw WHERE addr = $1", netip.MustParsePrefix("10.1.2.3/8")).Scan(&addr, &net, &text)
		if err != nil || addr != netip.MustParsePrefix("10.1.2.3/8") || net != netip.MustParsePrefix("10.0.0.0/8") || text != "10.1.2.3/8" {
			t.Errorf("mode %v: %v %v %q, %v", mode, addr, net, text, err)
		}
		var n int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM iw WHERE addr <<= $1", "10.0.0.0/8").Scan(&n); err != nil || n != 1 {
			t.Errorf("mode %v: addr <<= $1: %d, %v", mode, n, err)
		}
		conn.Close(ctx)
	}
	var bin bytes.Buffer
	if _, err := db.CopyTo(ctx, "COPY (SELECT addr, net FROM iw ORDER BY addr) TO STDOUT (FORMAT binary)", &bin); err != nil {
		t.Fatal(err)
	}
	if field := []byte{0, 0, 0, 8, 2, 8, 0, 4, 10, 1, 2, 3, 0, 0, 0, 8, 2, 8, 1, 4, 10, 0, 0, 0}; !bytes.Contains(bin.Bytes(), field) {
		t.Errorf("binary COPY TO: %x lacks %x", bin.Bytes(), field)
	}
	mustExec(t, db, "CREATE TABLE iw2 (addr inet PRIMARY KEY, net cidr)")
	if _, err := db.CopyFrom(ctx, "COPY iw2 FROM STDIN (FORMAT binary)", bytes.NewReader(bin.Bytes())); err != nil {
		t.Fatalf("binary COPY FROM: %v", err)
	}
	if _, err := db.CopyFrom(ctx, "COPY iw2 FROM STDIN", strings.NewReader("2001:db8::5\t2001:db8::/32\n")); err != nil {
		t.Fatalf("text COPY FROM: %v", err)
	}
	if _, err := db.CopyFrom(ctx, "COPY iw2 FROM STDIN", strings.NewReader("10.0.0.9\t10.0.0.9/8\n")); pgerr.Code(err) != pgerr.InvalidTextRep {
		t.Errorf("COPY of a cidr with host bits: %v", err)
	}
	got := queryRows(t, db, "SELECT addr, net FROM iw2")
	if want := "10.1.2.3/8|10.0.0.0/8 192.168.0.1|192.168.0.0/24 2001:db8::5|2001:db8::/32 ::1|::/0"; strings.Join(got, " ") != want {
		t.Errorf("read back %v, want %s", got, want)
	}
	rows, err := db.Query(ctx, "SELECT addr, net FROM iw2 WHERE addr = $1", "::1")
	if err != nil || !rows.Next() {
		t.Fatalf("query: %v", err)
	}
	if v := rows.Values(); v[0] != "::1" || v[1] != "::/0" {
		t.Errorf("Values() = %#v", v)
	}
	rows.Close()
	appendInetText(t, db)
}

// appendInetText appends a row whose inet and cidr come as Arrow text.
func appendInetText(t *testing.T, db *streamdb.DB) {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: "addr", Type: arrow.BinaryTypes.String}, {Name: "net", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).Append("172.16.0.1/12")
	b.Field(1).(*array.StringBuilder).Append("172.16/12")
	rec := b.NewRecordBatch()
	defer rec.Release()
	if err := db.Append(context.Background(), "iw2", rec); err != nil {
		t.Fatalf("Append of inet text: %v", err)
	}
	if got := queryRows(t, db, "SELECT addr, net FROM iw2 WHERE addr <<= '172.16/12'"); strings.Join(got, " ") != "172.16.0.1/12|172.16.0.0/12" {
		t.Errorf("appended %v", got)
	}
}
