package engine

import (
	"sort"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// System relations are read-only views of the database's live state,
// queryable like tables under the streamdb_catalog schema.

// ddlProgressName is the catalog table of the jobs SHOW JOBS lists.
const ddlProgressName = "streamdb_catalog.ddl_progress"

// systemIDBase starts the ids of system relations, far from stored ones.
const systemIDBase = 0xFFFF0000

// rateLimitsName is the catalog table of the rate limits and pauses set
// on relations: one row per relation and kind of limit that has one.
const rateLimitsName = "streamdb_catalog.rate_limits"

var rateLimitColumns = []Column{
	{Name: "relation", Type: types.TText},
	{Name: "kind", Type: types.TText},        // "backfill", "dml" or "source"
	{Name: "rate_limit", Type: types.TInt64}, // rows per second; 0 when paused
	{Name: "paused", Type: types.TBool},
}

func (db *DB) systemRelation(name string) (*catalog.Relation, bool) {
	var cols []Column
	var id uint32
	switch name {
	case ddlProgressName:
		cols, id = jobColumns, systemIDBase
	case rateLimitsName:
		cols, id = rateLimitColumns, systemIDBase+1
	case sourcesName:
		cols, id = sourceColumns, systemIDBase+2
	case actorsName:
		cols, id = actorColumns, systemIDBase+3
	case recoveriesName:
		cols, id = recoveryColumns, systemIDBase+4
	case fragmentsName:
		cols, id = fragmentColumns, systemIDBase+5
	default:
		return nil, false
	}
	r := &catalog.Relation{ID: id, Name: name, Kind: catalog.KindSystem}
	for _, c := range cols {
		r.Columns = append(r.Columns, catalog.Column{Name: c.Name, Type: c.Type})
	}
	return r, true
}

// systemRows returns the current rows of a system relation.
func (db *DB) systemRows(r *catalog.Relation) [][]types.Datum {
	switch r.Name {
	case rateLimitsName:
		return db.rateLimitRows()
	case sourcesName:
		return db.sourceRows()
	case recoveriesName:
		return db.recoveries.snapshot()
	case actorsName:
		return db.actorRows()
	case fragmentsName:
		return db.fragmentRows()
	}
	return db.jobRows()
}

// rateLimitRows lists the backfill limits of views and the DML limits of
// tables that are set (a limit, or paused), by relation name.
func (db *DB) rateLimitRows() [][]types.Datum {
	db.mu.RLock()
	rels := make([]*catalog.Relation, 0, len(db.rels))
	for _, r := range db.rels {
		rels = append(rels, r)
	}
	db.mu.RUnlock()
	sort.Slice(rels, func(i, j int) bool { return rels[i].Name < rels[j].Name })
	var rows [][]types.Datum
	add := func(r *catalog.Relation, kind string, limit int64, paused bool) {
		if limit == 0 && !paused {
			return
		}
		rows = append(rows, []types.Datum{r.Name, kind, limit, paused})
	}
	for _, r := range rels {
		switch r.Kind {
		case catalog.KindMaterializedView:
			add(r, "backfill", r.BackfillRateLimit, r.BackfillHeld())
		case catalog.KindTable:
			add(r, "dml", r.DMLRateLimit, r.DMLPaused)
		}
		if r.Connector != nil {
			add(r, "source", r.SourceRateLimit, r.SourceHeld())
		}
	}
	return rows
}

// rowsIter is a storage.Iterator over rows held in memory.
type rowsIter struct {
	rows [][]types.Datum
	i    int
}

var _ storage.Iterator = (*rowsIter)(nil)

func (it *rowsIter) Next() bool {
	if it.i >= len(it.rows) {
		return false
	}
	it.i++
	return true
}

func (it *rowsIter) Row() []types.Datum { return it.rows[it.i-1] }
func (it *rowsIter) Err() error         { return nil }
func (it *rowsIter) Close() error       { return nil }
