package storage

import (
	"slices"
	"testing"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// batchTypes are the column types of the batch decoder's tests: one of
// each value encoding, and the text-stored arrays and jsonb.
var batchTypes = append(slices.Clone(allTypes), types.TJSONB, types.ArrayOf(types.IDInt64))

// genRow returns a row of len(ts) random values (NULL one time in ten).
func genRow(rng source, ts []types.Type) []types.Datum {
	row := make([]types.Datum, len(ts))
	for i, t := range ts {
		if t.ID == types.IDJSONB || t.ID == types.IDArray {
			t = types.TText // stored as text
		}
		row[i] = genDatum(rng, t)
		if d, ok := row[i].(*apd.Decimal); ok && (d.Exponent > 100 || d.Exponent < -100) {
			d.Exponent = 3 // keep numerics short
		}
	}
	return row
}

// genSchema returns 1 to 12 random column types and a random read mask
// (nil, reading every column, a third of the time).
func genSchema(rng source) ([]types.Type, []bool) {
	ts := make([]types.Type, 1+rng.intn(12))
	for i := range ts {
		ts[i] = batchTypes[rng.intn(len(batchTypes))]
	}
	if rng.intn(3) == 0 {
		return ts, nil
	}
	read := make([]bool, len(ts))
	for i := range read {
		read[i] = rng.intn(3) > 0
	}
	return ts, read
}

// sameChunk fails t unless got and want hold the same ops, rows and
// NULLs.
func sameChunk(t *testing.T, ts []types.Type, got, want *chunk.Chunk) {
	t.Helper()
	if !slices.Equal(got.Ops, want.Ops) {
		t.Fatalf("types %v: ops %v, want %v", ts, got.Ops, want.Ops)
	}
	if got.NumRows() != want.NumRows() {
		t.Fatalf("types %v: %d rows, want %d", ts, got.NumRows(), want.NumRows())
	}
	for j := range int(want.Rec.NumCols()) {
		if g, w := got.Rec.Column(j).NullN(), want.Rec.Column(j).NullN(); g != w {
			t.Fatalf("types %v column %d: %d NULLs, want %d", ts, j, g, w)
		}
	}
	wr, gr := want.Rows(), got.Rows()
	for i := range wr {
		if !sameRow(gr[i], wr[i]) {
			t.Fatalf("types %v row %d: got %v, want %v", ts, i, gr[i], wr[i])
		}
	}
}

// TestAppendBatchMatchesAppend checks the batch decoder (beginBatch,
// stageRow, flush: what ChunkScan.AppendRows runs) against RowDecoder.Append
// row by row on random rows of random schemas: every value encoding,
// NULLs (a batch with none, with some, all NULL), rows stored with fewer
// columns than the reader's (an added column), pruned columns, batches of
// random sizes that start anywhere in a chunk, and batches interleaved
// with rows appended one at a time through the same decoder. The chunks
// must hold the same ops, values and NULLs.
func TestAppendBatchMatchesAppend(t *testing.T) {
	rng := newRNG(22)
	for range 150 {
		ts, read := genSchema(rng)
		rowDec, batchDec := NewRowDecoderReading(ts, read), NewRowDecoderReading(ts, read)
		want, got := chunk.NewBuilder(ts), chunk.NewBuilder(ts)
		nullRate := []int{0, 10, 2, 1}[rng.intn(4)] // 1 in nullRate rows is all NULL (0: none)
		chunks, batches := 1+rng.intn(6), 1+rng.intn(8)
		for range chunks {
			for range batches {
				n := rng.intn(200)
				op := chunk.Op(rng.intn(4))
				batch := rng.intn(4) > 0
				if batch {
					batchDec.beginBatch(got, n)
				}
				for range n {
					stored := len(ts)
					if rng.intn(8) == 0 {
						stored = rng.intn(len(ts) + 1) // an older, shorter row
					}
					row := genRow(rng, ts[:stored])
					if nullRate > 0 && rng.intn(nullRate) == 0 {
						clear(row)
					}
					buf, err := EncodeRow(nil, ts[:stored], row)
					if err != nil {
						t.Fatal(err)
					}
					if err := rowDec.Append(want, op, buf); err != nil {
						t.Fatalf("Append(%x): %v", buf, err)
					}
					if batch {
						err = batchDec.stageRow(buf)
					} else {
						err = batchDec.Append(got, op, buf)
					}
					if err != nil {
						t.Fatalf("types %v read %v: decoding %x: %v", ts, read, buf, err)
					}
				}
				if batch {
					batchDec.flush(got, op)
				}
				if got.Len() != want.Len() {
					t.Fatalf("builder holds %d rows, want %d", got.Len(), want.Len())
				}
			}
			w, g := want.Build(), got.Build()
			sameChunk(t, ts, g, w)
			w.Release()
			g.Release()
		}
		want.Release()
		got.Release()
	}
}

// TestAppendBatchCorrupt checks that the batch decoder rejects exactly
// the corrupt rows Append rejects. (Numerics are left out, as in
// TestAppendRowCorrupt.)
func TestAppendBatchCorrupt(t *testing.T) {
	rng := newRNG(23)
	typs := slices.DeleteFunc(slices.Clone(batchTypes), func(t types.Type) bool { return t.ID == types.IDNumeric })
	for range 3000 {
		ts := make([]types.Type, 1+rng.intn(6))
		for i := range ts {
			ts[i] = typs[rng.intn(len(typs))]
		}
		buf, err := EncodeRow(nil, ts, genRow(rng, ts))
		if err != nil {
			t.Fatal(err)
		}
		switch rng.intn(3) {
		case 0:
			buf = buf[:rng.intn(len(buf))]
		case 1:
			buf = append(buf, byte(rng.intn(256)))
		default:
			buf = slices.Clone(buf)
			buf[rng.intn(len(buf))] ^= byte(1 + rng.intn(255))
		}
		b1, b2 := chunk.NewBuilder(ts), chunk.NewBuilder(ts)
		aerr := NewRowDecoder(ts).Append(b1, chunk.Insert, buf)
		dec := NewRowDecoder(ts)
		dec.beginBatch(b2, 1)
		berr := dec.stageRow(buf)
		b1.Release()
		b2.Release()
		if (aerr == nil) != (berr == nil) {
			t.Fatalf("types %v value %x: Append error %v, batch error %v", ts, buf, aerr, berr)
		}
	}
}

// TestChunkScanAppendRows reads a table of random rows vnode by vnode
// with ChunkScan, in batches of random sizes (AppendRows) mixed with rows
// appended one at a time (Next, AppendTo), and checks that it reads each
// vnode's rows as ScanVnode does (pruned columns NULL), that LastRow is
// always the last row appended, in full, also once the vnode has ended,
// and that one decoder serves scan after scan.
func TestChunkScanAppendRows(t *testing.T) {
	rng := newRNG(24)
	s, err := Open(t.TempDir(), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for round := range 4 {
		cols, read := genSchema(rng)
		tbl := &Table{ID: uint32(100 + round), Types: append([]types.Type{types.TInt64}, cols...), PK: []int{0}, DistKey: []int{0}}
		if read != nil {
			read = append([]bool{true}, read...)
		}
		w := s.NewWriteBatch()
		for id := range int64(3000) {
			if err := tbl.Insert(w, append([]types.Datum{id}, genRow(rng, cols)...)); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.CommitEpoch(s.CommittedEpoch()+1, []*WriteBatch{w}); err != nil {
			t.Fatal(err)
		}
		snap := s.Snapshot()
		bld := chunk.NewBuilder(tbl.Types)
		dec := NewRowDecoderReading(tbl.Types, read)
		for v := range uint16(NumVnodes) {
			var want [][]types.Datum
			it := tbl.ScanVnode(snap, v, nil)
			for it.Next() {
				want = append(want, slices.Clone(it.Row()))
			}
			if err := it.Close(); err != nil {
				t.Fatal(err)
			}
			var got [][]types.Datum
			take := func() {
				c := bld.Build()
				got = append(got, c.Rows()...)
				c.Release()
			}
			sc := tbl.ScanVnodeChunks(snap, v, nil).Decoding(dec)
			appended := 0
			checkLast := func() {
				last, err := sc.LastRow()
				if err != nil {
					t.Fatal(err)
				}
				if appended == 0 {
					if last != nil {
						t.Fatalf("LastRow %v before any row", last)
					}
					return
				}
				if !sameRow(last, want[appended-1]) {
					t.Fatalf("vnode %d: LastRow %v, want row %d %v", v, last, appended-1, want[appended-1])
				}
			}
			pending := false // Next stepped on a row not appended yet
			for {
				if pending && rng.intn(2) == 0 {
					if err := sc.AppendTo(bld, chunk.Insert); err != nil {
						t.Fatal(err)
					}
					appended++
					pending = false
				} else if !pending && rng.intn(4) == 0 {
					if !sc.Next() {
						checkLast()
						break
					}
					pending = true // appended by AppendTo or the next AppendRows
				} else {
					pending = false
					limit := bld.Len() + 1 + rng.intn(40) // room for the pending row, if any
					n, err := sc.AppendRows(bld, chunk.Insert, limit)
					if err != nil {
						t.Fatal(err)
					}
					appended += n
					if bld.Len() < limit {
						checkLast()
						if m, err := sc.AppendRows(bld, chunk.Insert, limit+1); m != 0 || err != nil {
							t.Fatalf("AppendRows after the end: %d rows, %v", m, err)
						}
						checkLast()
						break
					}
				}
				if rng.intn(2) == 0 {
					checkLast()
				}
				if rng.intn(8) == 0 {
					take()
				}
			}
			if err := sc.Err(); err != nil {
				t.Fatal(err)
			}
			if err := sc.Close(); err != nil {
				t.Fatal(err)
			}
			take()
			if appended != len(want) || len(got) != len(want) {
				t.Fatalf("vnode %d: appended %d, chunks hold %d rows, want %d", v, appended, len(got), len(want))
			}
			for _, row := range want {
				for j := range row {
					if read != nil && !read[j] {
						row[j] = nil
					}
				}
			}
			// Through a chunk, as the scan's rows (which hold numerics in
			// their plain form).
			wc := chunk.FromRows(tbl.Types, chunk.Insert, want)
			want = wc.Rows()
			wc.Release()
			for i, row := range want {
				if !sameRow(got[i], row) {
					t.Fatalf("vnode %d row %d: got %v, want %v", v, i, got[i], row)
				}
			}
		}
		bld.Release()
		snap.Close()
	}
}
