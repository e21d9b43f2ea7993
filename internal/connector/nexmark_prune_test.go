package connector

import (
	"reflect"
	"testing"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// TestNexmarkPruneSameRows: whichever columns are read, AppendRow fills
// those with the values of the full row (Row) and appends nothing to
// the others, for every table and every subset of its columns (all 2^n,
// n <= 10); PruneColumns(nil) restores every column.
func TestNexmarkPruneSameRows(t *testing.T) {
	tables := map[string][]Column{
		"Bid": nexBidColumns,
		"Person": {{"id", types.TInt64}, {"name", types.TText}, {"email_address", types.TText}, {"credit_card", types.TText},
			{"city", types.TText}, {"state", types.TText}, {"date_time", types.TTimestamp}, {"extra", types.TText}},
		"Auction": {{"id", types.TInt64}, {"item_name", types.TText}, {"description", types.TText}, {"initial_bid", types.TInt64},
			{"reserve", types.TInt64}, {"date_time", types.TTimestamp}, {"expires", types.TTimestamp}, {"seller", types.TInt64},
			{"category", types.TInt64}, {"extra", types.TText}},
	}
	const rows = 120 // over two epochs of 50 events: every table's rows
	for table, cols := range tables {
		g, ts := newNexBench(t, table, cols)
		full := make([][]types.Datum, rows)
		for i := range full {
			full[i] = g.Row(int64(i), nil)
		}
		for set := 0; set < 1<<len(cols); set++ {
			read := make([]bool, len(cols))
			for j := range read {
				read[j] = set&(1<<j) != 0
			}
			g.PruneColumns(read)
			bld := chunk.NewBuilder(ts)
			for i := range int64(rows) {
				g.AppendRow(i, bld.Columns())
				bld.AppendedRow(chunk.Insert)
			}
			for j, b := range bld.Columns() {
				if want := map[bool]int{true: rows, false: 0}[read[j]]; b.Len() != want {
					t.Fatalf("%s, columns %b: column %s has %d values, want %d", table, set, cols[j].Name, b.Len(), want)
				}
				if !read[j] {
					b.AppendNulls(rows) // as the source does
				}
			}
			c := bld.Build()
			for i, row := range c.Rows() {
				for j := range row {
					if read[j] && !reflect.DeepEqual(row[j], full[i][j]) {
						t.Fatalf("%s, columns %b: row %d column %s = %v, want %v", table, set, i, cols[j].Name, row[j], full[i][j])
					}
				}
			}
			c.Release()
			bld.Release()
		}
		g.PruneColumns(nil)
		bld := chunk.NewBuilder(ts)
		for i := range int64(rows) {
			g.AppendRow(i, bld.Columns())
			bld.AppendedRow(chunk.Insert)
		}
		c := bld.Build()
		if !reflect.DeepEqual(c.Rows(), full) {
			t.Fatalf("%s: after PruneColumns(nil), rows differ from Row's", table)
		}
		c.Release()
		bld.Release()
	}
}
