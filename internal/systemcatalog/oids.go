package systemcatalog

import (
	"maps"
	"slices"

	"github.com/streamdb/streamdb/internal/catalog"
)

// Object identifiers: a stored relation's OID is its catalog id plus
// firstUserOID (stable across restarts, as ids are never reused); the
// index behind a table's primary key and its constraint get the
// relation's OID with indexOIDBit or constraintOIDBit set. Types,
// built-in functions, operators and casts have their Postgres OIDs;
// system relations and namespaces have fixed OIDs (Postgres's own for
// the catalogs it has, from 16000 for streamdb_catalog's). All user
// objects are in the public schema and owned by the session's user
// (role OID 10).

const (
	firstUserOID     = catalog.FirstUserOID
	indexOIDBit      = 1 << 30
	constraintOIDBit = 1 << 29
	tempNsOIDBit     = 1 << 28

	nsPgCatalog = 11
	nsPublic    = 2200
	nsInfo      = 13207
	nsStreamdb  = 16383

	roleSuper   = 10
	roleDBOwner = 6171

	amHeap  = 2
	amBtree = 403

	collDefault = 100
	databaseOID = 16384
)

// namespace is a schema as pg_namespace lists it.
type namespace struct {
	oid   int64
	name  string
	owner int64
}

// namespaces lists the built-in schemas, by OID.
var namespaces = []namespace{
	{nsPgCatalog, "pg_catalog", roleSuper},
	{nsPublic, "public", roleDBOwner},
	{nsInfo, "information_schema", roleSuper},
	{nsStreamdb, "streamdb_catalog", roleSuper},
}

// builtinNsName names a built-in schema.
func builtinNsName(oid int64) string {
	for _, n := range namespaces {
		if n.oid == oid {
			return n.name
		}
	}
	return ""
}

// namespaces lists the built-in schemas, then the user's (OID the first
// user OID + the schema's id, which no relation's OID shares).
func (v *view) namespaces() []namespace {
	if v.ns != nil {
		return v.ns
	}
	v.ns = slices.Clone(namespaces)
	if v.e != nil {
		for _, s := range v.e.Schemas() {
			v.ns = append(v.ns, namespace{firstUserOID + int64(s.ID), s.Name, roleSuper})
		}
		v.ns = append(v.ns, v.tempNamespaces()...)
	}
	return v.ns
}

// tempNamespaces are the schemas pg_temp_N of the sessions' temporary
// tables, as PostgreSQL lists them, each numbered after the first of its
// tables (firstUserOID + id, with tempNsOIDBit set).
func (v *view) tempNamespaces() []namespace {
	first := map[uint32]uint32{}
	for _, r := range v.e.Relations() {
		if r.TempOwner == 0 {
			continue
		}
		if id, ok := first[r.TempOwner]; !ok || r.ID < id {
			first[r.TempOwner] = r.ID
		}
	}
	var out []namespace
	for _, owner := range slices.Sorted(maps.Keys(first)) {
		out = append(out, namespace{firstUserOID + int64(first[owner]) + tempNsOIDBit, catalog.TempSchema(owner), roleSuper})
	}
	return out
}

func (v *view) nsName(oid int64) string {
	for _, n := range v.namespaces() {
		if n.oid == oid {
			return n.name
		}
	}
	return ""
}

func (v *view) nsOID(name string) (int64, bool) {
	for _, n := range v.namespaces() {
		if n.name == name {
			return n.oid, true
		}
	}
	return 0, false
}

// rawSearchPath is the session's search_path as set.
func (v *view) rawSearchPath() []string {
	set, ok := v.id.Settings["search_path"]
	if !ok {
		set = catalog.PublicSchema
	}
	return catalog.ParseSearchPath(set)
}

// searchPath is the session's search_path, pg_catalog first unless it
// names it (as PostgreSQL searches).
func (v *view) searchPath() []string {
	path := v.rawSearchPath()
	if !slices.Contains(path, "pg_catalog") {
		path = append([]string{"pg_catalog"}, path...)
	}
	// The session's temporary schema comes first, as pg_temp does.
	return append([]string{catalog.TempSchema(uint32(v.id.PID))}, path...)
}

// visible reports whether a relation of schema ns named name is the one
// an unqualified name finds: its schema is on the search path and no
// schema before it holds the name.
func (v *view) visible(ns int64, name string) bool {
	for _, s := range v.searchPath() {
		oid, ok := v.nsOID(s)
		if !ok {
			continue
		}
		if oid == ns {
			return true
		}
		if _, ok := v.e.RelationByName(catalog.QualifiedName(s, name)); ok {
			return false
		}
	}
	return false
}

// relOID returns the OID of a relation (stored or system).
func relOID(r *catalog.Relation) int64 {
	if t, ok := tablesByID[r.ID]; ok {
		return t.oid
	}
	if r.Kind == catalog.KindSystem {
		return 0
	}
	return firstUserOID + int64(r.ID)
}

// relSchema returns the schema OID and the unqualified name of a
// relation.
func (v *view) relSchema(r *catalog.Relation) (int64, string) {
	schema, name := catalog.SplitName(r.Name)
	if ns, ok := v.nsOID(schema); ok {
		return ns, name
	}
	return nsPublic, r.Name
}

// relByOID finds a relation by OID (relOID's inverse) without listing
// the catalog: pg_table_is_visible and friends run once per row.
func (v *view) relByOID(oid int64) (*catalog.Relation, bool) {
	if t, ok := tablesByOID[oid]; ok {
		return t.rel, true
	}
	id := oid - firstUserOID
	if id <= 0 || id >= constraintOIDBit {
		return nil, false
	}
	r, ok := v.e.RelationByID(uint32(id))
	if !ok || r.State != catalog.StateCreated {
		return nil, false
	}
	return r, true
}

// pkRelByOID finds the table whose primary key index (indexOIDBit) or
// constraint (constraintOIDBit) has the given OID.
func (v *view) pkRelByOID(oid int64, bit int64) (*catalog.Relation, bool) {
	if oid&bit == 0 {
		return nil, false
	}
	r, ok := v.relByOID(oid &^ bit)
	if !ok || !hasPKIndex(r) {
		return nil, false
	}
	return r, true
}

// hasPKIndex reports whether r has a primary key index to show: a table
// with a declared primary key.
func hasPKIndex(r *catalog.Relation) bool {
	return r.Kind == catalog.KindTable && !r.RowID && len(r.PK) > 0
}

func pkIndexName(r *catalog.Relation) string {
	_, name := catalog.SplitName(r.Name)
	return name + "_pkey"
}

// RelationIDOfOID returns the id of the user relation whose OID is oid
// (a regclass value); ok is false for other OIDs.
func RelationIDOfOID(oid int64) (uint32, bool) {
	id := oid - firstUserOID
	if id <= 0 || id >= constraintOIDBit {
		return 0, false
	}
	return uint32(id), true
}
