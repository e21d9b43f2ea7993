package engine

import (
	"context"
	"strings"
	"time"

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
	if a.Action == sql.AlterSetParallelism {
		if a.Kind == sql.ObjSource {
			if err := db.checkSourceParallelism(a); err != nil {
				return err
			}
		}
		return db.alterParallelism(ctx, a, w)
	}
	if a.Kind == sql.ObjSource || a.Kind == sql.ObjTable && a.Param == "source_rate_limit" {
		return db.alterSource(ctx, a, w)
	}
	if a.Kind == sql.ObjTable {
		return db.alterTable(a, w)
	}
	want := catalog.KindMaterializedView
	switch a.Kind {
	case sql.ObjMaterializedView:
	case sql.ObjIndex:
		want = catalog.KindIndex // maintained and backfilled as a view is
	case sql.ObjSink:
		want = catalog.KindSink // backfilled as a view is
	default:
		return pgerr.New(pgerr.FeatureNotSupported, "this ALTER is not supported yet: only ALTER MATERIALIZED VIEW | INDEX ... PAUSE | RESUME | SET BACKFILL_RATE_LIMIT")
	}
	if a.Action == sql.AlterSetRateLimit && a.Param != "backfill_rate_limit" {
		return pgerr.New(pgerr.FeatureNotSupported, "%s cannot be set on %s", a.Param, aKindWord(want))
	}
	if a.Adaptive && a.Param != "backfill_rate_limit" {
		return errNotAdaptive(a.Param)
	}
	if a.Action == sql.AlterSetRateLimit && !a.Default && !a.Unlimited && a.Value < 0 {
		return pgerr.New(pgerr.InvalidParameterValue, "backfill_rate_limit must be at least 0, got %d", a.Value)
	}
	db.ddlMu.Lock()
	defer db.ddlMu.Unlock()
	rel, ok := db.Relation(a.Name)
	if !ok {
		return pgerr.New(pgerr.UndefinedTable, "%s %q does not exist", kindWord(want), a.Name)
	}
	if rel.Kind != want {
		return wrongKind("ALTER", rel, want)
	}
	if rel.State != catalog.StateCreating && a.Action != sql.AlterSetRateLimit {
		return pgerr.New(pgerr.ObjectNotInPrereqState,
			"%s %q has finished backfilling: there is no backfill to pause or resume", kindWord(want), rel.Name)
	}
	next := *rel
	applyFlowControl(a, &next.BackfillRateLimit, &next.BackfillPaused, &next.BackfillRateZero)
	if a.Action == sql.AlterSetRateLimit {
		// DEFAULT is backfill_rate_limit's default: adaptive.
		next.BackfillAdaptive = a.Adaptive || a.Default
		if next.BackfillAdaptive && next.BackfillLatencyTarget <= 0 {
			next.BackfillLatencyTarget = defaultLatencyTarget.Microseconds()
		}
	}
	if a.Action == sql.AlterResume {
		// RESUME lifts a quarantine (job_failures.go) and retries.
		next.BackfillQuarantined, next.BackfillFailures, next.BackfillError = false, 0, ""
	}
	if err := db.saveRelation(&next); err != nil {
		return err
	}
	db.replaceRelation(&next)
	if a.Action == sql.AlterResume {
		db.mu.RLock()
		j := db.jobs[rel.ID]
		db.mu.RUnlock()
		if j != nil {
			j.clearFailures()
		}
	}
	if rel.State == catalog.StateCreating {
		m := &stream.ThrottleMutation{Job: rel.ID, RateLimit: next.BackfillRateLimit, Paused: next.BackfillHeld(),
			LatencyTarget: next.AdaptiveTarget()}
		if err := db.coord.Mutate(ctx, m, nil, nil); err != nil {
			return err
		}
	}
	return w.Complete("ALTER " + strings.ToUpper(kindWord(want)))
}

