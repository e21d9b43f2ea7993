package connector

import (
	"fmt"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unsafe"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// nexmark generates the Nexmark benchmark's events (persons, auctions and
// bids of an online auction), laid out as the reference generator does:
// events come in epochs of 50, one person, three auctions and 46 bids;
// ids start at 1000; auction sellers, bid auctions and bidders are
// mostly "hot" (recent, rounded down to a multiple of 100), sometimes any
// recent one; prices are log-uniform; event times are spaced by the
// inter-event gap from a base time. A source is one table type, as in
// RisingWave (nexmark.table.type = 'Bid' | 'Auction' | 'Person'); its row
// i is the i-th event of that type, and every value is drawn from a
// generator seeded by the event's number, so row i never depends on how
// many rows were made before it.
type nexmark struct {
	table   nexmarkTable
	fill    []nexmarkColumn // per source column: which field
	limit   int64           // rows of this table in the first event.num events; -1: no end
	gapUS   float64         // event-time gap between events, µs
	base    int64           // event time of event 0, µs
	rateMax int64
	arena   strArena // the current event's text (not safe for concurrent use)
	// read, when not nil, are the columns (of fill) AppendRow fills, and
	// want their fields (PruneColumns, nexmark_prune.go).
	read []bool
	want nexMask
}

type nexmarkTable uint8

const (
	nexmarkPerson nexmarkTable = iota
	nexmarkAuction
	nexmarkBid
)

// Event proportions of the reference generator.
const (
	personProportion  = 1
	auctionProportion = 3
	bidProportion     = 46
	totalProportion   = personProportion + auctionProportion + bidProportion

	firstPersonID   = 1000
	firstAuctionID  = 1000
	firstCategoryID = 10
	numCategories   = 5

	hotSellerRatio  = 100
	hotAuctionRatio = 100
	hotBidderRatio  = 100
	hotChannelRatio = 2

	// numActivePeople / numInFlightAuctions bound how far back a non-hot
	// pick reaches.
	numActivePeople     = 1000
	numInFlightAuctions = 100

	avgPersonBytes  = 200
	avgAuctionBytes = 500
	avgBidBytes     = 100
)

var (
	nexFirstNames = []string{"Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter"}
	nexLastNames  = []string{"Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"}
	nexStates     = []string{"AZ", "CA", "ID", "OR", "WA", "WY"}
	nexCities     = []string{"Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend", "Redmond", "Seattle", "Kent", "Cheyenne"}
	nexChannels   = []string{"Google", "Facebook", "Baidu", "Apple"}
)

// nexmarkColumn names a field of an event.
type nexmarkColumn uint8

const (
	nexID nexmarkColumn = iota
	nexName
	nexEmail
	nexCreditCard
	nexCity
	nexState
	nexDateTime
	nexExtra
	nexItemName
	nexDescription
	nexInitialBid
	nexReserve
	nexExpires
	nexSeller
	nexCategory
	nexAuction
	nexBidder
	nexPrice
	nexChannel
	nexURL
)

// nexmarkSchemas are the columns of each table, with their types.
var nexmarkSchemas = [...]map[string]struct {
	col nexmarkColumn
	typ types.ID
}{
	nexmarkPerson: {
		"id": {nexID, types.IDInt64}, "name": {nexName, types.IDVarchar}, "email_address": {nexEmail, types.IDVarchar},
		"credit_card": {nexCreditCard, types.IDVarchar}, "city": {nexCity, types.IDVarchar}, "state": {nexState, types.IDVarchar},
		"date_time": {nexDateTime, types.IDTimestamp}, "extra": {nexExtra, types.IDVarchar},
	},
	nexmarkAuction: {
		"id": {nexID, types.IDInt64}, "item_name": {nexItemName, types.IDVarchar}, "description": {nexDescription, types.IDVarchar},
		"initial_bid": {nexInitialBid, types.IDInt64}, "reserve": {nexReserve, types.IDInt64}, "date_time": {nexDateTime, types.IDTimestamp},
		"expires": {nexExpires, types.IDTimestamp}, "seller": {nexSeller, types.IDInt64}, "category": {nexCategory, types.IDInt64},
		"extra": {nexExtra, types.IDVarchar},
	},
	nexmarkBid: {
		"auction": {nexAuction, types.IDInt64}, "bidder": {nexBidder, types.IDInt64}, "price": {nexPrice, types.IDInt64},
		"channel": {nexChannel, types.IDVarchar}, "url": {nexURL, types.IDVarchar}, "date_time": {nexDateTime, types.IDTimestamp},
		"extra": {nexExtra, types.IDVarchar},
	},
}

const (
	optNexTable    = "nexmark.table.type"
	optNexEvents   = "nexmark.event.num"
	optNexGap      = "nexmark.min.event.gap.in.ns"
	optNexRate     = "nexmark.rows.per.second"
	optNexSplits   = "nexmark.split.num"
	optNexMaxChunk = "nexmark.max.chunk.size"
)

func newNexmark(cols []Column, opts map[string]string, base int64) (*nexmark, error) {
	g := &nexmark{limit: -1, gapUS: 100, base: base, want: nexAll}
	for k, v := range opts {
		v = strings.TrimSpace(v)
		switch k {
		case OptConnector:
		case optNexTable:
			t, ok := nexmarkTableByName(v)
			if !ok {
				return nil, optionError(k, v, "the table type is 'Bid', 'Auction' or 'Person'.")
			}
			g.table = t
		case optNexEvents:
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < -1 {
				return nil, optionError(k, v, "the number of events is an integer (-1: no end).")
			}
			g.limit = n
		case optNexGap:
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return nil, optionError(k, v, "the gap between events is an integer number of nanoseconds, at least 0.")
			}
			g.gapUS = float64(n) / 1000
		case optNexRate:
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return nil, optionError(k, v, "rows per second is an integer at least 0 (0: as fast as possible).")
			}
			g.rateMax = n
		case optNexSplits, optNexMaxChunk:
			if n, err := strconv.Atoi(v); err != nil || n < 1 {
				return nil, optionError(k, v, "an integer at least 1 is expected.")
			}
		default:
			e := pgerr.New(pgerr.InvalidParameterValue, "unrecognized nexmark option %q", k)
			e.Hint = "nexmark options are: nexmark.table.type, nexmark.event.num, nexmark.min.event.gap.in.ns, nexmark.rows.per.second, nexmark.split.num, nexmark.max.chunk.size."
			return nil, e
		}
	}
	if _, ok := opts[optNexTable]; !ok {
		e := pgerr.New(pgerr.InvalidParameterValue, "a nexmark source needs %s", optNexTable)
		e.Hint = "Set nexmark.table.type = 'Bid', 'Auction' or 'Person'."
		return nil, e
	}
	schema := nexmarkSchemas[g.table]
	for _, c := range cols {
		f, ok := schema[c.Name]
		if !ok {
			return nil, pgerr.New(pgerr.UndefinedColumn, "nexmark %s events have no field %q", g.tableName(), c.Name)
		}
		if !nexmarkTypeFits(f.typ, c.Type) {
			return nil, pgerr.New(pgerr.DatatypeMismatch, "nexmark field %q is %s, but column %q is %s",
				c.Name, types.Type{ID: f.typ}, c.Name, c.Type)
		}
		g.fill = append(g.fill, f.col)
	}
	if g.limit >= 0 {
		g.limit = nexmarkRowsIn(g.table, g.limit)
	}
	return g, nil
}

