package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// The pg_catalog functions that read the live catalog or the session
// (catalog.Functions), and the name lookups of the reg* types.

// Defaults for sessions opened in-process, which have no user or
// database name from a client.
const (
	defaultUser     = "streamdb"
	defaultDatabase = "streamdb"
	serverVersion   = "PostgreSQL 15.0 (streamdb)"
)

// identity is who a session is, for the catalog: its user (the one role,
// a superuser, that owns everything), its database and its settings.
type identity struct {
	user, database string
	vars           map[string]string
}

type identityKey struct{}

// identity returns the session's identity.
func (s *Session) identity() identity {
	id := identity{user: s.user, database: s.database, vars: map[string]string{}}
	if id.user == "" {
		id.user = defaultUser
	}
	if id.database == "" {
		id.database = defaultDatabase
	}
	for k, v := range s.vars {
		id.vars[k] = v
	}
	return id
}

// withIdentity returns ctx carrying the session's identity, for the rows
// of the catalog relations that depend on it.
func (s *Session) withIdentity(ctx context.Context) context.Context {
	return context.WithValue(ctx, identityKey{}, s.identity())
}

func identityOf(ctx context.Context) identity {
	if id, ok := ctx.Value(identityKey{}).(identity); ok {
		return id
	}
	return identity{user: defaultUser, database: defaultDatabase, vars: defaultVars()}
}

// sessionCatalog is the catalog as one session's statements see it: the
// DB's relations, and functions that know the session.
type sessionCatalog struct {
	*DB
	id identity
}

var (
	_ catalog.Reader    = sessionCatalog{}
	_ catalog.Functions = sessionCatalog{}
)

// catalog returns the catalog the session binds statements against.
func (s *Session) catalog() sessionCatalog { return sessionCatalog{DB: s.db, id: s.identity()} }

// view snapshots the catalog (for functions that search it by name).
func (c sessionCatalog) view() *catalogView {
	return c.DB.newCatalogView(context.WithValue(context.Background(), identityKey{}, c.id))
}

// lookup is a catalog view for lookups by OID, which need no listing.
func (c sessionCatalog) lookup() *catalogView { return &catalogView{db: c.DB, id: c.id} }

var (
	tOid  = types.Type{ID: types.IDOid}
	tBool = types.TBool
	tText = types.TText
	tInt4 = types.TInt32
)

// Function implements catalog.Functions.
func (c sessionCatalog) Function(name string, args []types.Type) (*catalog.Func, bool) {
	if f, ok := c.regFunction(name); ok {
		return f, len(args) == len(f.Params)
	}
	f := c.function(name, len(args))
	if f == nil {
		return nil, false
	}
	if f.Params == nil { // any argument types
		f.Params = args
	}
	return f, len(f.Params) == len(args)
}

// fn builds a strict function.
func fn(result types.Type, eval func([]types.Datum) (types.Datum, error), params ...types.Type) *catalog.Func {
	return &catalog.Func{Params: params, Result: result, Strict: true, Eval: eval}
}

func constant(v types.Datum, t types.Type) *catalog.Func {
	return &catalog.Func{Params: []types.Type{}, Result: t, Eval: func([]types.Datum) (types.Datum, error) { return v, nil }}
}

