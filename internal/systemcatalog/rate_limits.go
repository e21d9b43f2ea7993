package systemcatalog

import (
	"sort"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/types"
)

// streamdb_catalog.rate_limits lists the rate limits and pauses set on
// relations, by relation name: one row per relation and kind of limit
// ("backfill" for a view, "dml" for a table, "source" for a relation
// with a connector) that has one, with the limit in rows per second (0
// when paused). An adaptive backfill rate (the default) is listed while
// its view is being created.
var rateLimits = newTable(nsStreamdb, "rate_limits", 16001, "v", rateLimitRows,
	`relation text, kind text, rate_limit bigint, paused boolean`)

// rateLimitRows lists the backfill limits of views, the DML limits of
// tables and the limits of connectors that are set (a limit, or paused).
func rateLimitRows(v *view) [][]types.Datum {
	rels := v.e.Relations()
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
		case catalog.KindMaterializedView, catalog.KindIndex:
			if r.BackfillAdaptive {
				// Adaptive is the default, so it is listed only while
				// the view backfills (or is held); its rate moves:
				// ddl_progress shows the current one.
				if r.State == catalog.StateCreating || r.BackfillHeld() {
					rows = append(rows, []types.Datum{r.Name, "backfill (adaptive)", nil, r.BackfillHeld()})
				}
				break
			}
			add(r, "backfill", r.BackfillRateLimit, r.BackfillHeld())
		case catalog.KindTable:
			add(r, "dml", r.DMLRateLimit, r.DMLPaused)
		}
		if r.Connector != nil && r.Kind != catalog.KindSink {
			add(r, "source", r.SourceRateLimit, r.SourceHeld())
		}
	}
	return rows
}
