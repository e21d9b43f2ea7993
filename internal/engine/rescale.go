package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
	"github.com/streamdb/streamdb/storage"
)

// alterParallelism runs ALTER {MATERIALIZED VIEW | TABLE | SOURCE} name SET
// PARALLELISM {= | TO} n | ADAPTIVE | DEFAULT: it rescales the relation's
// job at runtime, in any backfill phase (see rescale).
func (db *DB) alterParallelism(ctx context.Context, a *sql.AlterStmt, w ResultWriter) error {
	if !a.Default && (a.Value < 1 || a.Value > MaxParallelism) {
		e := pgerr.New(pgerr.InvalidParameterValue, "parallelism must be from 1 to %d, got %d", MaxParallelism, a.Value)
		e.Hint = "Use SET PARALLELISM = ADAPTIVE to follow the number of cores."
		return e
	}
	want := catalog.KindMaterializedView
	switch a.Kind {
	case sql.ObjTable:
		want = catalog.KindTable
	case sql.ObjIndex:
		want = catalog.KindIndex
	case sql.ObjSource:
		want = catalog.KindSource // a Kafka one (checkSourceParallelism)
	}
	db.ddlMu.Lock()
	defer db.ddlMu.Unlock()
	rel, ok := db.Relation(a.Name)
	if !ok || rel.ID == 0 {
		return pgerr.New(pgerr.UndefinedTable, "%s %q does not exist", kindWord(want), a.Name)
	}
	if rel.Kind != want {
		return wrongKind("ALTER", rel, want)
	}
	next := *rel
	next.Parallelism, next.Adaptive = int(a.Value), a.Default
	if a.Default {
		next.Parallelism = db.opts.Parallelism
	}
	if rel.Kind == catalog.KindTable {
		// No DML may be on its way into the table's source while the
		// source is replaced.
		db.mu.RLock()
		rt := db.runtime[rel.ID]
		db.mu.RUnlock()
		if rt != nil && rt.table != nil {
			rt.table.Lock()
			defer rt.table.Unlock()
		}
	}
	if err := db.saveRelation(&next); err != nil {
		return err
	}
	db.replaceRelation(&next)
	if err := db.rescale(ctx, rel.ID); err != nil {
		return err
	}
	return w.Complete("ALTER " + strings.ToUpper(kindWord(want)))
}

// rescale makes the running job of relation id match the parallelism its
// catalog entry records. The job and every job downstream of it (their
// scans read its actors) are rebuilt from the catalog and swapped in at
// one barrier (stream.UpdateMutation): the old actors pass the barrier and
// stop, and the new ones start on the state that barrier committed. All
// operator state, backfill progress and log store are keyed by vnode, so
// each vnode's state moves to the new actor that owns it (I4); a job still
// backfilling resumes from its committed progress, in whatever phase it
// is (snapshot, log store), exactly as after a restart, while writes to
// its upstreams go on. Callers hold ddlMu; nothing else changes the graph
// meanwhile, except a recovery, after which the rebuild is retried.
func (db *DB) rescale(ctx context.Context, id uint32) error {
	return db.rebuildJobs(ctx, id, false)
}

// rebuildJobs rebuilds the job of relation id and those downstream of it
// as rescale does; with force, also when the job runs at its recorded
// parallelism already (its catalog entry changed otherwise: ALTER TABLE
// ... ADD COLUMN).
func (db *DB) rebuildJobs(ctx context.Context, id uint32, force bool) error {
	for attempt := 0; ; attempt++ {
		err := db.rescaleOnce(ctx, id, force)
		if err == nil || !errors.Is(err, stream.ErrGraphFailed) {
			return err
		}
		if attempt >= 3 {
			return pgerr.Wrap(err, pgerr.SerializationFailure, "could not rescale")
		}
	}
}

