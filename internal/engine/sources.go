package engine

import (
	"github.com/streamdb/streamdb/internal/catalog"
	srcconn "github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/types"
)

// sourcesName is the catalog table of the relations fed by a connector
// (sources, and tables WITH connector): what each has produced and how it
// is throttled.
const sourcesName = "streamdb_catalog.sources"

var sourceColumns = []Column{
	{Name: "name", Type: types.TText},
	{Name: "kind", Type: types.TText}, // "source" or "table"
	{Name: "connector", Type: types.TText},
	{Name: "rows_generated", Type: types.TInt64}, // rows produced so far, committed or about to be
	{Name: "rows_per_second", Type: types.TInt64},
	{Name: "source_rate_limit", Type: types.TInt64}, // NULL: none
	{Name: "paused", Type: types.TBool},
}

// sourceRows lists the relations with a connector, in creation order.
func (db *DB) sourceRows() [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range db.relationsSorted() {
		if r.Connector == nil {
			continue
		}
		db.mu.RLock()
		rt := db.runtime[r.ID]
		db.mu.RUnlock()
		var generated types.Datum
		if rt != nil && rt.generated != nil {
			generated = rt.generated.Load()
		}
		var limit types.Datum
		if r.SourceRateLimit > 0 || r.SourceRateZero {
			limit = r.SourceRateLimit
		}
		kind := "source"
		if r.Kind == catalog.KindTable {
			kind = "table"
		}
		rows = append(rows, []types.Datum{r.Name, kind, r.Connector[srcconn.OptConnector], generated, srcconn.ConfiguredRate(r.Connector), limit, r.SourcePaused})
	}
	return rows
}
