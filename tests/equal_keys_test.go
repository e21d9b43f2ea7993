//go:build linux

package tests

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/pgserver"
)

// Values that are equal in SQL but spelled differently: intervals ('1 mon'
// = '30 days' = '720 hours': PostgreSQL compares intervals by their span,
// with 30-day months and 24-hour days), numerics of different scales (1.0
// = 1.00 = 1), floats (-0 = 0, NaN = NaN), and NULLs (one group, never a
// join match). A materialized view must group, join and count DISTINCT
// them exactly as its query does. TestEqualKeys checks every view against
// its batch SELECT, against expectations derived from PostgreSQL's
// semantics, and, when a PostgreSQL server is installed, against it.

// eqkSchema: kv and kw hold the same three typed columns.
var eqkSchema = []string{
	"CREATE TABLE kv (id int PRIMARY KEY, iv interval, n numeric, f float8)",
	"CREATE TABLE kw (id int PRIMARY KEY, iv interval, n numeric, f float8)",
}

// eqkRows are the rows before the views exist (so views backfill them).
// Spans: ids 1-3 30 days, 4-5 1 day, 7-8 0, 9-10 360 days, 11 29 days.
var eqkRows = []string{
	"INSERT INTO kv VALUES (1, '1 mon', 1.0, 0), (2, '30 days', 1.00, '-0'), (3, '720 hours', 1, 'NaN'), " +
		"(4, '1 day', 2.50, 'NaN'), (5, '24 hours', 2.5, NULL), (6, NULL, NULL, 1.5), " +
		"(7, '1 mon -30 days', -0.0, 'Infinity'), (8, '00:00:00', 0.000, '-Infinity'), " +
		"(9, '1 year', 'NaN', 1.5), (10, '360 days', 'NaN', -1.5), (11, '29 days', 0.999, 2)",
	"INSERT INTO kw VALUES (1, '720:00:00', 1.000, '-0'), (2, '24:00:00', 2.5000, 'NaN'), " +
		"(3, '12 mons', 'NaN', 'Infinity'), (4, NULL, NULL, NULL), (5, '-1 day', -1, -0.5)",
}

// eqkDML runs after the views exist: new spellings join groups, the
// spelling a view shows is deleted, rows move between groups or change
// spelling within one, and a join side changes spelling.
var eqkDML = []string{
	"INSERT INTO kv VALUES (12, '2592000 seconds', 1.0000, 'NaN'), (13, '1 day', 2.5, '-0')",
	"DELETE FROM kv WHERE id = 1",
	"UPDATE kv SET iv = '31 days' WHERE id = 3",
	"UPDATE kv SET iv = '24:00:00', n = 2.500, f = 0 WHERE id = 4",
	"UPDATE kw SET iv = '1 mon', n = 1.0, f = 0 WHERE id = 1",
	"DELETE FROM kv WHERE id = 7",
}

// eqkQuery is a query made a view; canon names, per output column, how
// its text is brought to a canonical spelling before comparing ('i'
// interval, 'n' numeric, 'f' float, anything else as is): a group shows
// one of its spellings, and which one is PostgreSQL's choice too.
type eqkQuery struct {
	name, sql, canon string
	// want: the canonical rows, sorted, before and after eqkDML (nil:
	// compared with the batch query and PostgreSQL only).
	before, after []string
}

