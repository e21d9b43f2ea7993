package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
)

// rowIDColumn is the name of the hidden primary key of a table without one.
const rowIDColumn = "_row_id"

// tableOptions are the settings a new table or source takes (WITH
// options, else the session's).
type tableOptions struct {
	parallelism     int    // actors materializing a table (0: defaultTableParallelism)
	dmlRateLimit    int64  // DML rows per second (0: no limit)
	dmlPaused       bool   // dml_rate_limit = 0
	sourceRateLimit int64  // connector rows per second (0: its own rate)
	sourcePaused    bool   // source_rate_limit = 0
	filling         bool   // CREATE TABLE AS: the table starts Filling
	tempOwner       uint32 // a temporary table's session (its backend PID)
}

// createTable creates a table, or a source (CREATE SOURCE), with its
// connector if it has one.
// defaultTableParallelism is the parallelism of a table created without
// one: one actor both takes the DML and materializes it.
const defaultTableParallelism = 1

func (db *DB) createTable(ctx context.Context, ct *planner.CreateTable, opts tableOptions, w ResultWriter) error {
	tag := "CREATE TABLE"
	if ct.Source {
		tag = "CREATE SOURCE"
	}
	rel, err := db.addTable(ctx, ct, opts, w)
	if err != nil || rel == nil {
		return err
	}
	if len(rel.Uniques) > 0 {
		if err := db.createUniqueIndexes(ctx, rel, w); err != nil {
			return err
		}
	}
	return w.Complete(tag)
}

// addTable creates the table (or source) of ct; nil when IF NOT EXISTS
// found it.
func (db *DB) addTable(ctx context.Context, ct *planner.CreateTable, opts tableOptions, w ResultWriter) (*catalog.Relation, error) {
	db.ddlMu.Lock()
	defer db.ddlMu.Unlock()
	if done, err := db.checkNewName(ct.Name, ct.IfNotExists, w); done || err != nil {
		return nil, err
	}
	conn, err := resolveConnector(ctx, ct.Connector)
	if err != nil {
		return nil, err
	}
	id, err := db.allocID()
	if err != nil {
		return nil, err
	}
	rel := &catalog.Relation{ID: id, Name: ct.Name, Kind: catalog.KindTable,
		Columns: append([]catalog.Column(nil), ct.Columns...), PK: append([]int(nil), ct.PK...)}
	if ct.Source {
		rel.Kind = catalog.KindSource
	}
	rel.AppendOnly = ct.AppendOnly
	rel.OnConflict = ct.OnConflict
	rel.Filling = opts.filling
	rel.TempOwner = opts.tempOwner
	rel.Checks = ct.Checks
	rel.Uniques = ct.Uniques
	seqs, err := db.addOwnedSequences(ct, rel)
	if err != nil {
		return nil, err
	}
	created := false
	defer func() {
		if !created {
			db.removeSequences(seqs)
		}
	}()
	if ct.Watermark != nil {
		w := *ct.Watermark
		if w.State, err = db.allocID(); err != nil {
			return nil, err
		}
		rel.Watermark = &w
	}
	if len(rel.PK) == 0 {
		rel.Columns = append(rel.Columns, catalog.Column{Name: rowIDColumn, Type: types.TInt64, NotNull: true, Hidden: true})
		rel.PK = []int{len(rel.Columns) - 1}
		rel.RowID = true
	}
	rel.DistKey = rel.PK
	if !ct.Source {
		rel.DMLRateLimit, rel.DMLPaused = opts.dmlRateLimit, opts.dmlPaused
		rel.Parallelism = opts.parallelism
		if rel.Parallelism == 0 {
			rel.Parallelism = defaultTableParallelism
		}
	}
	if ct.Source && readsSplits(ct.Connector) {
		// A Kafka source's partitions are read by Parallelism actors
		// (planner.buildSplitJob), chosen as a table's are.
		rel.Parallelism = max(opts.parallelism, defaultTableParallelism)
	}
	if ct.Connector != nil {
		state, err := db.allocID()
		if err != nil {
			return nil, err
		}
		rel.Internal = []uint32{state}
		if readsSplits(ct.Connector) {
			// Its skipped messages' table (planner.SplitErrorState).
			if state, err = db.allocID(); err != nil {
				return nil, err
			}
			rel.Internal = append(rel.Internal, state)
		}
		rel.Connector = conn
		rel.ConnectorBase = time.Now().UnixMicro()
		rel.SourceRateLimit, rel.SourceRateZero = opts.sourceRateLimit, opts.sourcePaused
	}
	job, err := planner.BuildTableJob(rel, &jobEnv{db: db, rel: rel})
	if err != nil {
		return nil, err
	}
	if err := db.saveRelation(rel); err != nil {
		return nil, err
	}
	// The table is published only once its actor runs, so no DML can
	// reach a source the graph does not have yet.
	sources := map[stream.ActorID]*stream.Source{job.SourceOwner.ID: job.Source}
	for id, src := range job.Sources {
		sources[id] = src // the barrier sources of a Kafka job's other readers
	}
	err = db.coord.Mutate(ctx, nil, job.Actors, sources)
	if err != nil {
		if derr := db.store.DeleteMeta(relKey(rel.ID)); derr != nil {
			db.opts.Logger.Error("removing table after a failed CREATE", "table", rel.Name, "err", derr)
		}
		return nil, err
	}
	db.register(rel, job)
	created = true
	if !db.coord.Running(job.Tops[0].ID) {
		// A recovery right after the table's actor started rebuilt the
		// graph without it (it was not registered yet): rebuild again.
		db.coord.Abort(fmt.Errorf("streamdb: table %q missed a graph rebuild", rel.Name))
	}
	return rel, nil
}

