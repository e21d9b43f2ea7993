package tests

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/streamdb/streamdb"
)

// blockRowsN rows are bulk-loaded into each table: enough to be ingested
// (and, into an empty table, written as columnar blocks).
const blockRowsN = 20000

// blockViews are the views of the blocks test over b1 (loaded by INSERT
// ... SELECT) and b2 (loaded by COPY).
var blockViews = []struct{ name, query string }{
	{"bv_agg", "SELECT k, count(*) AS n, sum(v) AS s, min(s) AS lo, max(v) AS hi FROM b1 GROUP BY k"},
	{"bv_filter", "SELECT id, v, s FROM b1 WHERE v % 5 = 0"},
	{"bv_join", "SELECT b1.id, b1.v, b2.v AS w FROM b1 JOIN b2 ON b1.id = b2.id WHERE b1.k = 3"},
	{"bv_agg2", "SELECT k, count(*) AS n, sum(v) AS s, count(s) AS ns FROM b2 GROUP BY k"},
}

// blockModel is what a table holds: id -> "k|v|s".
type blockModel map[int]string

func blockModelRow(k, v int, s string) string { return fmt.Sprintf("%d|%d|%s", k, v, s) }

// rows renders the model's rows with id in [lo, hi], sorted as text.
func (m blockModel) rows(lo, hi int) []string {
	var out []string
	for id, r := range m {
		if id >= lo && id <= hi {
			out = append(out, strconv.Itoa(id)+"|"+r)
		}
	}
	slices.Sort(out)
	return out
}

func loadedRow(g int) (k, v int, s string) {
	s = "s" + strconv.Itoa(g)
	if g%11 == 0 {
		s = "NULL"
	}
	return g % 13, g * 7 % 1000, s
}

