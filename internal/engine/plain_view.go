package engine

import (
	"slices"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/planner"
)

// InvalidTableDefinition is the SQLSTATE of a CREATE OR REPLACE VIEW that
// would change the view's existing columns.
const InvalidTableDefinition = "42P16"

// createPlainView records a plain view: its query's text, columns and the
// relations it names. It has no rows and no actors. OR REPLACE keeps the
// view's id and may add columns at the end, as in Postgres, but not while
// a materialized view reads it: that view was planned from the old query.
func (db *DB) createPlainView(cv *planner.CreatePlainView, w ResultWriter) error {
	db.ddlMu.Lock()
	defer db.ddlMu.Unlock()
	rel := &catalog.Relation{Name: cv.Name, Kind: catalog.KindView, State: catalog.StateCreated,
		Columns: cv.Columns, Definition: cv.Definition, Deps: cv.Deps, SearchPath: storedPath(cv.SearchPath)}
	if old, ok := db.Relation(cv.Name); ok {
		if !cv.OrReplace || old.Kind != catalog.KindView {
			if _, err := db.checkNewName(cv.Name, false, w); err != nil {
				return err
			}
		}
		if err := db.checkViewReplace(old, cv); err != nil {
			return err
		}
		rel.ID = old.ID
		if err := db.saveRelation(rel); err != nil {
			return err
		}
		db.replaceRelation(rel)
		return w.Complete("CREATE VIEW")
	}
	id, err := db.allocID()
	if err != nil {
		return err
	}
	rel.ID = id
	if err := db.saveRelation(rel); err != nil {
		return err
	}
	db.mu.Lock()
	db.rels[rel.ID] = rel
	db.byName[rel.Name] = rel
	db.mu.Unlock()
	return w.Complete("CREATE VIEW")
}

// checkViewReplace checks that cv may replace the plain view old.
func (db *DB) checkViewReplace(old *catalog.Relation, cv *planner.CreatePlainView) error {
	if slices.Contains(cv.Deps, old.ID) {
		return pgerr.New("42P17", "infinite recursion detected in rules for relation %q", old.Name)
	}
	if len(cv.Columns) < len(old.Columns) {
		return pgerr.New(InvalidTableDefinition, "cannot drop columns from view")
	}
	for i, c := range old.Columns {
		n := cv.Columns[i]
		if n.Name != c.Name {
			return pgerr.New(InvalidTableDefinition, "cannot change name of view column %q to %q", c.Name, n.Name)
		}
		if n.Type != c.Type {
			return pgerr.New(InvalidTableDefinition, "cannot change data type of view column %q from %s to %s", c.Name, c.Type, n.Type)
		}
	}
	if mv := db.materializedReader(old.ID, map[uint32]bool{}); mv != nil {
		e := pgerr.New(pgerr.DependentObjects, "cannot replace view %s because materialized view %s depends on it", old.Name, mv.Name)
		e.Hint = "Drop the materialized view first; it was planned from the view's old query."
		return e
	}
	return nil
}

// materializedReader returns a materialized view that reads relation id,
// directly or through plain views, or nil.
func (db *DB) materializedReader(id uint32, seen map[uint32]bool) *catalog.Relation {
	if seen[id] {
		return nil
	}
	seen[id] = true
	for _, d := range db.dependents(id) {
		if d.Kind == catalog.KindMaterializedView {
			return d
		}
		if d.Kind == catalog.KindView {
			if mv := db.materializedReader(d.ID, seen); mv != nil {
				return mv
			}
		}
	}
	return nil
}

// viewDeps is what a new materialized view depends on: the relations
// its plan scans, and the others its query names: plain views (expanded
// away in the plan) and tables named as row types (NULL::t of
// jsonb_populate_record), whose drop must not leave the view's
// definition dangling, unable to bind again at a restart.
func (db *DB) viewDeps(q *planner.Query, plan planner.Node) []uint32 {
	deps := scannedRelations(plan)
	for _, id := range q.Refs {
		if _, ok := db.RelationByID(id); ok && !slices.Contains(deps, id) {
			deps = append(deps, id)
		}
	}
	return deps
}
