package chunk

import (
	"reflect"
	"testing"

	"github.com/streamdb/streamdb/internal/types"
)

// TestRowsInto: RowsInto decodes every row as Row does, over the column
// types it decodes itself (int64, int32) and those it leaves to Value,
// with NULLs in some columns and none in others.
func TestRowsInto(t *testing.T) {
	ts := []types.Type{types.TInt64, types.TInt32, types.TInt64, types.TInt32, types.TText, types.TFloat64, types.TBool}
	var rows [][]types.Datum
	for i := range 300 {
		n := int64(i*7919 - 1000)
		row := []types.Datum{n, n % 1000, n * 1_000_003, int64(i), "s" + string(rune('a'+i%26)), float64(i) / 3, i%2 == 0}
		// Columns 2 and 3 hold no NULL; the others some.
		for _, c := range []int{0, 1, 4, 5, 6} {
			if (i+c)%5 == 0 {
				row[c] = nil
			}
		}
		rows = append(rows, row)
	}
	c := FromRows(ts, Insert, rows)
	defer c.Release()
	got := make([][]types.Datum, c.NumRows())
	for i := range got {
		got[i] = make([]types.Datum, len(ts))
		for j := range got[i] {
			got[i][j] = "stale" // every entry is written, NULLs too
		}
	}
	c.RowsInto(got)
	for i := range got {
		if want := c.Row(i, nil); !reflect.DeepEqual(got[i], want) {
			t.Fatalf("row %d: RowsInto %v, Row %v", i, got[i], want)
		}
		if !reflect.DeepEqual(got[i], rows[i]) {
			t.Fatalf("row %d: RowsInto %v, put in %v", i, got[i], rows[i])
		}
	}
}
