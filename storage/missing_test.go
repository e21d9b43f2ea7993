package storage

import (
	"testing"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// TestMissingValues writes rows of two columns, then reads them through a
// layout of four (a column added with a default, one without): every
// decoder reads the old rows' missing columns as the table's Missing
// values, and rows written with all four columns as stored.
func TestMissingValues(t *testing.T) {
	s, err := Open(t.TempDir(), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	old := &Table{ID: 7, Types: []types.Type{types.TInt64, types.TText}, PK: []int{0}, DistKey: []int{0}}
	w := s.NewWriteBatch()
	for id := range int64(50) {
		var txt types.Datum = "r"
		if id%3 == 0 {
			txt = nil
		}
		if err := old.Insert(w, []types.Datum{id, txt}); err != nil {
			t.Fatal(err)
		}
	}
	wide := &Table{ID: 7, Types: []types.Type{types.TInt64, types.TText, types.TText, types.TInt64}, PK: []int{0}, DistKey: []int{0},
		Missing: []types.Datum{nil, nil, "dflt", nil}}
	for id := int64(50); id < 60; id++ {
		if err := wide.Insert(w, []types.Datum{id, "n", "given", id * 10}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.CommitEpoch(s.CommittedEpoch()+1, []*WriteBatch{w}); err != nil {
		t.Fatal(err)
	}
	want := func(id int64) []types.Datum {
		if id >= 50 {
			return []types.Datum{id, "n", "given", id * 10}
		}
		var txt types.Datum = "r"
		if id%3 == 0 {
			txt = nil
		}
		return []types.Datum{id, txt, "dflt", nil}
	}
	snap := s.Snapshot()
	defer snap.Close()
	seen := 0
	it := wide.Scan(snap)
	for it.Next() {
		r := it.Row()
		if got := want(r[0].(int64)); !sameRow(r, got) {
			t.Fatalf("Scan: row %v, want %v", r, got)
		}
		seen++
	}
	if err := it.Close(); err != nil || seen != 60 {
		t.Fatalf("Scan read %d rows (%v), want 60", seen, err)
	}
	for id := range int64(60) {
		r, ok, err := wide.Get(snap, []types.Datum{id})
		if err != nil || !ok || !sameRow(r, want(id)) {
			t.Fatalf("Get(%d) = %v %v %v, want %v", id, r, ok, err, want(id))
		}
	}
	// The table as a view created before the columns were added reads
	// it: every row cut to its first two columns.
	narrow := &Table{ID: 7, Types: wide.Types[:2], PK: []int{0}, DistKey: []int{0}, Prefix: true}
	seen = 0
	it = narrow.Scan(snap)
	for it.Next() {
		r := it.Row()
		if got := want(r[0].(int64))[:2]; !sameRow(r, got) {
			t.Fatalf("narrow Scan: row %v, want %v", r, got)
		}
		seen++
	}
	if err := it.Close(); err != nil || seen != 60 {
		t.Fatalf("narrow Scan read %d rows (%v), want 60", seen, err)
	}
	// The chunk decoders, row by row (Append) and batched (AppendRows).
	for _, read := range [][]bool{nil, {true, false, true, true}, {true, true, false, true}} {
		bld := chunk.NewBuilder(wide.Types)
		rows := 0
		for v := range uint16(NumVnodes) {
			sc := wide.ScanVnodeChunks(snap, v, nil).Decoding(wide.NewRowDecoder(read))
			for {
				n, err := sc.AppendRows(bld, chunk.Insert, bld.Len()+7)
				if err != nil {
					t.Fatal(err)
				}
				if n == 0 {
					break
				}
			}
			if err := sc.Close(); err != nil {
				t.Fatal(err)
			}
		}
		c := bld.Build()
		for _, r := range c.Rows() {
			exp := want(r[0].(int64))
			for i := range exp {
				if read != nil && !read[i] {
					exp[i] = nil
				}
			}
			if !sameRow(r, exp) {
				t.Fatalf("chunks (read %v): row %v, want %v", read, r, exp)
			}
			rows++
		}
		c.Release()
		if rows != 60 {
			t.Fatalf("chunks read %d rows, want 60", rows)
		}
	}
}
