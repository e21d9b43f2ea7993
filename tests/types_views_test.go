package tests

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// typeViews are views keyed on uuid, time and character(n) (GROUP BY,
// join and ORDER BY LIMIT), by name, with their queries.
var typeViews = []struct{ name, query string }{
	{"tv_by_uuid", "SELECT grp, count(*) AS n, max(at) AS last, min(code) AS code FROM tv_items GROUP BY grp"},
	{"tv_by_time", "SELECT at, count(*) AS n, count(DISTINCT grp) AS groups FROM tv_items GROUP BY at"},
	{"tv_by_code", "SELECT code, count(*) AS n, max(at) AS last FROM tv_items GROUP BY code"},
	{"tv_join_uuid", "SELECT i.id, i.at, g.name FROM tv_items i JOIN tv_groups g ON g.id = i.grp"},
	{"tv_join_code", "SELECT i.id, g.name, g.code FROM tv_items i JOIN tv_groups g ON g.code = i.code"},
	{"tv_join_time", "SELECT i.id, g.name FROM tv_items i JOIN tv_groups g ON g.opens = i.at"},
	{"tv_top_uuid", "SELECT id, code FROM tv_items ORDER BY id DESC LIMIT 3"},
	{"tv_top_time", "SELECT at, id FROM tv_items ORDER BY at, id LIMIT 4"},
	{"tv_top_code", "SELECT code, id FROM tv_items ORDER BY code DESC, id LIMIT 3"},
	{"tv_by_tz", "SELECT tz, count(*) AS n, min(at) AS first FROM tv_items GROUP BY tz"},
	{"tv_top_tz", "SELECT tz, id FROM tv_items ORDER BY tz DESC, id LIMIT 3"},
	{"tv_by_net", "SELECT network(ip) AS net, count(*) AS n, max(ip) AS top FROM tv_items GROUP BY network(ip)"},
	{"tv_top_ip", "SELECT ip, id FROM tv_items WHERE ip << '10.0.0.0/8' ORDER BY ip, id LIMIT 3"},
	{"tv_shifted", "SELECT id, at + interval '90 minutes' AS later, code || '|' AS c, length(code) AS len FROM tv_items WHERE at > '06:00'"},
}

