package binder

import (
	"github.com/streamdb/streamdb/internal/catalog"
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

// creationName is the catalog name of a relation a statement creates.
func (b *binder) creationName(qualified string) (string, error) {
	return catalog.CreationName(qualified, b.searchPath(), b.schemaExists)
}

// ownName is a relation's name without its schema.
func ownName(r *catalog.Relation) string {
	_, name := catalog.SplitName(r.Name)
	return name
}
