package chunk

import (
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/types"
)

// BenchmarkNumericValue reads numerics of a chunk back (Value) and
// appends them to a builder (Append), 1024 a chunk.
func BenchmarkNumericValue(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 10))
	var vals []*apd.Decimal
	for range 1024 {
		vals = append(vals, apd.New(r.Int64N(1e9), -int32(r.IntN(4))))
	}
	rows := make([][]types.Datum, len(vals))
	for i, v := range vals {
		rows[i] = []types.Datum{v}
	}
	c := FromRows([]types.Type{types.TNumeric}, Insert, rows)
	defer c.Release()
	col := c.Rec.Column(0)
	b.Run("Value", func(b *testing.B) {
		for b.Loop() {
			for i := range len(vals) {
				_ = Value(col, types.TNumeric, i)
			}
		}
	})
	b.Run("Append", func(b *testing.B) {
		bl := NewBuilder([]types.Type{types.TNumeric})
		defer bl.Release()
		for b.Loop() {
			for _, r := range rows {
				bl.Append(Insert, r)
			}
			bl.Build().Release()
		}
	})
}
