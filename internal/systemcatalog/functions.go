package systemcatalog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// The pg_catalog functions that read the live catalog or the session
// (catalog.Functions); the reg* types' input and output are in reg.go.

// serverVersion is what version() returns.
const serverVersion = "PostgreSQL 15.0 (streamdb)"

// Functions are the functions of one session's catalog: they read the
// engine's relations and the session's identity. It implements
// catalog.Functions; the engine gives the binder one per statement.
type Functions struct {
	e  Engine
	id Identity
}

var _ catalog.Functions = Functions{}

// NewFunctions returns the functions of the catalog of e, for the
// session id.
func NewFunctions(e Engine, id Identity) Functions { return Functions{e: e, id: id} }

var (
	tOid  = types.Type{ID: types.IDOid}
	tBool = types.TBool
	tText = types.TText
	tInt4 = types.TInt32
)

// Function implements catalog.Functions.
func (c Functions) Function(name string, args []types.Type) (*catalog.Func, bool) {
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

// view lists the catalog (for functions that search it by name).
func (c Functions) view() *view { return newView(c.e, c.id) }

// lookup is a view for lookups by OID, which need no listing.
func (c Functions) lookup() *view { return lookup(c.e, c.id) }

// function returns the function name of n arguments, or nil.
func (c Functions) function(name string, n int) *catalog.Func {
	switch name {
	case "current_database":
		return constant(c.id.Database, tText)
	case "current_user", "session_user":
		return constant(c.id.User, tText)
	case "current_schema":
		// The first schema of the search path that exists; NULL if none.
		v := c.lookup()
		for _, s := range v.rawSearchPath() {
			if _, ok := v.nsOID(s); ok {
				return constant(s, tText)
			}
		}
		return constant(nil, tText)
	case "current_schemas":
		return fn(types.ArrayOf(types.IDText), func(a []types.Datum) (types.Datum, error) {
			v := c.lookup()
			var names []types.Datum
			path := v.rawSearchPath()
			if a[0].(bool) && !slices.Contains(path, "pg_catalog") {
				names = append(names, "pg_catalog")
			}
			for _, s := range path {
				if _, ok := v.nsOID(s); ok {
					names = append(names, s)
				}
			}
			return types.FormatArray(names, tText), nil
		}, tBool)
	case "version":
		return constant(serverVersion, tText)
	case "pg_backend_pid":
		return constant(int64(c.id.PID), tInt4)
	case "current_setting":
		return c.currentSetting(n)
	case "set_config":
		if c.id.SetConfig == nil || n != 3 {
			return nil
		}
		return &catalog.Func{Params: []types.Type{tText, tText, tBool}, Result: tText, Strict: false,
			Eval: func(a []types.Datum) (types.Datum, error) {
				name, _ := a[0].(string)
				if a[0] == nil {
					return nil, pgerr.New(pgerr.NullValueNotAllowed, "SET requires parameter name")
				}
				var value *string
				if v, ok := a[1].(string); ok {
					value = &v
				}
				local, _ := a[2].(bool)
				return c.id.SetConfig(name, value, local)
			}}
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
			return fn(tText, c.objDescription, tOid, tText)
		}
		return fn(tText, c.objDescription, tOid)
	case "col_description":
		return fn(tText, c.colDescription, tOid, tInt4)
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
func (c Functions) currentSetting(n int) *catalog.Func {
	params := []types.Type{tText}
	if n == 2 {
		params = append(params, tBool)
	}
	return fn(tText, func(a []types.Datum) (types.Datum, error) {
		name := strings.ToLower(a[0].(string))
		if v, ok := c.id.Settings[name]; ok {
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
func (c Functions) withOptionalBool(n int, f *catalog.Func) *catalog.Func {
	if n == len(f.Params)+1 {
		f.Params = append(f.Params, tBool)
	}
	return f
}

func (c Functions) roleName(oid int64) string {
	if name := c.id.roleName(oid); name != "" {
		return name
	}
	return fmt.Sprintf("unknown (OID=%d)", oid)
}

// tableVisible is pg_table_is_visible: whether an unqualified name
// finds the relation through the session's search_path; NULL for an
// unknown OID.
func (c Functions) tableVisible(a []types.Datum) (types.Datum, error) {
	v := c.lookup()
	oid := a[0].(int64)
	r, ok := v.relByOID(oid)
	if !ok {
		if r, ok = v.pkRelByOID(oid, indexOIDBit); !ok {
			return nil, nil
		}
	}
	ns, name := v.relSchema(r)
	return v.visible(ns, name), nil
}

func (c Functions) viewDef(a []types.Datum) (types.Datum, error) {
	r, ok := c.lookup().relByOID(a[0].(int64))
	if !ok || r.Kind != catalog.KindMaterializedView && r.Kind != catalog.KindView {
		return nil, nil
	}
	return viewDefinition(r), nil
}

// indexDef is pg_get_indexdef(oid[, column, pretty]): the CREATE INDEX
// statement, or with column > 0 that key column's name.
func (c Functions) indexDef(a []types.Datum) (types.Datum, error) {
	v := c.lookup()
	if idx, ok := v.relByOID(a[0].(int64)); ok && idx.Kind == catalog.KindIndex {
		on, ok := v.indexOn(idx)
		if !ok {
			return nil, nil
		}
		if len(a) == 3 && a[1].(int64) > 0 {
			return indexColumnDef(idx, on, a[1].(int64)), nil
		}
		return IndexDef(idx, on), nil
	}
	r, ok := v.pkRelByOID(a[0].(int64), indexOIDBit)
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

func (c Functions) constraintDef(a []types.Datum) (types.Datum, error) {
	if _, chk, ok := c.lookup().checkByOID(a[0].(int64)); ok {
		return "CHECK (" + chk.Expr + ")", nil
	}
	if r, u, ok := c.lookup().uniqueByOID(a[0].(int64)); ok {
		return uniqueConstraintDef(r, u), nil
	}
	r, ok := c.lookup().pkRelByOID(a[0].(int64), constraintOIDBit)
	if !ok {
		return nil, nil
	}
	return "PRIMARY KEY (" + pkColumns(r) + ")", nil
}