var eqkQueries = []eqkQuery{
	{name: "g_iv", sql: "SELECT iv, count(*) AS c FROM kv GROUP BY iv", canon: "i",
		before: []string{"0d|2", "1d|2", "29d|1", "30d|3", "360d|2", "NULL|1"},
		after:  []string{"0d|1", "1d|3", "29d|1", "30d|2", "31d|1", "360d|2", "NULL|1"}},
	{name: "g_n", sql: "SELECT n, count(*) AS c FROM kv GROUP BY n", canon: "n",
		before: []string{"0.999|1", "0|2", "1|3", "2.5|2", "NULL|1", "NaN|2"},
		after:  []string{"0.999|1", "0|1", "1|3", "2.5|3", "NULL|1", "NaN|2"}},
	{name: "g_f", sql: "SELECT f, count(*) AS c FROM kv GROUP BY f", canon: "f",
		before: []string{"-1.5|1", "-Infinity|1", "0|2", "1.5|2", "2|1", "Infinity|1", "NULL|1", "NaN|2"},
		after:  []string{"-1.5|1", "-Infinity|1", "0|3", "1.5|2", "2|1", "NULL|1", "NaN|2"}},
	{name: "cd", sql: "SELECT count(DISTINCT iv) AS civ, count(DISTINCT n) AS cn, count(DISTINCT f) AS cf, count(iv) AS c FROM kv",
		before: []string{"5|5|7|10"}, after: []string{"6|5|6|10"}},
	{name: "j_iv", sql: "SELECT a.id, b.id AS bid FROM kv a JOIN kw b ON a.iv = b.iv",
		before: []string{"10|3", "1|1", "2|1", "3|1", "4|2", "5|2", "9|3"},
		after:  []string{"10|3", "12|1", "13|2", "2|1", "4|2", "5|2", "9|3"}},
	{name: "j_n", sql: "SELECT a.id, b.id AS bid FROM kv a JOIN kw b ON a.n = b.n",
		before: []string{"10|3", "1|1", "2|1", "3|1", "4|2", "5|2", "9|3"},
		after:  []string{"10|3", "12|1", "13|2", "2|1", "3|1", "4|2", "5|2", "9|3"}},
	{name: "j_f", sql: "SELECT a.id, b.id AS bid FROM kv a JOIN kw b ON a.f = b.f",
		before: []string{"1|1", "2|1", "3|2", "4|2", "7|3"},
		after:  []string{"12|2", "13|1", "2|1", "3|2", "4|1"}},
	{name: "d_iv", sql: "SELECT DISTINCT iv FROM kv", canon: "i"},
	{name: "d_nf", sql: "SELECT DISTINCT n, f FROM kv", canon: "nf"},
	{name: "g_iv_n", sql: "SELECT iv, n, count(*) AS c FROM kv GROUP BY iv, n", canon: "in"},
	{name: "g_n_cd", sql: "SELECT n, count(DISTINCT iv) AS civ, count(DISTINCT f) AS cf FROM kv GROUP BY n", canon: "n"},
	{name: "lj_iv", sql: "SELECT a.id, b.id AS bid FROM kv a LEFT JOIN kw b ON a.iv = b.iv"},
	{name: "fj_nf", sql: "SELECT a.id, b.id AS bid FROM kv a FULL JOIN kw b ON a.n = b.n AND a.f = b.f"},
	{name: "j_g", sql: "SELECT b.iv, count(*) AS c, count(DISTINCT a.n) AS cn FROM kv a JOIN kw b ON a.iv = b.iv GROUP BY b.iv", canon: "i"},
}

// eqkBatchQueries are compared as batch SELECTs only (not views).
var eqkBatchQueries = []eqkQuery{
	{name: "in_iv", sql: "SELECT id FROM kv WHERE iv IN ('30 days', '24:00:00')",
		before: []string{"1", "2", "3", "4", "5"}, after: []string{"12", "13", "2", "4", "5"}},
	{name: "in_n", sql: "SELECT id FROM kv WHERE n IN (1.00, 0)",
		before: []string{"1", "2", "3", "7", "8"}, after: []string{"12", "2", "3", "8"}},
	{name: "in_sub", sql: "SELECT id FROM kv WHERE iv IN (SELECT iv FROM kw) AND f NOT IN (SELECT f FROM kw WHERE f IS NOT NULL)"},
	{name: "order_f", sql: "SELECT f, id FROM kv ORDER BY f DESC, id", canon: "f"},
}

func TestEqualKeys(t *testing.T) {
	ctx := context.Background()
	pg := eqkPostgres(t, ctx)
	db := openMem(t)
	run := func(sql string) {
		t.Helper()
		mustExec(t, db, sql)
		if pg != nil {
			if _, err := pg.Exec(ctx, sql); err != nil {
				t.Fatalf("postgres: %s: %v", sql, err)
			}
		}
	}
	for _, s := range append(slices.Clone(eqkSchema), eqkRows...) {
		run(s)
	}
	for i, q := range eqkQueries {
		// Every other view runs at parallelism 3, so its exchanges hash
		// the keys to actors.
		with := ""
		if i%2 == 1 {
			with = " WITH (streaming_parallelism = 3)"
		}
		mustExec(t, db, fmt.Sprintf("CREATE MATERIALIZED VIEW %s%s AS %s", q.name, with, q.sql))
	}
	eqkCheck(t, ctx, db, pg, "after the backfill", func(q eqkQuery) []string { return q.before })
	for _, s := range eqkDML {
		run(s)
		eqkCheck(t, ctx, db, pg, "after "+s, nil)
	}
	eqkCheck(t, ctx, db, pg, "after the DML", func(q eqkQuery) []string { return q.after })
}

// eqkCheck compares every view with its query (batch), the batch queries
// with PostgreSQL (when pg is not nil), and both with want(q) when it
// gives rows.
func eqkCheck(t *testing.T, ctx context.Context, db *streamdb.DB, pg *pgx.Conn, when string, want func(eqkQuery) []string) {
	t.Helper()
	check := func(q eqkQuery, what string, got []string) {
		t.Helper()
		if want != nil && want(q) != nil && !slices.Equal(got, want(q)) {
			t.Errorf("%s %s: %s\n  got  %v\n  want %v", what, when, q.sql, got, want(q))
		}
	}
	for _, q := range append(slices.Clone(eqkQueries), eqkBatchQueries...) {
		batch := eqkCanon(t, q.canon, queryRows(t, db, q.sql))
		check(q, "batch", batch)
		if pg != nil {
			if p := eqkCanon(t, q.canon, eqkPGRows(t, ctx, pg, q.sql)); !slices.Equal(p, batch) {
				t.Errorf("batch %s: %s\n  postgres %v\n  streamdb %v", when, q.sql, p, batch)
			}
		}
		if slices.ContainsFunc(eqkBatchQueries, func(b eqkQuery) bool { return b.name == q.name }) {
			continue
		}
		view := eqkCanon(t, q.canon, queryRows(t, db, "SELECT * FROM "+q.name))
		check(q, "view", view)
		if !slices.Equal(view, batch) {
			t.Errorf("view %s %s differs from its query %s\n  view  %v\n  query %v", q.name, when, q.sql, view, batch)
		}
	}
}

