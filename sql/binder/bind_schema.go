package binder

import (
	"strings"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// searchPath is the schemas an unqualified relation name is looked up
// in, in order.
func (b *binder) searchPath() []string {
	if b.path != nil {
		return b.path
	}
	return catalog.SearchPathOf(b.cat)
}

// schemaExists reports whether schema name exists.
func (b *binder) schemaExists(name string) bool {
	if sr, ok := b.cat.(catalog.SchemaReader); ok {
		return sr.SchemaExists(name)
	}
	return catalog.BuiltinSchema(name)
}

// lookupName finds the relation a DDL statement names (name or
// schema.name).
func (b *binder) lookupName(qualified string) (*catalog.Relation, bool) {
	return catalog.LookupName(b.cat, b.searchPath(), qualified)
}

// tempTableName is the catalog name of a temporary table: in the
// session's pg_temp_N schema (pg_temp names it too); any other schema is
// 42P16, as in PostgreSQL.
func (b *binder) tempTableName(qualified string) (string, error) {
	tr, ok := b.cat.(catalog.TempSchemaReader)
	if !ok {
		return "", notSupported("temporary tables outside a session")
	}
	schema, name, found := strings.Cut(qualified, ".")
	if !found {
		name = qualified
	} else if schema != "pg_temp" && schema != tr.TempSchema() {
		return "", pgerr.New(InvalidTableDefinition, "cannot create temporary relation in non-temporary schema")
	}
	return tr.TempSchema() + "." + name, nil
}

// creationName is the catalog name of a relation a statement creates.
func (b *binder) creationName(qualified string) (string, error) {
	return catalog.CreationName(qualified, b.searchPath(), b.schemaExists)
}

// ownName is a relation's name without its schema.
func ownName(r *catalog.Relation) string {
	_, name := catalog.SplitName(r.Name)
	return name
}
