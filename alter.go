package streamdb

import (
	"context"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/sql"
)

// alter runs ALTER ... PAUSE | RESUME | SET BACKFILL_RATE_LIMIT on a
// materialized view. The change is recorded in the catalog (so it
// survives a restart) and travels to the job's actors as a barrier
// mutation, taking effect at that barrier in all of them at once.
func (db *DB) alter(ctx context.Context, a *sql.AlterStmt, w ResultWriter) error {
	if a.Kind != sql.ObjMaterializedView {
		return pgerr.New(pgerr.FeatureNotSupported, "this ALTER is not supported yet: only ALTER MATERIALIZED VIEW ... PAUSE | RESUME | SET BACKFILL_RATE_LIMIT")
	}
	if a.Action == sql.AlterSetParallelism {
		return pgerr.New(pgerr.FeatureNotSupported, "SET PARALLELISM is not supported yet")
	}
	if a.Action == sql.AlterSetRateLimit && a.Param != "backfill_rate_limit" {
		return pgerr.New(pgerr.FeatureNotSupported, "%s cannot be set on a materialized view", a.Param)
	}
	if a.Action == sql.AlterSetRateLimit && !a.Default && a.Value < 0 {
		return pgerr.New(pgerr.InvalidParameterValue, "backfill_rate_limit must be at least 0, got %d", a.Value)
	}
	db.ddlMu.Lock()
	defer db.ddlMu.Unlock()
	rel, ok := db.Relation(a.Name)
	if !ok {
		return pgerr.New(pgerr.UndefinedTable, "materialized view %q does not exist", a.Name)
	}
	if rel.Kind != catalog.KindMaterializedView {
		return wrongKind(rel, catalog.KindMaterializedView)
	}
	if rel.State != catalog.StateCreating && a.Action != sql.AlterSetRateLimit {
		return pgerr.New(pgerr.ObjectNotInPrereqState,
			"materialized view %q has finished backfilling: there is no backfill to pause or resume", rel.Name)
	}
	next := *rel
	switch a.Action {
	case sql.AlterPause:
		next.BackfillPaused = true
	case sql.AlterResume:
		next.BackfillPaused = false
	case sql.AlterSetRateLimit:
		next.BackfillRateLimit, next.BackfillPaused = a.Value, !a.Default && a.Value == 0
		if a.Default {
			next.BackfillRateLimit = 0
		}
	}
	if err := db.saveRelation(&next); err != nil {
		return err
	}
	db.replaceRelation(&next)
	if rel.State == catalog.StateCreating {
		m := &stream.ThrottleMutation{Job: rel.ID, RateLimit: next.BackfillRateLimit, Paused: next.BackfillPaused}
		if err := db.coord.Mutate(ctx, m, nil, nil); err != nil {
			return err
		}
	}
	return w.Complete("ALTER MATERIALIZED VIEW")
}
