package connector

import (
	"reflect"
	"testing"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

var nexBidColumns = []Column{{"auction", types.TInt64}, {"bidder", types.TInt64}, {"price", types.TInt64},
	{"channel", types.TText}, {"url", types.TText}, {"date_time", types.TTimestamp}, {"extra", types.TText}}

func newNexBench(tb testing.TB, table string, cols []Column) (*nexmark, []types.Type) {
	g, err := New(cols, map[string]string{OptConnector: "nexmark", optNexTable: table}, 0)
	if err != nil {
		tb.Fatal(err)
	}
	ts := make([]types.Type, len(cols))
	for i, c := range cols {
		ts[i] = c.Type
	}
	return g.(*nexmark), ts
}

// TestNexmarkAppendRow: rows appended straight into Arrow builders equal
// the rows Row makes, for every table and column.
func TestNexmarkAppendRow(t *testing.T) {
	tables := map[string][]Column{
		"Bid": nexBidColumns,
		"Person": {{"id", types.TInt64}, {"name", types.TVarchar}, {"email_address", types.TVarchar}, {"credit_card", types.TVarchar},
			{"city", types.TVarchar}, {"state", types.TVarchar}, {"date_time", types.TTimestampTZ}, {"extra", types.TVarchar}},
		"Auction": {{"id", types.TInt64}, {"item_name", types.TText}, {"description", types.TText}, {"initial_bid", types.TInt64},
			{"reserve", types.TInt64}, {"date_time", types.TTimestamp}, {"expires", types.TTimestamp}, {"seller", types.TInt64},
			{"category", types.TInt64}, {"extra", types.TText}},
	}
	for table, cols := range tables {
		g, ts := newNexBench(t, table, cols)
		if !g.CanAppend(ts) {
			t.Fatalf("%s: CanAppend(%v) = false", table, ts)
		}
		viaRow, direct := chunk.NewBuilder(ts), chunk.NewBuilder(ts)
		var row []types.Datum
		for i := range int64(3000) {
			row = g.Row(i, row)
			viaRow.Append(chunk.Insert, row)
			g.AppendRow(i, direct.Columns())
			direct.AppendedRow(chunk.Insert)
		}
		a, b := viaRow.Build(), direct.Build()
		if !reflect.DeepEqual(a.Rows(), b.Rows()) {
			t.Fatalf("%s: appended rows differ from Row's", table)
		}
		a.Release()
		b.Release()
	}
	g, _ := newNexBench(t, "Auction", []Column{{"id", types.TNumeric}})
	if g.CanAppend([]types.Type{types.TNumeric}) {
		t.Fatal("CanAppend accepts a numeric column")
	}
}

// BenchmarkNexmarkBidChunks measures generating Nexmark bids into chunks
// of 1,024 rows as a source actor does, through Datums (Row) and straight
// into Arrow builders (AppendRow); ns/op is per row.
func BenchmarkNexmarkBidChunks(b *testing.B) {
	g, ts := newNexBench(b, "Bid", nexBidColumns)
	for _, direct := range []bool{false, true} {
		name := "Row"
		if direct {
			name = "AppendRow"
		}
		b.Run(name, func(b *testing.B) {
			bld := chunk.NewBuilder(ts)
			defer bld.Release()
			var row []types.Datum
			b.ReportAllocs()
			for i := range b.N {
				if direct {
					g.AppendRow(int64(i), bld.Columns())
					bld.AppendedRow(chunk.Insert)
				} else {
					row = g.Row(int64(i), row[:0])
					bld.Append(chunk.Insert, row)
				}
				if bld.Len() == 1024 {
					bld.Build().Release()
				}
			}
		})
	}
}

// TestNexmarkAppendRowAllocs: generating a row straight into builders
// allocates nothing (the event's text lives in the generator's arena
// until it is copied into the builders), save the builders' own growth.
func TestNexmarkAppendRowAllocs(t *testing.T) {
	for _, table := range []string{"Bid", "Person", "Auction"} {
		cols := map[string][]Column{"Bid": nexBidColumns,
			"Person": {{"id", types.TInt64}, {"name", types.TText}, {"email_address", types.TText}, {"credit_card", types.TText},
				{"city", types.TText}, {"state", types.TText}, {"date_time", types.TTimestamp}, {"extra", types.TText}},
			"Auction": {{"id", types.TInt64}, {"item_name", types.TText}, {"description", types.TText}, {"extra", types.TText}},
		}[table]
		g, ts := newNexBench(t, table, cols)
		bld := chunk.NewBuilder(ts)
		i := int64(0)
		step := func() {
			g.AppendRow(i, bld.Columns())
			bld.AppendedRow(chunk.Insert)
			i++
		}
		for range 5000 { // let the builders grow
			step()
		}
		if a := testing.AllocsPerRun(2000, step); a > 0.05 {
			t.Errorf("%s: AppendRow allocates %.2f times a row", table, a)
		}
		bld.Release()
	}
}