func (g *nexmark) tableName() string {
	return [...]string{"person", "auction", "bid"}[g.table]
}

func nexmarkTypeFits(want types.ID, got types.Type) bool {
	switch want {
	case types.IDInt64:
		return got.ID == types.IDInt64 || got.ID == types.IDNumeric
	case types.IDVarchar:
		return got.ID == types.IDVarchar && got.Width == 0 || got.ID == types.IDText
	case types.IDTimestamp:
		return got.ID == types.IDTimestamp || got.ID == types.IDTimestampTZ
	}
	return false
}

// nexmarkRowsIn is how many events of table are among the first n events.
func nexmarkRowsIn(table nexmarkTable, n int64) int64 {
	epochs, rem := n/totalProportion, n%totalProportion
	var per, lo int64
	switch table {
	case nexmarkPerson:
		per, lo = personProportion, 0
	case nexmarkAuction:
		per, lo = auctionProportion, personProportion
	default:
		per, lo = bidProportion, personProportion+auctionProportion
	}
	return epochs*per + min(per, max(0, rem-lo))
}

// NexmarkRows is how many rows a nexmark source of table type table
// ('Person', 'Auction' or 'Bid', any case) makes from the first events
// events of the stream.
func NexmarkRows(table string, events int64) int64 {
	t, ok := nexmarkTableByName(table)
	if !ok {
		return 0
	}
	return nexmarkRowsIn(t, events)
}

