package storage

import (
	"cmp"
	"slices"
	"testing"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// TestDecodeRowReading checks that decoding only some columns, directly
// (DecodeRowReading) or into a chunk (NewRowDecoderReading), yields the
// full decode with the other columns NULL: every type, NULLs and rows
// stored with fewer columns than the reader's types, so skipping each
// type's value lands exactly on the next one.
func TestDecodeRowReading(t *testing.T) {
	rng := newRNG(11)
	for range 300 {
		n := 1 + rng.intn(12)
		ts := make([]types.Type, n)
		read := make([]bool, n)
		for i := range ts {
			ts[i] = allTypes[rng.intn(len(allTypes))]
			read[i] = rng.intn(2) == 0
		}
		full, pruned := chunk.NewBuilder(ts), chunk.NewBuilder(ts)
		dec := NewRowDecoderReading(ts, read)
		var all, some []types.Datum
		for r := range 30 {
			stored := n
			if rng.intn(5) == 0 {
				stored = rng.intn(n + 1)
			}
			row := make([]types.Datum, stored)
			for i := range row {
				row[i] = genDatum(rng, ts[i])
				if d, ok := row[i].(*apd.Decimal); ok && (d.Exponent > 100 || d.Exponent < -100) {
					d.Exponent = 3
				}
			}
			buf, err := EncodeRow(nil, ts[:stored], row)
			if err != nil {
				t.Fatal(err)
			}
			if all, err = DecodeRow(buf, ts, all); err != nil {
				t.Fatal(err)
			}
			if some, err = DecodeRowReading(buf, ts, read, some); err != nil {
				t.Fatalf("DecodeRowReading(%x): %v", buf, err)
			}
			for i := range all {
				if !read[i] {
					all[i] = nil
				}
			}
			if !sameRow(some, all) {
				t.Fatalf("types %v read %v: got %v, want %v", ts, read, some, all)
			}
			op := chunk.Op(r % 4)
			full.Append(op, all)
			if err := dec.Append(pruned, op, buf); err != nil {
				t.Fatalf("Append(%x): %v", buf, err)
			}
		}
		want, got := full.Build(), pruned.Build()
		wr, gr := want.Rows(), got.Rows()
		for i := range wr {
			if !sameRow(gr[i], wr[i]) {
				t.Fatalf("types %v read %v row %d: got %v, want %v", ts, read, i, gr[i], wr[i])
			}
		}
		want.Release()
		got.Release()
		full.Release()
		pruned.Release()
	}
}

// TestSkipValueCorrupt: skipping a truncated value fails, as decoding it
// does.
func TestSkipValueCorrupt(t *testing.T) {
	for _, typ := range allTypes {
		buf, err := EncodeRow(nil, []types.Type{typ}, []types.Datum{genDatum(newRNG(3), typ)})
		if err != nil {
			t.Fatal(err)
		}
		if len(buf) <= 2 {
			continue
		}
		short := buf[:len(buf)-1]
		read := []bool{false}
		if _, err := DecodeRowReading(short, []types.Type{typ}, read, nil); err == nil {
			t.Errorf("%s: truncated %x skipped without error", typ, short)
		}
	}
}

// TestColumnIterator: a table scan reading some columns yields its rows
// with the others NULL, as Datums (Row) and decoded into chunks
// (AppendTo), and a ChunkScan reading them does too.
func TestColumnIterator(t *testing.T) {
	s := openMem(t)
	w := s.NewWriteBatch()
	var want [][]types.Datum
	for c := int64(1); c <= 3; c++ {
		for id := int64(1); id <= 50; id++ {
			row := order(c, id)
			if err := ordersTable.Insert(w, row); err != nil {
				t.Fatal(err)
			}
			want = append(want, []types.Datum{row[0], row[1], nil, row[3]})
		}
	}
	commit(t, s, 1, w)
	read := []bool{true, true, false, true}
	sortRows := func(rows [][]types.Datum) {
		slices.SortFunc(rows, func(a, b []types.Datum) int {
			return cmp.Or(cmp.Compare(a[0].(int64), b[0].(int64)), cmp.Compare(a[1].(int64), b[1].(int64)))
		})
	}
	sortRows(want)
	check := func(what string, got [][]types.Datum) {
		t.Helper()
		sortRows(got)
		if len(got) != len(want) {
			t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
		}
		for i := range want {
			if !sameRow(got[i], want[i]) {
				t.Fatalf("%s: row %d = %v, want %v", what, i, got[i], want[i])
			}
		}
	}
	it := ordersTable.Scan(s)
	it.(ColumnIterator).ReadColumns(read, false)
	check("Row", collect(t, it))

	it = ordersTable.Scan(s)
	it.(ColumnIterator).ReadColumns(read, true)
	b := chunk.NewBuilder(ordersTable.Types)
	for it.Next() {
		if err := it.(ColumnIterator).AppendTo(b, chunk.Insert); err != nil {
			t.Fatal(err)
		}
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	c := b.Build()
	check("AppendTo", c.Rows())
	c.Release()

	var got [][]types.Datum
	for v := range uint16(NumVnodes) {
		cs := ordersTable.ScanVnodeChunks(s, v, nil).Reading(read)
		for cs.Next() {
			if err := cs.AppendTo(b, chunk.Insert); err != nil {
				t.Fatal(err)
			}
		}
		if err := cs.Close(); err != nil {
			t.Fatal(err)
		}
	}
	c = b.Build()
	got = c.Rows()
	c.Release()
	b.Release()
	check("ChunkScan", got)
}
