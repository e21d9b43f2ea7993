package streamdb

import (
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

func (db *DB) systemRelation(name string) (*catalog.Relation, bool) {
	if name != ddlProgressName {
		return nil, false
	}
	r := &catalog.Relation{ID: systemIDBase, Name: ddlProgressName, Kind: catalog.KindSystem}
	for _, c := range jobColumns {
		r.Columns = append(r.Columns, catalog.Column{Name: c.Name, Type: c.Type})
	}
	return r, true
}

// systemRows returns the current rows of a system relation.
func (db *DB) systemRows(r *catalog.Relation) [][]types.Datum {
	return db.jobRows()
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