func nexmarkTableByName(name string) (nexmarkTable, bool) {
	switch strings.ToLower(name) {
	case "person":
		return nexmarkPerson, true
	case "auction":
		return nexmarkAuction, true
	case "bid":
		return nexmarkBid, true
	}
	return 0, false
}

// eventID is the event number of row i of the generator's table.
func (g *nexmark) eventID(i int64) int64 {
	switch g.table {
	case nexmarkPerson:
		return i / personProportion * totalProportion
	case nexmarkAuction:
		return i/auctionProportion*totalProportion + personProportion + i%auctionProportion
	}
	return i/bidProportion*totalProportion + personProportion + auctionProportion + i%bidProportion
}

func (g *nexmark) Limit() int64         { return g.limit }
func (g *nexmark) RowsPerSecond() int64 { return g.rateMax }

// lastBase0PersonID is the id (from 0) of the last person created at or
// before event id.
func lastBase0PersonID(id int64) int64 {
	epoch, off := id/totalProportion, id%totalProportion
	if off >= personProportion {
		off = personProportion - 1
	}
	return epoch*personProportion + off
}

// lastBase0AuctionID is the id (from 0) of the last auction created at or
// before event id.
func lastBase0AuctionID(id int64) int64 {
	epoch, off := id/totalProportion, id%totalProportion
	switch {
	case off < personProportion:
		epoch--
		off = auctionProportion - 1
	case off >= personProportion+auctionProportion:
		off = auctionProportion - 1
	default:
		off -= personProportion
	}
	return epoch*auctionProportion + off
}

// nexChannelURLs are the URLs of the hot channels' bids.
var nexChannelURLs = func() []string {
	urls := make([]string, len(nexChannels))
	for i, c := range nexChannels {
		urls[i] = "https://www.nexmark.com/" + strings.ToLower(c) + "/item.htm?query=1"
	}
	return urls
}()

// rng is SplitMix64 seeded by an event number.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	x := splitmix(r.s)
	r.s += 0x9e3779b97f4a7c15
	return x
}

func (r *rng) intn(n int64) int64 { return int64(r.next() % uint64(n)) }
func (r *rng) float() float64     { return float64(r.next()>>11) / (1 << 53) }

// appendStr appends n random lowercase letters to b, ten per 64-bit draw
// (each letter is the integer part of 26 times the remaining fraction).
func (r *rng) appendStr(b []byte, n int) []byte {
	for i := 0; i < n; {
		x := r.next()
		for k := 0; k < 10 && i < n; k++ {
			var d uint64
			d, x = bits.Mul64(x, 26)
			b = append(b, byte('a'+d))
			i++
		}
	}
	return b
}

// extraLen is the length of the padding that brings an event to about
// avg bytes, as the reference's nextExtra.
func (r *rng) extraLen(size, avg int) int {
	if size >= avg {
		return 0
	}
	want := avg - size
	return int(float64(want) * (0.9 + 0.2*r.float()))
}

// price is log-uniform from 100 to 10^8 (cents), as the reference's
// nextPrice: 10^(6u) * 100, computed as e^(6u ln 10), which costs half
// of math.Pow.
func (r *rng) price() int64 { return int64(math.Round(math.Exp(r.float()*(6*math.Ln10)) * 100)) }

// strArena holds the text of one event: the strings of a nexEvent point
// into it, valid until the next event (Row clones them; AppendRow copies
// them into the builders), so an event allocates nothing.
type strArena struct {
	b     []byte
	start int
}

func (a *strArena) reset() { a.b, a.start = a.b[:0], 0 }

// add appends s to the string being built.
func (a *strArena) add(s string) { a.b = append(a.b, s...) }