// checkNewName reports whether name is free; with ifNotExists an existing
// relation is a notice and done is true.
func (db *DB) checkNewName(name string, ifNotExists bool, w ResultWriter) (done bool, err error) {
	if _, exists := db.Relation(name); !exists {
		return false, nil
	}
	_, own := catalog.SplitName(name) // PostgreSQL names it without its schema
	if ifNotExists {
		return true, w.Notice("NOTICE", fmt.Sprintf("relation %q already exists, skipping", own))
	}
	return true, pgerr.New(pgerr.DuplicateTable, "relation %q already exists", own)
}

// register publishes a relation and its running job.
func (db *DB) register(rel *catalog.Relation, job *planner.StreamJob) {
	rt := db.newRuntime(rel, job)
	db.mu.Lock()
	defer db.mu.Unlock()
	db.rels[rel.ID] = rel
	db.byName[rel.Name] = rel
	db.runtime[rel.ID] = rt
}

// unregister forgets a relation.
func (db *DB) unregister(rel *catalog.Relation) {
	db.mu.Lock()
	defer db.mu.Unlock()
	delete(db.rels, rel.ID)
	delete(db.byName, rel.Name)
	delete(db.runtime, rel.ID)
	db.viewErrors.forget(rel.ID)
	db.sourceErrors.forget(rel.ID)
}

// createView creates a materialized view: it records the view as
// creating, attaches its job to the graph with an Add barrier, and lets
// the job backfill. In the foreground (the default) it returns when the
// view is created, with progress NOTICEs meanwhile; with background it
// returns at once.
// viewOptions are the session settings a new view takes.
type viewOptions struct {
	background  bool  // return before the backfill finishes
	rateLimit   int64 // backfill rows per second (0: no limit)
	paused      bool  // backfill_rate_limit = 0
	parallelism int   // actors per fragment (0: the DB's default)
	// adaptive: backfill_rate_limit = 'adaptive', keeping the running
	// graph's barrier latency under latencyTarget.
	adaptive      bool
	latencyTarget time.Duration
}

func (db *DB) createView(ctx context.Context, cv *planner.CreateView, opts viewOptions, w ResultWriter) error {
	j, err := db.startView(ctx, cv, opts, w)
	if err != nil || j == nil {
		return err
	}
	if !opts.background {
		if err := db.waitJob(ctx, j, w); err != nil {
			return err
		}
	}
	return w.Complete("CREATE MATERIALIZED VIEW")
}

