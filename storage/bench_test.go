package storage

import (
	"fmt"
	"testing"

	"github.com/streamdb/streamdb/internal/types"
)

// benchTable: (id bigint, k bigint, name text, x double), pk id, dist id.
var benchTable = &Table{
	ID:      9,
	Types:   []types.Type{types.TInt64, types.TInt64, types.TText, types.TFloat64},
	PK:      []int{0},
	DistKey: []int{0},
}

func benchRow(row []types.Datum, i int64) []types.Datum {
	row[0], row[1], row[2], row[3] = i, i%1000, fmt.Sprintf("name-%d", i), float64(i)*0.5
	return row
}

const (
	benchRows      = 1_000_000
	benchEpochRows = 100_000
)

// loadBench inserts benchRows rows in epochs of benchEpochRows.
func loadBench(b *testing.B, s *Store, epoch uint64) uint64 {
	row := make([]types.Datum, 4)
	for i := int64(0); i < benchRows; i += benchEpochRows {
		w := s.NewWriteBatch()
		for j := i; j < i+benchEpochRows; j++ {
			if err := benchTable.Insert(w, benchRow(row, j)); err != nil {
				b.Fatal(err)
			}
		}
		epoch++
		if err := s.CommitEpoch(epoch, []*WriteBatch{w}); err != nil {
			b.Fatal(err)
		}
	}
	return epoch
}

// BenchmarkInsertCommit: 1M rows through write batches, committed in
// epochs of 100k rows (synced), on the memory VFS and on disk.
func BenchmarkInsertCommit(b *testing.B) {
	for _, disk := range []bool{false, true} {
		b.Run(fmt.Sprintf("disk=%v", disk), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				dir := ""
				if disk {
					dir = b.TempDir()
				}
				s, err := Open(dir, Options{})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				loadBench(b, s, 0)
				b.StopTimer()
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(benchRows*b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkScan: a full-table scan of 1M rows, from the store and through
// a write batch holding 1000 extra rows.
func BenchmarkScan(b *testing.B) {
	s, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	loadBench(b, s, 0)
	w := s.NewWriteBatch()
	defer w.Close()
	row := make([]types.Datum, 4)
	for i := int64(benchRows); i < benchRows+1000; i++ {
		if err := benchTable.Insert(w, benchRow(row, i)); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		r    Reader
		want int
	}{{"store", s, benchRows}, {"batch", w, benchRows + 1000}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if n := countRows(b, benchTable.Scan(c.r)); n != c.want {
					b.Fatalf("scanned %d rows, want %d", n, c.want)
				}
			}
			b.ReportMetric(float64(c.want*b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
	b.Run("get", func(b *testing.B) {
		pk := make([]types.Datum, 1)
		i := int64(0)
		for b.Loop() {
			pk[0] = i * 7919 % benchRows
			if _, ok, err := benchTable.Get(s, pk); !ok || err != nil {
				b.Fatalf("Get(%v): %v %v", pk, ok, err)
			}
			i++
		}
	})
}

func countRows(b *testing.B, it Iterator) int {
	n := 0
	for it.Next() {
		n++
	}
	if err := it.Err(); err != nil {
		b.Fatal(err)
	}
	if err := it.Close(); err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkGetMiss: point reads of keys the table does not hold (what an
// upsert of new rows does), over 1M rows on disk, through a write batch
// (as executors read) and through a snapshot.
func BenchmarkGetMiss(b *testing.B) {
	s, err := Open(b.TempDir(), Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	loadBench(b, s, 0)
	if err := s.db.Flush(); err != nil {
		b.Fatal(err)
	}
	for _, via := range []string{"batch", "snapshot"} {
		b.Run("via="+via, func(b *testing.B) {
			var r Reader = s.NewWriteBatch()
			if via == "snapshot" {
				snap := s.Snapshot()
				defer snap.Close()
				r = snap
			}
			key := make([]types.Datum, 1)
			i := int64(benchRows)
			for b.Loop() {
				key[0] = i
				i++
				if _, ok, err := benchTable.Get(r, key); err != nil || ok {
					b.Fatal(err, ok)
				}
			}
			if m := s.db.Metrics(); m.BlockCache.Hits == 0 {
				b.Errorf("block cache: %d hits, %d misses, %d bytes: nothing cached", m.BlockCache.Hits, m.BlockCache.Misses, m.BlockCache.Size)
			}
		})
	}
}
