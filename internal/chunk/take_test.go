package chunk

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/streamdb/streamdb/internal/types"
)

var takeTypes = []types.Type{types.TBool, types.TInt16, types.TInt32, types.TInt64, types.TFloat32,
	types.TFloat64, types.TText, types.TDate, types.TTimestamp, types.TInterval}

func randDatum(rng *rand.Rand, t types.Type) types.Datum {
	if rng.IntN(5) == 0 {
		return nil
	}
	switch t.ID {
	case types.IDBool:
		return rng.IntN(2) == 0
	case types.IDInt16:
		return int64(int16(rng.Int()))
	case types.IDInt32:
		return int64(int32(rng.Int()))
	case types.IDInt64:
		return rng.Int64() - rng.Int64()
	case types.IDFloat32:
		return float64(float32(rng.NormFloat64()))
	case types.IDFloat64:
		return rng.NormFloat64()
	case types.IDText:
		s := fmt.Sprint(rng.Int64N(1 << rng.IntN(60)))
		return s[:rng.IntN(len(s)+1)]
	case types.IDDate:
		return types.Date(rng.Int32N(100000))
	case types.IDTimestamp:
		return types.Timestamp(rng.Int64())
	case types.IDInterval:
		return types.Interval{Months: rng.Int32N(100), Days: rng.Int32N(100), Micros: rng.Int64N(1 << 40)}
	}
	panic(t)
}

// TestTake: Take gathers any rows (repeated, reordered, none) of every
// column type, with and without NULLs, from whole and sliced chunks,
// equal to decoding the same rows one by one.
func TestTake(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		n := 1 + rng.IntN(300)
		rows := make([][]types.Datum, n)
		noNulls := round%3 == 0
		for i := range rows {
			rows[i] = make([]types.Datum, len(takeTypes))
			for j, typ := range takeTypes {
				if rows[i][j] = randDatum(rng, typ); rows[i][j] == nil && noNulls {
					rows[i][j] = randDatum(rng, typ)
					for rows[i][j] == nil {
						rows[i][j] = randDatum(rng, typ)
					}
				}
			}
		}
		c := FromRows(takeTypes, Insert, rows)
		src := c
		lo := 0
		if round%2 == 1 && n > 2 { // a slice: arrays with an offset
			lo = rng.IntN(n / 2)
			cols := make([]arrow.Array, len(takeTypes))
			for j := range cols {
				cols[j] = array.NewSlice(c.Rec.Column(j), int64(lo), int64(n))
			}
			src = &Chunk{Rec: array.NewRecordBatch(c.Rec.Schema(), cols, int64(n-lo)), Types: takeTypes}
		}
		pick := make([]int, rng.IntN(2*(n-lo)+1))
		ops := make([]Op, len(pick))
		for k := range pick {
			pick[k], ops[k] = rng.IntN(n-lo), Op(rng.IntN(4))
		}
		got := Take(src, pick, ops)
		if got.NumRows() != len(pick) {
			t.Fatalf("round %d: %d rows, want %d", round, got.NumRows(), len(pick))
		}
		for k, i := range pick {
			if want, have := rows[lo+i], got.Row(k, nil); !reflect.DeepEqual(want, have) {
				t.Fatalf("round %d: row %d (from %d) = %v, want %v", round, k, lo+i, have, want)
			}
			if got.Op(k) != ops[k] {
				t.Fatalf("round %d: op %d = %v, want %v", round, k, got.Op(k), ops[k])
			}
		}
		got.Release()
		c.Release()
	}
}
