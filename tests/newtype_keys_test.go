//go:build linux

package tests

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// TestNewTypeKeys streams random INSERT, UPDATE and DELETE statements
// over character(n), time(p), timetz, inet, cidr and uuid columns whose
// values are written in several spellings of one value ('a' and 'a  ' in
// a char(3), '12:00+02' and '10:00+00' (equal instants, different zones:
// not equal for timetz), '10.0.0.1' and '10.0.0.1/32', upper- and
// lower-case uuids, times rounded to time(2)), and checks after every
// statement that each view (GROUP BY, DISTINCT, joins, ORDER BY LIMIT,
// min/max, string_agg) equals its query, and that the query equals
// PostgreSQL's answer when a PostgreSQL server is installed.

var ntkSchema = []string{
	"CREATE TABLE nt1 (id int PRIMARY KEY, c3 char(3), c5 character(5), tz timetz, tm time(2), ip inet, nw cidr, u uuid)",
	"CREATE TABLE nt2 (id int PRIMARY KEY, c char(4), tz timetz, ip inet, u uuid)",
}

// ntkValues are the spellings each column takes its values from.
var ntkValues = map[string][]string{
	"char": {"'a'", "'a '", "'a  '", "'ab'", "'ab '", "'b'", "''", "' a'", "'abc'", "NULL"},
	"tz": {"'12:00+02'", "'10:00+00'", "'10:00:00Z'", "'11:00+01'", "'10:00-00'", "'12:00:00.5+02'",
		"'23:59:59.999+00'", "'00:00+14'", "'24:00-01'", "NULL"},
	"tm": {"'12:34:56.789'", "'12:34:56.785'", "'12:34:56.79'", "'23:59:59.999'", "'24:00'", "'00:00'",
		"'00:00:00.004'", "NULL"},
	"ip": {"'10.0.0.1'", "'10.0.0.1/32'", "'10.0.0.1/8'", "'10.0.0.0/8'", "'10.0.0.1/16'", "'::ffff:10.0.0.1'",
		"'::1'", "'::1/128'", "'9.255.0.0'", "NULL"},
	"nw": {"'10.0.0.0/8'", "'10'", "'10.0/16'", "'10.0.0.0/16'", "'::/0'", "'10.0.0.1/32'", "'10.0.0.1'", "NULL"},
	"u": {"'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'", "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'",
		"'{a0eebc999c0b4ef8bb6d6bb9bd380a11}'", "'00000000-0000-0000-0000-000000000000'",
		"'ffffffff-ffff-ffff-ffff-ffffffffffff'", "NULL"},
}

// ntkColumns are each table's non-key columns and their value pools.
var ntkColumns = map[string][][2]string{
	"nt1": {{"c3", "char"}, {"c5", "char"}, {"tz", "tz"}, {"tm", "tm"}, {"ip", "ip"}, {"nw", "nw"}, {"u", "u"}},
	"nt2": {{"c", "char"}, {"tz", "tz"}, {"ip", "ip"}, {"u", "u"}},
}

