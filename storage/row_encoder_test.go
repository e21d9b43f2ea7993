package storage

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// TestRowEncoderEqualsInsert: a RowEncoder's keys and values are byte
// for byte those Insert writes for the decoded rows, for every type,
// NULLs, every column in the pk or dist key, and chunks that are slices
// of larger ones (Arrow offsets not zero).
func TestRowEncoderEqualsInsert(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	s := openMem(t)
	var enc RowEncoder
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
		whole := chunk.FromRows(encodeTypes, chunk.Insert, rows)
		lo := rng.IntN(50)
		c := whole
		if round%2 == 1 {
			c = &chunk.Chunk{Rec: whole.Rec.NewSlice(int64(lo), int64(len(rows))), Ops: make([]chunk.Op, len(rows)-lo), Types: encodeTypes}
		}
		if err := enc.Reset(tbl, c); err != nil {
			t.Fatal(err)
		}
		w := s.NewWriteOnlyBatch()
		var key, val []byte
		for i := range c.NumRows() {
			row := c.Row(i, nil)
			if err := tbl.Insert(w, row); err != nil {
				t.Fatal(err)
			}
			var err error
			if key, err = enc.AppendKey(key[:0], i); err != nil {
				t.Fatal(err)
			}
			if val, err = enc.AppendValue(val[:0], i); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(w.key, key) || !bytes.Equal(w.val, val) {
				t.Fatalf("round %d row %d %v: RowEncoder made %x=%x, Insert %x=%x", round, i, row, key, val, w.key, w.val)
			}
		}
		if c != whole {
			c.Release()
		}
		whole.Release()
		w.Close()
	}
}