// startView plans and attaches a new view's job (nil when IF NOT EXISTS
// found the view).
func (db *DB) startView(ctx context.Context, cv *planner.CreateView, opts viewOptions, w ResultWriter) (*job, error) {
	db.ddlMu.Lock()
	defer db.ddlMu.Unlock()
	if done, err := db.checkNewName(cv.Name, cv.IfNotExists, w); done || err != nil {
		if err == nil && !opts.background {
			// IF NOT EXISTS found it: when it is still being created,
			// a foreground CREATE waits for it, as RisingWave does, so
			// that the view is complete when the statement returns.
			if rel, ok := db.Relation(cv.Name); ok && rel.State == catalog.StateCreating {
				db.mu.RLock()
				j := db.jobs[rel.ID]
				db.mu.RUnlock()
				return j, nil
			}
		}
		return nil, err
	}
	shape, err := planner.PlanView(cv.Query, cv.ColNames)
	if err != nil {
		return nil, err
	}
	if cv.EmitOnWindowClose {
		if err := planner.CheckEmitOnWindowClose(shape.Plan); err != nil {
			return nil, err
		}
	}
	if err := db.checkUpstreamsCreated(shape.Plan); err != nil {
		return nil, err
	}
	if err := db.noticeNotBackfilled(shape.Plan, w); err != nil {
		return nil, err
	}
	id, err := db.allocID()
	if err != nil {
		return nil, err
	}
	rel := &catalog.Relation{ID: id, Name: cv.Name, Kind: catalog.KindMaterializedView,
		State: catalog.StateCreating, Columns: shape.Columns, PK: shape.PK, DistKey: shape.PK,
		Definition: cv.Definition, Deps: db.viewDeps(cv.Query, shape.Plan), SearchPath: storedPath(cv.SearchPath),
		TimeZone: cv.TimeZone, CloseWindows: true, EmitOnWindowClose: cv.EmitOnWindowClose}
	opts.apply(rel, db.opts.Parallelism)
	return db.launchView(ctx, rel, shape)
}

