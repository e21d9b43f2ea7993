package systemcatalog

import (
	"fmt"

	"github.com/streamdb/streamdb/internal/types"
)

// The built-in operators and casts as pg_operator and pg_cast list them,
// and the descriptions of functions, operators and types as
// pg_description has them (pg_operator_data.go): the ones streamdb has,
// with PostgreSQL 15's OIDs. An operator's implementing function
// (oprcode) is named but not listed in pg_proc, as streamdb cannot call
// it by that name. tests/ check the lists against the binder
// (TestPgOperatorCallable, TestPgCastContexts). Operator classes and
// families (the operators an index method uses) are not listed.

var (
	pgOperator = newTable(nsPgCatalog, "pg_operator", 2617, "r", operatorRows, `oid oid, oprname name, oprnamespace oid, oprowner oid, oprkind "char", oprcanmerge boolean, oprcanhash boolean, oprleft oid, oprright oid, oprresult oid, oprcom oid, oprnegate oid, oprcode regproc, oprrest regproc, oprjoin regproc`)
	pgCast     = newTable(nsPgCatalog, "pg_cast", 2605, "r", castRows, `oid oid, castsource oid, casttarget oid, castfunc oid, castcontext "char", castmethod "char"`)
	pgOpclass  = newTable(nsPgCatalog, "pg_opclass", 2616, "r", nil, `oid oid, opcmethod oid, opcname name, opcnamespace oid, opcowner oid, opcfamily oid, opcintype oid, opcdefault boolean, opckeytype oid`)
	pgOpfamily = newTable(nsPgCatalog, "pg_opfamily", 2753, "r", nil, `oid oid, opfmethod oid, opfname name, opfnamespace oid, opfowner oid`)
	pgAmop     = newTable(nsPgCatalog, "pg_amop", 2602, "r", nil, `oid oid, amopfamily oid, amoplefttype oid, amoprighttype oid, amopstrategy smallint, amoppurpose "char", amopopr oid, amopmethod oid, amopsortfamily oid`)
	pgAmproc   = newTable(nsPgCatalog, "pg_amproc", 2603, "r", nil, `oid oid, amprocfamily oid, amproclefttype oid, amprocrighttype oid, amprocnum smallint, amproc regproc`)
)

// builtinOperator is a pg_operator row; types are named as format_type
// prints them, left "" for a prefix operator.
type builtinOperator struct {
	oid                 int64
	name                string
	left, right, result string
	code                int64  // oprcode
	codeName            string // its name, for regproc output
	com, negate         int64  // oprcom, oprnegate: 0 for none
	merge, hash         bool   // oprcanmerge, oprcanhash
	desc                string
}

// builtinCast is a pg_cast row: a cast streamdb allows in the same context
// as PostgreSQL (castcontext 'i', 'a' or 'e'), done by function fn
// (castmethod 'f') or by reinterpreting the value ('b').
type builtinCast struct {
	oid             int64
	source, target  string
	fn              int64
	context, method byte
}

// initOperators checks and indexes the operators and casts, and fills
// descriptions; pg_proc.go's init calls it once pg_proc is indexed.
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

func operatorRows(*view) [][]types.Datum {
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

func castRows(*view) [][]types.Datum {
	rows := make([][]types.Datum, 0, len(pgCasts))
	for _, c := range pgCasts {
		rows = append(rows, []types.Datum{c.oid, mustTypeOID(c.source, "cast"), mustTypeOID(c.target, "cast"), c.fn,
			string(c.context), string(c.method)})
	}
	return rows
}
