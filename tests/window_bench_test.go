package tests

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkWindowViewBulkInserts: rows/s of INSERT statements of 20,000
// rows into a table whose view computes window functions over 1,000
// partitions, or keeps a Top-N, next to a view that only projects. The
// rows' order values are scattered, so each lands in the middle of its
// partition: row_number and a running sum recompute the rows after it,
// lag the next one, a Top-N nothing unless it enters the top.
func BenchmarkWindowViewBulkInserts(b *testing.B) {
	const batch = 20_000
	for _, v := range []struct{ name, query string }{
		{"project", "SELECT id, k, v FROM t"},
		{"lag", "SELECT id, lag(v) OVER (PARTITION BY k ORDER BY v, id) FROM t"},
		{"row-number", "SELECT id, row_number() OVER (PARTITION BY k ORDER BY v, id) FROM t"},
		{"running-sum", "SELECT id, sum(v) OVER (PARTITION BY k ORDER BY v, id) FROM t"},
		{"group-top-3", "SELECT * FROM (SELECT id, k, rank() OVER (PARTITION BY k ORDER BY v DESC) AS r FROM t) x WHERE r <= 3"},
		{"top-10", "SELECT id, v FROM t ORDER BY v DESC, id LIMIT 10"},
	} {
		b.Run(v.name, func(b *testing.B) {
			db := openDisk(b)
			mustExec(b, db, "CREATE TABLE t (id bigint PRIMARY KEY, k int, v bigint)")
			mustExec(b, db, "CREATE MATERIALIZED VIEW w AS "+v.query)
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				lo := i * batch
				q := fmt.Sprintf("INSERT INTO t SELECT g, g %% 1000, (g * 7919) %% 1000003 FROM generate_series(%d, %d) AS g", lo, lo+batch-1)
				if _, err := db.Exec(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(batch*b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkWindowOneRowChange: the cost of a one-row INSERT (the
// statement returns once the views show it) into a partition of
// 1,000,000 rows, next to the same into a partition of its own, for views
// whose results a change touches only near it: lag and a running sum (the
// row comes last in its partition), and a Top-3 the row stays out of. (An
// INSERT, as UPDATE and DELETE still scan the whole table to find a row.)
func BenchmarkWindowOneRowChange(b *testing.B) {
	const big = 1_000_000
	for _, v := range []struct{ name, query string }{
		{"lag", "SELECT id, lag(v) OVER (PARTITION BY k ORDER BY id) FROM t"},
		{"running-sum", "SELECT id, sum(v) OVER (PARTITION BY k ORDER BY id) FROM t"},
		{"group-top-3", "SELECT * FROM (SELECT id, k, row_number() OVER (PARTITION BY k ORDER BY v DESC, id) AS r FROM t) x WHERE r <= 3"},
	} {
		b.Run(v.name, func(b *testing.B) {
			db := openDisk(b)
			mustExec(b, db, "CREATE TABLE t (id bigint PRIMARY KEY, k int, v bigint)")
			// Partition 0 holds ids 1..big; partitions 1..1000 one row
			// each (ids big+1..).
			mustExec(b, db, fmt.Sprintf("INSERT INTO t SELECT g, 0, g %% 1000 FROM generate_series(1, %d) AS g", big))
			mustExec(b, db, fmt.Sprintf("INSERT INTO t SELECT %d + g, g, 5 FROM generate_series(1, 1000) AS g", big))
			mustExec(b, db, "CREATE MATERIALIZED VIEW w AS "+v.query)
			ctx := context.Background()
			next := 2 * big
			for _, part := range []struct {
				name string
				big  bool
			}{{"partition-of-1M", true}, {"partition-of-1", false}} {
				b.Run(part.name, func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						next++
						k := 0
						if !part.big {
							k = next // a partition of its own
						}
						q := fmt.Sprintf("INSERT INTO t VALUES (%d, %d, -1)", next, k)
						if _, err := db.Exec(ctx, q); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
