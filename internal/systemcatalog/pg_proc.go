package systemcatalog

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// The built-in functions as pg_proc lists them: the functions and
// aggregates streamdb has, with PostgreSQL 15's OIDs, attributes and
// descriptions (pg_proc_data.go), so that psql's \df, \da and \sf and
// drivers' function metadata see what a query can call. Functions
// PostgreSQL does not have get OIDs from streamdbFuncOIDBase. pg_language
// lists the languages they are written in; there are no transforms.
//
// The list must not claim more than streamdb does: tests/ call every
// function with arguments of its declared types and check the type of
// the result (TestPgProcCallable), and check that every function the
// expression package knows is listed or is syntax in PostgreSQL too
// (TestPgProcCoversFunctions).

var (
	pgProc      = newTable(nsPgCatalog, "pg_proc", 1255, "r", procRows, `oid oid, proname name, pronamespace oid, proowner oid, prolang oid, procost real, prorows real, provariadic oid, prosupport regproc, prokind "char", prosecdef boolean, proleakproof boolean, proisstrict boolean, proretset boolean, provolatile "char", proparallel "char", pronargs smallint, pronargdefaults smallint, prorettype oid, proargtypes oidvector, proallargtypes oid[], proargmodes "char"[], proargnames text[], proargdefaults pg_node_tree, protrftypes oid[], prosrc text, probin text, prosqlbody pg_node_tree, proconfig text[], proacl aclitem[]`)
	pgLanguage  = newTable(nsPgCatalog, "pg_language", 2612, "r", languageRows, `oid oid, lanname name, lanowner oid, lanispl boolean, lanpltrusted boolean, lanplcallfoid oid, laninline oid, lanvalidator oid, lanacl aclitem[]`)
	pgTransform = newTable(nsPgCatalog, "pg_transform", 3576, "r", nil, `oid oid, trftype oid, trflang oid, trffromsql regproc, trftosql regproc`)
)

const (
	langInternal = 12
	langSQL      = 14

	// streamdbFuncOIDBase numbers the functions PostgreSQL lacks.
	streamdbFuncOIDBase = 15900
)

// builtinFunc is a pg_proc row.
type builtinFunc struct {
	oid    int64
	name   string
	args   string // as pg_get_function_arguments prints them
	result string // as pg_get_function_result prints them
	// src is prosrc, or for a SQL-language function (sql) its body, as
	// pg_get_function_sqlbody prints it.
	src       string
	sql       bool
	kind      byte    // prokind: 'a' for an aggregate, 0 for 'f'
	vol       byte    // provolatile: 's' or 'v', 0 for 'i'
	par       byte    // proparallel: 'r' or 'u', 0 for 's'
	lax       bool    // not strict
	leakproof bool    // proleakproof
	cost      float64 // procost, 0 for 1
	rows      float64 // prorows
	desc      string

	parsed funcSig // from args and result, at init
}

// funcSig is a function's signature in OIDs.
type funcSig struct {
	in       []int64 // proargtypes
	all      []int64 // proallargtypes, nil when all arguments are IN
	modes    []string
	names    []string // nil when no argument is named
	variadic int64
	ret      int64
	retset   bool
	defaults int // pronargdefaults
}

// funcArg is one argument as pg_get_function_arguments prints it:
// [mode] [name] type.
type funcArg struct {
	mode       string // "i", "o", "b" (INOUT) or "v" (VARIADIC)
	name       string
	typ        int64
	hasDefault bool // DEFAULT expr follows
}

var argModes = map[string]string{"OUT": "o", "INOUT": "b", "VARIADIC": "v"}

// parseFuncArgs reads an argument list as pg_get_function_arguments
// prints it.
//
// An ordered-set aggregate's direct arguments come before ORDER BY, its
// aggregated ones after it ("double precision ORDER BY anyelement").
func parseFuncArgs(s string) ([]funcArg, error) {
	if direct, ordered, ok := strings.Cut(s, "ORDER BY "); ok {
		d, err := parseFuncArgs(strings.TrimSuffix(direct, " "))
		if err != nil {
			return nil, err
		}
		o, err := parseFuncArgs(ordered)
		return append(d, o...), err
	}
	if s == "" {
		return nil, nil
	}
	var out []funcArg
	for _, part := range strings.Split(s, ", ") {
		a := funcArg{mode: "i"}
		if before, _, ok := strings.Cut(part, " DEFAULT "); ok {
			part, a.hasDefault = before, true
		}
		if word, rest, ok := strings.Cut(part, " "); ok && argModes[word] != "" {
			a.mode, part = argModes[word], rest
		}
		oid, ok := typeOIDByName(part)
		if !ok {
			name, typ, _ := strings.Cut(part, " ")
			if oid, ok = typeOIDByName(typ); !ok {
				return nil, fmt.Errorf("argument %q: unknown type", part)
			}
			a.name = name
		}
		a.typ = oid
		out = append(out, a)
	}
	return out, nil
}