// int appends n in decimal to the string being built.
func (a *strArena) int(n int64) { a.b = strconv.AppendInt(a.b, n, 10) }

// letters appends n random letters to the string being built.
func (a *strArena) letters(r *rng, n int) { a.b = r.appendStr(a.b, n) }

// end returns the string built since the last end. When the arena grew
// meanwhile, strings returned before still point into the old array,
// which stays valid.
func (a *strArena) end() string {
	s := a.b[a.start:]
	a.start = len(a.b)
	if len(s) == 0 {
		return ""
	}
	return unsafe.String(&s[0], len(s))
}

// nexEvent holds the fields of one event: integer and timestamp fields
// in ints, text fields in strs, both indexed by nexmarkColumn.
type nexEvent struct {
	ints [nexURL + 1]int64
	strs [nexURL + 1]string
}

// nexTextColumn reports whether a field is text (else an integer or a
// timestamp, in µs).
func nexTextColumn(c nexmarkColumn) bool {
	switch c {
	case nexName, nexEmail, nexCreditCard, nexCity, nexState, nexExtra, nexItemName, nexDescription, nexChannel, nexURL:
		return true
	}
	return false
}

// Row implements Generator.
func (g *nexmark) Row(i int64, dst []types.Datum) []types.Datum {
	dst = dst[:0]
	var ev nexEvent
	g.event(i, &ev, nexAll)
	for _, c := range g.fill {
		switch {
		case nexTextColumn(c):
			dst = append(dst, strings.Clone(ev.strs[c]))
		case c == nexDateTime || c == nexExpires:
			dst = append(dst, types.Timestamp(ev.ints[c]))
		default:
			dst = append(dst, ev.ints[c])
		}
	}
	return dst
}

// CanAppend implements the stream package's Appender: the integer columns must be bigint,
// the timestamps timestamp (or timestamptz) and the text text.
func (g *nexmark) CanAppend(ts []types.Type) bool {
	if len(ts) != len(g.fill) {
		return false
	}
	for j, c := range g.fill {
		switch {
		case nexTextColumn(c):
			if ts[j].ID != types.IDText && ts[j].ID != types.IDVarchar {
				return false
			}
		case c == nexDateTime || c == nexExpires:
			if ts[j].ID != types.IDTimestamp && ts[j].ID != types.IDTimestampTZ {
				return false
			}
		default:
			if ts[j].ID != types.IDInt64 {
				return false
			}
		}
	}
	return true
}

// AppendRow implements the stream package's Appender. After
// PruneColumns, it appends nothing to the columns not read.
func (g *nexmark) AppendRow(i int64, cols []array.Builder) {
	var ev nexEvent
	g.event(i, &ev, g.want)
	for j, c := range g.fill {
		if g.read != nil && !g.read[j] {
			continue
		}
		switch b := cols[j].(type) {
		case *array.StringBuilder:
			b.Append(ev.strs[c])
		case *array.TimestampBuilder:
			b.Append(arrow.Timestamp(ev.ints[c]))
		case *array.Int64Builder:
			b.Append(ev.ints[c])
		default:
			panic(fmt.Sprintf("nexmark: column %d has builder %T", j, cols[j]))
		}
	}
}

