package connector

import (
	"testing"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// BenchmarkNexmarkBidChunks measures generating Nexmark bids into chunks
// of 1,024 rows, as a source actor does (ns/op is per row).
func BenchmarkNexmarkBidChunks(b *testing.B) {
	cols := []Column{{"auction", types.TInt64}, {"bidder", types.TInt64}, {"price", types.TInt64},
		{"channel", types.TText}, {"url", types.TText}, {"date_time", types.TTimestamp}, {"extra", types.TText}}
	g, err := New(cols, map[string]string{OptConnector: "nexmark", optNexTable: "Bid"}, 0)
	if err != nil {
		b.Fatal(err)
	}
	ts := make([]types.Type, len(cols))
	for i, c := range cols {
		ts[i] = c.Type
	}
	bld := chunk.NewBuilder(ts)
	defer bld.Release()
	var row []types.Datum
	b.ReportAllocs()
	for i := range b.N {
		row = g.Row(int64(i), row[:0])
		bld.Append(chunk.Insert, row)
		if bld.Len() == 1024 {
			bld.Build().Release()
		}
	}
}