func (db *DB) rescaleOnce(ctx context.Context, id uint32, force bool) error {
	// The generation first: a rebuild after this makes the mutation
	// stale (refused), one before it is what the runtime below shows.
	gen := db.coord.Generation()
	rel, ok := db.RelationByID(id)
	if !ok {
		return pgerr.New(pgerr.UndefinedTable, "relation %d does not exist", id)
	}
	db.mu.RLock()
	runtime := make(map[uint32]*relRuntime, len(db.runtime))
	for k, v := range db.runtime {
		runtime[k] = v
	}
	db.mu.RUnlock()
	if rt := runtime[id]; rt != nil && rt.par == rel.Parallelism && !force {
		return nil // already running so (or rebuilt so by a recovery)
	}
	affected := db.downstreamOf(id)
	upd := &stream.UpdateMutation{Stop: map[stream.ActorID]bool{}, Exchanges: map[stream.ActorID][]*stream.Exchange{},
		Sources: map[stream.ActorID]*stream.Source{}}
	built := map[uint32]*planner.StreamJob{}
	jobs := make([]*planner.StreamJob, len(affected))
	for i, r := range affected {
		old := runtime[r.ID]
		if old == nil {
			return fmt.Errorf("streamdb: %q has no running job", r.Name)
		}
		mode := planner.Follow
		if r.State == catalog.StateCreating {
			mode = planner.Resume
		}
		job, err := db.buildJob(r, mode)
		if err != nil {
			return err
		}
		for _, in := range job.Inlets {
			if up, ok := built[in.Upstream]; ok {
				err = attachToBuilt(in, up)
			} else {
				err = attachToRunning(in, runtime[in.Upstream], upd.Exchanges)
			}
			if err != nil {
				return err
			}
		}
		built[r.ID] = job
		for _, a := range old.actors {
			upd.Stop[a] = true
		}
		upd.Start = append(upd.Start, job.Actors...)
		if job.Creating != nil {
			upd.Creating = append(upd.Creating, job.Creating)
		}
		if job.Source != nil {
			upd.Sources[job.SourceOwner.ID] = job.Source
		}
		for id, src := range job.Sources {
			upd.Sources[id] = src
		}
		jobs[i] = job
	}
	upd.Committed = func() {
		for i, r := range affected {
			rt := db.newRuntime(r, jobs[i])
			db.mu.Lock()
			db.runtime[r.ID] = rt
			j := db.jobs[r.ID]
			db.mu.Unlock()
			if j != nil && r.State == catalog.StateCreating {
				j.setProgress(jobs[i].Progress, jobs[i].Creating)
			}
		}
	}
	return db.coord.MutateIn(ctx, gen, upd, nil, nil)
}

// downstreamOf returns relation id and every view that reads it, directly
// or through other views, in creation order (upstreams first).
func (db *DB) downstreamOf(id uint32) []*catalog.Relation {
	in := map[uint32]bool{id: true}
	var out []*catalog.Relation
	for _, r := range db.relationsSorted() {
		if r.Kind.Virtual() {
			// A plain view has no actors; a materialized view over
			// one also depends on what the view reads.
			continue
		}
		if r.ID == id || slices.ContainsFunc(r.Deps, func(d uint32) bool { return in[d] }) {
			in[r.ID] = true
			out = append(out, r)
		}
	}
	return out
}

// planFragments builds, without running it, the job a CREATE MATERIALIZED
// VIEW would start with parallelism par (0: the default), and returns its
// fragments, for EXPLAIN.
func (db *DB) planFragments(cv *planner.CreateView, shape *planner.ViewShape, par int) ([]planner.Fragment, error) {
	if par == 0 {
		par = db.opts.Parallelism
	}
	rel := &catalog.Relation{Name: cv.Name, Kind: catalog.KindMaterializedView, State: catalog.StateCreating,
		Columns: shape.Columns, PK: shape.PK, DistKey: shape.PK, Parallelism: par,
		CloseWindows: true, EmitOnWindowClose: cv.EmitOnWindowClose}
	job, err := planner.BuildViewJob(rel, shape, &dryEnv{db: db}, planner.Backfill)
	if err != nil {
		return nil, err
	}
	return job.Fragments, nil
}

// dryEnv builds a job that never runs: made-up actor and state table ids.
type dryEnv struct {
	db     *DB
	actors stream.ActorID
	tables uint32
}

func (e *dryEnv) Store() *storage.Store                        { return e.db.store }
func (e *dryEnv) NewActorID() stream.ActorID                   { e.actors++; return e.actors }
func (e *dryEnv) ErrorLog() stream.ErrorLog                    { return nil }
func (e *dryEnv) NextStateTableID() uint32                     { e.tables++; return e.tables }
func (e *dryEnv) Relation(id uint32) (*catalog.Relation, bool) { return e.db.RelationByID(id) }