// typeOIDByName finds a type pg_type lists by the name format_type
// prints.
func typeOIDByName(name string) (int64, bool) {
	if name == "character" { // format_type's name of bpchar without a typmod
		return int64(types.TBpchar.OID()), true
	}
	for _, t := range catalogTypes() {
		if t.String() == name {
			return int64(t.OID()), true
		}
	}
	if t, ok := types.CatalogTypeByName(name); ok && t.Display == name {
		return int64(t.OID), true
	}
	return 0, false
}

// signature computes the parsed signature of f.
func (f *builtinFunc) signature() (funcSig, error) {
	var sig funcSig
	args, err := parseFuncArgs(f.args)
	if err != nil {
		return sig, err
	}
	result, retset := strings.CutPrefix(f.result, "SETOF ")
	ret, ok := typeOIDByName(result)
	if !ok {
		return sig, fmt.Errorf("result %q: unknown type", f.result)
	}
	sig.ret, sig.retset = ret, retset
	plain, named := true, false
	for _, a := range args {
		if a.mode != "o" {
			sig.in = append(sig.in, a.typ)
		}
		if a.mode == "v" {
			// provariadic is the element type of a VARIADIC array
			// (text of VARIADIC text[]), or "any".
			sig.variadic = a.typ
			if t, ok := types.TypeByOID(uint32(a.typ)); ok && t.ID == types.IDArray {
				sig.variadic = int64(t.ElemType().OID())
			}
		}
		plain = plain && a.mode == "i"
		if a.hasDefault {
			sig.defaults++
		}
		named = named || a.name != ""
		sig.all = append(sig.all, a.typ)
		sig.modes = append(sig.modes, a.mode)
		sig.names = append(sig.names, a.name)
	}
	if plain {
		sig.all, sig.modes = nil, nil
	}
	if !named {
		sig.names = nil
	}
	return sig, nil
}

// pgFuncsByOID indexes pgFuncs; built at init.
var pgFuncsByOID = map[int64]*builtinFunc{}

// funcNameCounts counts pgFuncs by name; built at init.
var funcNameCounts = map[string]int{}

func init() {
	for i := range pgFuncs {
		f := &pgFuncs[i]
		sig, err := f.signature()
		if err != nil {
			panic(fmt.Sprintf("streamdb: pg_proc %s (%d): %v", f.name, f.oid, err))
		}
		f.parsed = sig
		pgFuncsByOID[f.oid] = f
		funcNameCounts[f.name]++
	}
	for name, oid := range regprocOIDs {
		addSupportFunc(oid, name)
	}
	initOperators()
	initAggregates()
}

func orDefault(b, def byte) string {
	if b == 0 {
		return string(def)
	}
	return string(b)
}

func oidVector(oids []int64) types.Datum {
	elems := make([]types.Datum, len(oids))
	for i, o := range oids {
		elems[i] = o
	}
	return types.FormatArray(elems, types.Type{ID: types.IDOid})
}

// textArray renders strs as a text[], NULL when there are none.
func textArray(strs []string) types.Datum {
	if strs == nil {
		return nil
	}
	elems := make([]types.Datum, len(strs))
	for i, s := range strs {
		elems[i] = s
	}
	return types.FormatArray(elems, types.TText)
}

func procRows(*view) [][]types.Datum {
	rows := make([][]types.Datum, 0, len(pgFuncs))
	for i := range pgFuncs {
		f := &pgFuncs[i]
		sig := f.parsed
		lang, src, body := int64(langInternal), types.Datum(f.src), types.Datum(nil)
		if f.sql {
			lang, src, body = langSQL, "", f.src
		}
		cost := f.cost
		if cost == 0 {
			cost = 1
		}
		var all types.Datum
		if sig.all != nil {
			all = oidVector(sig.all)
		}
		rows = append(rows, []types.Datum{f.oid, f.name, int64(nsPgCatalog), int64(roleSuper), lang, cost, f.rows,
			sig.variadic, int64(0), orDefault(f.kind, 'f'), false, f.leakproof, !f.lax, sig.retset,
			orDefault(f.vol, 'i'), orDefault(f.par, 's'), int64(len(sig.in)), int64(sig.defaults), sig.ret, oidVector(sig.in),
			all, textArray(sig.modes), textArray(sig.names), nil, nil, src, nil, body, nil, nil})
	}
	return rows
}

func languageRows(*view) [][]types.Datum {
	return [][]types.Datum{
		{int64(langInternal), "internal", int64(roleSuper), false, false, int64(0), int64(0), int64(2246), nil},
		{int64(13), "c", int64(roleSuper), false, false, int64(0), int64(0), int64(2247), nil},
		{int64(langSQL), "sql", int64(roleSuper), false, true, int64(0), int64(0), int64(2248), nil},
	}
}

