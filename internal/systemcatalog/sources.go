package systemcatalog

import (
	"github.com/streamdb/streamdb/internal/catalog"
	srcconn "github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/types"
)

// streamdb_catalog.sources lists the relations fed by a connector
// (sources, and tables WITH connector): its kind ("source" or "table"),
// the rows it has produced so far (committed or about to be; NULL when
// it is not running), its configured rows per second, its
// source_rate_limit (NULL: none) and whether it is paused; for a source
// that reads splits (Kafka), the malformed messages it skipped and its
// reader's state ("running", "retrying: <error>").
var sources = newTable(nsStreamdb, "sources", 16002, "v", sourceRows,
	`name text, kind text, connector text, rows_generated bigint, rows_per_second bigint, source_rate_limit bigint, paused boolean, skipped bigint, state text`)

// sourceRows lists the relations with a connector, in creation order.
func sourceRows(v *view) [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range v.e.Relations() {
		if r.Connector == nil || r.Kind == catalog.KindSink { // a sink's connector is where it writes
			continue
		}
		var generated types.Datum
		if n, ok := v.e.RowsGenerated(r.ID); ok {
			generated = n
		}
		var limit types.Datum
		if r.SourceRateLimit > 0 || r.SourceRateZero {
			limit = r.SourceRateLimit
		}
		kind := "source"
		if r.Kind == catalog.KindTable {
			kind = "table"
		}
		skipped, state := sourceStatus(v, r.ID)
		rows = append(rows, []types.Datum{r.Name, kind, r.Connector[srcconn.OptConnector], generated, srcconn.ConfiguredRate(r.Connector), limit, r.SourcePaused,
			skipped, state})
	}
	return rows
}
