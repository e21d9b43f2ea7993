package engine

import (
	"errors"
	"fmt"
	"time"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/engine/write"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
	"github.com/streamdb/streamdb/sql/binder"
	"github.com/streamdb/streamdb/storage"
)

// jobEnv is the planner.StreamEnv for building one job. When rebuilding
// (allocate false) state table ids come from the relation's recorded list.
type jobEnv struct {
	db       *DB
	rel      *catalog.Relation
	allocate bool
	next     int
	err      error
}

func (e *jobEnv) Store() *storage.Store      { return e.db.store }
func (e *jobEnv) NewActorID() stream.ActorID { return e.db.actorSeq.next() }
func (e *jobEnv) Relation(id uint32) (*catalog.Relation, bool) {
	return catalog.AsBoundBy(e.db, e.rel).RelationByID(id) // as the view knows it (bound.go)
}
func (e *jobEnv) ErrorLog() stream.ErrorLog { return &e.db.viewErrors }

// WatermarkExpr binds r's watermark expression (planner.WatermarkBinder).
func (e *jobEnv) WatermarkExpr(r *catalog.Relation) (expr.Expr, error) {
	return binder.WatermarkExpr(e.db, r)
}

func (e *jobEnv) NextStateTableID() uint32 {
	if !e.allocate {
		if e.next >= len(e.rel.Internal) {
			e.err = fmt.Errorf("streamdb: view %q needs more state tables than it recorded", e.rel.Name)
			return 0
		}
		id := e.rel.Internal[e.next]
		e.next++
		return id
	}
	id, err := e.db.allocID()
	if err != nil && e.err == nil {
		e.err = err
	}
	e.rel.Internal = append(e.rel.Internal, id)
	return id
}

// buildGraph builds the actors of every relation, wiring each view to its
// upstreams directly: the committed state is consistent, so created views
// just follow their upstreams, and views being created resume their
// backfill from its persisted progress. It returns jobs for creating views
// that had none (at Open); existing jobs get the rebuilt progress.
func (db *DB) buildGraph() (*builtGraph, []*job, error) {
	var actors []*stream.Actor
	var creating []*stream.CreatingJob
	var resumed []*job
	sources := map[stream.ActorID]*stream.Source{}
	tops := map[uint32]*planner.StreamJob{}
	runtime := map[uint32]*relRuntime{}
	for _, r := range db.relationsSorted() {
		if r.Kind.Virtual() {
			continue // a plain view or a sequence has no actors
		}
		mode := planner.Follow
		if r.State == catalog.StateCreating {
			mode = planner.Resume
		}
		job, err := db.buildJob(r, mode)
		if err != nil {
			return nil, nil, err
		}
		if err := connectInlets(r, job, tops); err != nil {
			return nil, nil, err
		}
		tops[r.ID] = job
		if job.Source != nil {
			sources[job.SourceOwner.ID] = job.Source
		}
		for id, src := range job.Sources {
			sources[id] = src
		}
		runtime[r.ID] = db.newRuntime(r, job)
		actors = append(actors, job.Actors...)
		if job.Creating != nil {
			creating = append(creating, job.Creating)
		}
		if mode == planner.Resume {
			db.mu.RLock()
			j := db.jobs[r.ID]
			db.mu.RUnlock()
			if j != nil {
				j.setProgress(job.Progress, job.Creating)
			} else {
				resumed = append(resumed, newJob(r, job.Progress, job.Creating))
			}
		}
	}
	db.mu.Lock()
	db.runtime = runtime
	db.mu.Unlock()
	return &builtGraph{actors: actors, sources: sources, creating: creating}, resumed, nil
}

// builtGraph is the streaming graph buildGraph made.
type builtGraph struct {
	actors   []*stream.Actor
	sources  map[stream.ActorID]*stream.Source
	creating []*stream.CreatingJob
}

// connectInlets attaches the scans of job r to the top actors of its
// upstreams, built before it.
func connectInlets(r *catalog.Relation, job *planner.StreamJob, built map[uint32]*planner.StreamJob) error {
	for _, in := range job.Inlets {
		up, ok := built[in.Upstream]
		if !ok {
			return fmt.Errorf("streamdb: view %q reads relation %d, which has no actor", r.Name, in.Upstream)
		}
		if err := attachToBuilt(in, up); err != nil {
			return err
		}
	}
	return nil
}

// attachToBuilt connects inlet in to the top actors of up, a job that has
// not started: the exchanges go straight onto their dispatchers.
func attachToBuilt(in *planner.Inlet, up *planner.StreamJob) error {
	exs, err := in.Connect(actorIDs(up.Tops), up.TopVnodes)
	if err != nil {
		return err
	}
	for i, ex := range exs {
		up.Tops[i].Out.AddExchange(ex)
	}
	return nil
}

// attachToRunning connects inlet in to the running top actors of a
// relation: the exchanges each top must attach, at a barrier, are added
// to exs (an Add or Update mutation's).
func attachToRunning(in *planner.Inlet, up *relRuntime, exs map[stream.ActorID][]*stream.Exchange) error {
	if up == nil {
		return fmt.Errorf("streamdb: relation %d has no running job", in.Upstream)
	}
	got, err := in.Connect(up.tops, up.topVnodes)
	if err != nil {
		return err
	}
	for i, ex := range got {
		exs[up.tops[i]] = append(exs[up.tops[i]], ex)
	}
	return nil
}

