package sql

import "testing"

func TestRenameRelationRefs(t *testing.T) {
	for _, c := range []struct{ def, want string }{
		{"SELECT a, count(*) AS n FROM t GROUP BY a", "SELECT a, count(*) AS n FROM u GROUP BY a"},
		{"SELECT t.a FROM t WHERE t.b > 1", "SELECT t.a FROM u t WHERE t.b > 1"},
		{"SELECT x.a FROM t x JOIN s ON x.a = s.a", "SELECT x.a FROM u x JOIN s ON x.a = s.a"},
		{"SELECT s.t, t FROM s JOIN t ON s.a = t.a", "SELECT s.t, t FROM s JOIN u t ON s.a = t.a"},
		{"SELECT * FROM s, t, (SELECT t FROM r) q", "SELECT * FROM s, u, (SELECT t FROM r) q"},
		{"SELECT * FROM public.t", "SELECT * FROM public.u"},
		{`SELECT * FROM "t"`, "SELECT * FROM u"},
		{"SELECT t FROM s", "SELECT t FROM s"},
	} {
		if got := RenameRelationRefs(c.def, "t", "u", false); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.def, got, c.want)
		}
	}
	if got := RenameRelationRefs("CREATE INDEX i ON t (a)", "t", "New", true); got != `CREATE INDEX i ON "New" (a)` {
		t.Errorf("index: got %s", got)
	}
}