// function returns the function name of n arguments, or nil.
func (c sessionCatalog) function(name string, n int) *catalog.Func {
	switch name {
	case "current_database":
		return constant(c.id.database, tText)
	case "current_user", "session_user":
		return constant(c.id.user, tText)
	case "current_schema":
		return constant("public", tText)
	case "current_schemas":
		return fn(types.ArrayOf(types.IDText), func(a []types.Datum) (types.Datum, error) {
			if a[0].(bool) {
				return "{pg_catalog,public}", nil
			}
			return "{public}", nil
		}, tBool)
	case "version":
		return constant(serverVersion, tText)
	case "current_setting":
		return c.currentSetting(n)
	case "getdatabaseencoding":
		return constant("UTF8", tText)
	case "pg_char_to_encoding":
		return fn(tInt4, func(a []types.Datum) (types.Datum, error) {
			switch strings.ToUpper(a[0].(string)) {
			case "UTF8":
				return int64(6), nil
			case "SQL_ASCII":
				return int64(0), nil
			}
			return int64(-1), nil
		}, tText)
	case "pg_tablespace_location":
		return fn(tText, func([]types.Datum) (types.Datum, error) { return "", nil }, tOid)
	case "pg_is_in_recovery":
		return constant(false, tBool)
	case "pg_get_userbyid":
		return fn(tText, func(a []types.Datum) (types.Datum, error) { return c.roleName(a[0].(int64)), nil }, tOid)
	case "pg_table_is_visible":
		return fn(tBool, c.tableVisible, tOid)
	case "pg_type_is_visible":
		return fn(tBool, func(a []types.Datum) (types.Datum, error) { return isCatalogType(a[0].(int64)), nil }, tOid)
	case "pg_function_is_visible", "pg_operator_is_visible", "pg_opclass_is_visible", "pg_opfamily_is_visible",
		"pg_collation_is_visible", "pg_conversion_is_visible", "pg_statistics_obj_is_visible",
		"pg_ts_config_is_visible", "pg_ts_dict_is_visible", "pg_ts_parser_is_visible", "pg_ts_template_is_visible":
		// Such objects are only in pg_catalog, which is on every path.
		return fn(tBool, func([]types.Datum) (types.Datum, error) { return true, nil }, tOid)
	case "pg_relation_is_publishable":
		return fn(tBool, func(a []types.Datum) (types.Datum, error) {
			r, ok := c.lookup().relByOID(a[0].(int64))
			return ok && r.Kind == catalog.KindTable, nil
		}, types.Type{ID: types.IDRegclass})
	case "pg_table_size", "pg_relation_size", "pg_total_relation_size", "pg_indexes_size":
		// Sizes are not tracked per relation: unknown.
		return &catalog.Func{Params: []types.Type{{ID: types.IDRegclass}}, Result: types.TInt64, Strict: true,
			Eval: func([]types.Datum) (types.Datum, error) { return nil, nil }}
	case "pg_get_viewdef":
		return c.withOptionalBool(n, fn(tText, c.viewDef, tOid))
	case "pg_get_indexdef":
		if n == 3 {
			return fn(tText, c.indexDef, tOid, tInt4, tBool)
		}
		return fn(tText, c.indexDef, tOid)
	case "pg_get_constraintdef":
		return c.withOptionalBool(n, fn(tText, c.constraintDef, tOid))
	case "pg_get_function_result":
		return fn(tText, functionResult, tOid)
	case "pg_get_function_arguments":
		return fn(tText, functionArguments, tOid)
	case "pg_get_function_identity_arguments":
		return fn(tText, functionIdentityArguments, tOid)
	case "pg_get_function_sqlbody":
		return fn(tText, functionSQLBody, tOid)
	case "pg_get_functiondef":
		return fn(tText, functionDef, tOid)
	case "obj_description":
		if n == 2 {
			return fn(tText, objDescription, tOid, tText)
		}
		return fn(tText, objDescription, tOid)
	case "has_table_privilege", "has_schema_privilege", "has_database_privilege", "has_column_privilege",
		"has_function_privilege", "has_any_column_privilege", "has_sequence_privilege", "pg_has_role":
		// The one role is a superuser.
		if n < 2 || n > 4 {
			return nil
		}
		return &catalog.Func{Result: tBool, Strict: true, Eval: func([]types.Datum) (types.Datum, error) { return true, nil }}
	}
	return nil
}

// currentSetting is current_setting(name[, missing_ok]): the session's
// value of a setting.
func (c sessionCatalog) currentSetting(n int) *catalog.Func {
	params := []types.Type{tText}
	if n == 2 {
		params = append(params, tBool)
	}
	return fn(tText, func(a []types.Datum) (types.Datum, error) {
		name := strings.ToLower(a[0].(string))
		if v, ok := c.id.vars[name]; ok {
			return v, nil
		}
		if len(a) == 2 && a[1].(bool) {
			return nil, nil
		}
		return nil, pgerr.New(pgerr.UndefinedObject, "unrecognized configuration parameter %q", name)
	}, params...)
}

// withOptionalBool adds the pretty flag (ignored) as an optional last
// parameter.
func (c sessionCatalog) withOptionalBool(n int, f *catalog.Func) *catalog.Func {
	if n == len(f.Params)+1 {
		f.Params = append(f.Params, tBool)
	}
	return f
}

func (c sessionCatalog) roleName(oid int64) string {
	if name := c.id.roleName(oid); name != "" {
		return name
	}
	return fmt.Sprintf("unknown (OID=%d)", oid)
}

// tableVisible is pg_table_is_visible: relations in public and
// pg_catalog are on the search path; NULL for an unknown OID.
func (c sessionCatalog) tableVisible(a []types.Datum) (types.Datum, error) {
	v := c.lookup()
	oid := a[0].(int64)
	r, ok := v.relByOID(oid)
	if !ok {
		if r, ok = v.pkRelByOID(oid, indexOIDBit); !ok {
			return nil, nil
		}
	}
	ns, _ := relSchema(r)
	return ns == nsPublic || ns == nsPgCatalog, nil
}

func (c sessionCatalog) viewDef(a []types.Datum) (types.Datum, error) {
	r, ok := c.lookup().relByOID(a[0].(int64))
	if !ok || r.Kind != catalog.KindMaterializedView {
		return nil, nil
	}
	return viewDefinition(r), nil
}

// viewDefinition renders a view's query as pg_get_viewdef does: on a new
// line-less form with a leading space and a closing semicolon (streamdb
// keeps the query as written).
func viewDefinition(r *catalog.Relation) string {
	return " " + strings.TrimSpace(r.Definition) + ";"
}

