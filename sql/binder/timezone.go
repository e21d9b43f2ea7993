package binder

import (
	"reflect"
	"strings"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// The session time zone. A statement binds in the zone of its catalog
// (catalog.TimeZoneOf): a session's TimeZone setting, or the zone a stored
// materialized view was created under, so that the view's expressions
// keep their meaning whoever reads it and after a restart (as RisingWave
// binds a view's expressions with the creating session's zone). A plain
// view, expanded where a query names it, takes that query's zone, as in
// PostgreSQL.
//
// Expressions are built in UTC; once the statement is bound, inZone gives
// each of them the zone (expr.WithZone). Parameter values of unknown type
// and generate_series over timestamptz take it as they bind.

// zoneSetting is the TimeZone a materialized view keeps: "" for UTC.
func zoneSetting(z *types.Zone) string {
	if z.IsUTC() {
		return ""
	}
	return z.Name()
}

// inZone gives every expression of the bound statement stmt time zone z.
// It walks the statement's plan nodes and whatever they hold (windows'
// frames, set-returning functions, DML's expressions) by reflection, so
// that a node type added later is covered without a case of its own, and
// replaces each settable expr.Expr it finds by expr.WithZone's. Nothing
// changes for UTC, the zone expressions are built in.
func inZone(stmt any, z *types.Zone) {
	if z.IsUTC() || stmt == nil {
		return
	}
	w := zoneWalker{z: z, seen: map[uintptr]bool{}}
	w.walk(reflect.ValueOf(stmt))
}

var exprType = reflect.TypeFor[expr.Expr]()

// zoneWalker walks a bound statement for inZone.
type zoneWalker struct {
	z    *types.Zone
	seen map[uintptr]bool // pointers walked (plans may share nodes)
}

// ownPackage is the module's package prefix: only its types can hold
// expressions.
const ownPackage = "github.com/streamdb/streamdb/"

// opaque reports whether values of t hold no expression to walk into:
// types outside the module, and the catalog's and types' own.
func opaque(t reflect.Type) bool {
	p := t.PkgPath()
	if p == "" {
		return false
	}
	return !strings.HasPrefix(p, ownPackage) || strings.HasSuffix(p, "/internal/catalog") || strings.HasSuffix(p, "/internal/types")
}

func (w *zoneWalker) walk(v reflect.Value) {
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		if v.Type() == exprType {
			if v.CanSet() {
				v.Set(reflect.ValueOf(expr.WithZone(v.Interface().(expr.Expr), w.z)))
			}
			return
		}
		w.walk(v.Elem())
	case reflect.Pointer:
		if v.IsNil() || opaque(v.Type().Elem()) || v.Type().Elem().Kind() != reflect.Struct {
			return
		}
		if w.seen[v.Pointer()] {
			return
		}
		w.seen[v.Pointer()] = true
		w.walk(v.Elem())
	case reflect.Struct:
		if opaque(v.Type()) {
			return
		}
		for i := range v.NumField() {
			w.walk(v.Field(i))
		}
	case reflect.Slice, reflect.Array:
		switch v.Type().Elem().Kind() {
		case reflect.Interface, reflect.Pointer, reflect.Struct, reflect.Slice, reflect.Array:
		default:
			return
		}
		for i := range v.Len() {
			w.walk(v.Index(i))
		}
	}
}
