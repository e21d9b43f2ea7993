package sql

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// FuzzParse checks that Parse never panics, that every error is a
// *pgerr.Error pointing inside the query, and that statement texts are
// slices of the query. The seeds (f.Add, testdata/psql and
// testdata/fuzz/FuzzParse) run in every plain `go test`.
func FuzzParse(f *testing.F) {
	for _, q := range []string{
		"select 1; select 2",
		"select a::int::text, cast(b as numeric(10,2)), date '2020-01-01' from t where x is distinct from $1",
		"select * from generate_series(1, 10) g(x) full join t on g.x = t.a order by 1 nulls first",
		"create table t (a int primary key, b varchar(3) default 'x'::text) with (k = 'v')",
		"create materialized view v as select count(*) from t",
		"create index concurrently if not exists i on only t using btree (a desc nulls last, b) include (c) with (backfill_rate_limit = 1); alter index i pause",
		"drop table if exists a, b cascade; show tables; set x to 1; begin; commit; flush",
		"select E'\\x41', $$a$$, $t$b$t$ -- c\n /* d /* e */ */",
		"explain select 1",
		"alter table if exists s.t add column if not exists c int default 1 + 2 not null; alter table t drop column if exists c cascade",
		"alter table t rename column a to b; alter materialized view v rename to w; alter table t alter column c set default now()",
		"select 'unterminated",
		"select j -> 'a' ->> 'b', j #>> '{a}' || 'x', not j ? 'k' from t where j @> $1 and (j -> 'c') ?| array['d']",
		"select a[1:2][:3], a[2:], array[[1, 2], [3, 4]], -x ^ 2 ^ (y + 1), x between symmetric a and b from t",
	} {
		f.Add(q)
	}
	files, _ := filepath.Glob("testdata/psql/*.sql")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, query string) {
		stmts, err := NewParser().Parse(query)
		if err != nil {
			checkFuzzError(t, query, err)
			return
		}
		for _, st := range stmts {
			if st.Offset+len(st.Text) > len(query) || query[st.Offset:st.Offset+len(st.Text)] != st.Text {
				t.Fatalf("statement %q not at offset %d of %q", st.Text, st.Offset, query)
			}
		}
	})
}

func checkFuzzError(t *testing.T, query string, err error) {
	var pe *pgerr.Error
	if !errors.As(err, &pe) {
		t.Fatalf("Parse(%q): error %v is %T, not *pgerr.Error", query, err, err)
	}
	if pe.Position < 1 || pe.Position > utf8.RuneCountInString(query)+1 {
		t.Fatalf("Parse(%q): %s: position %d out of range", query, pe.Message, pe.Position)
	}
	if pe.Code == pgerr.Internal {
		t.Fatalf("Parse(%q): internal error %s", query, pe.Message)
	}
}
