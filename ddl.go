package streamdb

import (
	"context"
	"errors"
	"fmt"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
)

// rowIDColumn is the name of the hidden primary key of a table without one.
const rowIDColumn = "_row_id"

func (db *DB) createTable(ctx context.Context, ct *planner.CreateTable, w ResultWriter) error {
	db.ddlMu.Lock()
	defer db.ddlMu.Unlock()
	if done, err := db.checkNewName(ct.Name, ct.IfNotExists, w); done || err != nil {
		return err
	}
	id, err := db.allocID()
	if err != nil {
		return err
	}
	rel := &catalog.Relation{ID: id, Name: ct.Name, Kind: catalog.KindTable,
		Columns: append([]catalog.Column(nil), ct.Columns...), PK: append([]int(nil), ct.PK...)}
	if len(rel.PK) == 0 {
		rel.Columns = append(rel.Columns, catalog.Column{Name: rowIDColumn, Type: types.TInt64, NotNull: true, Hidden: true})
		rel.PK = []int{len(rel.Columns) - 1}
		rel.RowID = true
	}
	rel.DistKey = rel.PK
	if err := db.saveRelation(rel); err != nil {
		return err
	}
	job := planner.BuildTableJob(rel, &jobEnv{db: db, rel: rel})
	db.register(rel, job)
	err = db.coord.Mutate(ctx, nil, job.Actors, map[stream.ActorID]*stream.Source{job.Top.ID: job.Source})
	if err != nil {
		return err
	}
	return w.Complete("CREATE TABLE")
}

// checkNewName reports whether name is free; with ifNotExists an existing
// relation is a notice and done is true.
func (db *DB) checkNewName(name string, ifNotExists bool, w ResultWriter) (done bool, err error) {
	if _, exists := db.Relation(name); !exists {
		return false, nil
	}
	if ifNotExists {
		return true, w.Notice("NOTICE", fmt.Sprintf("relation %q already exists, skipping", name))
	}
	return true, pgerr.New(pgerr.DuplicateTable, "relation %q already exists", name)
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
	delete(db.creating, rel.ID)
}

func (db *DB) createView(ctx context.Context, cv *planner.CreateView, w ResultWriter) error {
	db.ddlMu.Lock()
	defer db.ddlMu.Unlock()
	if done, err := db.checkNewName(cv.Name, cv.IfNotExists, w); done || err != nil {
		return err
	}
	shape, err := planner.PlanView(cv.Query, cv.ColNames)
	if err != nil {
		return err
	}
	id, err := db.allocID()
	if err != nil {
		return err
	}
	rel := &catalog.Relation{ID: id, Name: cv.Name, Kind: catalog.KindMaterializedView,
		State: catalog.StateCreating, Columns: shape.Columns, PK: shape.PK, DistKey: shape.PK,
		Definition: cv.Definition, Deps: scannedRelations(shape.Plan)}
	nScans := planner.NumScans(shape.Plan)
	scanned := make(chan struct{}, nScans)
	job, err := planner.BuildViewJob(rel, shape, &jobEnv{db: db, rel: rel, allocate: true}, true,
		func() { scanned <- struct{}{} })
	if err != nil {
		return err
	}
	if err := db.saveRelation(rel); err != nil {
		return err
	}
	failed := make(chan struct{})
	db.register(rel, job)
	db.mu.Lock()
	db.creating[rel.ID] = failed
	db.mu.Unlock()
	if err := db.backfillView(ctx, rel, job, nScans, scanned, failed); err != nil {
		db.abandonView(rel, err)
		return err
	}
	return w.Complete("CREATE MATERIALIZED VIEW")
}

// backfillView attaches a new view's job to its upstreams, waits until every
// scan has emitted its snapshot and the result is committed, then marks the
// view created.
func (db *DB) backfillView(ctx context.Context, rel *catalog.Relation, job *planner.StreamJob, nScans int, scanned, failed chan struct{}) error {
	add := &stream.AddMutation{Outputs: map[stream.ActorID][]*stream.Output{}}
	db.mu.RLock()
	for upID, outs := range job.Attach {
		up := db.runtime[upID]
		add.Outputs[up.top] = append(add.Outputs[up.top], outs...)
	}
	db.mu.RUnlock()
	if err := db.coord.Mutate(ctx, add, job.Actors, nil); err != nil {
		return err
	}
	for i := 0; i < nScans; i++ {
		select {
		case <-scanned:
		case <-failed:
			return pgerr.New(pgerr.SerializationFailure, "creating materialized view %q failed: the streaming graph restarted", rel.Name)
		case <-ctx.Done():
			return pgerr.As(ctx.Err())
		}
	}
	if err := db.coord.Checkpoint(ctx); err != nil {
		return err
	}
	rel.State = catalog.StateCreated
	if err := db.saveRelation(rel); err != nil {
		return err
	}
	db.mu.Lock()
	delete(db.creating, rel.ID)
	db.mu.Unlock()
	return nil
}