// TestBlocksDifferential bulk-loads two empty tables (INSERT ... SELECT
// and COPY: their rows go in columnar blocks), then runs a random stream
// of single-row and ranged INSERTs, UPDATEs and DELETEs over the loaded
// rows and new ones, with views created before the load and after it
// (backfilled from blocks and overlay), a view rescaled during its
// backfill and after, and a restart. After each step every view equals
// its query as a batch SELECT, and batch SELECTs (the whole table, by
// pk, by range, ORDER BY ... LIMIT, counts) equal a model of the table.
func TestBlocksDifferential(t *testing.T) {
	dir := t.TempDir()
	open := func() *streamdb.DB {
		db, err := streamdb.Open(filepath.Join(dir, "db"), &streamdb.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open()
	defer func() { _ = db.Close() }()
	ctx := context.Background()
	mustExec(t, db, "CREATE TABLE b1 (id bigint PRIMARY KEY, k int, v bigint, s text)")
	mustExec(t, db, "CREATE TABLE b2 (id bigint PRIMARY KEY, k int, v bigint, s text)")
	// Views before the load: they get the loaded rows as changes.
	created := map[string]bool{}
	for _, v := range blockViews[:2] {
		mustExec(t, db, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", v.name, v.query))
		created[v.name] = true
	}
	models := map[string]blockModel{"b1": {}, "b2": {}}
	mustExec(t, db, fmt.Sprintf(`INSERT INTO b1 SELECT g, g %% 13, g * 7 %% 1000,
		CASE WHEN g %% 11 = 0 THEN NULL ELSE 's' || g END FROM generate_series(1, %d) AS g`, blockRowsN))
	var copyText strings.Builder
	for g := 1; g <= blockRowsN; g++ {
		k, v, s := loadedRow(g)
		models["b1"][g] = blockModelRow(k, v, s)
		if s == "NULL" {
			s = `\N`
		}
		// b2's ids are spread wider: loaded rows and later ones interleave.
		fmt.Fprintf(&copyText, "%d\t%d\t%d\t%s\n", 2*g, k, v, s)
		models["b2"][2*g] = blockModelRow(k, v, strings.ReplaceAll(s, `\N`, "NULL"))
	}
	if _, err := db.CopyFrom(ctx, "COPY b2 FROM STDIN", strings.NewReader(copyText.String())); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"b1", "b2"} {
		size := stateOf(t, db, table, "rows")
		if size.keys*50 > blockRowsN {
			t.Fatalf("%s: %d rows loaded into an empty table are %d keys: not blocks", table, blockRowsN, size.keys)
		}
	}
	rng := rand.New(rand.NewSource(22))
	check := func(when string) {
		t.Helper()
		checkBlockTables(t, db, rng, models, when)
		for _, v := range blockViews {
			if !created[v.name] {
				continue
			}
			got, want := queryRows(t, db, "SELECT * FROM "+v.name), queryRows(t, db, v.query)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("%s: view %s (%d rows) differs from its query (%d rows)", when, v.name, len(got), len(want))
			}
		}
	}
	check("after the load")
	for step := range 120 {
		stmt := blockDML(rng, models)
		if _, err := db.Exec(ctx, stmt); err != nil {
			t.Fatalf("step %d: %s: %v", step, stmt, err)
		}
		switch step {
		case 20:
			// Backfilled from blocks and overlay; one rescaled while it
			// backfills.
			mustExec(t, db, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", blockViews[2].name, blockViews[2].query))
			created[blockViews[2].name] = true
			alterRetrying(t, db, "ALTER MATERIALIZED VIEW bv_join SET PARALLELISM = 3")
		case 40:
			mustExec(t, db, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", blockViews[3].name, blockViews[3].query))
			created[blockViews[3].name] = true
		case 60:
			alterRetrying(t, db, "ALTER MATERIALIZED VIEW bv_agg SET PARALLELISM = 2")
			alterRetrying(t, db, "ALTER MATERIALIZED VIEW bv_agg2 SET PARALLELISM = 4")
		case 80:
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			db = open()
		}
		if step%10 == 9 || step == 80 {
			check(fmt.Sprintf("step %d (%s)", step, stmt))
		}
	}
}

// blockDML returns a random statement over b1 or b2 and applies it to
// their models: single rows and ranges, of loaded rows and new ones.
func blockDML(rng *rand.Rand, models map[string]blockModel) string {
	table := []string{"b1", "b2"}[rng.Intn(2)]
	m := models[table]
	id := 1 + rng.Intn(2*blockRowsN+200)
	switch r := rng.Intn(10); {
	case r < 3:
		// A new row, or a deleted one back (never a duplicate).
		for m[id] != "" {
			id = 1 + rng.Intn(2*blockRowsN+200)
		}
		k, v := rng.Intn(13), rng.Intn(1000)
		m[id] = blockModelRow(k, v, "new")
		return fmt.Sprintf("INSERT INTO %s VALUES (%d, %d, %d, 'new')", table, id, k, v)
	case r < 5:
		v := rng.Intn(1000)
		if old, ok := m[id]; ok {
			parts := strings.Split(old, "|")
			m[id] = blockModelRow(atoi(parts[0]), v, parts[2])
		}
		return fmt.Sprintf("UPDATE %s SET v = %d WHERE id = %d", table, v, id)
	case r < 6:
		hi := id + rng.Intn(300)
		for i := id; i <= hi; i++ {
			if old, ok := m[i]; ok {
				parts := strings.Split(old, "|")
				m[i] = blockModelRow((atoi(parts[0])+1)%13, atoi(parts[1]), parts[2])
			}
		}
		return fmt.Sprintf("UPDATE %s SET k = (k + 1) %% 13 WHERE id BETWEEN %d AND %d", table, id, hi)
	case r < 8:
		delete(m, id)
		return fmt.Sprintf("DELETE FROM %s WHERE id = %d", table, id)
	default:
		hi := id + rng.Intn(200)
		for i := id; i <= hi; i++ {
			delete(m, i)
		}
		return fmt.Sprintf("DELETE FROM %s WHERE id >= %d AND id <= %d", table, id, hi)
	}
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(err)
	}
	return n
}

// checkBlockTables compares batch SELECTs of the tables with their
// models.
func checkBlockTables(t *testing.T, db *streamdb.DB, rng *rand.Rand, models map[string]blockModel, when string) {
	t.Helper()
	for table, m := range models {
		same := func(q string, got, want []string) {
			t.Helper()
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("%s: %s: %d rows, want %d (first difference near %v)", when, q, len(got), len(want), firstBlockDiff(got, want))
			}
		}
		q := "SELECT id, k, v, s FROM " + table
		same(q, queryRows(t, db, q), m.rows(0, 1<<30))
		q = "SELECT count(*) FROM " + table
		same(q, queryRows(t, db, q), []string{strconv.Itoa(len(m))})
		for range 5 {
			id := 1 + rng.Intn(2*blockRowsN+200)
			q = fmt.Sprintf("SELECT id, k, v, s FROM %s WHERE id = %d", table, id)
			same(q, queryRows(t, db, q), m.rows(id, id))
			hi := id + rng.Intn(500)
			q = fmt.Sprintf("SELECT id, k, v, s FROM %s WHERE id BETWEEN %d AND %d", table, id, hi)
			same(q, queryRows(t, db, q), m.rows(id, hi))
		}
		// ORDER BY ... LIMIT, both ways: queryRows sorts, so compare sets.
		all := m.rows(0, 1<<30)
		slices.SortFunc(all, func(a, b string) int { return atoi(strings.Split(a, "|")[0]) - atoi(strings.Split(b, "|")[0]) })
		first, last := slices.Clone(all[:10]), slices.Clone(all[len(all)-10:])
		slices.Sort(first)
		slices.Sort(last)
		q = "SELECT id, k, v, s FROM " + table + " ORDER BY id LIMIT 10"
		same(q, queryRows(t, db, q), first)
		q = "SELECT id, k, v, s FROM " + table + " ORDER BY id DESC LIMIT 10"
		same(q, queryRows(t, db, q), last)
	}
}

func firstBlockDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("got %s, want %s", got[i], want[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(got), len(want))
}
