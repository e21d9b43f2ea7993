package tests

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb"
)

// The session time zone outside what tests/slt/timezone.slt covers:
// sessions in different zones side by side, a view's zone across a
// restart, COPY, and the wire protocol (ParameterStatus, binary values).

// TestTimeZoneSessions runs two sessions in different zones at the same
// time over the same table: each reads, writes and computes in its own.
func TestTimeZoneSessions(t *testing.T) {
	db := openMem(t)
	mustExec(t, db, "CREATE TABLE ev (id int PRIMARY KEY, ts timestamptz)")
	mustExec(t, db, "INSERT INTO ev VALUES (1, '2020-03-08 06:30:00+00'), (2, '2020-11-02 03:30:00+00')")
	type want struct{ zone, query string }
	cases := []struct {
		zone string
		rows []string
	}{
		// SELECT id, ts, ts::date, date_trunc('day', ts), ts + interval '1 day', '2020-03-08'::timestamptz
		{"America/New_York", []string{
			"1|2020-03-08 01:30:00-05|2020-03-08|2020-03-08 00:00:00-05|2020-03-09 01:30:00-04|2020-03-08 00:00:00-05",
			"2|2020-11-01 22:30:00-05|2020-11-01|2020-11-01 00:00:00-04|2020-11-02 22:30:00-05|2020-03-08 00:00:00-05",
		}},
		{"Asia/Kolkata", []string{
			"1|2020-03-08 12:00:00+05:30|2020-03-08|2020-03-08 00:00:00+05:30|2020-03-09 12:00:00+05:30|2020-03-08 00:00:00+05:30",
			"2|2020-11-02 09:00:00+05:30|2020-11-02|2020-11-02 00:00:00+05:30|2020-11-03 09:00:00+05:30|2020-03-08 00:00:00+05:30",
		}},
	}
	const q = "SELECT id, ts, ts::date, date_trunc('day', ts), ts + interval '1 day', '2020-03-08'::timestamptz FROM ev"
	var wg sync.WaitGroup
	for _, c := range cases {
		s := db.NewSession()
		defer s.Close()
		sessionExec(t, s, "SET TIME ZONE '"+c.zone+"'")
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				got, err := sortedTextRows(s, q)
				if err != nil {
					t.Errorf("%s: %v", c.zone, err)
					return
				}
				if strings.Join(got, "\n") != strings.Join(c.rows, "\n") {
					t.Errorf("in %s (round %d):\n%s\nwant\n%s", c.zone, i, strings.Join(got, "\n"), strings.Join(c.rows, "\n"))
					return
				}
				if v, _ := s.Var("timezone"); v != c.zone {
					t.Errorf("session zone %q, want %q", v, c.zone)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestTimeZoneViewRestart creates a view in one zone and checks that it
// keeps that zone for rows written after a restart, while readers see its
// timestamptz columns in their own zone.
func TestTimeZoneViewRestart(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db, err := streamdb.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := db.NewSession()
	sessionExec(t, s, "SET TimeZone = 'America/New_York'")
	sessionExec(t, s, "CREATE TABLE ev (id int PRIMARY KEY, ts timestamptz)")
	sessionExec(t, s, "INSERT INTO ev VALUES (1, '2020-11-01 23:30')")
	sessionExec(t, s, "CREATE MATERIALIZED VIEW by_day AS SELECT ts::date AS d, date_trunc('day', ts) AS start, count(*) AS n FROM ev GROUP BY 1, 2")
	sessionExec(t, s, "CREATE MATERIALIZED VIEW late AS SELECT id, extract(hour FROM ts) AS h FROM ev WHERE ts >= '2020-11-01 12:00'")
	s.Close()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = streamdb.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Written and read in UTC: 2020-11-02 04:00 UTC is still the 1st in
	// New York, where the view's day starts at 04:00 UTC (EDT) and its
	// filter at 17:00 UTC (EST).
	mustExec(t, db, "INSERT INTO ev VALUES (2, '2020-11-02 04:00+00'), (3, '2020-11-01 16:00+00'), (4, '2020-11-02 05:30+00')")
	if got, want := queryRows(t, db, "SELECT * FROM by_day"), []string{
		"2020-11-01|2020-11-01 04:00:00+00|3", "2020-11-02|2020-11-02 05:00:00+00|1",
	}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("by_day after restart = %v, want %v", got, want)
	}
	if got, want := queryRows(t, db, "SELECT * FROM late"), []string{"1|23", "2|23", "4|0"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("late after restart = %v, want %v", got, want)
	}
	k := db.NewSession()
	defer k.Close()
	sessionExec(t, k, "SET TIME ZONE 'Asia/Kolkata'")
	if got, want := sessionRows(t, k, "SELECT start FROM by_day"), []string{"2020-11-01 09:30:00+05:30", "2020-11-02 10:30:00+05:30"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("by_day read in Kolkata = %v, want %v", got, want)
	}
	_ = ctx
}

// TestTimeZoneCopy reads COPY text without offsets in the session's zone
// and writes timestamptz values in it.
func TestTimeZoneCopy(t *testing.T) {
	db := openMem(t)
	ctx := context.Background()
	s := db.NewSession()
	defer s.Close()
	sessionExec(t, s, "SET TIME ZONE 'America/New_York'")
	sessionExec(t, s, "CREATE TABLE ev (id int PRIMARY KEY, ts timestamptz, arr timestamptz[])")
	in := "1\t2020-03-08 02:30\t{\"2020-01-01 00:00\"}\n2\t2020-07-01 00:00+00\t\\N\n"
	if _, err := s.CopyFrom(ctx, "COPY ev FROM STDIN", strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := s.CopyTo(ctx, "COPY (SELECT * FROM ev ORDER BY id) TO STDOUT WITH (FORMAT csv)", &out); err != nil {
		t.Fatal(err)
	}
	want := "1,2020-03-08 03:30:00-04,\"{\"\"2020-01-01 00:00:00-05\"\"}\"\n2,2020-06-30 20:00:00-04,\n"
	if out.String() != want {
		t.Errorf("COPY TO in New York:\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	if _, err := db.CopyTo(ctx, "COPY (SELECT id, ts FROM ev ORDER BY id) TO STDOUT", &out); err != nil {
		t.Fatal(err)
	}
	if want := "1\t2020-03-08 07:30:00+00\n2\t2020-07-01 00:00:00+00\n"; out.String() != want {
		t.Errorf("COPY TO in UTC:\n%s\nwant\n%s", out.String(), want)
	}
}

// TestTimeZoneWire checks the protocol: TimeZone's ParameterStatus at
// startup and after each change, text values in the zone, binary ones
// as instants, and text parameters read in the zone.
func TestTimeZoneWire(t *testing.T) {
	db := openMem(t)
	port := startServer(t, db)
	ctx := context.Background()
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec} {
		t.Run(fmt.Sprint(mode), func(t *testing.T) {
			conn := pgxConnect(t, port, mode)
			if got := conn.PgConn().ParameterStatus("TimeZone"); got != "UTC" {
				t.Fatalf("TimeZone at startup = %q, want UTC", got)
			}
			if _, err := conn.Exec(ctx, "SET TIME ZONE 'asia/kolkata'"); err != nil {
				t.Fatal(err)
			}
			if got := conn.PgConn().ParameterStatus("TimeZone"); got != "Asia/Kolkata" {
				t.Fatalf("TimeZone after SET = %q, want Asia/Kolkata", got)
			}
			var text string
			var inst time.Time
			if err := conn.QueryRow(ctx, "SELECT ts::text, ts FROM (SELECT $1::timestamptz AS ts) s", "2020-01-01 00:00").Scan(&text, &inst); err != nil {
				t.Fatal(err)
			}
			if text != "2020-01-01 00:00:00+05:30" {
				t.Errorf("text = %q", text)
			}
			if want := time.Date(2019, 12, 31, 18, 30, 0, 0, time.UTC); !inst.Equal(want) {
				t.Errorf("instant = %v, want %v", inst, want)
			}
			if _, err := conn.Exec(ctx, "SELECT set_config('TimeZone', 'America/New_York', false)"); err != nil {
				t.Fatal(err)
			}
			if got := conn.PgConn().ParameterStatus("TimeZone"); got != "America/New_York" {
				t.Errorf("TimeZone after set_config = %q, want America/New_York", got)
			}
			if _, err := conn.Exec(ctx, "RESET TimeZone"); err != nil {
				t.Fatal(err)
			}
			if got := conn.PgConn().ParameterStatus("TimeZone"); got != "UTC" {
				t.Errorf("TimeZone after RESET = %q, want UTC", got)
			}
		})
	}
	// A zone set at connection: a TimeZone parameter (libpq's PGTZ,
	// pgjdbc) or -c timezone=... in options; a bad one is FATAL.
	for _, params := range []map[string]string{{"TimeZone": "europe/paris"}, {"options": "-c timezone=Europe/Paris"}} {
		cfg, err := pgx.ParseConfig(fmt.Sprintf("postgres://tester@127.0.0.1:%d/dev?sslmode=disable", port))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range params {
			cfg.RuntimeParams[k] = v
		}
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatalf("%v: %v", params, err)
		}
		var text string
		if err := conn.QueryRow(ctx, "SELECT '2020-07-01 00:00+00'::timestamptz::text").Scan(&text); err != nil {
			t.Fatal(err)
		}
		if got := conn.PgConn().ParameterStatus("TimeZone"); got != "Europe/Paris" || text != "2020-07-01 02:00:00+02" {
			t.Errorf("%v: TimeZone %q, text %q", params, got, text)
		}
		conn.Close(ctx)
	}
	cfg, _ := pgx.ParseConfig(fmt.Sprintf("postgres://tester@127.0.0.1:%d/dev?sslmode=disable", port))
	cfg.RuntimeParams["TimeZone"] = "Mars/Olympus"
	if conn, err := pgx.ConnectConfig(ctx, cfg); err == nil || !strings.Contains(err.Error(), `invalid value for parameter "TimeZone": "Mars/Olympus"`) {
		t.Errorf("a bad startup TimeZone: %v", err)
		if conn != nil {
			conn.Close(ctx)
		}
	}
}
