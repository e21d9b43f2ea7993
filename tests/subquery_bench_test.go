package tests

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkScalarSubqueryOneRowChange: a one-row INSERT into a 1M-row
// table under a view that filters it by a scalar subquery over the same
// table (v > (SELECT avg(v) ...): every insert moves the threshold a
// little) next to the same view with a constant threshold, and a view
// of a correlated scalar subquery per row (its group's maximum), next to
// a plain GROUP BY.
func BenchmarkScalarSubqueryOneRowChange(b *testing.B) {
	const big = 1_000_000
	for _, v := range []struct{ name, query string }{
		{"dynamic-filter", "SELECT id, v FROM t WHERE v > (SELECT avg(v) * 1.99 FROM t)"},
		{"constant-filter", "SELECT id, v FROM t WHERE v > 995"},
		{"correlated-max", "SELECT id, (SELECT max(v) FROM t t2 WHERE t2.k = t.k) AS m FROM t"},
		{"group-by-max", "SELECT k, max(v) FROM t GROUP BY k"},
	} {
		b.Run(v.name, func(b *testing.B) {
			db := openDisk(b)
			mustExec(b, db, "CREATE TABLE t (id bigint PRIMARY KEY, k int, v bigint)")
			mustExec(b, db, fmt.Sprintf("INSERT INTO t SELECT g, g %% 1000, g %% 1000 FROM generate_series(1, %d) AS g", big))
			mustExec(b, db, "CREATE MATERIALIZED VIEW w AS "+v.query)
			ctx := context.Background()
			next := 2 * big
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				next++
				q := fmt.Sprintf("INSERT INTO t VALUES (%d, %d, %d)", next, next%1000, next%1000)
				if _, err := db.Exec(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