// eqkPostgres connects to a throwaway PostgreSQL server, or returns nil
// (the test then checks streamdb alone) when none is installed outside CI.
func eqkPostgres(t *testing.T, ctx context.Context) *pgx.Conn {
	t.Helper()
	if _, err := pgserver.FindBin(); errors.Is(err, pgserver.ErrNotInstalled) && os.Getenv("CI") == "" {
		t.Logf("no PostgreSQL server installed: checking views against batch queries and the expectations only")
		return nil
	}
	srv := startPostgres(t)
	conn, err := srv.connect(ctx)
	if err != nil {
		t.Fatalf("connect to postgres: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	t.Logf("comparing with PostgreSQL too")
	return conn
}

func eqkPGRows(t *testing.T, ctx context.Context, pg *pgx.Conn, sql string) []string {
	t.Helper()
	r := runPG(ctx, pg, sql)
	if r.failed() {
		t.Fatalf("postgres: %s: %s %s", sql, r.code, r.msg)
	}
	return rowLines(r.rows, false)
}

// eqkCanon rewrites the columns of "a|b|c" lines by canon (see
// eqkQuery) and sorts the lines.
func eqkCanon(t *testing.T, canon string, lines []string) []string {
	t.Helper()
	out := make([]string, len(lines))
	for i, l := range lines {
		fields := strings.Split(l, "|")
		for j := range min(len(canon), len(fields)) {
			if fields[j] == "NULL" {
				continue
			}
			switch canon[j] {
			case 'i':
				fields[j] = canonInterval(t, fields[j])
			case 'n':
				fields[j] = canonNumeric(fields[j])
			case 'f':
				if fields[j] == "-0" {
					fields[j] = "0"
				}
			}
		}
		out[i] = strings.Join(fields, "|")
	}
	sort.Strings(out)
	return out
}

// canonNumeric drops trailing fractional zeros: 1.00 and 1 read "1",
// -0.0 reads "0".
func canonNumeric(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		return "0"
	}
	return s
}

// canonInterval reads an interval in PostgreSQL's output style ("1 year
// 2 mons -3 days +04:05:06.5") and renders its span as PostgreSQL
// compares intervals (a month is 30 days, a day 24 hours): "<days>d",
// then "+<micros>us" for a part of a day.
func canonInterval(t *testing.T, s string) string {
	t.Helper()
	const day = 86400 * 1000000
	var months, days int64
	micros := new(big.Int)
	f := strings.Fields(s)
	for i := 0; i < len(f); i++ {
		if strings.Contains(f[i], ":") {
			micros.Add(micros, big.NewInt(clockMicros(t, f[i])))
			continue
		}
		v, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil || i+1 >= len(f) {
			t.Fatalf("bad interval %q", s)
		}
		switch strings.TrimSuffix(f[i+1], "s") {
		case "year":
			months += 12 * v
		case "mon":
			months += v
		case "day":
			days += v
		default:
			t.Fatalf("bad interval unit in %q", s)
		}
		i++
	}
	span := big.NewInt(months*30 + days)
	span.Mul(span, big.NewInt(day)).Add(span, micros)
	d, m := new(big.Int).DivMod(span, big.NewInt(day), new(big.Int))
	if m.Sign() == 0 {
		return d.String() + "d"
	}
	return fmt.Sprintf("%sd+%sus", d, m)
}

// clockMicros reads [+-]HH:MM:SS[.ffffff] as microseconds.
func clockMicros(t *testing.T, s string) int64 {
	t.Helper()
	sign := int64(1)
	switch s[0] {
	case '-':
		sign, s = -1, s[1:]
	case '+':
		s = s[1:]
	}
	p := strings.Split(s, ":")
	if len(p) != 3 {
		t.Fatalf("bad interval time %q", s)
	}
	h, err1 := strconv.ParseInt(p[0], 10, 64)
	m, err2 := strconv.ParseInt(p[1], 10, 64)
	sec, err3 := strconv.ParseFloat(p[2], 64)
	if err1 != nil || err2 != nil || err3 != nil {
		t.Fatalf("bad interval time %q", s)
	}
	return sign * ((h*60+m)*60*1000000 + int64(sec*1000000+0.5))
}
