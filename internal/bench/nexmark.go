//go:build linux

package bench

import (
	"fmt"
	"runtime"
	"time"

	"github.com/streamdb/streamdb/internal/connector"
)

// NexmarkQuery is one Nexmark query, as RisingWave writes it.
type NexmarkQuery struct {
	Name, SQL string
	// Tables are the Nexmark tables it reads.
	Tables []string
}

// NexmarkQueries are the queries the bench and the tests run.
var NexmarkQueries = []NexmarkQuery{
	{"q0", "SELECT auction, bidder, price, date_time FROM bid", []string{"bid"}},
	{"q1", "SELECT auction, bidder, 0.908 * price AS price, date_time FROM bid", []string{"bid"}},
	{"q2", "SELECT auction, price FROM bid WHERE auction = 1007 OR auction = 1020 OR auction = 2001 OR auction = 2019 OR auction = 2087", []string{"bid"}},
	{"q3", `SELECT P.name, P.city, P.state, A.id FROM auction AS A INNER JOIN person AS P ON A.seller = P.id
		WHERE A.category = 10 AND (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA')`, []string{"auction", "person"}},
	{"q4", `SELECT Q.category, AVG(Q.final) AS avg FROM (
			SELECT MAX(B.price) AS final, A.category FROM auction A, bid B
			WHERE A.id = B.auction AND B.date_time BETWEEN A.date_time AND A.expires
			GROUP BY A.id, A.category) Q
		GROUP BY Q.category`, []string{"auction", "bid"}},
	{"q5", `SELECT AuctionBids.auction, AuctionBids.num FROM (
			SELECT bid.auction, count(*) AS num, window_start AS starttime
			FROM HOP(bid, date_time, INTERVAL '2' SECOND, INTERVAL '10' SECOND)
			GROUP BY window_start, bid.auction) AS AuctionBids
		JOIN (
			SELECT max(CountBids.num) AS maxn, CountBids.starttime_c FROM (
				SELECT count(*) AS num, window_start AS starttime_c
				FROM HOP(bid, date_time, INTERVAL '2' SECOND, INTERVAL '10' SECOND)
				GROUP BY bid.auction, window_start) AS CountBids
			GROUP BY CountBids.starttime_c) AS MaxBids
		ON AuctionBids.starttime = MaxBids.starttime_c AND AuctionBids.num >= MaxBids.maxn`, []string{"bid"}},
	{"q7", `SELECT B.auction, B.price, B.bidder, B.date_time FROM bid B
		JOIN (SELECT MAX(price) AS maxprice, window_end AS date_time
			FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND) GROUP BY window_end) B1
		ON B.price = B1.maxprice
		WHERE B.date_time BETWEEN B1.date_time - INTERVAL '10' SECOND AND B1.date_time`, []string{"bid"}},
	{"q8", `SELECT P.id, P.name, P.starttime FROM (
			SELECT id, name, window_start AS starttime, window_end AS endtime
			FROM TUMBLE(person, date_time, INTERVAL '10' SECOND)
			GROUP BY id, name, window_start, window_end) P
		JOIN (
			SELECT seller, window_start AS starttime, window_end AS endtime
			FROM TUMBLE(auction, date_time, INTERVAL '10' SECOND)
			GROUP BY seller, window_start, window_end) A
		ON P.id = A.seller AND P.starttime = A.starttime AND P.endtime = A.endtime`, []string{"auction", "person"}},
}

// nexmarkColumns are the Nexmark tables' columns.
var nexmarkColumns = map[string]string{
	"person":  "id BIGINT, name VARCHAR, email_address VARCHAR, credit_card VARCHAR, city VARCHAR, state VARCHAR, date_time TIMESTAMP, extra VARCHAR",
	"auction": "id BIGINT, item_name VARCHAR, description VARCHAR, initial_bid BIGINT, reserve BIGINT, date_time TIMESTAMP, expires TIMESTAMP, seller BIGINT, category BIGINT, extra VARCHAR",
	"bid":     "auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, date_time TIMESTAMP, extra VARCHAR",
}

var nexmarkType = map[string]string{"person": "Person", "auction": "Auction", "bid": "Bid"}

// NexmarkDDL creates Nexmark table (a SOURCE, or with asTable a TABLE that
// keeps its rows) over the first events events of the stream, held
// (source_rate_limit = 0) until released.
func NexmarkDDL(table string, events int64, asTable bool) string {
	kind := "SOURCE"
	if asTable {
		kind = "TABLE"
	}
	return fmt.Sprintf("CREATE %s %s (%s) WITH (connector = 'nexmark', nexmark.table.type = '%s', nexmark.event.num = %d, source_rate_limit = 0)",
		kind, table, nexmarkColumns[table], nexmarkType[table], events)
}

// NexmarkRows is how many rows of table the first events events hold.
func NexmarkRows(table string, events int64) int64 {
	return connector.NexmarkRows(nexmarkType[table], events)
}

// nexmark runs each query on a fresh database: its sources are created
// held, the view created, the sources released, and the time measured
// until the view has taken every event (the sources have produced them
// all and a FLUSH has committed them). Events/s counts the whole event
// stream (persons, auctions and bids), as Nexmark does.
func (s *session) nexmark(q NexmarkQuery) ([]Result, error) {
	n := s.cfg.NexmarkEvents
	for _, t := range q.Tables {
		if err := s.exec(NexmarkDDL(t, n, false)); err != nil {
			return s.out, err
		}
	}
	if err := s.exec("CREATE MATERIALIZED VIEW " + q.Name + " AS " + q.SQL); err != nil {
		return s.out, err
	}
	var rows int64
	for _, t := range q.Tables {
		rows += NexmarkRows(t, n)
	}
	err := s.timed("nexmark/"+q.Name, rows, func() error {
		for _, t := range q.Tables {
			if err := s.exec("ALTER SOURCE " + t + " SET SOURCE_RATE_LIMIT = DEFAULT"); err != nil {
				return err
			}
		}
		for _, t := range q.Tables {
			want := NexmarkRows(t, n)
			for {
				var got int64
				if err := s.c.QueryRow(s.ctx, "SELECT rows_generated FROM streamdb_catalog.sources WHERE name = $1", t).Scan(&got); err != nil {
					return err
				}
				if got >= want {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
		return s.exec("FLUSH")
	})
	s.out[len(s.out)-1].Events = n
	return s.out, err
}

// perCore divides a rate by the cores the process may use.
func perCore(rate float64) float64 { return rate / float64(runtime.GOMAXPROCS(0)) }
