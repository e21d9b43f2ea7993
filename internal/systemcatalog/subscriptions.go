package systemcatalog

import (
	"time"

	"github.com/streamdb/streamdb/internal/types"
)

// streamdb_catalog.subscriptions lists the subscriptions (CREATE
// SUBSCRIPTION): the relation each follows, its retention, and the epochs
// and changes its log holds now (NULL epochs: none yet). A cursor SINCE
// an epoch from oldest_epoch - 1 on replays without loss.
var subscriptions = newTable(nsStreamdb, "subscriptions", 16009, "v", subscriptionRows,
	`name text, relation text, retention interval, oldest_epoch bigint, newest_epoch bigint, changes bigint`)

// Subscription describes a subscription and what its log holds.
type Subscription struct {
	Name, Relation string
	Retention      time.Duration
	// Oldest and Newest are the first and last epochs the log holds (0
	// when none); Changes counts its changes.
	Oldest, Newest uint64
	Changes        int64
}

func subscriptionRows(v *view) [][]types.Datum {
	subs, err := v.e.Subscriptions()
	if err != nil {
		v.fail(err)
		return nil
	}
	var rows [][]types.Datum
	for _, s := range subs {
		var oldest, newest types.Datum
		if s.Oldest != 0 {
			oldest, newest = int64(s.Oldest), int64(s.Newest)
		}
		rows = append(rows, []types.Datum{s.Name, s.Relation, types.Interval{Micros: s.Retention.Microseconds()},
			oldest, newest, s.Changes})
	}
	return rows
}
