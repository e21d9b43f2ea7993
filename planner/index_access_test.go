package planner_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/exec/batch"
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
	"github.com/streamdb/streamdb/sql/binder"
)

// indexCatalog is memCatalog with indexes (catalog.IndexReader).
type indexCatalog struct {
	memCatalog
	indexes map[uint32][]*catalog.Relation
}

func (c indexCatalog) IndexesOf(id uint32) []*catalog.Relation { return c.indexes[id] }

// indexFixture: w(k int pk, a int, b text, n numeric, j jsonb, arr int[])
// with indexes on (a), (b DESC, a) INCLUDE (n), (n), (j) and (arr).
func indexFixture() indexCatalog {
	col := func(name string, t types.Type) catalog.Column { return catalog.Column{Name: name, Type: t} }
	w := &catalog.Relation{ID: 10, Name: "w", Columns: []catalog.Column{
		{Name: "k", Type: types.TInt32, NotNull: true}, col("a", types.TInt32), col("b", types.TText),
		col("n", types.TNumeric), col("j", types.Type{ID: types.IDJSONB}), col("arr", types.ArrayOf(types.IDInt32))},
		PK: []int{0}, DistKey: []int{0}}
	mk := func(id uint32, name string, keys []catalog.IndexKey, include []int) *catalog.Relation {
		r := planner.IndexRelation(w, keys, include)
		r.ID, r.Name = id, name
		return r
	}
	return indexCatalog{memCatalog: memCatalog{"w": w}, indexes: map[uint32][]*catalog.Relation{10: {
		mk(11, "w_a", []catalog.IndexKey{{Column: 1}}, nil),
		mk(12, "w_b", []catalog.IndexKey{{Column: 2, Desc: true, NullsFirst: true}, {Column: 1}}, []int{3}),
		mk(13, "w_n", []catalog.IndexKey{{Column: 3}}, nil),
		mk(14, "w_j", []catalog.IndexKey{{Column: 4}}, nil),
		mk(15, "w_arr", []catalog.IndexKey{{Column: 5}}, nil),
	}}}
}

func TestIndexRelationLayout(t *testing.T) {
	ix := indexFixture().indexes[10][1] // (b DESC, a) INCLUDE (n)
	names := make([]string, len(ix.Columns))
	for i, c := range ix.Columns {
		names[i] = c.Name
	}
	if !slices.Equal(names, []string{"b", "a", "n", "k"}) || !slices.Equal(ix.PK, []int{0, 1, 3}) ||
		!slices.Equal(ix.DistKey, []int{0}) || !slices.Equal(ix.Index.Columns, []int{2, 1, 3, 0}) {
		t.Fatalf("layout: columns %v pk %v dist %v map %v", names, ix.PK, ix.DistKey, ix.Index.Columns)
	}
}

func TestIndexAccess(t *testing.T) {
	for q, want := range map[string]string{
		"SELECT * FROM w WHERE a = 1":                       "Index Scan using w_a on w: a = 1",
		"SELECT k FROM w WHERE a = 1":                       "Index Only Scan using w_a on w: a = 1",
		"SELECT count(*) FROM w WHERE a > 1 AND a >= 3":     "Index Only Scan using w_a on w: a >= 3",
		"SELECT count(*) FROM w WHERE a > 3 AND a >= 3":     "Index Only Scan using w_a on w: a > 3",
		"SELECT k FROM w WHERE a < 9 AND a <= 9 AND 2 < a":  "Index Only Scan using w_a on w: a > 2 AND a < 9",
		"SELECT k FROM w WHERE a IN (3, 1, 3, NULL)":        "Index Only Scan using w_a on w: a IN (3, 1)",
		"SELECT k FROM w WHERE b = 'x' AND a IN (1, 2)":     "Index Only Scan using w_b on w: b = x AND a IN (1, 2)",
		"SELECT n FROM w WHERE b IN ('x', 'y') AND a > 0":   "Index Only Scan using w_b on w: b IN (x, y) AND a > 0",
		"SELECT * FROM w WHERE b = 'x' AND a = 1 AND n = 2": "Index Scan using w_b on w: b = x AND a = 1",
		"SELECT k FROM w WHERE n = 1":                       "Index Only Scan using w_n on w: n = 1",
		"SELECT k FROM w WHERE n = 1.50":                    "Index Only Scan using w_n on w: n = 1.50",
		"SELECT k FROM w WHERE j = '{\"a\": 1}'":            "Index Only Scan using w_j on w: j = {\"a\": 1}",
		"SELECT k FROM w WHERE k = 1 AND a = 1":             "Scan w (primary key lookup: k = 1)",
		"SELECT k FROM w WHERE a = 1.5":                     "",
		"SELECT k FROM w WHERE a = NULL":                    "",
		"SELECT k FROM w WHERE a IN (NULL)":                 "",
		"SELECT k FROM w WHERE a NOT IN (1)":                "",
		"SELECT k FROM w WHERE a <> 1":                      "",
		"SELECT k FROM w WHERE a = 1 OR a = 2":              "",
		"SELECT k FROM w WHERE a = k":                       "",
		"SELECT k FROM w WHERE a = random()::int":           "",
		"SELECT k FROM w WHERE j > '1'":                     "",
		"SELECT k FROM w WHERE arr = ARRAY[1]":              "",
		"SELECT k FROM w WHERE a IS NULL":                   "",
		"SELECT k FROM w WHERE (SELECT a) = 1":              "",
	} {
		cat := indexFixture()
		stmts, err := sql.NewParser().Parse(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		res, err := binder.Bind(cat, stmts[0], binder.Options{})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		plan := planner.Explain(res.Stmt.(*planner.Query).Plan)
		got := ""
		for _, l := range plan {
			if s := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "->")); strings.Contains(s, "Index") || strings.Contains(s, "primary key") {
				got = s
			}
		}
		if got != want {
			t.Errorf("%s: got %q, want %q\n%s", q, got, want, strings.Join(plan, "\n"))
		}
	}
}

// TestIndexScanFallback: a source that cannot read indexes (MemSource)
// gets the whole relation, filtered: the same rows.
func TestIndexScanFallback(t *testing.T) {
	cat := indexFixture()
	src := batch.MemSource{"w": {
		{int64(1), int64(1), "x", nil, nil, nil},
		{int64(2), int64(2), "y", nil, nil, nil},
		{int64(3), nil, "x", nil, nil, nil},
	}}
	stmts, err := sql.NewParser().Parse("SELECT k FROM w WHERE a = 1")
	if err != nil {
		t.Fatal(err)
	}
	res, err := binder.Bind(cat, stmts[0], binder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ex, err := planner.BuildBatch(res.Stmt.(*planner.Query).Plan, src)
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	rows, err := batch.ReadAll(context.Background(), ex)
	if err != nil || len(rows) != 1 || rows[0][0] != int64(1) {
		t.Fatalf("rows %v, err %v", rows, err)
	}
}
