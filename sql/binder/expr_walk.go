package binder

import (
	"reflect"
	"strings"

	"github.com/streamdb/streamdb/internal/expr"
)

// rewriteExprs replaces every expression of the bound statement stmt by
// f's. It walks the statement's plan nodes and whatever they hold
// (windows' frames, set-returning functions, DML's expressions) by
// reflection, so that a node type added later is covered without a case
// of its own, and replaces each settable expr.Expr it finds (the passes
// that give a statement its zone and its instants: finishExprs).
func rewriteExprs(stmt any, f func(expr.Expr) expr.Expr) {
	if stmt == nil {
		return
	}
	w := exprWalker{f: f, seen: map[uintptr]bool{}}
	w.walk(reflect.ValueOf(stmt))
}

var exprType = reflect.TypeFor[expr.Expr]()

// exprWalker walks a bound statement for rewriteExprs.
type exprWalker struct {
	f    func(expr.Expr) expr.Expr
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

func (w *exprWalker) walk(v reflect.Value) {
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		if v.Type() == exprType {
			if v.CanSet() {
				v.Set(reflect.ValueOf(w.f(v.Interface().(expr.Expr))))
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
