package sql

import (
	"reflect"
	"testing"
)

func TestCreateIndex(t *testing.T) {
	for q, want := range map[string]*CreateIndexStmt{
		`create index on t (a)`: {Table: "t", Keys: []IndexElem{{Column: "a"}}},
		`CREATE INDEX CONCURRENTLY IF NOT EXISTS "I" ON ONLY public.t USING BTREE (a DESC, "B" asc nulls first) INCLUDE (c, d) WITH (backfill_rate_limit = 10)`: {
			Name: "I", IfNotExists: true, Table: "public.t",
			Keys:    []IndexElem{{Column: "a", Desc: true}, {Column: "B", Nulls: "first"}},
			Include: []string{"c", "d"}, With: map[string]string{"backfill_rate_limit": "10"}},
		`create index i on t (a nulls last)`: {Name: "i", Table: "t", Keys: []IndexElem{{Column: "a", Nulls: "last"}}},
	} {
		got, ok := parseOne(t, q).Node.(*CreateIndexStmt)
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", q, got, want)
		}
	}
	for q, code := range map[string]string{
		`create unique index on t (a) nulls not distinct`: "0A000",
		`create index on t (a) nulls distinct`:            "0A000",
		`create index on t ((a + 1))`:                     "0A000",
		`create index on t (lower(a))`:                    "0A000",
		`create index on t (a collate "C")`:               "0A000",
		`create index on t (a text_pattern_ops)`:          "0A000",
		`create index on t (a) where a > 1`:               "0A000",
		`create index on t using hash (a)`:                "0A000",
		`create index on t using nope (a)`:                "42704",
		`create index on t (a) nulls not distinct`:        "0A000",
		`create index on t (a) tablespace x`:              "0A000",
		`create index on t ()`:                            "42601",
		`create index on t (a nulls)`:                     "42601",
		`create index if not exists on t (a)`:             "42601",
		`create index i on t (a) extra`:                   "42601",
		`create index i t (a)`:                            "42601",
	} {
		_, err := NewParser().Parse(q)
		if pe := asPgErr(t, err); pe.Code != code {
			t.Errorf("%s: got %s %s, want %s", q, pe.Code, pe.Message, code)
		}
	}
	a := parseOne(t, `alter index i set parallelism = 2`).Node.(*AlterStmt)
	if a.Kind != ObjIndex || a.Name != "i" || a.Action != AlterSetParallelism || a.Value != 2 {
		t.Errorf("ALTER INDEX: %+v", a)
	}
}
