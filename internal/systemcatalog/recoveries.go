package systemcatalog

import "github.com/streamdb/streamdb/internal/types"

// streamdb_catalog.recoveries lists the stream graph's recent
// recoveries: each time an actor failed and the graph was rebuilt from
// committed state, with its sequence number (max(seq) counts the
// recoveries since the database opened), the relation whose actor
// failed (NULL when not known), the root cause and how long the rebuild
// took. The engine keeps the log (Engine.Recoveries).
var recoveries = newTable(nsStreamdb, "recoveries", 16004, "v", recoveryRows,
	`seq bigint, at timestamp with time zone, relation text, cause text, rebuild_ms double precision`)

func recoveryRows(v *view) [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range v.e.Recoveries() {
		var rel types.Datum
		if r.Relation != "" {
			rel = r.Relation
		}
		rows = append(rows, []types.Datum{r.Seq, types.Timestamp(r.At.UnixMicro()), rel, r.Cause,
			float64(r.Rebuild.Microseconds()) / 1000})
	}
	return rows
}
