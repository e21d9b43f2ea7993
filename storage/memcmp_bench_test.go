package storage

import (
	"fmt"
	"math"
	"testing"

	"github.com/streamdb/streamdb/internal/types"
)

// BenchmarkAppendKey encodes one key column of each type.
func BenchmarkAppendKey(b *testing.B) {
	num, _ := types.Parse("12345.6700", types.TNumeric)
	cases := []struct {
		t types.Type
		d types.Datum
	}{
		{types.TInt64, int64(-123456789)},
		{types.TFloat64, math.Pi},
		{types.TText, "customer-000042"},
		{types.TNumeric, num},
		{types.TInterval, types.Interval{Months: 1, Days: 2, Micros: 3e9}},
	}
	for _, c := range cases {
		b.Run(fmt.Sprint(c.t), func(b *testing.B) {
			buf := make([]byte, 0, 64)
			for range b.N {
				var err error
				if buf, err = AppendKey(buf[:0], c.t, c.d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
