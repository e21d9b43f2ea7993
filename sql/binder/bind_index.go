package binder

import (
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
)

// maxIndexColumns is Postgres's INDEX_MAX_KEYS: key and INCLUDE columns
// together.
const maxIndexColumns = 32

// bindCreateIndex resolves the indexed relation, a table or materialized
// view, and its columns. Whether the name is taken, and the name when the
// statement gives none, are settled when the statement runs.
func (b *binder) bindCreateIndex(s *sql.CreateIndexStmt) (*planner.CreateIndex, error) {
	r, ok := b.lookupName(s.Table)
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", s.Table)
	}
	if err := checkIndexable(r); err != nil {
		return nil, err
	}
	if n := len(s.Keys) + len(s.Include); n > maxIndexColumns {
		return nil, pgerr.New("54011", "cannot use more than %d columns in an index", maxIndexColumns)
	}
	// An index lives in its table's schema.
	name := s.Name
	if name != "" {
		schema, _ := catalog.SplitName(r.Name)
		name = catalog.QualifiedName(schema, name)
	}
	ci := &planner.CreateIndex{Name: name, IfNotExists: s.IfNotExists, On: r, Unique: s.Unique}
	if s.Unique && (r.Kind != catalog.KindTable || r.Connector != nil) {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "UNIQUE indexes are supported on tables without a connector only")
	}
	for _, k := range s.Keys {
		c, err := indexColumn(r, k.Column)
		if err != nil {
			return nil, err
		}
		if t := r.Columns[c].Type; t.ID == types.IDJSON {
			e := pgerr.New(pgerr.UndefinedObject, "data type %s has no default operator class for access method \"btree\"", t)
			e.Hint = "You must specify an operator class for the index or define a default operator class for the data type."
			return nil, e
		}
		nullsFirst := k.Nulls == "first" || k.Nulls == "" && k.Desc
		ci.Keys = append(ci.Keys, catalog.IndexKey{Column: c, Desc: k.Desc, NullsFirst: nullsFirst})
	}
	for _, name := range s.Include {
		c, err := indexColumn(r, name)
		if err != nil {
			return nil, err
		}
		ci.Include = append(ci.Include, c)
	}
	var err error
	ci.With, err = b.checkWithOptions("CREATE INDEX", s.With, viewWithOptions)
	return ci, err
}

// checkIndexable refuses an index on anything but a table or a
// materialized view, as Postgres does.
func checkIndexable(r *catalog.Relation) error {
	var what string
	switch r.Kind {
	case catalog.KindTable, catalog.KindMaterializedView:
		return nil
	case catalog.KindView:
		what = "views"
	case catalog.KindSource:
		what = "sources (a source stores no rows)"
	case catalog.KindIndex:
		what = "indexes"
	default:
		what = "system relations"
	}
	e := pgerr.New(WrongObjectType, "cannot create index on relation %q", r.Name)
	e.Detail = "This operation is not supported for " + what + "."
	return e
}

// indexColumn returns the visible column of r named name.
func indexColumn(r *catalog.Relation, name string) (int, error) {
	for i, c := range r.Columns {
		if c.Name == name && !c.Hidden {
			return i, nil
		}
	}
	return 0, pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", name)
}

// indexesOf returns the created indexes on r that a batch plan may read
// (none in a view's plan, or when the catalog lists no indexes).
func (b *binder) indexesOf(r *catalog.Relation) []*catalog.Relation {
	if b.inView || r.Kind != catalog.KindTable && r.Kind != catalog.KindMaterializedView {
		return nil
	}
	if ir, ok := b.cat.(catalog.IndexReader); ok {
		return ir.IndexesOf(r.ID)
	}
	return nil
}
