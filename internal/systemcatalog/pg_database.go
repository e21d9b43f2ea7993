package systemcatalog

import (
	"maps"
	"slices"

	"github.com/streamdb/streamdb/internal/types"
)

// The database and what is global to it: pg_database lists the one
// database (named as the session connected to it), pg_namespace the
// schemas (namespaces), pg_tablespace Postgres's two tablespaces,
// pg_settings the session's settings. streamdb has no extensions,
// encoding conversions or large objects.

var (
	pgDatabase            = newTable(nsPgCatalog, "pg_database", 1262, "r", databaseRows, `oid oid, datname name, datdba oid, encoding integer, datlocprovider "char", datistemplate boolean, datallowconn boolean, datconnlimit integer, datfrozenxid xid, datminmxid xid, dattablespace oid, datcollate text, datctype text, daticulocale text, datcollversion text, datacl aclitem[]`)
	pgNamespace           = newTable(nsPgCatalog, "pg_namespace", 2615, "r", namespaceRows, `oid oid, nspname name, nspowner oid, nspacl aclitem[]`)
	pgTablespace          = newTable(nsPgCatalog, "pg_tablespace", 1213, "r", tablespaceRows, `oid oid, spcname name, spcowner oid, spcacl aclitem[], spcoptions text[]`)
	pgSettings            = newTable(nsPgCatalog, "pg_settings", 12104, "v", settingRows, `name text, setting text, unit text, category text, short_desc text, extra_desc text, context text, vartype text, source text, min_val text, max_val text, enumvals text[], boot_val text, reset_val text, sourcefile text, sourceline integer, pending_restart boolean`)
	pgExtension           = newTable(nsPgCatalog, "pg_extension", 3079, "r", nil, `oid oid, extname name, extowner oid, extnamespace oid, extrelocatable boolean, extversion text, extconfig oid[], extcondition text[]`)
	pgConversion          = newTable(nsPgCatalog, "pg_conversion", 2607, "r", nil, `oid oid, conname name, connamespace oid, conowner oid, conforencoding integer, contoencoding integer, conproc regproc, condefault boolean`)
	pgLargeobjectMetadata = newTable(nsPgCatalog, "pg_largeobject_metadata", 2995, "r", nil, `oid oid, lomowner oid, lomacl aclitem[]`)
)

func databaseRows(v *view) [][]types.Datum {
	return [][]types.Datum{{int64(databaseOID), v.id.Database, int64(roleSuper), int64(6), "c", false, true,
		int64(-1), int64(0), int64(0), int64(1663), "C", "C", nil, nil, nil}}
}

func namespaceRows(v *view) [][]types.Datum {
	var rows [][]types.Datum
	for _, n := range v.namespaces() {
		rows = append(rows, []types.Datum{n.oid, n.name, n.owner, nil})
	}
	return rows
}

func tablespaceRows(*view) [][]types.Datum {
	return [][]types.Datum{
		{int64(1663), "pg_default", int64(roleSuper), nil, nil},
		{int64(1664), "pg_global", int64(roleSuper), nil, nil},
	}
}

// settingRows lists the session's settings by name; a setting whose
// value is not its default has source "session".
func settingRows(v *view) [][]types.Datum {
	var rows [][]types.Datum
	defaults := v.id.Defaults
	for _, name := range slices.Sorted(maps.Keys(v.id.Settings)) {
		val := v.id.Settings[name]
		source := "default"
		if defaults[name] != val {
			source = "session"
		}
		rows = append(rows, []types.Datum{name, val, nil, "Ungrouped", "", nil, "user", "string", source,
			nil, nil, nil, defaults[name], defaults[name], nil, nil, false})
	}
	return rows
}