// funcByOID is the function an OID names, for the pg_get_function_*
// functions.
func funcByOID(a []types.Datum) (*builtinFunc, bool) {
	f, ok := pgFuncsByOID[a[0].(int64)]
	return f, ok
}

// functionResult is pg_get_function_result.
func functionResult(a []types.Datum) (types.Datum, error) {
	if f, ok := funcByOID(a); ok {
		return f.result, nil
	}
	return nil, nil
}

// functionArguments is pg_get_function_arguments.
func functionArguments(a []types.Datum) (types.Datum, error) {
	if f, ok := funcByOID(a); ok {
		return f.args, nil
	}
	return nil, nil
}

// functionIdentityArguments is pg_get_function_identity_arguments: the
// arguments without the OUT ones.
func functionIdentityArguments(a []types.Datum) (types.Datum, error) {
	f, ok := funcByOID(a)
	if !ok {
		return nil, nil
	}
	var kept []string
	for _, part := range strings.Split(f.args, ", ") {
		if !strings.HasPrefix(part, "OUT ") && part != "" {
			kept = append(kept, part)
		}
	}
	return strings.Join(kept, ", "), nil
}

// functionSQLBody is pg_get_function_sqlbody: the body of a SQL-language
// function, NULL for others.
func functionSQLBody(a []types.Datum) (types.Datum, error) {
	if f, ok := funcByOID(a); ok && f.sql {
		return f.src, nil
	}
	return nil, nil
}

// functionDef is pg_get_functiondef: the CREATE FUNCTION statement, in
// PostgreSQL's layout.
func functionDef(a []types.Datum) (types.Datum, error) {
	f, ok := funcByOID(a)
	if !ok {
		return nil, nil
	}
	if f.kind == 'a' {
		return nil, pgerr.New(pgerr.WrongObjectType, "%q is an aggregate function", f.name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE OR REPLACE FUNCTION pg_catalog.%s(%s)\n RETURNS %s\n LANGUAGE %s\n",
		expr.QuoteIdent(f.name), f.args, f.result, map[bool]string{false: "internal", true: "sql"}[f.sql])
	b.WriteString(functionOptions(f))
	b.WriteString("\n")
	if f.sql {
		b.WriteString(f.src)
	} else {
		b.WriteString("AS $function$" + f.src + "$function$")
	}
	b.WriteString("\n")
	return b.String(), nil
}

// functionOptions is the options line of pg_get_functiondef.
func functionOptions(f *builtinFunc) string {
	var b strings.Builder
	switch orDefault(f.vol, 'i') {
	case "i":
		b.WriteString(" IMMUTABLE")
	case "s":
		b.WriteString(" STABLE")
	}
	switch orDefault(f.par, 's') {
	case "s":
		b.WriteString(" PARALLEL SAFE")
	case "r":
		b.WriteString(" PARALLEL RESTRICTED")
	}
	if !f.lax {
		b.WriteString(" STRICT")
	}
	if f.leakproof {
		b.WriteString(" LEAKPROOF")
	}
	cost, defaultCost := f.cost, 1.0
	if cost == 0 {
		cost = 1
	}
	if f.sql {
		defaultCost = 100
	}
	if cost != defaultCost {
		b.WriteString(" COST " + strconv.FormatFloat(cost, 'g', -1, 64))
	}
	if f.rows > 0 && f.rows != 1000 {
		b.WriteString(" ROWS " + strconv.FormatFloat(f.rows, 'g', -1, 64))
	}
	return b.String()
}

// funcOIDByName is the OID of the one function named name (regproc
// input); it is an error when there are several.
func funcOIDByName(name string) (int64, error) {
	var found []int64
	for i := range pgFuncs {
		if pgFuncs[i].name == name {
			found = append(found, pgFuncs[i].oid)
		}
	}
	switch {
	case len(found) > 1:
		return 0, pgerr.New("42725", "more than one function named %q", name)
	case len(found) == 1:
		return found[0], nil
	}
	if oid, ok := supportFuncOIDs[name]; ok {
		return oid, nil
	}
	return 0, pgerr.New(pgerr.UndefinedFunction, "function %q does not exist", name)
}

// funcName names the function an OID stands for (regproc output): one
// of pg_proc's, or a function one of the catalogs names (an operator's
// implementation, an aggregate's support function ...). As PostgreSQL
// does, it qualifies the name of a function that has overloads, which
// regproc input could not read back.
func funcName(oid int64) (string, bool) {
	if f, ok := pgFuncsByOID[oid]; ok {
		name := expr.QuoteIdent(f.name)
		if pgOverloadedFuncs[f.name] || funcNameCounts[f.name] > 1 {
			name = "pg_catalog." + name
		}
		return name, true
	}
	name, ok := supportFuncNames[oid]
	return name, ok
}