// noticeNotBackfilled tells, in a NOTICE, of each Kafka SOURCE the view
// scans whose messages read before the view it will not see
// (planner.SourceNotBackfilled).
func (db *DB) noticeNotBackfilled(plan planner.Node, w ResultWriter) error {
	for _, dep := range scannedRelations(plan) {
		up, ok := db.RelationByID(dep)
		if !ok {
			continue
		}
		if why := planner.SourceNotBackfilled(up); why != "" {
			msg := fmt.Sprintf("source %q is not backfilled (%s): the view sees only the messages it reads from now on", up.Name, why)
			if err := w.Notice("NOTICE", msg); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkUpstreamsCreated refuses a view over a view still being created.
func (db *DB) checkUpstreamsCreated(plan planner.Node) error {
	for _, dep := range scannedRelations(plan) {
		if up, ok := db.RelationByID(dep); ok && up.State == catalog.StateCreating {
			return pgerr.New(pgerr.ObjectNotInPrereqState, "materialized view %q is still being created", up.Name)
		}
	}
	return nil
}

// apply sets a new view's backfill flow control and parallelism (dflt
// when the options give none).
func (opts viewOptions) apply(rel *catalog.Relation, dflt int) {
	rel.BackfillRateLimit, rel.BackfillRateZero = opts.rateLimit, opts.paused
	rel.BackfillAdaptive, rel.BackfillLatencyTarget = opts.adaptive, opts.latencyTarget.Microseconds()
	rel.Parallelism = opts.parallelism
	if rel.Parallelism == 0 {
		rel.Parallelism, rel.Adaptive = dflt, true
	}
}

// launchView plans the job of rel, a new view (or index) of the given
// shape, records rel as creating, and attaches the job to the graph; its
// backfill then runs (the caller holds ddlMu).
func (db *DB) launchView(ctx context.Context, rel *catalog.Relation, shape *planner.ViewShape) (*job, error) {
	sj, err := buildShapedJob(rel, shape, &jobEnv{db: db, rel: rel, allocate: true}, planner.Backfill)
	if err != nil {
		return nil, err
	}
	gen := db.coord.Generation() // before reading the upstreams' actors
	add, err := db.attachInlets(sj)
	if err != nil {
		return nil, err
	}
	if err := db.saveRelation(rel); err != nil {
		return nil, err
	}
	db.register(rel, sj)
	// The job is known before its actors start: a recovery that rebuilds
	// the graph after they started (even before MutateIn returns) gives
	// it the rebuilt scans' progress. Registered after, it would wait on
	// the progress of scans that no longer run, forever.
	j := newJob(rel, sj.Progress, sj.Creating)
	db.mu.Lock()
	db.jobs[rel.ID] = j
	db.mu.Unlock()
	if err := db.coord.Create(ctx, gen, add, sj.Creating, sj.Sources); err != nil {
		db.mu.Lock()
		delete(db.jobs, rel.ID)
		db.mu.Unlock()
		db.abandonViewLocked(rel, err)
		return nil, err
	}
	if testHookViewAdded != nil {
		testHookViewAdded(db)
	}
	db.startJob(j)
	return j, nil
}

// testHookViewAdded, when set (by tests), runs after a new view's actors
// started and before its job's goroutine does.
var testHookViewAdded func(*DB)

// attachInlets connects a new job's scans to the running top actors of
// their upstreams: the Add mutation that attaches the exchanges at the
// job's first barrier.
func (db *DB) attachInlets(sj *planner.StreamJob) (*stream.AddMutation, error) {
	add := &stream.AddMutation{Exchanges: map[stream.ActorID][]*stream.Exchange{}}
	db.mu.RLock()
	defer db.mu.RUnlock()
	for _, in := range sj.Inlets {
		if err := attachToRunning(in, db.runtime[in.Upstream], add.Exchanges); err != nil {
			return nil, err
		}
	}
	return add, nil
}

// abandonView stops a view whose creation failed or was canceled and
// removes its state.
func (db *DB) abandonView(rel *catalog.Relation, cause error) {
	db.ddlMu.Lock()
	defer db.ddlMu.Unlock()
	db.abandonViewLocked(rel, cause)
}

func (db *DB) abandonViewLocked(rel *catalog.Relation, cause error) {
	if err := db.beginDrop(rel); err != nil {
		db.opts.Logger.Error("removing abandoned view", "view", rel.Name, "err", err, "cause", cause)
	}
	// The stop must go through even when the client went away.
	if err := db.stopRelation(context.Background(), rel); err != nil {
		db.opts.Logger.Error("stopping abandoned view", "view", rel.Name, "err", err, "cause", cause)
	}
	db.unregister(rel)
	if err := db.finishDropOf(rel); err != nil {
		db.opts.Logger.Error("removing abandoned view", "view", rel.Name, "err", err, "cause", cause)
	}
}

// stopRelation stops the actors of rel with a Stop barrier. A graph
// failure rebuilds the graph from the catalog, which still holds rel (the
// caller unregisters it after): the stop is made again for the rebuilt
// actors, or they would run on over purged state. A few times at most.
func (db *DB) stopRelation(ctx context.Context, rel *catalog.Relation) error {
	for attempt := 0; ; attempt++ {
		gen := db.coord.Generation()
		db.mu.RLock()
		rt := db.runtime[rel.ID]
		db.mu.RUnlock()
		if rt == nil {
			return nil
		}
		stop := &stream.StopMutation{Actors: actorSet(rt.actors)}
		err := db.coord.MutateIn(ctx, gen, stop, nil, nil)
		if err == nil || !errors.Is(err, stream.ErrGraphFailed) || attempt >= 3 {
			return err
		}
	}
}

func actorSet(ids []stream.ActorID) map[stream.ActorID]bool {
	m := make(map[stream.ActorID]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}

func scannedRelations(n planner.Node) []uint32 {
	var out []uint32
	seen := map[uint32]bool{}
	var walk func(planner.Node)
	walk = func(n planner.Node) {
		if s, ok := n.(*planner.Scan); ok && !seen[s.Rel.ID] {
			seen[s.Rel.ID] = true
			out = append(out, s.Rel.ID)
		}
		for _, in := range n.Inputs() {
			walk(in)
		}
	}
	walk(n)
	return out
}

func (db *DB) drop(ctx context.Context, d *planner.Drop, w ResultWriter) error {
	// A view being created is dropped by canceling its job, which removes
	// it (and takes the DDL lock itself).
	canceled := map[string]bool{}
	for _, name := range d.Names {
		if rel, ok := db.Relation(name); ok && rel.Kind == d.Kind && rel.State == catalog.StateCreating {
			if len(db.dependents(rel.ID)) == 0 {
				if err := db.cancelJob(rel.ID); err != nil {
					return err
				}
				canceled[name] = true
			}
		}
	}
	db.ddlMu.Lock()
	defer db.ddlMu.Unlock()
	for _, name := range d.Names {
		if canceled[name] {
			continue
		}
		rel, ok := db.Relation(name)
		if !ok || rel.Kind != d.Kind {
			if ok {
				return wrongKind("DROP", rel, d.Kind)
			}
			if d.IfExists {
				if err := w.Notice("NOTICE", fmt.Sprintf("%s %q does not exist, skipping", kindWord(d.Kind), name)); err != nil {
					return err
				}
				continue
			}
			code := pgerr.UndefinedTable
			if d.Kind == catalog.KindIndex || d.Kind == catalog.KindSubscription || d.Kind == catalog.KindSink {
				code = pgerr.UndefinedObject // as Postgres's DROP INDEX
			}
			return pgerr.New(code, "%s %q does not exist", kindWord(d.Kind), name)
		}
		if t, u, ok := db.uniqueOfIndex(rel); ok && u.IndexOnly {
			if err := db.dropIndexOnlyUnique(t, rel); err != nil {
				return err
			}
		} else if ok {
			e := pgerr.New(pgerr.DependentObjects, "cannot drop index %s because constraint %s on table %s requires it", ownNameOf(rel), ownNameOf(&catalog.Relation{Name: u.Name}), ownNameOf(t))
			e.Hint = fmt.Sprintf("You can drop constraint %s on table %s instead.", ownNameOf(&catalog.Relation{Name: u.Name}), ownNameOf(t))
			return e
		}
		if err := db.dropRelation(ctx, rel, d.Cascade, w); err != nil {
			return err
		}
	}
	return w.Complete("DROP " + strings.ToUpper(kindWord(d.Kind)))
}

func kindWord(k catalog.Kind) string {
	switch k {
	case catalog.KindTable, catalog.KindSource, catalog.KindView, catalog.KindIndex, catalog.KindSubscription, catalog.KindSink, catalog.KindSequence:
		return k.String()
	}
	return "materialized view"
}

// wrongKind is the error of a statement verb ("DROP", "ALTER") naming rel
// as a want: its hint names the statement for what rel is.
func wrongKind(verb string, rel *catalog.Relation, want catalog.Kind) error {
	e := pgerr.New("42809", "%q is not %s", rel.Name, aKindWord(want))
	stmt := verb + " " + strings.ToUpper(kindWord(rel.Kind))
	if verb == "DROP" {
		e.Hint = fmt.Sprintf("Use %s to remove %s.", stmt, aKindWord(rel.Kind))
	} else {
		e.Hint = fmt.Sprintf("Use %s for %s.", stmt, aKindWord(rel.Kind))
	}
	return e
}

// aKindWord is kindWord after its article.
func aKindWord(k catalog.Kind) string {
	if k == catalog.KindIndex {
		return "an index"
	}
	return "a " + kindWord(k)
}

// dropRelation drops rel and its indexes, and with cascade the views
// that depend on it.
func (db *DB) dropRelation(ctx context.Context, rel *catalog.Relation, cascade bool, w ResultWriter) (err error) {
	if rel.Kind == catalog.KindSequence {
		users, err := db.sequenceUsers(rel)
		if err != nil {
			return err
		}
		if err := db.checkSequenceDrop(rel, users, cascade); err != nil {
			return err
		}
		if err := db.dropSequenceDefaults(users, w); err != nil {
			return err
		}
		return db.dropSequence(rel)
	}
	var deps, indexes []*catalog.Relation
	for _, dep := range db.dependents(rel.ID) {
		if dep.Kind == catalog.KindIndex || dep.Kind == catalog.KindSubscription && dep.Temporary {
			// Dropped with it: an index as in Postgres; the temporary
			// subscription of a COPY (SUBSCRIBE) or DB.Subscribe, whose
			// stream then ends with an error.
			indexes = append(indexes, dep)
		} else {
			deps = append(deps, dep)
		}
	}
	if len(deps) > 0 && !cascade {
		e := pgerr.New(pgerr.DependentObjects, "cannot drop %s %s because other objects depend on it", kindWord(rel.Kind), rel.Name)
		e.Detail = fmt.Sprintf("%s %s depends on %s %s", kindWord(deps[0].Kind), deps[0].Name, kindWord(rel.Kind), rel.Name)
		e.Hint = "Use DROP ... CASCADE to drop the dependent objects too."
		return e
	}
	for _, dep := range deps {
		if _, ok := db.RelationByID(dep.ID); !ok {
			continue // dropped already, as a dependent of an earlier dep
		}
		if err := w.Notice("NOTICE", fmt.Sprintf("drop cascades to %s %s", kindWord(dep.Kind), dep.Name)); err != nil {
			return err
		}
		if err := db.dropRelation(ctx, dep, true, w); err != nil {
			return err
		}
	}
	for _, idx := range indexes {
		if err := db.dropRelation(ctx, idx, true, w); err != nil {
			return err
		}
	}
	db.mu.RLock()
	rt := db.runtime[rel.ID]
	db.mu.RUnlock()
	if err := db.beginDrop(rel); err != nil {
		return err
	}
	if rel.Kind == catalog.KindIndex {
		// From now on its actors may stop while its relation changes.
		// Dropped, it is gone; not dropped, its actors still run.
		db.markIndexDropping(rel.ID, true)
		defer db.markIndexDropping(rel.ID, false)
	}
	if rt != nil {
		if rt.table != nil {
			l := rt.table.Limiter()
			// Fail statements waiting on the table's DML rate limit (a
			// paused one would otherwise hold the DML lock forever); a
			// drop that fails gives the table its limiter back.
			l.Close()
			defer func() {
				if err != nil {
					l.Reopen()
				}
			}()
			rt.table.Lock()
			defer rt.table.Unlock()
		}
		if err := db.stopRelation(ctx, rel); err != nil {
			// Not stopped: the relation stays, whole.
			if cerr := db.cancelDrop(rel); cerr != nil {
				db.opts.Logger.Error("restoring the catalog entry of a relation not dropped", "relation", rel.Name, "err", cerr)
			}
			if errors.Is(err, stream.ErrGraphFailed) {
				return pgerr.Wrap(err, pgerr.SerializationFailure, "could not drop "+rel.Name)
			}
			return err
		}
	}
	db.unregister(rel)
	db.endDroppedJob(rel)
	if err := db.finishDropOf(rel); err != nil {
		return err
	}
	return db.dropOwnedSequences(rel)
}

// endDroppedJob ends the job of a view or index dropped while it was
// being created, so that its runner and a CREATE waiting on it return.
func (db *DB) endDroppedJob(rel *catalog.Relation) {
	db.mu.RLock()
	j := db.jobs[rel.ID]
	db.mu.RUnlock()
	if j != nil {
		db.endJob(j, pgerr.New(pgerr.QueryCanceled, "%s %q was dropped while it was created", kindWord(rel.Kind), rel.Name))
	}
}
