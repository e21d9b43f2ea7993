package systemcatalog

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// The reg* types (regclass, regtype, regnamespace, regproc, regrole):
// OIDs that read and print as the names of their objects. Their input
// and output functions (regclassin, regclassout ...) are catalog
// functions, as they look names up in the session's catalog; a query's
// reg* results are printed as names by RegOutput.

// regFunction returns the reg* types' input and output functions.
func (c Functions) regFunction(name string) (*catalog.Func, bool) {
	var t types.Type
	base, out := strings.CutSuffix(name, "out")
	if !out {
		var in bool
		if base, in = strings.CutSuffix(name, "in"); !in {
			return nil, false
		}
	}
	switch base {
	case "regclass":
		t = types.Type{ID: types.IDRegclass}
	case "regtype":
		t = types.Type{ID: types.IDRegtype}
	case "regnamespace":
		t = types.Type{ID: types.IDRegnamespace}
	case "regproc":
		t = types.Type{ID: types.IDRegproc}
	case "regrole":
		t = types.Type{ID: types.IDRegrole}
	default:
		return nil, false
	}
	if out {
		return fn(tText, func(a []types.Datum) (types.Datum, error) { return c.regOut(t, a[0].(int64)), nil }, t), true
	}
	return fn(t, func(a []types.Datum) (types.Datum, error) { return c.regIn(t, a[0].(string)) }, tText), true
}

// regOut prints an OID of reg* type t as the name of its object (as it
// would be written on the search path), or as the number when there is
// none.
func (c Functions) regOut(t types.Type, oid int64) string {
	switch t.ID {
	case types.IDRegclass:
		v := c.lookup()
		if r, ok := v.relByOID(oid); ok {
			return v.qualifiedRelName(r)
		}
		if r, ok := v.pkRelByOID(oid, indexOIDBit); ok {
			return expr.QuoteIdent(pkIndexName(r))
		}
	case types.IDRegtype:
		if isCatalogType(oid) {
			return expr.FormatTypeName(uint32(oid))
		}
	case types.IDRegnamespace:
		if name := c.lookup().nsName(oid); name != "" {
			return expr.QuoteIdent(name)
		}
	case types.IDRegrole:
		if name := c.id.roleName(oid); name != "" {
			return expr.QuoteIdent(name)
		}
	case types.IDRegproc:
		if oid == 0 {
			return "-"
		}
		if name, ok := funcName(oid); ok {
			return name
		}
	}
	return strconv.FormatInt(oid, 10)
}

// qualifiedRelName names a relation as regclass prints it: qualified
// when its schema is not on the search path.
func (v *view) qualifiedRelName(r *catalog.Relation) string {
	ns, name := v.relSchema(r)
	if v.visible(ns, name) {
		return expr.QuoteIdent(name)
	}
	return expr.QuoteIdent(v.nsName(ns)) + "." + expr.QuoteIdent(name)
}

// regIn reads the name (or number) of an object as a reg* value.
func (c Functions) regIn(t types.Type, s string) (types.Datum, error) {
	s = strings.TrimSpace(s)
	if n, err := types.ParseOID(s); err == nil {
		return n, nil
	}
	switch t.ID {
	case types.IDRegclass:
		return c.regclassIn(s)
	case types.IDRegtype:
		return regtypeIn(s)
	case types.IDRegnamespace:
		if oid, ok := c.lookup().nsOID(unquoteName(s)); ok {
			return oid, nil
		}
		return nil, pgerr.New(pgerr.UndefinedObject, "schema %q does not exist", unquoteName(s))
	case types.IDRegrole:
		switch unquoteName(s) {
		case c.id.User:
			return int64(roleSuper), nil
		case "pg_database_owner":
			return int64(roleDBOwner), nil
		}
		return nil, pgerr.New(pgerr.UndefinedObject, "role %q does not exist", unquoteName(s))
	case types.IDRegproc:
		parts := splitQualified(s)
		if len(parts) == 1 || (len(parts) == 2 && parts[0] == "pg_catalog") {
			return funcOIDByName(parts[len(parts)-1])
		}
	}
	return nil, pgerr.New(pgerr.UndefinedFunction, "function %q does not exist", s)
}

