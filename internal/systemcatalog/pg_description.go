package systemcatalog

import (
	"slices"
	"strings"

	"github.com/streamdb/streamdb/internal/types"
)

// Comments: pg_description has PostgreSQL 15's descriptions of the
// built-in functions, operators and types streamdb has (from
// pg_proc_data.go and pg_operator_data.go); obj_description reads them.
// The comments of COMMENT ON, on relations and their columns, follow
// (comments.go). Shared objects have no comments and nothing has a
// security label.

var (
	pgDescription   = newTable(nsPgCatalog, "pg_description", 2609, "r", descriptionRows, `objoid oid, classoid oid, objsubid integer, description text`)
	pgShdescription = newTable(nsPgCatalog, "pg_shdescription", 2396, "r", nil, `objoid oid, classoid oid, description text`)
	pgSeclabel      = newTable(nsPgCatalog, "pg_seclabel", 3596, "r", nil, `objoid oid, classoid oid, objsubid integer, provider text, label text`)
)

// The OIDs of the catalogs whose objects have descriptions
// (pg_description.classoid).
const (
	classType     = 1247
	classProc     = 1255
	classOperator = 2617
)

// descriptions holds pg_description: by class OID, then object OID;
// built at init (initOperators).
var descriptions = map[int64]map[int64]string{classProc: {}, classOperator: {}, classType: {}}

func descriptionRows(v *view) [][]types.Datum {
	var rows [][]types.Datum
	for _, class := range []int64{classType, classProc, classOperator} {
		oids := make([]int64, 0, len(descriptions[class]))
		for oid := range descriptions[class] {
			oids = append(oids, oid)
		}
		slices.Sort(oids)
		for _, oid := range oids {
			rows = append(rows, []types.Datum{oid, class, int64(0), descriptions[class][oid]})
		}
	}
	return append(rows, relationDescriptionRows(v)...)
}

// catalogClasses are the catalogs obj_description can be asked about, by
// name.
var catalogClasses = map[string]int64{"pg_type": classType, "pg_proc": classProc, "pg_operator": classOperator}

// objDescription is obj_description(oid[, catalog]): the comment on an
// object, NULL when it has none. Without a catalog, the object may be in
// any.
func objDescription(a []types.Datum) (types.Datum, error) {
	oid := a[0].(int64)
	if len(a) == 2 {
		name := strings.TrimPrefix(a[1].(string), "pg_catalog.")
		if d, ok := descriptions[catalogClasses[name]][oid]; ok {
			return d, nil
		}
		return nil, nil
	}
	for _, class := range []int64{classType, classProc, classOperator} {
		if d, ok := descriptions[class][oid]; ok {
			return d, nil
		}
	}
	return nil, nil
}
