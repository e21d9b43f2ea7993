package systemcatalog

import (
	"hash/fnv"
	"sort"
	"strings"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/types"
)

// Sources (CREATE SOURCE) appear in pg_catalog as foreign tables: their
// rows come from outside, through a connector. Each connector is a
// foreign server of the one foreign-data wrapper, "streamdb", and a
// source's connector options are its table options, so psql's \d shows
// them as "Server: datagen" and "FDW options: (...)". There are no user
// mappings.

var (
	pgForeignTable       = newTable(nsPgCatalog, "pg_foreign_table", 3118, "r", foreignTableRows, `ftrelid oid, ftserver oid, ftoptions text[]`)
	pgForeignDataWrapper = newTable(nsPgCatalog, "pg_foreign_data_wrapper", 2328, "r", foreignWrapperRows, `oid oid, fdwname name, fdwowner oid, fdwhandler oid, fdwvalidator oid, fdwacl aclitem[], fdwoptions text[]`)
	pgForeignServer      = newTable(nsPgCatalog, "pg_foreign_server", 1417, "r", foreignServerRows, `oid oid, srvname name, srvowner oid, srvfdw oid, srvtype text, srvversion text, srvacl aclitem[], srvoptions text[]`)
	pgUserMappings       = newTable(nsPgCatalog, "pg_user_mappings", 12327, "v", nil, `umid oid, srvid oid, srvname name, umuser oid, usename name, umoptions text[]`)
)

const fdwOID = 15099

// serverOID gives each connector a stable OID.
func serverOID(connector string) int64 {
	h := fnv.New32a()
	h.Write([]byte(connector))
	return 15100 + int64(h.Sum32()%800)
}

// sources returns the relations pg_class lists as foreign tables.
func (v *view) sources() []*catalog.Relation {
	var out []*catalog.Relation
	for _, r := range v.rels {
		if relKind(r) == "f" {
			out = append(out, r)
		}
	}
	return out
}

func connectorName(r *catalog.Relation) string {
	if name := r.Connector["connector"]; name != "" {
		return name
	}
	return "streamdb"
}

// connectorOptions renders a source's options as Postgres keeps them:
// name=value text, sorted by name. The options streamdb records itself
// (keys under "streamdb.", such as a Kafka source's resolved start
// offsets) are not the user's: they are left out. A secret (an option
// whose name says password or secret, such as
// schema.registry.password) shows as ******** to anyone who can read the
// catalog, as PostgreSQL's pg_user_mappings hides a mapping's password.
func connectorOptions(r *catalog.Relation) types.Datum {
	keys := make([]string, 0, len(r.Connector))
	for k := range r.Connector {
		if !strings.HasPrefix(k, "streamdb.") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	elems := make([]types.Datum, len(keys))
	for i, k := range keys {
		v := r.Connector[k]
		if IsSecretOption(k) {
			v = "********"
		}
		elems[i] = k + "=" + v
	}
	return types.FormatArray(elems, types.TText)
}

func foreignTableRows(v *view) [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range v.sources() {
		rows = append(rows, []types.Datum{relOID(r), serverOID(connectorName(r)), connectorOptions(r)})
	}
	return rows
}

func foreignServerRows(v *view) [][]types.Datum {
	seen := map[string]bool{}
	var rows [][]types.Datum
	for _, r := range v.sources() {
		name := connectorName(r)
		if !seen[name] {
			seen[name] = true
			rows = append(rows, []types.Datum{serverOID(name), name, int64(roleSuper), int64(fdwOID), nil, nil, nil, nil})
		}
	}
	return rows
}

func foreignWrapperRows(*view) [][]types.Datum {
	return [][]types.Datum{{int64(fdwOID), "streamdb", int64(roleSuper), int64(0), int64(0), nil, nil}}
}

// IsSecretOption reports whether a connector option holds a secret that
// listings must not show.
func IsSecretOption(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "password") || strings.Contains(n, "secret")
}