// alterTable runs ALTER TABLE t SET DML_RATE_LIMIT {= | TO} n | DEFAULT:
// the rows per second DML statements may write into t (0 pauses them;
// DEFAULT removes the limit). It is recorded in the catalog and applies
// to the table's limiter at once: statements waiting on it recompute
// their wait, a paused one goes on when resumed (see dmlLimiter). No
// barrier is needed: DML is paced before it enters the graph.
func (db *DB) alterTable(a *sql.AlterStmt, w ResultWriter) error {
	if a.Adaptive {
		return errNotAdaptive(a.Param)
	}
	if a.Action != sql.AlterSetRateLimit {
		return pgerr.New(pgerr.FeatureNotSupported, "this ALTER TABLE is not supported: only ALTER TABLE ... SET DML_RATE_LIMIT")
	}
	if a.Param != "dml_rate_limit" {
		return pgerr.New(pgerr.FeatureNotSupported, "%s cannot be set on a table: only dml_rate_limit and source_rate_limit", a.Param)
	}
	if !a.Default && a.Value < 0 {
		return pgerr.New(pgerr.InvalidParameterValue, "dml_rate_limit must be at least 0, got %d", a.Value)
	}
	db.ddlMu.Lock()
	defer db.ddlMu.Unlock()
	rel, ok := db.Relation(a.Name)
	if !ok {
		return pgerr.New(pgerr.UndefinedTable, "table %q does not exist", a.Name)
	}
	if rel.Kind != catalog.KindTable {
		e := pgerr.New("42809", "%q is not a table", rel.Name)
		if rel.Kind == catalog.KindMaterializedView {
			e.Hint = "Use ALTER MATERIALIZED VIEW to change a materialized view."
		}
		return e
	}
	next := *rel
	applyFlowControl(a, &next.DMLRateLimit, nil, &next.DMLPaused)
	if err := db.saveRelation(&next); err != nil {
		return err
	}
	db.replaceRelation(&next)
	db.mu.RLock()
	rt := db.runtime[rel.ID]
	db.mu.RUnlock()
	if rt != nil && rt.table != nil {
		rt.table.Limiter().Set(next.DMLRateLimit, next.DMLPaused)
	}
	return w.Complete("ALTER TABLE")
}

// alterSource runs ALTER SOURCE s PAUSE | RESUME | SET SOURCE_RATE_LIMIT
// {= | TO} n | DEFAULT, and ALTER TABLE t SET SOURCE_RATE_LIMIT for a
// table with a connector. Like a backfill's flow control, the change is
// recorded in the catalog and travels as a barrier mutation: the
// connector produces nothing after a pausing barrier, and a new limit
// paces it from its barrier on.
func (db *DB) alterSource(ctx context.Context, a *sql.AlterStmt, w ResultWriter) error {
	if a.Adaptive {
		return errNotAdaptive(a.Param)
	}
	what, tag := "source", "ALTER SOURCE"
	if a.Kind == sql.ObjTable {
		what, tag = "table", "ALTER TABLE"
	}
	switch a.Action {
	case sql.AlterPause, sql.AlterResume:
	case sql.AlterSetRateLimit:
		if a.Param != "source_rate_limit" {
			return pgerr.New(pgerr.FeatureNotSupported, "%s cannot be set on a source: only source_rate_limit", a.Param)
		}
		if !a.Default && a.Value < 0 {
			return pgerr.New(pgerr.InvalidParameterValue, "source_rate_limit must be at least 0, got %d", a.Value)
		}
	default:
		return pgerr.New(pgerr.FeatureNotSupported, "this ALTER SOURCE is not supported: only PAUSE, RESUME and SET SOURCE_RATE_LIMIT")
	}
	db.ddlMu.Lock()
	defer db.ddlMu.Unlock()
	rel, ok := db.Relation(a.Name)
	if !ok {
		return pgerr.New(pgerr.UndefinedTable, "%s %q does not exist", what, a.Name)
	}
	if a.Kind == sql.ObjSource && rel.Kind != catalog.KindSource {
		e := pgerr.New("42809", "%q is not a source", rel.Name)
		if rel.Kind == catalog.KindTable && rel.Connector != nil {
			e.Hint = "Use ALTER TABLE ... SET SOURCE_RATE_LIMIT for a table with a connector."
		}
		return e
	}
	if rel.Connector == nil {
		return pgerr.New(pgerr.ObjectNotInPrereqState, "table %q has no connector: there is no source rate to limit", rel.Name)
	}
	next := *rel
	applyFlowControl(a, &next.SourceRateLimit, &next.SourcePaused, &next.SourceRateZero)
	if err := db.saveRelation(&next); err != nil {
		return err
	}
	db.replaceRelation(&next)
	m := &stream.ThrottleMutation{Kind: stream.ThrottleSource, Job: rel.ID, RateLimit: next.SourceRateLimit, Paused: next.SourceHeld()}
	if err := db.coord.Mutate(ctx, m, nil, nil); err != nil {
		return err
	}
	return w.Complete(tag)
}

// defaultLatencyTarget is backfill_latency_target's default.
const defaultLatencyTarget = 5 * time.Millisecond

func errNotAdaptive(param string) error {
	e := pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter %q: \"adaptive\"", param)
	e.Hint = "Only backfill_rate_limit can be adaptive."
	return e
}

// applyFlowControl applies a PAUSE, RESUME or SET ..._RATE_LIMIT to a
// relation's settings of one kind: paused is PAUSE/RESUME's flag (nil
// where there is none), limit the rows per second (0: none) and zero
// whether the limit is 0, which holds the flow independently of PAUSE.
func applyFlowControl(a *sql.AlterStmt, limit *int64, paused, zero *bool) {
	switch a.Action {
	case sql.AlterPause:
		*paused = true
	case sql.AlterResume:
		*paused = false
	case sql.AlterSetRateLimit:
		none := a.Default || a.Adaptive || a.Unlimited
		*limit, *zero = a.Value, !none && a.Value == 0
		if none {
			*limit = 0
		}
	}
}
