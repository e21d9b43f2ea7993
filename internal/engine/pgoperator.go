package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamdb/streamdb/internal/types"
)

// The built-in operators and casts as pg_operator and pg_cast list them,
// and the descriptions of functions, operators and types as
// pg_description has them (pgoperator_data.go): the ones streamdb has,
// with PostgreSQL 15's OIDs. An operator's implementing function
// (oprcode) is named but not listed in pg_proc, as streamdb cannot call
// it by that name. tests/ check the lists against the binder
// (TestPgOperatorCallable, TestPgCastContexts).

// pgOperator is a pg_operator row; types are named as format_type
// prints them, left "" for a prefix operator.
type pgOperator struct {
	oid                 int64
	name                string
	left, right, result string
	code                int64  // oprcode
	codeName            string // its name, for regproc output
	com, negate         int64  // oprcom, oprnegate: 0 for none
	merge, hash         bool   // oprcanmerge, oprcanhash
	desc                string
}

// pgCast is a pg_cast row: a cast streamdb allows in the same context
// as PostgreSQL (castcontext 'i', 'a' or 'e'), done by function fn
// (castmethod 'f') or by reinterpreting the value ('b').
type pgCast struct {
	oid             int64
	source, target  string
	fn              int64
	context, method byte
}

// descriptions holds pg_description: by class OID, then object OID;
// built at init.
var descriptions = map[int64]map[int64]string{classProc: {}, classOperator: {}, classType: {}}

// initOperators checks and indexes the operators and casts, and fills
// descriptions; pgproc.go's init calls it once pg_proc is indexed.
func initOperators() {
	for _, o := range pgOperators {
		for _, t := range []string{o.left, o.right, o.result} {
			mustTypeOID(t, o.name)
		}
		addSupportFunc(o.code, o.codeName)
		descriptions[classOperator][o.oid] = o.desc
	}
	for _, c := range pgCasts {
		mustTypeOID(c.source, "cast")
		mustTypeOID(c.target, "cast")
		if _, ok := pgFuncsByOID[c.fn]; c.fn != 0 && !ok {
			panic(fmt.Sprintf("streamdb: pg_cast %d: function %d is not in pg_proc", c.oid, c.fn))
		}
	}
	for _, f := range pgFuncs {
		descriptions[classProc][f.oid] = f.desc
	}
	for oid, d := range typeDescriptions {
		descriptions[classType][oid] = d
	}
}

// mustTypeOID is the OID of a type named in the built-in lists, 0 for
// "" (no type).
func mustTypeOID(name, what string) int64 {
	if name == "" {
		return 0
	}
	oid, ok := typeOIDByName(name)
	if !ok {
		panic(fmt.Sprintf("streamdb: %s: unknown type %q", what, name))
	}
	return oid
}

func operatorRows(*catalogView) [][]types.Datum {
	rows := make([][]types.Datum, 0, len(pgOperators))
	for _, o := range pgOperators {
		kind := "b"
		if o.left == "" {
			kind = "l"
		}
		rows = append(rows, []types.Datum{o.oid, o.name, int64(nsPgCatalog), int64(roleSuper), kind, o.merge, o.hash,
			mustTypeOID(o.left, o.name), mustTypeOID(o.right, o.name), mustTypeOID(o.result, o.name),
			o.com, o.negate, o.code, int64(0), int64(0)})
	}
	return rows
}

func castRows(*catalogView) [][]types.Datum {
	rows := make([][]types.Datum, 0, len(pgCasts))
	for _, c := range pgCasts {
		rows = append(rows, []types.Datum{c.oid, mustTypeOID(c.source, "cast"), mustTypeOID(c.target, "cast"), c.fn,
			string(c.context), string(c.method)})
	}
	return rows
}

func descriptionRows(*catalogView) [][]types.Datum {
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
	return rows
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
