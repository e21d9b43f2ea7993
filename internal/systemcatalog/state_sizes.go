package systemcatalog

import (
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// streamdb_catalog.state_sizes measures the state each relation keeps:
// one row per state table of each table, materialized view, index and
// source (views still being created included), in relation id order.
// kind says what the state table holds: StateRows, StateInternal or
// StateWatermark. keys counts its live keys and bytes sums their keys'
// and values' lengths as stored (exact: both are deterministic), read
// from one snapshot of committed state; estimated_disk_bytes is Pebble's
// estimate of the sstable bytes of its key range, which leaves out what
// is still in the memtable and keeps deleted keys until a compaction.
// A scan reads every key of every relation's state, so it costs in
// proportion to the whole state. A relation's totals (a job's state
// size) are
//
//	SELECT relation, sum(keys), sum(bytes) FROM streamdb_catalog.state_sizes GROUP BY relation
var stateSizes = newTable(nsStreamdb, "state_sizes", 16008, "v", stateSizeRows,
	`relation text, relation_kind text, state_table bigint, kind text, keys bigint, bytes bigint, estimated_disk_bytes bigint`)

// What a state table holds (StateSize.Kind).
const (
	// StateRows is a relation's own rows (or an index's entries), kept
	// under the relation's id (its Storage once ALTER ... TYPE rewrote them).
	StateRows = "rows"
	// StateInternal is the state of one of the relation's operators
	// (catalog.Relation.Internal): aggregates' groups, joins' sides, a
	// backfill's progress and log store, a connector's position.
	StateInternal = "internal"
	// StateWatermark is a relation's watermark and late-row count
	// (catalog.Watermark.State).
	StateWatermark = "watermark"
)

// StateSize is the size of one state table of a relation.
type StateSize struct {
	Relation *catalog.Relation
	Table    uint32
	Kind     string // StateRows, StateInternal or StateWatermark
	storage.TableSize
}

func stateSizeRows(v *view) [][]types.Datum {
	sizes, err := v.e.StateSizes()
	if err != nil {
		v.fail(err)
		return nil
	}
	rows := make([][]types.Datum, 0, len(sizes))
	for _, s := range sizes {
		rows = append(rows, []types.Datum{s.Relation.Name, s.Relation.Kind.String(), int64(s.Table), s.Kind,
			s.Keys, s.Bytes, s.DiskBytes})
	}
	return rows
}
