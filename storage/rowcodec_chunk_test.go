package storage

import (
	"slices"

	"github.com/cockroachdb/apd/v3"
	"testing"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// TestAppendRowMatchesDecodeRow checks that decoding rows straight into a
// chunk builder makes the chunk that DecodeRow followed by Builder.Append
// makes: every type, NULLs, extreme and negative values, rows stored with
// fewer columns than the reader's types, and the same errors for corrupt
// values.
func TestAppendRowMatchesDecodeRow(t *testing.T) {
	rng := newRNG(7)
	for range 200 {
		n := 1 + rng.intn(12)
		ts := make([]types.Type, n)
		for i := range ts {
			ts[i] = allTypes[rng.intn(len(allTypes))]
		}
		generic, direct := chunk.NewBuilder(ts), chunk.NewBuilder(ts)
		dec := NewRowDecoder(ts)
		var dst []types.Datum
		for r := range 50 {
			stored := n
			if rng.intn(5) == 0 {
				stored = rng.intn(n + 1) // an older, shorter row
			}
			row := make([]types.Datum, stored)
			for i := range row {
				row[i] = genDatum(rng, ts[i])
				if d, ok := row[i].(*apd.Decimal); ok && (d.Exponent > 100 || d.Exponent < -100) {
					d.Exponent = 3 // chunks hold numerics as text: keep it short
				}
			}
			buf, err := EncodeRow(nil, ts[:stored], row)
			if err != nil {
				t.Fatal(err)
			}
			op := chunk.Op(r % 4)
			if dst, err = DecodeRow(buf, ts, dst); err != nil {
				t.Fatal(err)
			}
			generic.Append(op, dst)
			if err := dec.Append(direct, op, buf); err != nil {
				t.Fatalf("Append(%x): %v", buf, err)
			}
		}
		want, got := generic.Build(), direct.Build()
		if !slices.Equal(got.Ops, want.Ops) {
			t.Fatalf("ops %v, want %v", got.Ops, want.Ops)
		}
		wr, gr := want.Rows(), got.Rows()
		for i := range wr {
			if !sameRow(gr[i], wr[i]) {
				t.Fatalf("types %v row %d: got %v, want %v", ts, i, gr[i], wr[i])
			}
		}
		want.Release()
		got.Release()
		generic.Release()
		direct.Release()
	}
}

// TestAppendRowCorrupt checks that a RowDecoder rejects what DecodeRow
// rejects. (Numerics are left out: a corrupt exponent may still decode,
// and then formatting it for the chunk, on either path, takes forever.)
func TestAppendRowCorrupt(t *testing.T) {
	rng := newRNG(8)
	typs := slices.DeleteFunc(slices.Clone(allTypes), func(t types.Type) bool { return t.ID == types.IDNumeric })
	for range 2000 {
		n := 1 + rng.intn(6)
		ts := make([]types.Type, n)
		row := make([]types.Datum, n)
		for i := range ts {
			ts[i] = typs[rng.intn(len(typs))]
			row[i] = genDatum(rng, ts[i])
		}
		buf, err := EncodeRow(nil, ts, row)
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
		_, derr := DecodeRow(buf, ts, nil)
		b := chunk.NewBuilder(ts)
		aerr := NewRowDecoder(ts).Append(b, chunk.Insert, buf)
		b.Release()
		if (derr == nil) != (aerr == nil) {
			t.Fatalf("types %v value %x: DecodeRow error %v, RowDecoder error %v", ts, buf, derr, aerr)
		}
	}
}

// BenchmarkAppendRow decodes rows (RowDecoder) of the backfill benchmark's table
// (bigint pk, int, bigint) into chunks, as a snapshot scan does.
func BenchmarkAppendRow(b *testing.B) {
	ts := []types.Type{types.TInt64, types.TInt32, types.TInt64}
	var rows [][]byte
	for g := int64(1); g <= 1024; g++ {
		buf, err := EncodeRow(nil, ts, []types.Datum{g * 9973, g % 1000, g * 7})
		if err != nil {
			b.Fatal(err)
		}
		rows = append(rows, buf)
	}
	cb := chunk.NewBuilder(ts)
	defer cb.Release()
	dec := NewRowDecoder(ts)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := dec.Append(cb, chunk.Insert, rows[i%len(rows)]); err != nil {
			b.Fatal(err)
		}
		if cb.Len() == len(rows) {
			cb.Build().Release()
		}
	}
}
