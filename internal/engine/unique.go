package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/streamdb/streamdb/internal/types"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/planner"
)

// UNIQUE constraints. A table's UNIQUE constraint is enforced through a
// unique index on its columns (an index relation like CREATE INDEX's,
// maintained by the stream graph in the same epochs as the table), made
// right after the table: the table's catalog entry names the
// constraint's index once it exists, and the write path refuses to
// write the table while a constraint has no created index (so a crash
// between the two leaves a table that refuses writes, never one whose
// constraint is silently not enforced). The write path checks each
// statement's rows against the index in the statement's snapshot, under
// the table's DML lock (write/unique.go).

// createUniqueIndexes creates the indexes of the UNIQUE constraints of
// rel, a table just created; if one fails, the table is dropped.
func (db *DB) createUniqueIndexes(ctx context.Context, rel *catalog.Relation, w ResultWriter) (err error) {
	defer func() {
		if err != nil {
			db.dropFailed(rel, w, "a table whose unique constraints could not be made", "table")
		}
	}()
	for k, u := range rel.Uniques {
		cur, ok := db.RelationByID(rel.ID)
		if !ok {
			return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", rel.Name)
		}
		keys := make([]catalog.IndexKey, len(u.Columns))
		for i, c := range u.Columns {
			keys[i] = catalog.IndexKey{Column: c}
		}
		ci := &planner.CreateIndex{Name: u.Name, On: cur, Keys: keys, Unique: true}
		j, err := db.startIndex(ctx, ci, viewOptions{}, w)
		if err != nil {
			return err
		}
		if err := db.setUniqueIndex(rel.ID, k, j.rel.ID); err != nil {
			return err
		}
		if err := db.waitJob(ctx, j, w); err != nil {
			return err
		}
	}
	return nil
}

// setUniqueIndex records index as the index of rel's k-th UNIQUE
// constraint.
func (db *DB) setUniqueIndex(rel uint32, k int, index uint32) error {
	db.ddlMu.Lock()
	defer db.ddlMu.Unlock()
	cur, ok := db.RelationByID(rel)
	if !ok {
		return pgerr.New(pgerr.UndefinedTable, "relation with id %d does not exist", rel)
	}
	next := *cur
	next.Uniques = slices.Clone(cur.Uniques)
	next.Uniques[k].Index = index
	if err := db.saveRelation(&next); err != nil {
		return err
	}
	db.replaceRelation(&next)
	return nil
}

// dropFailed drops rel, if it still exists: a table whose UNIQUE
// constraints, or a unique index, could not be made. A failure to drop
// it is logged as "dropping " + what, with rel's name under key kind.
func (db *DB) dropFailed(rel *catalog.Relation, w ResultWriter, what, kind string) {
	db.ddlMu.Lock()
	defer db.ddlMu.Unlock()
	cur, ok := db.RelationByID(rel.ID)
	if !ok {
		return
	}
	if err := db.dropRelation(context.Background(), cur, true, w); err != nil {
		db.opts.Logger.Error("dropping "+what, kind, rel.Name, "err", err)
	}
}

// uniqueOfIndex returns the table and UNIQUE constraint whose index is
// idx, if any.
func (db *DB) uniqueOfIndex(idx *catalog.Relation) (*catalog.Relation, *catalog.Unique, bool) {
	if idx.Index == nil || !idx.Index.Unique {
		return nil, nil, false
	}
	t, ok := db.RelationByID(idx.Index.Table)
	if !ok {
		return nil, nil, false
	}
	for i := range t.Uniques {
		if t.Uniques[i].Index == idx.ID {
			return t, &t.Uniques[i], true
		}
	}
	return nil, nil, false
}

// createUniqueIndex runs CREATE UNIQUE INDEX on a table: it holds the
// table's DML lock while the index is built (writes wait, as
// PostgreSQL's CREATE INDEX makes them), checks that the built index has
// no two entries with equal non-NULL keys, and only then makes it a
// unique constraint of the table (IndexOnly); with duplicates the index
// is dropped and the statement fails with 23505. A crash before that
// leaves a plain index: the constraint is never recorded unchecked.
func (db *DB) createUniqueIndex(ctx context.Context, ci *planner.CreateIndex, opts viewOptions, w ResultWriter) error {
	return db.buildUniqueIndex(ctx, ci, opts, true, w)
}