func actorIDs(as []*stream.Actor) []stream.ActorID {
	ids := make([]stream.ActorID, len(as))
	for i, a := range as {
		ids[i] = a.ID
	}
	return ids
}

// newRuntime makes the runtime handle of a job, keeping the DML mutex of a
// table across rebuilds.
func (db *DB) newRuntime(r *catalog.Relation, job *planner.StreamJob) *relRuntime {
	rt := &relRuntime{par: r.Parallelism, tops: actorIDs(job.Tops), topVnodes: job.TopVnodes, actors: job.AllActors(), fragments: job.Fragments,
		source: job.Source, generated: job.Connector, watermark: job.Watermark}
	if r.Kind == catalog.KindTable {
		db.mu.RLock()
		old := db.runtime[r.ID]
		db.mu.RUnlock()
		if old != nil && old.table != nil {
			rt.table = old.table
		} else {
			rt.table = write.NewTable()
		}
		rt.table.Limiter().Set(r.DMLRateLimit, r.DMLPaused)
	}
	return rt
}

// buildJob builds the actors of one relation; a Backfill job allocates its
// state tables, the others use the ones recorded in the relation.
func (db *DB) buildJob(r *catalog.Relation, mode planner.ScanMode) (*planner.StreamJob, error) {
	env := &jobEnv{db: db, rel: r, allocate: mode == planner.Backfill}
	switch r.Kind {
	case catalog.KindTable, catalog.KindSource:
		return planner.BuildTableJob(r, env)
	case catalog.KindSubscription:
		job, err := planner.BuildSubscriptionJob(r, env, false)
		if err == nil {
			err = env.err
		}
		return job, err
	}
	shape, err := db.planStored(r)
	if err != nil {
		return nil, fmt.Errorf("streamdb: planning %s %q: %w", kindWord(r.Kind), r.Name, err)
	}
	job, err := buildShapedJob(r, shape, env, mode)
	if err == nil {
		err = env.err
	}
	return job, err
}

// planStored returns the stream plan of a stored view or index.
func (db *DB) planStored(r *catalog.Relation) (*planner.ViewShape, error) {
	if r.Kind != catalog.KindIndex {
		return db.planView(r, r.Definition, r.SearchPath, r.TimeZone, r.Columns)
	}
	if r.Index == nil {
		return nil, errors.New("index without its definition")
	}
	on, ok := catalog.AsBoundBy(db, r).RelationByID(r.Index.Table)
	if !ok {
		return nil, fmt.Errorf("indexed relation %d does not exist", r.Index.Table)
	}
	return planner.PlanIndex(on, r)
}

// planView binds a stored view definition, with the search path and time
// zone it was created under and the relations it reads as it knows them
// (catalog.AsBoundBy: v's bindings; v nil for none), and checks that it
// still has the stored shape.
func (db *DB) planView(v *catalog.Relation, def string, path []string, zone string, cols []catalog.Column) (*planner.ViewShape, error) {
	q, err := db.bindStored(v, def, path, zone)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(cols))
	for _, c := range cols {
		if !c.Hidden {
			names = append(names, c.Name)
		}
	}
	shape, err := planner.PlanView(q, names)
	if err != nil {
		return nil, err
	}
	if len(shape.Columns) != len(cols) {
		return nil, fmt.Errorf("view now plans to %d columns, stored %d", len(shape.Columns), len(cols))
	}
	return shape, nil
}

// bindStored binds a stored view definition def (of view v, nil for
// none), with the search path and time zone it was created under and the
// relations it reads as v knows them (catalog.AsBoundBy).
func (db *DB) bindStored(v *catalog.Relation, def string, path []string, zone string) (*planner.Query, error) {
	stmts, err := sql.NewParser().Parse(def)
	if err != nil {
		return nil, err
	}
	if len(stmts) != 1 {
		return nil, errors.New("view definition is not one statement")
	}
	var cat catalog.Reader = db
	if len(path) > 0 || zone != "" {
		z, err := storedZone(zone)
		if err != nil {
			return nil, err
		}
		if len(path) == 0 {
			path = []string{catalog.PublicSchema}
		}
		cat = pathCatalog{DB: db, path: path, zone: z}
	}
	bound, err := binder.Bind(catalog.AsBoundBy(cat, v), stmts[0], binder.Options{View: true})
	if err != nil {
		return nil, err
	}
	q, ok := bound.Stmt.(*planner.Query)
	if !ok {
		return nil, errors.New("view definition is not a query")
	}
	return q, nil
}

// rebuildGraph is the coordinator's OnFailure hook: the failed graph is
// gone; build a new one from the catalog over committed state.
func (db *DB) rebuildGraph(cause error) {
	start := time.Now()
	relation := db.failedRelation(cause)
	db.opts.Logger.Warn("recovering streaming graph", "cause", cause, "relation", relation)
	db.noteJobFailure(cause)
	g, _, err := db.buildGraph()
	if err != nil {
		db.opts.Logger.Error("rebuilding streaming graph failed", "err", err)
	} else {
		db.coord.Restart(g.actors, g.sources, g.creating)
	}
	db.recoveries.add(start, relation, cause, time.Since(start))
}
