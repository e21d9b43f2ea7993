package systemcatalog

import (
	"strings"

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
	firstUserOID     = 16384
	indexOIDBit      = 1 << 30
	constraintOIDBit = 1 << 29

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

// namespaces lists the schemas, by OID.
var namespaces = []struct {
	oid   int64
	name  string
	owner int64
}{
	{nsPgCatalog, "pg_catalog", roleSuper},
	{nsPublic, "public", roleDBOwner},
	{nsInfo, "information_schema", roleSuper},
	{nsStreamdb, "streamdb_catalog", roleSuper},
}

func nsName(oid int64) string {
	for _, n := range namespaces {
		if n.oid == oid {
			return n.name
		}
	}
	return ""
}

func nsOID(name string) (int64, bool) {
	for _, n := range namespaces {
		if n.name == name {
			return n.oid, true
		}
	}
	return 0, false
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

// relSchema returns the schema OID and the unqualified name of a relation.
func relSchema(r *catalog.Relation) (int64, string) {
	if schema, name, ok := strings.Cut(r.Name, "."); ok && r.Kind == catalog.KindSystem {
		ns, _ := nsOID(schema)
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

func pkIndexName(r *catalog.Relation) string { return r.Name + "_pkey" }
