package sql

import "testing"

func TestRenameQueryColumnRefs(t *testing.T) {
	for _, c := range []struct {
		def, want     string
		qualifiedOnly bool
	}{
		{def: "SELECT id, a FROM t", want: "SELECT id, b AS a FROM t"},
		{def: "SELECT t.id, t.a FROM t WHERE a > 1", want: "SELECT t.id, t.b AS a FROM t WHERE b > 1"},
		{def: "SELECT a AS x, a + 1 AS y FROM t", want: "SELECT b AS x, b + 1 AS y FROM t"},
		{def: "SELECT a, count(*) FROM t GROUP BY a ORDER BY a", want: "SELECT b AS a, count(*) FROM t GROUP BY b ORDER BY b"},
		{def: "SELECT x.a, u.a FROM t x JOIN u ON x.a = u.a", want: "SELECT x.b AS a, u.a FROM t x JOIN u ON x.b = u.a", qualifiedOnly: true},
		{def: "SELECT s.a FROM (SELECT a FROM t) s", want: "SELECT s.a FROM (SELECT b AS a FROM t) s"},
		{def: "SELECT a FROM (SELECT a FROM t) AS s", want: "SELECT a FROM (SELECT b AS a FROM t) AS s"},
		{def: "SELECT a FROM u", want: "SELECT a FROM u"},
		{def: "SELECT a(1), a.x FROM t, a", want: "SELECT a(1), a.x FROM t, a"},
		{def: "SELECT a FROM public.t", want: "SELECT b AS a FROM public.t"},
		{def: "SELECT x AS a FROM t", want: "SELECT x AS a FROM t"},
		{def: "SELECT sum(a), coalesce(x, a), extract(year from a) FROM t", want: "SELECT sum(b), coalesce(x, b), extract(year from b) FROM t"},
		{def: "SELECT a FROM u WHERE x IN (SELECT a FROM t)", want: "SELECT a FROM u WHERE x IN (SELECT b AS a FROM t)"},
	} {
		if got := RenameQueryColumnRefs(c.def, "t", "a", "b", c.qualifiedOnly); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.def, got, c.want)
		}
	}
}

func TestRenameOutputColumn(t *testing.T) {
	for _, c := range []struct {
		def  string
		k    int
		want string
	}{
		{"SELECT id, a FROM t", 1, "SELECT id, a AS b FROM t"},
		{"select id, a + 1 as a1 from t", 1, "select id, a + 1 as b from t"},
		{"SELECT count(*) n, x FROM t GROUP BY x", 0, "SELECT count(*) b, x FROM t GROUP BY x"},
		{"SELECT DISTINCT a, 1 one FROM t", 1, "SELECT DISTINCT a, 1 b FROM t"},
		{"SELECT a IS NULL, CASE WHEN a THEN 1 ELSE 2 END FROM t", 1, "SELECT a IS NULL, CASE WHEN a THEN 1 ELSE 2 END AS b FROM t"},
		{"SELECT a IS NULL FROM t", 0, "SELECT a IS NULL AS b FROM t"},
		{"WITH w AS (SELECT a FROM t) SELECT a FROM w", 0, "WITH w AS (SELECT a FROM t) SELECT a AS b FROM w"},
		{"SELECT 1", 0, "SELECT 1 AS b"},
		{"SELECT t.a, 'x'::text FROM t", 1, "SELECT t.a, 'x'::text AS b FROM t"},
		{"SELECT *, a FROM t", 1, "SELECT *, a FROM t"},
		{"SELECT a FROM t", 1, "SELECT a FROM t"},
		{"SELECT DISTINCT ON (a) a FROM t", 0, "SELECT DISTINCT ON (a) a FROM t"},
	} {
		if got := RenameOutputColumn(c.def, c.k, "b"); got != c.want {
			t.Errorf("%s, %d:\n got %s\nwant %s", c.def, c.k, got, c.want)
		}
	}
}