// abandonView stops a view whose creation failed and removes its state.
func (db *DB) abandonView(rel *catalog.Relation, cause error) {
	db.mu.RLock()
	rt := db.runtime[rel.ID]
	db.mu.RUnlock()
	if rt != nil {
		stop := &stream.StopMutation{Actors: actorSet(rt.actors)}
		// The stop must go through even when the client went away.
		_ = db.coord.Mutate(context.Background(), stop, nil, nil)
	}
	db.unregister(rel)
	if err := db.purgeRelation(rel); err != nil {
		db.opts.Logger.Error("removing abandoned view", "view", rel.Name, "err", err, "cause", cause)
	}
}

// failCreatingJobs tells every view being created that its job is gone.
func (db *DB) failCreatingJobs(error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	for id, ch := range db.creating {
		close(ch)
		delete(db.creating, id)
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
	db.ddlMu.Lock()
	defer db.ddlMu.Unlock()
	for _, name := range d.Names {
		rel, ok := db.Relation(name)
		if !ok || rel.Kind != d.Kind {
			if ok {
				return wrongKind(rel, d.Kind)
			}
			if d.IfExists {
				if err := w.Notice("NOTICE", fmt.Sprintf("%s %q does not exist, skipping", kindWord(d.Kind), name)); err != nil {
					return err
				}
				continue
			}
			return pgerr.New(pgerr.UndefinedTable, "%s %q does not exist", kindWord(d.Kind), name)
		}
		if err := db.dropRelation(ctx, rel, d.Cascade, w); err != nil {
			return err
		}
	}
	if d.Kind == catalog.KindTable {
		return w.Complete("DROP TABLE")
	}
	return w.Complete("DROP MATERIALIZED VIEW")
}

func kindWord(k catalog.Kind) string {
	if k == catalog.KindTable {
		return "table"
	}
	return "materialized view"
}

func wrongKind(rel *catalog.Relation, want catalog.Kind) error {
	e := pgerr.New("42809", "%q is not a %s", rel.Name, kindWord(want))
	if rel.Kind == catalog.KindTable {
		e.Hint = "Use DROP TABLE to remove a table."
	} else {
		e.Hint = "Use DROP MATERIALIZED VIEW to remove a materialized view."
	}
	return e
}

// dropRelation drops rel, and with cascade the views that depend on it.
func (db *DB) dropRelation(ctx context.Context, rel *catalog.Relation, cascade bool, w ResultWriter) error {
	deps := db.dependents(rel.ID)
	if len(deps) > 0 && !cascade {
		e := pgerr.New(pgerr.DependentObjects, "cannot drop %s %s because other objects depend on it", kindWord(rel.Kind), rel.Name)
		e.Detail = fmt.Sprintf("materialized view %s depends on %s %s", deps[0].Name, kindWord(rel.Kind), rel.Name)
		e.Hint = "Use DROP ... CASCADE to drop the dependent objects too."
		return e
	}
	for _, dep := range deps {
		if err := w.Notice("NOTICE", fmt.Sprintf("drop cascades to materialized view %s", dep.Name)); err != nil {
			return err
		}
		if err := db.dropRelation(ctx, dep, true, w); err != nil {
			return err
		}
	}
	db.mu.RLock()
	rt := db.runtime[rel.ID]
	db.mu.RUnlock()
	if rt != nil {
		if rt.dml != nil {
			rt.dml.Lock()
			defer rt.dml.Unlock()
		}
		stop := &stream.StopMutation{Actors: actorSet(rt.actors)}
		if err := db.coord.Mutate(ctx, stop, nil, nil); err != nil && !errors.Is(err, stream.ErrGraphFailed) {
			return err
		}
	}
	db.unregister(rel)
	return db.purgeRelation(rel)
}
