package storage

import (
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// BenchmarkNumericColumns decodes stored rows of a bigint and two numeric
// columns into chunks (RowDecoder), reads the numerics back (chunk.Value)
// and encodes the chunk's rows for storage again (AppendRowAt): a scan,
// an expression's input and a materialize of numeric columns.
func BenchmarkNumericColumns(b *testing.B) {
	ts := []types.Type{types.TInt64, types.TNumeric, types.TNumeric}
	r := rand.New(rand.NewPCG(1, 2))
	rows := make([][]byte, 1024)
	for i := range rows {
		row := []types.Datum{int64(i), apd.New(r.Int64N(1e9), -int32(r.IntN(4))), apd.New(r.Int64N(1e6), -2)}
		rows[i], _ = EncodeRow(nil, ts, row)
	}
	build := func(bl *chunk.Builder, dec *RowDecoder) *chunk.Chunk {
		for _, buf := range rows {
			if err := dec.Append(bl, chunk.Insert, buf); err != nil {
				b.Fatal(err)
			}
		}
		return bl.Build()
	}
	b.Run("RowDecoder", func(b *testing.B) {
		bl, dec := chunk.NewBuilder(ts), NewRowDecoder(ts)
		defer bl.Release()
		for b.Loop() {
			build(bl, dec).Release()
		}
	})
	bl, dec := chunk.NewBuilder(ts), NewRowDecoder(ts)
	defer bl.Release()
	c := build(bl, dec)
	defer c.Release()
	b.Run("Value", func(b *testing.B) {
		for b.Loop() {
			for i := range len(rows) {
				_ = chunk.Value(c.Rec.Column(1), ts[1], i)
				_ = chunk.Value(c.Rec.Column(2), ts[2], i)
			}
		}
	})
	b.Run("AppendRowAt", func(b *testing.B) {
		tbl := &Table{ID: 1, Types: ts, PK: []int{0}, DistKey: []int{0}}
		var buf []byte
		for b.Loop() {
			for i := range len(rows) {
				var err error
				if buf, err = tbl.AppendRowAt(buf[:0], c, i); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
