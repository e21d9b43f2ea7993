package connector

import (
	"testing"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

func nexCols(names ...string) []Column {
	out := make([]Column, len(names))
	for i, n := range names {
		t := types.TInt64
		switch n {
		case "name", "email_address", "credit_card", "city", "state", "extra", "item_name", "description", "channel", "url":
			t = types.TVarchar
		case "date_time", "expires":
			t = types.TTimestamp
		}
		out[i] = Column{Name: n, Type: t}
	}
	return out
}

// TestNexmarkLayout: the three tables interleave as the reference does
// (1 person, 3 auctions, 46 bids per 50 events), ids are dense from 1000,
// and bids only name auctions and people that exist by their time.
func TestNexmarkLayout(t *testing.T) {
	const events = 50_000
	mk := func(table string, cols ...string) Generator {
		g, err := New(nexCols(cols...), map[string]string{"connector": "nexmark", "nexmark.table.type": table, "nexmark.event.num": "50000"}, 0)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	person := mk("Person", "id", "name", "date_time", "extra")
	auction := mk("Auction", "id", "seller", "category", "initial_bid", "reserve", "date_time", "expires")
	bid := mk("bid", "auction", "bidder", "price", "channel", "url", "date_time")
	if person.Limit() != events/50 || auction.Limit() != events/50*3 || bid.Limit() != events/50*46 {
		t.Fatalf("limits %d %d %d", person.Limit(), auction.Limit(), bid.Limit())
	}
	var row []types.Datum
	for i := int64(0); i < person.Limit(); i++ {
		row = person.Row(i, row)
		if row[0] != 1000+i {
			t.Fatalf("person %d has id %v", i, row[0])
		}
	}
	for i := int64(0); i < auction.Limit(); i++ {
		row = auction.Row(i, row)
		if row[0] != 1000+i {
			t.Fatalf("auction %d has id %v", i, row[0])
		}
		if c := row[2].(int64); c < 10 || c >= 15 {
			t.Fatalf("auction %d category %d", i, c)
		}
		if row[4].(int64) < row[3].(int64) || row[6].(types.Timestamp) <= row[5].(types.Timestamp) {
			t.Fatalf("auction %d: reserve below initial bid or expiry before start: %v", i, row)
		}
	}
	channels := map[string]int{}
	var last types.Timestamp = -1
	for i := int64(0); i < bid.Limit(); i++ {
		row = bid.Row(i, row)
		id := bid.(*nexmark).eventID(i)
		if a := row[0].(int64) - 1000; a < 0 || a > lastBase0AuctionID(id) {
			t.Fatalf("bid %d (event %d) names auction %d, last is %d", i, id, a, lastBase0AuctionID(id))
		}
		// The reference's hot bidder is one past a multiple of 100, which
		// can be a person not yet created.
		if p := row[1].(int64) - 1000; p < 0 || p > lastBase0PersonID(id)+1 {
			t.Fatalf("bid %d names bidder %d, last is %d", i, p, lastBase0PersonID(id))
		}
		if p := row[2].(int64); p < 100 || p > 100_000_000 {
			t.Fatalf("bid %d price %d", i, p)
		}
		if ts := row[5].(types.Timestamp); ts < last {
			t.Fatalf("bid %d goes back in time", i)
		} else {
			last = ts
		}
		channels[row[3].(string)]++
	}
	if channels["Google"] == 0 || len(channels) < 100 {
		t.Fatalf("channels: %d distinct, Google %d", len(channels), channels["Google"])
	}
}

func TestNexmarkErrors(t *testing.T) {
	for code, c := range map[string]struct {
		cols []Column
		opts map[string]string
	}{
		"22023": {nexCols("price"), map[string]string{"connector": "nexmark"}},
		"42703": {nexCols("price", "nope"), map[string]string{"connector": "nexmark", "nexmark.table.type": "Bid"}},
		"42804": {[]Column{{Name: "price", Type: types.TText}}, map[string]string{"connector": "nexmark", "nexmark.table.type": "Bid"}},
	} {
		if _, err := New(c.cols, c.opts, 0); pgerr.Code(err) != code {
			t.Errorf("%v: %v, want %s", c.opts, err, code)
		}
	}
}
