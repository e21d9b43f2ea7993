package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/streamdb/streamdb/exec/batch"
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/systemcatalog"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/storage"
)

// Indexes (CREATE INDEX, DROP INDEX): an index is a view job over the
// indexed relation (planner.PlanIndex), created, backfilled, paused,
// rate-limited, rescaled and resumed exactly as a materialized view is,
// and listed by SHOW JOBS while it backfills. Queries read it once it is
// created (batch.IndexSource below), and stop reading it as soon as its
// DROP begins: from then on its actors may stop while the indexed
// relation still changes.

// createIndex creates an index. In the foreground (the default) it
// returns when the index is created, with progress NOTICEs meanwhile.
func (db *DB) createIndex(ctx context.Context, ci *planner.CreateIndex, opts viewOptions, w ResultWriter) error {
	if ci.Unique {
		if err := db.createUniqueIndex(ctx, ci, opts, w); err != nil {
			return err
		}
		return w.Complete("CREATE INDEX")
	}
	j, err := db.startIndex(ctx, ci, opts, w)
	if err != nil || j == nil {
		return err
	}
	if !opts.background {
		if err := db.waitJob(ctx, j, w); err != nil {
			return err
		}
	}
	return w.Complete("CREATE INDEX")
}

// startIndex lays out and attaches a new index's job (nil when IF NOT
// EXISTS found the name taken).
func (db *DB) startIndex(ctx context.Context, ci *planner.CreateIndex, opts viewOptions, w ResultWriter) (*job, error) {
	db.ddlMu.Lock()
	defer db.ddlMu.Unlock()
	on, ok := db.RelationByID(ci.On.ID)
	if !ok || on.Name != ci.On.Name {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", ci.On.Name)
	}
	if on.State == catalog.StateCreating {
		return nil, pgerr.New(pgerr.ObjectNotInPrereqState, "materialized view %q is still being created", on.Name)
	}
	name := ci.Name
	if name == "" {
		name = systemcatalog.ChooseIndexName(on.Name, indexColumnNames(on, ci), db.nameTaken)
	} else if db.nameTaken(name) {
		if !ci.IfNotExists {
			return nil, pgerr.New(pgerr.DuplicateTable, "relation %q already exists", name)
		}
		return nil, w.Notice("NOTICE", fmt.Sprintf("relation %q already exists, skipping", name))
	}
	id, err := db.allocID()
	if err != nil {
		return nil, err
	}
	rel := planner.IndexRelation(on, ci.Keys, ci.Include)
	rel.Index.Unique = ci.Unique
	rel.ID, rel.Name, rel.State = id, name, catalog.StateCreating
	rel.Definition = systemcatalog.IndexDef(rel, on)
	opts.apply(rel, db.opts.Parallelism)
	shape, err := planner.PlanIndex(on, rel)
	if err != nil {
		return nil, err
	}
	return db.launchView(ctx, rel, shape)
}

// indexColumnNames are the names of the indexed columns, key then
// INCLUDE, for the index's default name.
func indexColumnNames(on *catalog.Relation, ci *planner.CreateIndex) []string {
	var names []string
	for _, k := range ci.Keys {
		names = append(names, on.Columns[k.Column].Name)
	}
	for _, c := range ci.Include {
		names = append(names, on.Columns[c].Name)
	}
	return names
}

// nameTaken reports whether a relation, or the index of a table's
// primary key, has the name.
func (db *DB) nameTaken(name string) bool {
	if _, ok := db.Relation(name); ok {
		return true
	}
	for _, r := range db.relationsSorted() {
		if pk, ok := systemcatalog.PKIndexName(r); ok && pk == name {
			return true
		}
	}
	return false
}

// IndexesOf implements catalog.IndexReader: the created indexes on
// relation id, in creation order, but those being dropped.
func (db *DB) IndexesOf(id uint32) []*catalog.Relation {
	db.mu.RLock()
	var out []*catalog.Relation
	for _, r := range db.rels {
		if r.Readable() && r.Index.Table == id && !db.droppingIndexes[r.ID] {
			out = append(out, r)
		}
	}
	db.mu.RUnlock()
	slices.SortFunc(out, func(a, b *catalog.Relation) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// indexReadable reports whether queries may read index id: it is
// registered, created, and no DROP has begun.
func (db *DB) indexReadable(id uint32) bool {
	db.mu.RLock()
	defer db.mu.RUnlock()
	r, ok := db.rels[id]
	return ok && r.Readable() && !db.droppingIndexes[id]
}

// markIndexDropping stops queries from reading index id (a DROP has
// begun), or lets them again (dropping false: the DROP failed).
func (db *DB) markIndexDropping(id uint32, dropping bool) {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.droppingIndexes == nil {
		db.droppingIndexes = map[uint32]bool{}
	}
	if dropping {
		db.droppingIndexes[id] = true
	} else {
		delete(db.droppingIndexes, id)
	}
}

// ScanIndex implements batch.IndexSource. The snapshot was taken before
// the check: an index readable after it was whole and up to date in it.
func (s *snapshotSource) ScanIndex(ctx context.Context, rel, idx *catalog.Relation, ranges []storage.KeyRange, covering bool) (storage.Iterator, error) {
	if rel.State == catalog.StateCreating {
		return nil, pgerr.New(pgerr.ObjectNotInPrereqState, "materialized view %q is still being created", rel.Name)
	}
	if idx.Index == nil || idx.Index.Table != rel.ID || !s.db.indexReadable(idx.ID) {
		return nil, batch.ErrIndexUnavailable
	}
	l := &storage.IndexLookup{Index: planner.TableLayout(idx), Table: planner.TableLayout(rel),
		Columns: idx.Index.Columns, Covering: covering}
	return l.Scan(s.snap, ranges), nil
}
