package engine

import (
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/systemcatalog"
	"github.com/streamdb/streamdb/storage"
)

// StateSizes implements systemcatalog.Engine: the state tables of every
// relation, measured in one snapshot of committed state
// (streamdb_catalog.state_sizes).
func (s systemSource) StateSizes() ([]systemcatalog.StateSize, error) {
	var out []systemcatalog.StateSize
	for _, r := range s.db.relationsSorted() {
		out = append(out, stateTables(r)...)
	}
	ids := make([]uint32, len(out))
	for i, st := range out {
		ids[i] = st.Table
	}
	snap := s.db.store.Snapshot()
	defer snap.Close()
	sizes, err := storage.TableSizes(snap, ids)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].TableSize = sizes[i]
	}
	return out, nil
}

// stateTables lists the state tables r owns, unmeasured: its rows under
// its own id or Storage (a source and a plain view keep none), its operators' state
// (r.Internal) and its watermark's.
func stateTables(r *catalog.Relation) []systemcatalog.StateSize {
	if r.Kind.Virtual() {
		return nil
	}
	var out []systemcatalog.StateSize
	if r.Kind != catalog.KindSource {
		out = append(out, systemcatalog.StateSize{Relation: r, Table: r.DataID(), Kind: systemcatalog.StateRows})
	}
	for _, id := range r.Internal {
		out = append(out, systemcatalog.StateSize{Relation: r, Table: id, Kind: systemcatalog.StateInternal})
	}
	if r.Watermark != nil {
		out = append(out, systemcatalog.StateSize{Relation: r, Table: r.Watermark.State, Kind: systemcatalog.StateWatermark})
	}
	return out
}
