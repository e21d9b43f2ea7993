package engine

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/planner"
)

// giveErrorTables gives each Kafka table or source created before
// sources kept their malformed messages in a state table of their own
// (stream.SplitErrorTable, planner.SplitErrorState) that table, at Open,
// before any job is built: its catalog entry gains the table's id as its
// second internal table, and the id counter moves past it, in one durable
// write (Store.UpdateMeta), as a DDL statement's catalog change is. A
// crash before the write leaves the relation as it was, to be given its
// table at the next Open; after it, the relation has one, and the new id
// is never given again. The table starts empty: what such a relation
// skipped before was listed in memory only and is gone already. From
// then on its errors are written with the offsets in each epoch's batch
// and kept across restarts, as any newer relation's are.
func (db *DB) giveErrorTables() error {
	for _, r := range db.relationsSorted() {
		if !lacksErrorTable(r) {
			continue
		}
		nr := *r // copy-on-write: published relations are never written
		nr.Internal = append(slices.Clone(r.Internal), db.nextID)
		b, err := json.Marshal(&nr)
		if err != nil {
			return err
		}
		var next [4]byte
		binary.BigEndian.PutUint32(next[:], db.nextID+1)
		if err := db.store.UpdateMeta(nil, map[string][]byte{relKey(r.ID): b, metaNextID: next[:]}); err != nil {
			return fmt.Errorf("streamdb: giving %s %q its error table: %w", r.Kind, r.Name, err)
		}
		db.nextID++
		db.replaceRelation(&nr)
	}
	return nil
}

// lacksErrorTable reports whether r is a Kafka table or source without
// its error table: one an older streamdb created, with its position
// table alone.
func lacksErrorTable(r *catalog.Relation) bool {
	if r.Kind != catalog.KindTable && r.Kind != catalog.KindSource {
		return false
	}
	if !readsSplits(r.Connector) {
		return false
	}
	_, ok := planner.SplitErrorState(r)
	return !ok && len(r.Internal) == 1
}
