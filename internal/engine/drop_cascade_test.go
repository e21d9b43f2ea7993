package engine

import (
	"context"
	"slices"
	"testing"
)

// TestDropCascadeNotices: DROP ... CASCADE names each dependent it drops
// once, even one that depends on the dropped relation both directly and
// through another dependent (a materialized view over a plain view over
// a view), and drops them all.
func TestDropCascadeNotices(t *testing.T) {
	db, s := openCursorDB(t, 10)
	mustExec(t, s,
		"CREATE MATERIALIZED VIEW mv AS SELECT count(*) AS n FROM t",
		"CREATE VIEW pv AS SELECT n FROM mv",
		"CREATE MATERIALIZED VIEW both_ AS SELECT pv.n FROM pv JOIN t ON pv.n = t.id",
	)
	c := &collector{}
	if err := s.Run(context.Background(), "DROP TABLE t CASCADE", c); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"drop cascades to materialized view mv",
		"drop cascades to view pv",
		"drop cascades to materialized view both_",
	}
	got := slices.Clone(c.notices)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("notices %q, want %q", c.notices, want)
	}
	for _, name := range []string{"t", "mv", "pv", "both_"} {
		if _, ok := db.Relation(name); ok {
			t.Errorf("%s still exists", name)
		}
	}
}