// ntkViews: trimmed names the views whose bpchar output (without a
// length, from a UNION of char(3) and char(4)) may show any of a group's
// paddings, so they are compared without trailing blanks.
var ntkViews = []struct {
	name, sql string
	trimmed   bool
}{
	{name: "nt_g_c3", sql: "SELECT c3, count(*) AS n, min(c5) AS lo, max(c5) AS hi, string_agg(c5, ',' ORDER BY id) AS s FROM nt1 GROUP BY c3"},
	{name: "nt_g_c3c5", sql: "SELECT c3, c5, count(*) AS n, count(DISTINCT tz) AS ntz FROM nt1 GROUP BY c3, c5"},
	{name: "nt_g_text", sql: "SELECT c5::text AS t, count(*) AS n, max(c3) AS hi FROM nt1 GROUP BY c5::text"},
	{name: "nt_d_c3", sql: "SELECT DISTINCT c3 FROM nt1"},
	{name: "nt_g_tz", sql: "SELECT tz, count(*) AS n, min(tm) AS lo, max(tm) AS hi FROM nt1 GROUP BY tz"},
	{name: "nt_d_tz", sql: "SELECT DISTINCT tz FROM nt1"},
	{name: "nt_g_tm", sql: "SELECT tm, count(*) AS n, max(tz) AS hi FROM nt1 GROUP BY tm"},
	{name: "nt_g_ip", sql: "SELECT ip, count(*) AS n, min(nw) AS lo, max(nw) AS hi FROM nt1 GROUP BY ip"},
	{name: "nt_d_nw", sql: "SELECT DISTINCT nw, masklen(nw) AS m FROM nt1"},
	{name: "nt_g_u", sql: "SELECT u, count(*) AS n, count(DISTINCT ip) AS nip FROM nt1 GROUP BY u"},
	{name: "nt_j_c", sql: "SELECT a.id, b.id AS bid, a.c3, b.c FROM nt1 a JOIN nt2 b ON a.c3 = b.c"},
	{name: "nt_j_ctext", sql: "SELECT a.id, b.id AS bid FROM nt1 a JOIN nt2 b ON a.c5::text = b.c::text"},
	{name: "nt_j_tz", sql: "SELECT a.id, b.id AS bid, a.tz FROM nt1 a JOIN nt2 b ON a.tz = b.tz"},
	{name: "nt_j_ip", sql: "SELECT a.id, b.id AS bid, b.ip FROM nt1 a JOIN nt2 b ON a.ip = b.ip"},
	{name: "nt_j_nw", sql: "SELECT a.id, b.id AS bid FROM nt1 a LEFT JOIN nt2 b ON a.nw = b.ip"},
	{name: "nt_j_u", sql: "SELECT a.id, b.id AS bid, b.u FROM nt1 a FULL JOIN nt2 b ON a.u = b.u"},
	{name: "nt_top_c3", sql: "SELECT id, c3, c5 FROM nt1 ORDER BY c3 DESC, id LIMIT 3"},
	{name: "nt_top_tz", sql: "SELECT id, tz FROM nt1 ORDER BY tz, id LIMIT 3"},
	{name: "nt_top_ip", sql: "SELECT id, ip, nw FROM nt1 ORDER BY ip DESC, nw, id LIMIT 3"},
	{name: "nt_top_tm", sql: "SELECT id, tm, u FROM nt1 ORDER BY tm, u DESC, id LIMIT 3"},
	{name: "nt_minmax", sql: "SELECT min(c3) AS c3lo, max(c3) AS c3hi, min(tz) AS tzlo, max(tz) AS tzhi, min(tm) AS tmlo, max(tm) AS tmhi, " +
		"min(ip) AS iplo, max(ip) AS iphi, min(nw) AS nwlo, max(nw) AS nwhi, count(DISTINCT u) AS nu, count(DISTINCT c5) AS nc5 FROM nt1"},
	{name: "nt_union", sql: "SELECT c3 AS c FROM nt1 UNION SELECT c FROM nt2", trimmed: true},
	{name: "nt_g_union", sql: "SELECT c, count(*) AS n FROM (SELECT c3 AS c FROM nt1 UNION ALL SELECT c FROM nt2) s GROUP BY c", trimmed: true},
}

func TestNewTypeKeys(t *testing.T) {
	ctx := context.Background()
	steps, seed := diffStepsSeed(120, 7)
	rng := rand.New(rand.NewSource(seed))
	pg := eqkPostgres(t, ctx)
	db := openMem(t)
	for _, s := range ntkSchema {
		ntkRun(t, ctx, db, pg, s)
	}
	// Rows before the views, so the views backfill them.
	for i := 0; i < 25; i++ {
		ntkRun(t, ctx, db, pg, ntkDML(rng))
	}
	for i, v := range ntkViews {
		with := ""
		if i%2 == 1 {
			with = " WITH (streaming_parallelism = 3)"
		}
		mustExec(t, db, fmt.Sprintf("CREATE MATERIALIZED VIEW %s%s AS %s", v.name, with, v.sql))
	}
	ntkCheck(t, ctx, db, pg, "after the backfill")
	for step := 0; step < steps && !t.Failed(); step++ {
		stmt := ntkDML(rng)
		ntkRun(t, ctx, db, pg, stmt)
		ntkCheck(t, ctx, db, pg, fmt.Sprintf("step %d (seed %d): %s", step, seed, stmt))
	}
}