// indexDef is pg_get_indexdef(oid[, column, pretty]): the CREATE INDEX
// statement, or with column > 0 that key column's name.
func (c sessionCatalog) indexDef(a []types.Datum) (types.Datum, error) {
	r, ok := c.lookup().pkRelByOID(a[0].(int64), indexOIDBit)
	if !ok {
		return nil, nil
	}
	if len(a) == 3 {
		if col := a[1].(int64); col > 0 {
			if int(col) > len(r.PK) {
				return "", nil
			}
			return expr.QuoteIdent(r.Columns[r.PK[col-1]].Name), nil
		}
	}
	return indexDef(r), nil
}

func indexDef(r *catalog.Relation) string {
	return fmt.Sprintf("CREATE UNIQUE INDEX %s ON public.%s USING btree (%s)",
		expr.QuoteIdent(pkIndexName(r)), expr.QuoteIdent(r.Name), pkColumns(r))
}

func pkColumns(r *catalog.Relation) string {
	names := make([]string, len(r.PK))
	for k, i := range r.PK {
		names[k] = expr.QuoteIdent(r.Columns[i].Name)
	}
	return strings.Join(names, ", ")
}

func (c sessionCatalog) constraintDef(a []types.Datum) (types.Datum, error) {
	r, ok := c.lookup().pkRelByOID(a[0].(int64), constraintOIDBit)
	if !ok {
		return nil, nil
	}
	return "PRIMARY KEY (" + pkColumns(r) + ")", nil
}

// regFunction returns the reg* types' input and output functions.
func (c sessionCatalog) regFunction(name string) (*catalog.Func, bool) {
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
func (c sessionCatalog) regOut(t types.Type, oid int64) string {
	switch t.ID {
	case types.IDRegclass:
		v := c.lookup()
		if r, ok := v.relByOID(oid); ok {
			return qualifiedRelName(r)
		}
		if r, ok := v.pkRelByOID(oid, indexOIDBit); ok {
			return expr.QuoteIdent(pkIndexName(r))
		}
	case types.IDRegtype:
		if isCatalogType(oid) {
			return expr.FormatType(uint32(oid), -1)
		}
	case types.IDRegnamespace:
		if name := nsName(oid); name != "" {
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

// isCatalogType reports whether pg_type lists the type with OID oid.
func isCatalogType(oid int64) bool {
	_, ok := types.TypeByOID(uint32(oid))
	_, other := types.CatalogTypeByOID(uint32(oid))
	return ok || other
}

// qualifiedRelName names a relation as regclass prints it: qualified
// when its schema is not on the search path.
func qualifiedRelName(r *catalog.Relation) string {
	ns, name := relSchema(r)
	if ns == nsPublic || ns == nsPgCatalog {
		return expr.QuoteIdent(name)
	}
	return expr.QuoteIdent(nsName(ns)) + "." + expr.QuoteIdent(name)
}

// regIn reads the name (or number) of an object as a reg* value.
func (c sessionCatalog) regIn(t types.Type, s string) (types.Datum, error) {
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
		if oid, ok := nsOID(unquoteName(s)); ok {
			return oid, nil
		}
		return nil, pgerr.New(pgerr.UndefinedObject, "schema %q does not exist", unquoteName(s))
	case types.IDRegrole:
		switch unquoteName(s) {
		case c.id.user:
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
	if o, ok := supportFuncOIDs[name]; ok && o != oid {
		panic(fmt.Sprintf("streamdb: function %q has OIDs %d and %d", name, o, oid))
	}
	supportFuncNames[oid], supportFuncOIDs[name] = name, oid
}

// regclassIn looks a relation name up: [schema.]name, with the search
// path public, pg_catalog.
func (c sessionCatalog) regclassIn(s string) (types.Datum, error) {
	parts := splitQualified(s)
	v := c.view()
	for _, r := range v.rels {
		ns, name := relSchema(r)
		switch {
		case len(parts) == 1 && name == parts[0] && (ns == nsPublic || ns == nsPgCatalog),
			len(parts) == 2 && name == parts[1] && nsName(ns) == parts[0]:
			return relOID(r), nil
		}
		if hasPKIndex(r) && parts[len(parts)-1] == pkIndexName(r) && (len(parts) == 1 || parts[0] == "public") {
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

// regOutput converts the reg* values of a result row to the names they
// print as (the wire sends reg* values in their text form).
func (db *DB) regOutput(ctx context.Context, cols []Column) func(row []types.Datum) {
	var regs []int
	for i, c := range cols {
		if c.Type.IsReg() {
			regs = append(regs, i)
		}
	}
	if len(regs) == 0 {
		return func([]types.Datum) {}
	}
	c := sessionCatalog{DB: db, id: identityOf(ctx)}
	return func(row []types.Datum) {
		for _, i := range regs {
			if v, ok := row[i].(int64); ok {
				row[i] = c.regOut(cols[i].Type, v)
			}
		}
	}
}
