package storage

import (
	"bytes"
	"slices"
	"testing"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// scanBenchTable is the table of streamdb bench's backfill scenario:
// (id bigint primary key, k int, v bigint).
var scanBenchTable = &Table{
	ID:      11,
	Types:   []types.Type{types.TInt64, types.TInt32, types.TInt64},
	PK:      []int{0},
	DistKey: []int{0},
}

// loadIngested loads rows 1..n of scanBenchTable (k = id % 1000, v = 7 id)
// as a bulk load does: sorted, into ingested sstables, in one epoch.
func loadIngested(tb testing.TB, s *Store, n int) {
	tb.Helper()
	type kv struct{ k, v []byte }
	kvs := make([]kv, 0, n)
	row := make([]types.Datum, 3)
	for i := int64(1); i <= int64(n); i++ {
		row[0], row[1], row[2] = i, i%1000, i*7
		k, err := scanBenchTable.Key(row)
		if err != nil {
			tb.Fatal(err)
		}
		v, err := EncodeRow(nil, scanBenchTable.Types, row)
		if err != nil {
			tb.Fatal(err)
		}
		kvs = append(kvs, kv{k, v})
	}
	slices.SortFunc(kvs, func(a, b kv) int { return bytes.Compare(a.k, b.k) })
	iw, err := s.NewIngestWriter()
	if err != nil {
		tb.Fatal(err)
	}
	for _, e := range kvs {
		if err := iw.Add(e.k, e.v); err != nil {
			tb.Fatal(err)
		}
	}
	in, err := iw.Finish()
	if err != nil {
		tb.Fatal(err)
	}
	w := s.NewWriteBatch()
	if err := w.AddIngest(in); err != nil {
		tb.Fatal(err)
	}
	if err := s.CommitEpoch(s.CommittedEpoch()+1, []*WriteBatch{w}); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkChunkScan: a backfill's snapshot read of 1M ingested rows,
// vnode by vnode, into 1024-row chunks of the columns a GROUP BY k,
// sum(v) reads (and the pk), each chunk released as a consumer would.
func BenchmarkChunkScan(b *testing.B) {
	const n = 1_000_000
	s, err := Open(b.TempDir(), Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	loadIngested(b, s, n)
	b.ReportAllocs()
	for b.Loop() {
		snap := s.Snapshot()
		bld := chunk.NewBuilder(scanBenchTable.Types)
		rows := 0
		for v := range uint16(NumVnodes) {
			sc := scanBenchTable.ScanVnodeChunks(snap, v, nil)
			for sc.Next() {
				if err := sc.AppendTo(bld, chunk.Insert); err != nil {
					b.Fatal(err)
				}
				if bld.Len() == 1024 {
					rows += 1024
					bld.Build().Release()
				}
			}
			if err := sc.Err(); err != nil {
				b.Fatal(err)
			}
			sc.Close()
		}
		rows += bld.Len()
		bld.Build().Release()
		bld.Release()
		snap.Close()
		if rows != n {
			b.Fatalf("scanned %d rows, want %d", rows, n)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "rows/s")
}

// TestChunkScanIngestedReopen: rows bulk-loaded into sstables read back
// through ChunkScan after the store is closed and reopened, vnode by
// vnode, with the middle column pruned: every row once, in its own
// vnode, in pk order within it, its values decoded into the chunk as
// stored (the pruned column NULL), LastRow the last row appended, and a
// scan resumed after a row's pk starting right past it.
func TestChunkScanIngestedReopen(t *testing.T) {
	const n = 20_000
	dir := t.TempDir()
	s, err := Open(dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	loadIngested(t, s, n)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(dir, Options{NoSync: true}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	snap := s.Snapshot()
	defer snap.Close()
	tbl := scanBenchTable
	read := []bool{true, false, true}
	seen := make([]bool, n+1)
	bld := chunk.NewBuilder(tbl.Types)
	defer bld.Release()
	for v := range uint16(NumVnodes) {
		sc := tbl.ScanVnodeChunks(snap, v, nil).Reading(read)
		var prev int64
		for sc.Next() {
			if err := sc.AppendTo(bld, chunk.Insert); err != nil {
				t.Fatal(err)
			}
			last, err := sc.LastRow()
			if err != nil {
				t.Fatal(err)
			}
			id := last[0].(int64)
			if id <= prev || id < 1 || id > n || seen[id] {
				t.Fatalf("vnode %d: row %d after %d (seen %v)", v, id, prev, id >= 1 && id <= n && seen[id])
			}
			if got := tbl.Vnode(last); got != v {
				t.Fatalf("row %d of vnode %d read in vnode %d", id, got, v)
			}
			if last[1] != id%1000 || last[2] != id*7 {
				t.Fatalf("LastRow of %d: %v", id, last)
			}
			seen[id], prev = true, id
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		if err := sc.Close(); err != nil {
			t.Fatal(err)
		}
		c := bld.Build()
		for i := range c.NumRows() {
			row := c.Row(i, nil)
			id := row[0].(int64)
			if row[1] != nil || row[2] != id*7 {
				t.Fatalf("chunk row %v: want [%d <nil> %d]", row, id, id*7)
			}
		}
		// Resume after the vnode's first row: the rest, and only it.
		if c.NumRows() > 1 {
			first := c.Row(0, nil)[0]
			sc := tbl.ScanVnodeChunks(snap, v, []types.Datum{first})
			rest := 0
			for sc.Next() {
				if err := sc.AppendTo(bld, chunk.Insert); err != nil {
					t.Fatal(err)
				}
				rest++
			}
			if err := sc.Close(); err != nil {
				t.Fatal(err)
			}
			bld.Build().Release()
			if rest != c.NumRows()-1 {
				t.Fatalf("vnode %d after %v: %d rows, want %d", v, first, rest, c.NumRows()-1)
			}
		}
		c.Release()
	}
	for id := 1; id <= n; id++ {
		if !seen[id] {
			t.Fatalf("row %d never read", id)
		}
	}
}