// A few values of each type, with spellings that are equal values: the
// uuids in upper case, braces or without hyphens; the codes with and
// without trailing blanks; times before and after rounding to time(3).
var (
	tvUUIDs = []string{"00000000-0000-0000-0000-000000000001", "{80000000-0000-0000-0000-000000000000}",
		"7FFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF", "ffffffffffffffffffffffffffffffff", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"}
	tvTimes = []string{"00:00", "06:00:00.0004", "06:00", "12:30:15.1235", "23:59:59.9999", "24:00", "01:00 PM"}
	tvCodes = []string{"a", "a  ", "ab", "b ", "zz", " z"}
	tvIPs   = []string{"10.0.0.1", "10.0.0.1/32", "10.0.0.1/8", "10.1.2.3/16", "192.168.0.1/24", "::1", "2001:db8::/32"}
	tvZoned = []string{"12:00+02", "10:00+00", "11:00+01", "12:00+02:00", "23:30-05:30", "24:00+00"}
)

// TestTypeViewsRandom applies random INSERT, UPDATE and DELETE
// statements to tables keyed and grouped on uuid, time(3), timetz and
// char(3) and inet (12:00+02 and 10:00+00 are one instant but not
// equal; 10.0.0.1 and 10.0.0.1/32 are equal),
// and checks that every view equals its query after each step, after a
// restart, and after a COPY, with its rows also surviving the restart.
func TestTypeViewsRandom(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	opts := &streamdb.Options{NoSync: true}
	db, err := streamdb.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { db.Close() }()
	mustExec(t, db, "CREATE TABLE tv_items (id uuid PRIMARY KEY, grp uuid, at time(3), code char(3), tz timetz, ip inet)")
	mustExec(t, db, "CREATE TABLE tv_groups (id uuid PRIMARY KEY, name text, code character(3), opens time)")
	rng := rand.New(rand.NewSource(7))
	for i := 0; i < 15; i++ {
		applyTypeDML(t, db, rng)
	}
	for _, v := range typeViews {
		mustExec(t, db, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", v.name, v.query))
	}
	checkTypeViews(t, db, "after creation")
	for step := 0; step < 120 && !t.Failed(); step++ {
		stmt := applyTypeDML(t, db, rng)
		checkTypeViews(t, db, fmt.Sprintf("step %d: %s", step, stmt))
		if step == 60 {
			before := viewSnapshot(t, db)
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			if db, err = streamdb.Open(dir, opts); err != nil {
				t.Fatal(err)
			}
			if after := viewSnapshot(t, db); after != before {
				t.Fatalf("views changed across the restart:\nbefore: %s\nafter:  %s", before, after)
			}
			checkTypeViews(t, db, "after restart")
		}
	}
	copyIn := "b0000000-0000-0000-0000-000000000001\t{80000000-0000-0000-0000-000000000000}\t07:15:00.12345\tq\t01:00-01\t10.9.9.9/8\n" +
		"B0000000000000000000000000000002\t\\N\t24:00\tzz \t\\N\t\\N\n"
	if _, err := db.CopyFrom(ctx, "COPY tv_items FROM STDIN", strings.NewReader(copyIn)); err != nil {
		t.Fatalf("COPY FROM: %v", err)
	}
	checkTypeViews(t, db, "after COPY")
	got := queryRows(t, db, "SELECT id, at, code || '|', tz FROM tv_items WHERE id >= 'b0000000-0000-0000-0000-000000000001' AND id < 'c0000000-0000-0000-0000-000000000000'")
	want := []string{"b0000000-0000-0000-0000-000000000001|07:15:00.123|q||01:00:00-01", "b0000000-0000-0000-0000-000000000002|24:00:00|zz||NULL"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("COPY rows: %v, want %v", got, want)
	}
	if _, err := db.CopyFrom(ctx, "COPY tv_items FROM STDIN", strings.NewReader("c0000000-0000-0000-0000-000000000001\t\\N\t01:00\tabcd\t\\N\t\\N\n")); pgerr.Code(err) != pgerr.StringDataTooLong {
		t.Errorf("COPY of a code too long: %v, want 22001", err)
	}
}

// applyTypeDML runs one random statement on tv_items or tv_groups;
// duplicate keys are expected and ignored.
func applyTypeDML(t *testing.T, db *streamdb.DB, rng *rand.Rand) string {
	t.Helper()
	stmt := randomTypeDML(rng)
	if _, err := db.Exec(context.Background(), stmt); err != nil && pgerr.Code(err) != pgerr.UniqueViolation {
		t.Fatalf("%s: %v", stmt, err)
	}
	return stmt
}

func randomTypeDML(rng *rand.Rand) string {
	pick := func(vals []string) string {
		if rng.Intn(8) == 0 {
			return "NULL"
		}
		return "'" + vals[rng.Intn(len(vals))] + "'"
	}
	id := fmt.Sprintf("'%08x-0000-4000-8000-%012x'", rng.Intn(4)<<30, rng.Intn(12))
	if rng.Intn(3) == 0 {
		g := pick(tvUUIDs)
		if g == "NULL" {
			g = "'00000000-0000-0000-0000-000000000001'"
		}
		switch rng.Intn(4) {
		case 0, 1:
			return fmt.Sprintf("INSERT INTO tv_groups VALUES (%s, 'g%d', %s, %s)", g, rng.Intn(5), pick(tvCodes), pick(tvTimes))
		case 2:
			return fmt.Sprintf("UPDATE tv_groups SET code = %s, opens = %s WHERE id = %s", pick(tvCodes), pick(tvTimes), g)
		}
		return fmt.Sprintf("DELETE FROM tv_groups WHERE id = %s", g)
	}
	switch rng.Intn(8) {
	case 0, 1, 2, 3:
		return fmt.Sprintf("INSERT INTO tv_items VALUES (%s, %s, %s, %s, %s, %s)", id, pick(tvUUIDs), pick(tvTimes), pick(tvCodes), pick(tvZoned), pick(tvIPs))
	case 4:
		return fmt.Sprintf("UPDATE tv_items SET at = at + interval '%d minutes', code = %s, ip = %s WHERE grp = %s", rng.Intn(600), pick(tvCodes), pick(tvIPs), pick(tvUUIDs))
	case 5:
		return fmt.Sprintf("UPDATE tv_items SET grp = %s, tz = tz + interval '1 hour' WHERE code = %s", pick(tvUUIDs), pick(tvCodes))
	case 6:
		return fmt.Sprintf("DELETE FROM tv_items WHERE id = %s", id)
	}
	return fmt.Sprintf("DELETE FROM tv_items WHERE at < %s AND code = %s", pick(tvTimes), pick(tvCodes))
}

// checkTypeViews compares every view with its query.
func checkTypeViews(t *testing.T, db *streamdb.DB, when string) {
	t.Helper()
	for _, v := range typeViews {
		got := queryRows(t, db, "SELECT * FROM "+v.name)
		want := queryRows(t, db, v.query)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: view %s differs from its query\nview:  %v\nquery: %v", when, v.name, got, want)
		}
	}
}

// viewSnapshot is every view's rows, as one string.
func viewSnapshot(t *testing.T, db *streamdb.DB) string {
	var b strings.Builder
	for _, v := range typeViews {
		fmt.Fprintf(&b, "%s: %v\n", v.name, queryRows(t, db, "SELECT * FROM "+v.name))
	}
	return b.String()
}

// TestTypeRefusals: what streamdb does not do with these types is
// refused with 0A000 and a clear message: gen_random_uuid() in a view
// (its rows could not be retracted).
func TestTypeRefusals(t *testing.T) {
	ctx := context.Background()
	db := openMem(t)
	mustExec(t, db, "CREATE TABLE tr (id uuid DEFAULT gen_random_uuid() PRIMARY KEY, n int)")
	mustExec(t, db, "INSERT INTO tr (n) VALUES (1), (2)")
	if got := queryRows(t, db, "SELECT count(DISTINCT id) FROM tr"); len(got) != 1 || got[0] != "2" {
		t.Errorf("DEFAULT gen_random_uuid(): %v distinct ids", got)
	}
	for _, c := range []struct{ sql, msg string }{
		{"CREATE MATERIALIZED VIEW tr_v AS SELECT gen_random_uuid() AS g, n FROM tr", "gen_random_uuid() is not supported in a materialized view"},
		{"CREATE MATERIALIZED VIEW tr_v AS SELECT n FROM tr WHERE id <> gen_random_uuid()", "gen_random_uuid() is not supported in a materialized view"},
	} {
		_, err := db.Exec(ctx, c.sql)
		if pgerr.Code(err) != pgerr.FeatureNotSupported || !strings.Contains(fmt.Sprint(err), c.msg) {
			t.Errorf("%s: %v, want 0A000 %q", c.sql, err, c.msg)
		}
	}
}