// buildUniqueIndex builds the unique index ci; indexOnly: it is CREATE
// UNIQUE INDEX's, not a UNIQUE constraint's.
func (db *DB) buildUniqueIndex(ctx context.Context, ci *planner.CreateIndex, opts viewOptions, indexOnly bool, w ResultWriter) (err error) {
	db.mu.RLock()
	rt := db.runtime[ci.On.ID]
	db.mu.RUnlock()
	if rt == nil || rt.table == nil {
		return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", ci.On.Name)
	}
	rt.table.Lock()
	defer rt.table.Unlock()
	opts.background = false
	j, err := db.startIndex(ctx, ci, opts, w)
	if err != nil || j == nil {
		return err
	}
	idx := j.rel
	defer func() {
		if err != nil {
			db.dropFailed(idx, w, "a unique index that could not be made", "index")
		}
	}()
	if err := db.waitJob(ctx, j, w); err != nil {
		return err
	}
	cur, ok := db.RelationByID(idx.ID)
	if !ok {
		return pgerr.New(pgerr.UndefinedObject, "index %q was dropped while it was created", idx.Name)
	}
	cols := make([]int, len(ci.Keys))
	for i, k := range ci.Keys {
		cols[i] = k.Column
	}
	if err := db.checkUniqueIndex(cur, ci.On, cols); err != nil {
		return err
	}
	return db.addUnique(ci.On.ID, catalog.Unique{Name: cur.Name, Columns: cols, Index: cur.ID, IndexOnly: indexOnly})
}

// checkUniqueIndex scans a built index for two entries with equal
// non-NULL keys (equal keys are adjacent: they are in one vnode, as the
// first key column picks it, in key order).
func (db *DB) checkUniqueIndex(idx, on *catalog.Relation, cols []int) error {
	snap := db.store.Snapshot()
	defer snap.Close()
	at := make([]int, len(cols))
	for i, c := range cols {
		at[i] = idx.Index.StoredColumn(c)
	}
	layout := planner.TableLayout(idx)
	it := layout.Scan(snap)
	defer it.Close()
	var prev, cur []byte
	key := make([]types.Datum, len(at))
	for it.Next() {
		row := it.Row()
		null := false
		for i, c := range at {
			key[i], null = row[c], null || row[c] == nil
		}
		if null {
			prev = prev[:0]
			continue
		}
		var err error
		if cur, err = layout.AppendPrefixKey(cur[:0], key); err != nil {
			return err
		}
		if len(prev) > 0 && string(prev) == string(cur) {
			_, own := catalog.SplitName(idx.Name)
			e := pgerr.New(pgerr.UniqueViolation, "could not create unique index %q", own)
			names, vals := make([]string, len(cols)), make([]string, len(cols))
			for i, c := range cols {
				names[i], vals[i] = on.Columns[c].Name, types.Format(key[i], on.Columns[c].Type)
			}
			e.Detail = fmt.Sprintf("Key (%s)=(%s) is duplicated.", strings.Join(names, ", "), strings.Join(vals, ", "))
			return e
		}
		prev = append(prev[:0], cur...)
	}
	return it.Err()
}

// addUnique adds u to table rel's UNIQUE constraints.
func (db *DB) addUnique(rel uint32, u catalog.Unique) error {
	db.ddlMu.Lock()
	defer db.ddlMu.Unlock()
	cur, ok := db.RelationByID(rel)
	if !ok {
		return pgerr.New(pgerr.UndefinedTable, "relation with id %d does not exist", rel)
	}
	next := *cur
	next.Uniques = append(slices.Clone(cur.Uniques), u)
	if err := db.saveRelation(&next); err != nil {
		return err
	}
	db.replaceRelation(&next)
	return nil
}

// dropIndexOnlyUnique removes from its table the unique constraint that
// CREATE UNIQUE INDEX made for idx, before DROP INDEX drops it (caller
// holds ddlMu).
func (db *DB) dropIndexOnlyUnique(t *catalog.Relation, idx *catalog.Relation) error {
	next := *t
	next.Uniques = slices.DeleteFunc(slices.Clone(t.Uniques), func(u catalog.Unique) bool { return u.Index == idx.ID })
	if err := db.saveRelation(&next); err != nil {
		return err
	}
	db.replaceRelation(&next)
	return nil
}