// event computes the fields of row i in want (others it may leave
// unset); its strings are valid until the next call. A field not wanted
// still takes its draws from r (rng.skip), so that the fields after it
// are those of the full event: row i is the same whichever columns are
// read.
func (g *nexmark) event(i int64, ev *nexEvent, want nexMask) {
	id := g.eventID(i)
	r := &rng{s: uint64(id)*0x9e3779b97f4a7c15 ^ 0x5deece66d}
	a := &g.arena
	a.reset()
	at := g.base + int64(float64(id)*g.gapUS)
	ev.ints[nexDateTime] = at
	switch g.table {
	case nexmarkPerson:
		ev.ints[nexID] = lastBase0PersonID(id) + firstPersonID
		a.add(nexFirstNames[r.intn(int64(len(nexFirstNames)))])
		a.add(" ")
		a.add(nexLastNames[r.intn(int64(len(nexLastNames)))])
		name := a.end()
		var email, card string
		if want.has(nexEmail) {
			a.letters(r, 7)
			a.add("@")
			a.letters(r, 5)
			a.add(".com")
			email = a.end()
		} else {
			r.skip(letterDraws(7) + letterDraws(5))
		}
		if want.has(nexCreditCard) {
			for k := 0; k < 4; k++ {
				if k > 0 {
					a.add(" ")
				}
				a.int(1000 + r.intn(9000))
			}
			card = a.end()
		} else {
			r.skip(4)
		}
		city := nexCities[r.intn(int64(len(nexCities)))]
		state := nexStates[r.intn(int64(len(nexStates)))]
		ev.strs[nexName], ev.strs[nexEmail], ev.strs[nexCreditCard], ev.strs[nexCity], ev.strs[nexState] = name, email, card, city, state
		if !want.has(nexExtra) {
			return // the extra's draws are the event's last
		}
		// An email is 17 bytes and a card 19, whether made or skipped.
		a.letters(r, r.extraLen(len(name)+nexEmailLen+nexCardLen+len(city)+len(state)+8+8, avgPersonBytes))
		ev.strs[nexExtra] = a.end()
	case nexmarkAuction:
		ev.ints[nexID] = lastBase0AuctionID(id) + firstAuctionID
		var seller int64
		if r.intn(hotSellerRatio) > 0 {
			seller = lastBase0PersonID(id) / hotSellerRatio * hotSellerRatio
		} else {
			seller = nextBase0(r, lastBase0PersonID(id), numActivePeople)
		}
		initial := r.price()
		item := a.lettersIf(r, nexItemLen, want.has(nexItemName))
		desc := a.lettersIf(r, nexDescLen, want.has(nexDescription))
		ev.strs[nexItemName], ev.strs[nexDescription] = item, desc
		ev.ints[nexInitialBid], ev.ints[nexReserve] = initial, initial+r.price()
		// Auctions last a few event-time seconds to a few minutes.
		ev.ints[nexExpires] = at + 1_000_000 + r.intn(600_000_000)
		ev.ints[nexSeller] = seller + firstPersonID
		ev.ints[nexCategory] = firstCategoryID + r.intn(numCategories)
		if !want.has(nexExtra) {
			return
		}
		a.letters(r, r.extraLen(nexItemLen+nexDescLen+8*6, avgAuctionBytes))
		ev.strs[nexExtra] = a.end()
	default:
		var auction, bidder int64
		if r.intn(hotAuctionRatio) > 0 {
			auction = lastBase0AuctionID(id) / hotAuctionRatio * hotAuctionRatio
		} else {
			auction = nextBase0(r, lastBase0AuctionID(id), numInFlightAuctions)
		}
		if r.intn(hotBidderRatio) > 0 {
			bidder = lastBase0PersonID(id)/hotBidderRatio*hotBidderRatio + 1
		} else {
			bidder = nextBase0(r, lastBase0PersonID(id), numActivePeople)
		}
		ev.ints[nexAuction], ev.ints[nexBidder] = auction+firstAuctionID, bidder+firstPersonID
		ev.ints[nexPrice] = r.price()
		if want&(1<<nexChannel|1<<nexURL|1<<nexExtra) == 0 {
			return // the text's draws come last
		}
		var channel, url string
		if r.intn(hotChannelRatio) > 0 {
			k := r.intn(int64(len(nexChannels)))
			channel = nexChannels[k]
			url = nexChannelURLs[k]
		} else {
			k := r.intn(10000)
			a.add("channel-")
			a.int(k)
			channel = a.end()
			a.add("https://www.nexmark.com/")
			for j := 0; j < 3; j++ {
				a.letters(r, 5)
				a.add("/")
			}
			a.add("item.htm?query=1&channel_id=")
			a.int(k)
			url = a.end()
		}
		ev.strs[nexChannel], ev.strs[nexURL] = channel, url
		if !want.has(nexExtra) {
			return
		}
		a.letters(r, r.extraLen(len(channel)+len(url)+8*4, avgBidBytes))
		ev.strs[nexExtra] = a.end()
	}
}

// nextBase0 picks one of the last n ids up to last (from 0), as the
// reference's nextBase0PersonId / nextBase0AuctionId.
func nextBase0(r *rng, last, n int64) int64 {
	lo := max(0, last-n+1)
	return lo + r.intn(last-lo+1)
}
