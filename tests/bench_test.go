package tests

import (
	"context"
	"fmt"
	"testing"

	"github.com/streamdb/streamdb"
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
// in INSERT statements of 100 rows each, with the view's job at
// parallelism 1 and 2 (streaming_parallelism).
func BenchmarkGroupByViewInserts(b *testing.B) {
	for _, p := range []int{1, 2} {
		b.Run(fmt.Sprintf("parallelism=%d", p), func(b *testing.B) { benchGroupByView(b, p, 100) })
	}
}

// BenchmarkGroupByViewBulkInserts is BenchmarkGroupByViewInserts with
// statements of 20,000 rows, so the view's work, not the statements'
// round trips, dominates.
func BenchmarkGroupByViewBulkInserts(b *testing.B) {
	for _, p := range []int{1, 2} {
		b.Run(fmt.Sprintf("parallelism=%d", p), func(b *testing.B) { benchGroupByView(b, p, 20_000) })
	}
}

// BenchmarkGroupByViewManyGroups is BenchmarkGroupByViewBulkInserts with
// 20,000 groups instead of 100, so each row reads and writes its group's
// state: the view's work, which the actors share, dominates.
func BenchmarkGroupByViewManyGroups(b *testing.B) {
	for _, p := range []int{1, 2} {
		b.Run(fmt.Sprintf("parallelism=%d", p), func(b *testing.B) { benchGroupByViewGroups(b, p, 20_000, 20_000) })
	}
}

// openDisk opens a database on disk, with the default (synced) commits,
// as the server runs: the in-memory store's files grow by copying, which
// would put serial work into the benchmarks that disk files do not have.
func openDisk(b *testing.B) *streamdb.DB {
	b.Helper()
	db, err := streamdb.Open(b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := db.Close(); err != nil {
			b.Errorf("close: %v", err)
		}
	})
	return db
}

func benchGroupByView(b *testing.B, parallelism, batch int) {
	benchGroupByViewGroups(b, parallelism, batch, 100)
}

func benchGroupByViewGroups(b *testing.B, parallelism, batch, groups int) {
	db := openDisk(b)
	mustExec(b, db, fmt.Sprintf("CREATE TABLE t (id bigint PRIMARY KEY, k int, v bigint) WITH (streaming_parallelism = %d)", parallelism))
	mustExec(b, db, fmt.Sprintf("CREATE MATERIALIZED VIEW agg WITH (streaming_parallelism = %d) AS "+
		"SELECT k, count(*) AS n, sum(v) AS s, max(v) AS m FROM t GROUP BY k", parallelism))
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		lo := i * batch
		q := fmt.Sprintf("INSERT INTO t SELECT g, g %% %d, g FROM generate_series(%d, %d) AS g", groups, lo, lo+batch-1)
		if _, err := db.Exec(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(batch*b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkGroupByViewBackfill creates (and drops) a GROUP BY view over a
// table of 50,000 rows, with the view's job at parallelism 1 and 2: each
// iteration is one whole backfill.
func BenchmarkGroupByViewBackfill(b *testing.B) {
	const rows = 50_000
	for _, p := range []int{1, 2} {
		b.Run(fmt.Sprintf("parallelism=%d", p), func(b *testing.B) {
			db := openDisk(b)
			mustExec(b, db, "CREATE TABLE t (id bigint PRIMARY KEY, k int, v bigint)")
			mustExec(b, db, fmt.Sprintf("INSERT INTO t SELECT g, g %% 1000, g FROM generate_series(1, %d) AS g", rows))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				mustExec(b, db, fmt.Sprintf("CREATE MATERIALIZED VIEW agg WITH (streaming_parallelism = %d) AS "+
					"SELECT k, count(*) AS n, sum(v) AS s, max(v) AS m FROM t GROUP BY k", p))
				b.StopTimer()
				mustExec(b, db, "DROP MATERIALIZED VIEW agg")
				b.StartTimer()
			}
			b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
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

// BenchmarkSetOpViewBulkInserts maintains set-operation views while rows
// arrive in INSERT statements of 20,000 rows into t, next to a view that
// only projects t: a UNION ALL of t and u (a merge of the branches), an
// INTERSECT and an EXCEPT ALL (both count each distinct row per side, in
// state; EXCEPT ALL also replicates it). u holds 20,000 other rows.
func BenchmarkSetOpViewBulkInserts(b *testing.B) {
	const batch = 20_000
	for _, v := range []struct{ name, query string }{
		{"project", "SELECT k, v FROM t"},
		{"union-all", "SELECT k, v FROM t UNION ALL SELECT k, v FROM u"},
		{"intersect", "SELECT k, v FROM t INTERSECT SELECT k, v FROM u"},
		{"except-all", "SELECT k, v FROM t EXCEPT ALL SELECT k, v FROM u"},
	} {
		b.Run(v.name, func(b *testing.B) {
			db := openDisk(b)
			mustExec(b, db, "CREATE TABLE t (id bigint PRIMARY KEY, k int, v bigint)")
			mustExec(b, db, "CREATE TABLE u (id bigint PRIMARY KEY, k int, v bigint)")
			mustExec(b, db, fmt.Sprintf("INSERT INTO u SELECT g, g %% 1000, g * 2 FROM generate_series(1, %d) AS g", batch))
			mustExec(b, db, "CREATE MATERIALIZED VIEW s AS "+v.query)
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				lo := i * batch
				q := fmt.Sprintf("INSERT INTO t SELECT g, g %% 1000, g FROM generate_series(%d, %d) AS g", lo, lo+batch-1)
				if _, err := db.Exec(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(batch*b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
