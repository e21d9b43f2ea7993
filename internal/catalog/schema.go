package catalog

import (
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// Schemas. A relation lives in one schema; the catalog knows it by its
// qualified name: its own name in public (so that stores written before
// schemas existed read unchanged), schema.name in any other. The built-in
// schemas are public, pg_catalog, information_schema and
// streamdb_catalog; CREATE SCHEMA adds user schemas.

// PublicSchema is the default schema, where unqualified names are
// created unless search_path says otherwise.
const PublicSchema = "public"

// Schema is a user-created schema.
type Schema struct {
	// ID is drawn from the relations' id sequence, so that its OID
	// (the first user OID + ID) is distinct from every relation's.
	ID   uint32 `json:"id"`
	Name string `json:"name"`
}

// BuiltinSchema reports whether name is one of the built-in schemas.
func BuiltinSchema(name string) bool {
	switch name {
	case PublicSchema, "pg_catalog", "information_schema", "streamdb_catalog":
		return true
	}
	return false
}

// QualifiedName is the catalog name of relation name in schema.
func QualifiedName(schema, name string) string {
	if schema == "" || schema == PublicSchema {
		return name
	}
	return schema + "." + name
}

// SplitName is QualifiedName's inverse: the schema and the relation's
// own name of a catalog name.
func SplitName(qualified string) (schema, name string) {
	if s, n, ok := strings.Cut(qualified, "."); ok {
		return s, n
	}
	return PublicSchema, qualified
}

// SchemaReader is what the binder needs to resolve names against
// schemas: which exist, and the session's search path. A catalog.Reader
// that does not implement it has only public.
type SchemaReader interface {
	// SchemaExists reports whether schema name exists (built in or
	// created).
	SchemaExists(name string) bool
	// SearchPath is the schemas an unqualified name is looked up in, in
	// order (pg_catalog is searched after them when not listed).
	SearchPath() []string
}

// TempSchemaReader is implemented by a session's catalog: TempSchema
// is the schema of the session's temporary tables, pg_temp_N, which
// its search path starts with.
type TempSchemaReader interface {
	TempSchema() string
}

// TempSchema is the schema of the temporary tables of the session with
// backend process ID pid.
func TempSchema(pid uint32) string { return "pg_temp_" + strconv.FormatUint(uint64(pid), 10) }

// IsTempSchema reports whether schema is one of temporary tables.
func IsTempSchema(schema string) bool { return strings.HasPrefix(schema, "pg_temp_") }

// ParseSearchPath reads a search_path setting: schema names separated by
// commas, each possibly double-quoted; "$user" (no schema here is named
// after a user) is left out.
func ParseSearchPath(setting string) []string {
	var out []string
	for _, part := range strings.Split(setting, ",") {
		s := strings.TrimSpace(part)
		if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
			s = strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
		} else {
			s = strings.ToLower(s)
		}
		if s == "" || s == "$user" {
			continue
		}
		out = append(out, s)
	}
	return out
}

// SearchPathOf is r's search path: its own when it is a SchemaReader,
// else public alone.
func SearchPathOf(r Reader) []string {
	if sr, ok := r.(SchemaReader); ok {
		return sr.SearchPath()
	}
	return []string{PublicSchema}
}

// Lookup finds the relation schema.name (schema "" for an unqualified
// name) as PostgreSQL does: a qualified name in its schema, an
// unqualified one in each schema of path in turn, then in pg_catalog.
func Lookup(r Reader, path []string, schema, name string) (*Relation, bool) {
	if schema != "" {
		return r.Relation(QualifiedName(schema, name))
	}
	for _, s := range path {
		if rel, ok := r.Relation(QualifiedName(s, name)); ok {
			return rel, true
		}
	}
	return r.Relation("pg_catalog." + name)
}

// LookupName is Lookup of a name as the DDL parser writes it: name or
// schema.name.
func LookupName(r Reader, path []string, qualified string) (*Relation, bool) {
	if s, n, ok := strings.Cut(qualified, "."); ok {
		return Lookup(r, path, s, n)
	}
	return Lookup(r, path, "", qualified)
}

// CreationName is the catalog name a new relation written qualified
// (name or schema.name, as the DDL parser writes it) gets: in its schema,
// which must exist and not be a system one, or unqualified, in the first
// schema of path that exists. exists reports whether a schema exists.
func CreationName(qualified string, path []string, exists func(string) bool) (string, error) {
	schema, name, ok := strings.Cut(qualified, ".")
	if !ok {
		name = qualified
		schema = ""
		for _, s := range path {
			if exists(s) {
				schema = s
				break
			}
		}
		if schema == "" {
			return "", pgerr.New(pgerr.InvalidSchemaName, "no schema has been selected to create in")
		}
	}
	switch {
	case schema == "pg_catalog" || schema == "information_schema" || schema == "streamdb_catalog":
		return "", pgerr.New(pgerr.InsufficientPrivilege, "permission denied to create \"%s.%s\"", schema, name)
	case !exists(schema):
		return "", pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", schema)
	}
	return QualifiedName(schema, name), nil
}
