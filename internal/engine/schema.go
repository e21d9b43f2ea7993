package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/sql"
)

// Schemas: CREATE SCHEMA and DROP SCHEMA, their catalog entries, and the
// search path. A relation's schema is part of its catalog name
// (catalog.QualifiedName); the binder resolves names against the
// session's search_path (sessionCatalog.SearchPath).

const metaSchemaPrefix = "catalog/schema/"

func schemaKey(id uint32) string { return fmt.Sprintf("%s%010d", metaSchemaPrefix, id) }

// loadSchemas reads the user schemas from the store.
func (db *DB) loadSchemas() error {
	keys, vals, err := db.store.ScanMeta(metaSchemaPrefix)
	if err != nil {
		return fmt.Errorf("streamdb: reading catalog: %w", err)
	}
	for i := range keys {
		sc := new(catalog.Schema)
		if err := json.Unmarshal(vals[i], sc); err != nil {
			return fmt.Errorf("streamdb: corrupt catalog entry %s: %w", keys[i], err)
		}
		db.schemas[sc.Name] = sc
	}
	return nil
}

// SchemaExists implements catalog.SchemaReader.
func (db *DB) SchemaExists(name string) bool {
	if catalog.BuiltinSchema(name) {
		return true
	}
	db.mu.RLock()
	defer db.mu.RUnlock()
	_, ok := db.schemas[name]
	return ok
}

// RelationByName implements systemcatalog.Engine.
func (s systemSource) RelationByName(name string) (*catalog.Relation, bool) {
	r, ok := s.db.Relation(name)
	if ok && r.State != catalog.StateCreated {
		return nil, false
	}
	return r, ok
}

// Schemas implements systemcatalog.Engine.
func (s systemSource) Schemas() []catalog.Schema { return s.db.Schemas() }

// Schemas returns the user schemas, in id order.
func (db *DB) Schemas() []catalog.Schema {
	db.mu.RLock()
	defer db.mu.RUnlock()
	out := make([]catalog.Schema, 0, len(db.schemas))
	for _, sc := range db.schemas {
		out = append(out, *sc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// createSchema runs CREATE SCHEMA.
func (db *DB) createSchema(n *sql.CreateSchemaStmt, w ResultWriter) error {
	db.ddlMu.Lock()
	defer db.ddlMu.Unlock()
	if db.SchemaExists(n.Name) {
		if n.IfNotExists {
			if err := w.Notice("NOTICE", fmt.Sprintf("schema %q already exists, skipping", n.Name)); err != nil {
				return err
			}
			return w.Complete("CREATE SCHEMA")
		}
		return pgerr.New(pgerr.DuplicateSchema, "schema %q already exists", n.Name)
	}
	if strings.HasPrefix(n.Name, "pg_") {
		e := pgerr.New(pgerr.ReservedName, "unacceptable schema name %q", n.Name)
		e.Detail = `The prefix "pg_" is reserved for system schemas.`
		return e
	}
	id, err := db.allocID()
	if err != nil {
		return err
	}
	sc := &catalog.Schema{ID: id, Name: n.Name}
	b, err := json.Marshal(sc)
	if err != nil {
		return err
	}
	if err := db.store.PutMeta(schemaKey(id), b); err != nil {
		return err
	}
	db.mu.Lock()
	db.schemas[sc.Name] = sc
	db.mu.Unlock()
	return w.Complete("CREATE SCHEMA")
}

// schemaRelations returns the relations in schema name, newest first (so
// that views go before what they read), indexes left out: they go with
// their tables.
func (db *DB) schemaRelations(name string) []*catalog.Relation {
	var out []*catalog.Relation
	for _, r := range db.relationsSorted() {
		if s, _ := catalog.SplitName(r.Name); s == name && r.Kind != catalog.KindIndex {
			out = append(out, r)
		}
	}
	slices.Reverse(out)
	return out
}

// dropSchemas runs DROP SCHEMA: with CASCADE, the relations in each
// schema (and what depends on them) go first; without, a schema that
// holds any is refused.
func (db *DB) dropSchemas(ctx context.Context, d *sql.DropStmt, w ResultWriter) error {
	for _, name := range d.Names {
		if catalog.BuiltinSchema(name) {
			return pgerr.New(pgerr.DependentObjects, "cannot drop schema %s because it is required by the database system", name)
		}
		db.mu.RLock()
		sc, ok := db.schemas[name]
		db.mu.RUnlock()
		if !ok {
			if d.IfExists {
				if err := w.Notice("NOTICE", fmt.Sprintf("schema %q does not exist, skipping", name)); err != nil {
					return err
				}
				continue
			}
			return pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", name)
		}
		rels := db.schemaRelations(name)
		if len(rels) > 0 && !d.Cascade {
			e := pgerr.New(pgerr.DependentObjects, "cannot drop schema %s because other objects depend on it", name)
			var lines []string
			for _, r := range slices.Backward(rels) {
				lines = append(lines, fmt.Sprintf("%s %s depends on schema %s", kindWord(r.Kind), r.Name, name))
			}
			e.Detail = strings.Join(lines, "\n")
			e.Hint = "Use DROP ... CASCADE to drop the dependent objects too."
			return e
		}
		for _, r := range rels {
			if r.State == catalog.StateCreating && len(db.dependents(r.ID)) == 0 {
				if err := db.cancelJob(r.ID); err != nil {
					return err
				}
			}
		}
		if err := db.dropSchema(ctx, sc, w); err != nil {
			return err
		}
	}
	return w.Complete("DROP SCHEMA")
}

func (db *DB) dropSchema(ctx context.Context, sc *catalog.Schema, w ResultWriter) error {
	db.ddlMu.Lock()
	defer db.ddlMu.Unlock()
	for _, r := range db.schemaRelations(sc.Name) {
		if _, ok := db.RelationByID(r.ID); !ok {
			continue // dropped with something it depends on
		}
		if err := w.Notice("NOTICE", fmt.Sprintf("drop cascades to %s %s", kindWord(r.Kind), r.Name)); err != nil {
			return err
		}
		if err := db.dropRelation(ctx, r, true, w); err != nil {
			return err
		}
	}
	if err := db.store.DeleteMeta(schemaKey(sc.ID)); err != nil {
		return err
	}
	db.mu.Lock()
	delete(db.schemas, sc.Name)
	db.mu.Unlock()
	return nil
}

// SearchPath implements catalog.SchemaReader: the session's search_path.
// The session's temporary schema comes first, as PostgreSQL's pg_temp.
func (c sessionCatalog) SearchPath() []string {
	if c.session == nil {
		return c.searchPath
	}
	return append([]string{c.TempSchema()}, c.searchPath...)
}

// pathCatalog is the catalog with a fixed search path and time zone: a
// stored view's definition binds with the path and zone it was created
// under.
type pathCatalog struct {
	*DB
	path []string
	zone *types.Zone
}

// SearchPath implements catalog.SchemaReader.
func (c pathCatalog) SearchPath() []string { return c.path }

var (
	_ catalog.SchemaReader = sessionCatalog{}
	_ catalog.SchemaReader = pathCatalog{}
)

// storedPath is the search path a view keeps: none for public alone (the
// default, and how views created before schemas existed bind).
// A session's temporary schema is left out: nothing stored may read a
// temporary table.
func storedPath(path []string) []string {
	path = slices.DeleteFunc(slices.Clone(path), catalog.IsTempSchema)
	if len(path) == 1 && path[0] == catalog.PublicSchema {
		return nil
	}
	return path
}
