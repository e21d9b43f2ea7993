package storage

import (
	"bytes"
	"testing"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// TestNumericThroughChunk: a stored numeric decoded into a chunk by a
// RowDecoder (its bytes copied) comes out of it (chunk.Value) as the
// value stored, scale, sign of zero, NaN and ±Infinity kept; a positive
// exponent comes out as its text reads back (1E+3 as 1000), as when
// chunks held numerics as text. Written back from the chunk (InsertAt's
// encoding, a key) it gives the bytes its Datum gives.
func TestNumericThroughChunk(t *testing.T) {
	rng := newRNG(11)
	ts := []types.Type{types.TInt64, types.TNumeric, types.TNumeric}
	tbl := &Table{ID: 9, Types: ts, PK: []int{1, 2}, DistKey: []int{1}}
	var vals [][]types.Datum
	for i := range 3000 {
		row := []types.Datum{int64(i), genDecimal(rng), genDecimal(rng)}
		for _, v := range row[1:] {
			if d := v.(*apd.Decimal); d.Exponent > 30 || d.Exponent < -1000 {
				d.Exponent /= 1 << 24 // its text (the test's reference) has as many digits
			}
		}
		if i%7 == 0 {
			row[2] = nil
		}
		vals = append(vals, row)
	}
	vals = append(vals, []types.Datum{int64(-1), &apd.Decimal{Form: apd.Infinite, Exponent: 3}, &apd.Decimal{Form: apd.NaN, Negative: true, Exponent: -2}})
	b := chunk.NewBuilder(ts)
	defer b.Release()
	dec := NewRowDecoder(ts)
	for _, row := range vals {
		buf, err := EncodeRow(nil, ts, row)
		if err != nil {
			t.Fatal(err)
		}
		if err := dec.Append(b, chunk.Insert, buf); err != nil {
			t.Fatal(err)
		}
	}
	c := b.Build()
	defer c.Release()
	for i, row := range vals {
		got := c.Row(i, nil)
		for j := 1; j < 3; j++ {
			if row[j] == nil {
				if got[j] != nil {
					t.Fatalf("row %d: NULL came back as %v", i, got[j])
				}
				continue
			}
			v := row[j].(*apd.Decimal)
			want, _, err := apd.NewFromString(v.Text('f'))
			if err != nil {
				t.Fatal(err)
			}
			g := got[j].(*apd.Decimal)
			if g.Cmp(want) != 0 || g.Form != want.Form || g.Negative != want.Negative || g.Exponent != want.Exponent {
				t.Fatalf("row %d: %s (exponent %d) came back as %s (exponent %d)", i, v, v.Exponent, g, g.Exponent)
			}
		}
		wantVal, err := EncodeRow(nil, ts, got)
		if err != nil {
			t.Fatal(err)
		}
		if gotVal, err := tbl.AppendRowAt(nil, c, i); err != nil || !bytes.Equal(gotVal, wantVal) {
			t.Fatalf("row %d: AppendRowAt %x (%v), want %x", i, gotVal, err, wantVal)
		}
		wantKey, err := tbl.AppendRowKey(nil, got)
		if err != nil {
			t.Fatal(err)
		}
		if gotKey, err := tbl.AppendRowKeyAt(nil, c, i); err != nil || !bytes.Equal(gotKey, wantKey) {
			t.Fatalf("row %d: AppendRowKeyAt %x (%v), want %x", i, gotKey, err, wantKey)
		}
	}
}

// TestNumericKeyIgnoresScale: equal numerics of different scales (1.0,
// 1.00) have one key in a chunk as out of it, so they group and join
// together.
func TestNumericKeyIgnoresScale(t *testing.T) {
	ts := []types.Type{types.TNumeric}
	c := chunk.FromRows(ts, chunk.Insert, [][]types.Datum{{apd.New(10, -1)}, {apd.New(100, -2)}, {apd.New(1, 0)}})
	defer c.Release()
	k0, err := AppendKeyAt(nil, types.TNumeric, c, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < 3; i++ {
		if k, err := AppendKeyAt(nil, types.TNumeric, c, 0, i); err != nil || !bytes.Equal(k, k0) {
			t.Fatalf("row %d: key %x (%v), want %x", i, k, err, k0)
		}
	}
}