// regprocOIDs are the functions a regproc can name: the array input and
// output functions, which pg_type.typinput/typoutput give for array
// types (drivers such as pgjdbc test typinput = 'array_in'::regproc).
var regprocOIDs = map[string]int64{"array_in": 750, "array_out": 751, "array_recv": 2400, "array_send": 2401}

// supportFuncNames and supportFuncOIDs are the functions a regproc can
// name that pg_proc does not list, by OID and by name: the array input
// and output functions (regprocOIDs), the operators' implementations
// (pg_operator.oprcode) and the aggregates' support functions
// (pg_aggregate); built at init.
var (
	supportFuncNames = map[int64]string{}
	supportFuncOIDs  = map[string]int64{}
)

// addSupportFunc lets regproc name the function oid, as name.
func addSupportFunc(oid int64, name string) {
	if n, ok := supportFuncNames[oid]; ok && n != name {
		panic(fmt.Sprintf("streamdb: function %d is named both %q and %q", oid, n, name))
	}
	if strings.HasPrefix(name, "pg_catalog.") {
		// An overloaded name, which regproc prints qualified and cannot
		// read back (PostgreSQL: "more than one function named").
		supportFuncNames[oid] = name
		return
	}
	if o, ok := supportFuncOIDs[name]; ok && o != oid {
		panic(fmt.Sprintf("streamdb: function %q has OIDs %d and %d", name, o, oid))
	}
	supportFuncNames[oid], supportFuncOIDs[name] = name, oid
}

// regclassIn looks a relation name up: [schema.]name, unqualified
// through the session's search path.
func (c Functions) regclassIn(s string) (types.Datum, error) {
	parts := splitQualified(s)
	v := c.view()
	for _, r := range v.rels {
		ns, name := v.relSchema(r)
		switch {
		case len(parts) == 1 && name == parts[0] && v.visible(ns, name),
			len(parts) == 2 && name == parts[1] && v.nsName(ns) == parts[0]:
			return relOID(r), nil
		}
		if hasPKIndex(r) && parts[len(parts)-1] == pkIndexName(r) &&
			(len(parts) == 1 && v.visible(ns, name) || len(parts) == 2 && v.nsName(ns) == parts[0]) {
			return relOID(r) | indexOIDBit, nil
		}
	}
	return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", s)
}

func regtypeIn(s string) (types.Datum, error) {
	name := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(s), "pg_catalog."))
	elem, isArray := strings.CutSuffix(name, "[]")
	if id, ok := types.ExprTypeByName(elem); ok {
		t := types.Type{ID: id}
		if isArray {
			t = types.ArrayOf(id)
		}
		return int64(t.OID()), nil
	}
	if t, ok := types.CatalogTypeByName(name); ok {
		return int64(t.OID), nil
	}
	return nil, pgerr.New(pgerr.UndefinedObject, "type %q does not exist", s)
}

// splitQualified splits a possibly quoted, possibly qualified name into
// its parts, folding unquoted parts to lower case.
func splitQualified(s string) []string {
	var parts []string
	var b strings.Builder
	quoted := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '"' && quoted && i+1 < len(s) && s[i+1] == '"':
			b.WriteByte('"')
			i++
		case ch == '"':
			quoted = !quoted
		case ch == '.' && !quoted:
			parts = append(parts, b.String())
			b.Reset()
		case !quoted:
			b.WriteString(strings.ToLower(string(ch)))
		default:
			b.WriteByte(ch)
		}
	}
	return append(parts, b.String())
}

func unquoteName(s string) string {
	parts := splitQualified(s)
	return parts[len(parts)-1]
}

// RegOutput returns a function that converts the reg* values of a result
// row with columns of types cols to the names they print as (the wire
// sends reg* values in their text form).
func (c Functions) RegOutput(cols []types.Type) func(row []types.Datum) {
	var regs []int
	for i, t := range cols {
		if t.IsReg() {
			regs = append(regs, i)
		}
	}
	if len(regs) == 0 {
		return func([]types.Datum) {}
	}
	return func(row []types.Datum) {
		for _, i := range regs {
			if v, ok := row[i].(int64); ok {
				row[i] = c.regOut(cols[i], v)
			}
		}
	}
}