// ntkRun runs a statement on streamdb and PostgreSQL (when pg is not
// nil); a duplicate key is expected, and then on both.
func ntkRun(t *testing.T, ctx context.Context, db *streamdb.DB, pg *pgx.Conn, stmt string) {
	t.Helper()
	_, err := db.Exec(ctx, stmt)
	if err != nil && pgerr.Code(err) != pgerr.UniqueViolation {
		t.Fatalf("%s: %v", stmt, err)
	}
	if pg == nil {
		return
	}
	r := runPG(ctx, pg, stmt)
	if r.code != pgerr.Code(err) && (err != nil || r.failed()) {
		t.Fatalf("%s: postgres %s %s, streamdb %v", stmt, r.code, r.msg, err)
	}
}

// ntkCheck compares every view with its query, and the query with
// PostgreSQL's answer.
func ntkCheck(t *testing.T, ctx context.Context, db *streamdb.DB, pg *pgx.Conn, when string) {
	t.Helper()
	for _, v := range ntkViews {
		batch := ntkCanon(queryRows(t, db, v.sql), v.trimmed)
		view := ntkCanon(queryRows(t, db, "SELECT * FROM "+v.name), v.trimmed)
		if !slices.Equal(view, batch) {
			t.Errorf("%s: view %s differs from its query %s\n  view  %v\n  query %v", when, v.name, v.sql, view, batch)
		}
		if pg != nil {
			if p := ntkCanon(eqkPGRows(t, ctx, pg, v.sql), v.trimmed); !slices.Equal(p, batch) {
				t.Errorf("%s: %s\n  postgres %v\n  streamdb %v", when, v.sql, p, batch)
			}
		}
	}
}

// ntkCanon drops the trailing blanks of every value when trimmed.
func ntkCanon(rows []string, trimmed bool) []string {
	if !trimmed {
		return rows
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		parts := strings.Split(r, "|")
		for j, p := range parts {
			parts[j] = strings.TrimRight(p, " ")
		}
		out[i] = strings.Join(parts, "|")
	}
	slices.Sort(out)
	return out
}

// ntkDML returns one random statement over nt1 or nt2.
func ntkDML(rng *rand.Rand) string {
	table := []string{"nt1", "nt2"}[rng.Intn(2)]
	cols := ntkColumns[table]
	val := func(pool string) string {
		vs := ntkValues[pool]
		return vs[rng.Intn(len(vs))]
	}
	col := cols[rng.Intn(len(cols))]
	switch r := rng.Intn(12); {
	case r < 5:
		var rows []string
		for i := 0; i < 1+rng.Intn(3); i++ {
			vals := []string{strconv.Itoa(rng.Intn(30))}
			for _, c := range cols {
				vals = append(vals, val(c[1]))
			}
			rows = append(rows, "("+strings.Join(vals, ", ")+")")
		}
		return fmt.Sprintf("INSERT INTO %s VALUES %s", table, strings.Join(rows, ", "))
	case r < 8:
		other := cols[rng.Intn(len(cols))]
		if other == col {
			return fmt.Sprintf("UPDATE %s SET %s = %s WHERE id %% 5 = %d", table, col[0], val(col[1]), rng.Intn(5))
		}
		return fmt.Sprintf("UPDATE %s SET %s = %s, %s = %s WHERE id %% 5 = %d", table, col[0], val(col[1]), other[0], val(other[1]), rng.Intn(5))
	case r < 9:
		if table == "nt1" {
			return fmt.Sprintf("UPDATE nt1 SET tm = tm + interval '%d hours %d minutes', tz = tz - interval '%d hours' WHERE id %% 3 = %d",
				rng.Intn(30)-5, rng.Intn(60), rng.Intn(30), rng.Intn(3))
		}
		return fmt.Sprintf("UPDATE nt2 SET c = c || 'x' WHERE length(c) < 3 AND id %% 4 = %d", rng.Intn(4))
	case r < 10:
		return fmt.Sprintf("DELETE FROM %s WHERE %s = %s", table, col[0], val(col[1]))
	default:
		return fmt.Sprintf("DELETE FROM %s WHERE id = %d", table, rng.Intn(30))
	}
}
