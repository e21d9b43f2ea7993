package tests

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkBulkInsert loads rows with one INSERT ... SELECT
// generate_series statement per iteration.
func BenchmarkBulkInsert(b *testing.B) {
	const rows = 100_000
	db := openMem(b)
	mustExec(b, db, "CREATE TABLE t (id bigint PRIMARY KEY, k int, v bigint)")
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		lo := i * rows
		q := fmt.Sprintf("INSERT INTO t SELECT g, g %% 1000, g * 2 FROM generate_series(%d, %d) AS g", lo, lo+rows-1)
		if _, err := db.Exec(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkGroupByViewInserts maintains a GROUP BY view while rows arrive
// in INSERT statements of 100 rows each.
func BenchmarkGroupByViewInserts(b *testing.B) {
	const batch = 100
	db := openMem(b)
	mustExec(b, db, "CREATE TABLE t (id bigint PRIMARY KEY, k int, v bigint)")
	mustExec(b, db, "CREATE MATERIALIZED VIEW agg AS SELECT k, count(*) AS n, sum(v) AS s, max(v) AS m FROM t GROUP BY k")
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		lo := i * batch
		q := fmt.Sprintf("INSERT INTO t SELECT g, g %% 100, g FROM generate_series(%d, %d) AS g", lo, lo+batch-1)
		if _, err := db.Exec(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(batch*b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkSingleRowInsertFreshness measures one-row INSERTs into a table
// with a GROUP BY view: each returns only once the view reflects it.
func BenchmarkSingleRowInsertFreshness(b *testing.B) {
	db := openMem(b)
	mustExec(b, db, "CREATE TABLE t (id bigint PRIMARY KEY, k int, v bigint)")
	mustExec(b, db, "CREATE MATERIALIZED VIEW agg AS SELECT k, count(*) AS n, sum(v) AS s FROM t GROUP BY k")
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := db.Exec(ctx, "INSERT INTO t VALUES ($1, $2, $3)", i, i%100, i); err != nil {
			b.Fatal(err)
		}
	}
}
