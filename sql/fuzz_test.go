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
		"select * from s left join t for system_time as of proctime() as d on s.k = d.id and d.v > 0 join u on true",
		"select first_value(x order by k desc nulls first, j), last_value(x order by k) filter (where x > 0) from t group by g",
		"create table t (a int primary key) append only on conflict do update if not null with (appendonly = 'true')",
		"create sink s from v with (connector = 'blackhole', type = 'append-only', force_append_only = 'true')",
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
		"insert into t as x values (1, 'a') on conflict (id) where id > 0 do update set v = excluded.v where x.v <> 'b' returning *; insert into t select * from u on conflict on constraint t_pkey do nothing",
		"update t as x set v = u.w from u join generate_series(1, 3) g(n) on u.id = g.n, (values (1)) s(a) where x.id = u.id returning x.*, u.w; delete from t using u where t.id = u.id returning *",
		"with s(a) as (select 1), r as materialized (select 2) insert into t (a) select a from s on conflict (a) do nothing; with s as (select 1) update t set a = s.a from s; with s as (select 1 x) delete from t using s",
		"create table if not exists c (a, b) as select 1, 2 with no data; select a, b into table d from u where a is distinct from b",
		"with recursive r(n) as (select 1 union all select n + 1 from r where n < 3) table r",
		"select make_interval(days => 3, secs := 1), |/ 25 + 11, @ -x, 4 | 1 & 2 << 1, (a, b) overlaps row(c, d)",
		"select * from jsonb_to_record($1) as t(a int, b text[]), unnest(a, b) with ordinality u(x, y, o)",
		"select (a, b) < all (select x, y from u), count(*) over (order by a groups between 1 preceding and current row) from t",
		"create sequence if not exists s as int increment by -2 minvalue -9 no maxvalue start with -1 cache 5 cycle owned by t.a; alter sequence s restart with 3; select nextval('s'), setval('s', 1, false), lastval()",
		"create table t (id bigint generated always as identity (start 5), s serial, b int generated always as (id * 2) stored, c int constraint c check (c > 0) unique, check (b < c), unique (b, c))",
		"insert into t (c) overriding system value values (1); insert into t default values returning id; alter table t add constraint x check (c < 9), drop constraint if exists y",
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
