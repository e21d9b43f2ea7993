package storage

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

var encodeTypes = []types.Type{types.TBool, types.TInt16, types.TInt32, types.TInt64, types.TFloat32, types.TFloat64,
	types.TNumeric, types.TText, types.TVarchar, types.TDate, types.TTimestamp, types.TTimestampTZ, types.TInterval}

func randEncodeDatum(rng *rand.Rand, t types.Type) types.Datum {
	if rng.IntN(6) == 0 {
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
		return rng.NormFloat64() * 1e6
	case types.IDNumeric:
		d, _, _ := apd.NewFromString(fmt.Sprintf("%d.%02d", rng.Int64N(1e9)-5e8, rng.IntN(100)))
		return d
	case types.IDText, types.IDVarchar:
		s := fmt.Sprintf("s\x00%d", rng.Int64())
		return s[:rng.IntN(len(s)+1)]
	case types.IDDate:
		return types.Date(rng.Int32N(100000) - 50000)
	case types.IDTimestamp, types.IDTimestampTZ:
		return types.Timestamp(rng.Int64N(1<<50) - 1<<49)
	case types.IDInterval:
		return types.Interval{Months: rng.Int32N(100), Days: rng.Int32N(100), Micros: rng.Int64N(1 << 40)}
	}
	panic(t)
}

// TestInsertAtEqualsInsert: keys and values encoded straight from Arrow
// columns are byte for byte those of Insert and Delete on the decoded
// rows, for every type, NULLs, and every column in the pk or dist key.
func TestInsertAtEqualsInsert(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	s := openMem(t)
	for round := range 60 {
		pk := []int{rng.IntN(len(encodeTypes)), rng.IntN(len(encodeTypes))}
		tbl := &Table{ID: uint32(100 + round), Types: encodeTypes, PK: pk, DistKey: []int{rng.IntN(len(encodeTypes))}}
		rows := make([][]types.Datum, 200)
		for i := range rows {
			rows[i] = make([]types.Datum, len(encodeTypes))
			for j, typ := range encodeTypes {
				rows[i][j] = randEncodeDatum(rng, typ)
			}
		}
		c := chunk.FromRows(encodeTypes, chunk.Insert, rows)
		slow, fast := s.NewWriteOnlyBatch(), s.NewWriteOnlyBatch()
		for i := range rows {
			row := c.Row(i, nil) // as decoded from the chunk
			if err := tbl.Insert(slow, row); err != nil {
				t.Fatal(err)
			}
			if err := tbl.InsertAt(fast, c, i); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(slow.key, fast.key) || !bytes.Equal(slow.val, fast.val) {
				t.Fatalf("round %d row %d %v: InsertAt wrote %x=%x, Insert %x=%x", round, i, row, fast.key, fast.val, slow.key, slow.val)
			}
			if err := tbl.Delete(slow, row); err != nil {
				t.Fatal(err)
			}
			if err := tbl.DeleteAt(fast, c, i); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(slow.key, fast.key) {
				t.Fatalf("round %d row %d: DeleteAt key %x, Delete %x", round, i, fast.key, slow.key)
			}
		}
		c.Release()
		slow.Close()
		fast.Close()
	}
}
