package systemcatalog

import (
	"github.com/streamdb/streamdb/internal/types"
)

// streamdb_catalog.sinks lists the sinks (CREATE SINK): what each reads,
// where it delivers, its state ("creating" during its backfill, then
// its delivery's: "delivering", "retrying: ..."), the messages it has
// sent and the last epoch it delivered (NULL: none yet, or only
// backfill batches, which have no epoch of the running graph).
var sinks = newTable(nsStreamdb, "sinks", 16011, "v", sinkRows,
	`name text, sink_from text, connector text, topic text, format text, exactly_once boolean, state text, messages_sent bigint, last_delivered_epoch bigint, pending_batches bigint`)

// Sink describes a sink and where its delivery stands.
type Sink struct {
	Name, From, Connector, Topic, Format, State string
	ExactlyOnce                                 bool
	Messages                                    int64
	LastEpoch                                   uint64 // 0: none
	Pending                                     int64  // batches logged, not delivered
}

// SinkEngine is what an Engine implements, optionally, for its sinks.
type SinkEngine interface {
	// Sinks lists the sinks by name, from one snapshot of committed
	// state.
	Sinks() ([]Sink, error)
}

func sinkRows(v *view) [][]types.Datum {
	se, ok := v.e.(SinkEngine)
	if !ok {
		return nil
	}
	list, err := se.Sinks()
	if err != nil {
		v.fail(err)
		return nil
	}
	var rows [][]types.Datum
	for _, s := range list {
		var last types.Datum
		if s.LastEpoch != 0 {
			last = int64(s.LastEpoch)
		}
		rows = append(rows, []types.Datum{s.Name, s.From, s.Connector, s.Topic, s.Format, s.ExactlyOnce, s.State,
			s.Messages, last, s.Pending})
	}
	return rows
}
