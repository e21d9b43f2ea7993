package binder

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/sql"
)

// The Postgres constructs that the catalog queries of clients (psql's \d
// commands and tab completion, drivers, GUI tools) lean on: regular
// expression matches, arrays, the reg* types and the functions the
// catalog implements over its live state (catalog.Functions).

// Marker function names of the front end's array rewrite (see package sql).
const (
	markerArrayLit  = "__sdb_array_lit"
	markerArraySub  = "__sdb_array"
	markerAny       = "__sdb_any"
	markerAll       = "__sdb_all"
	markerSubscript = "__sdb_subscript"
	markerSlice     = "__sdb_slice"
	markerNoBound   = "__sdb_nobound"
	markerICase     = "__sdb_icase"
	markerSymmetric = "__sdb_symmetric"
)

// bindRegexp binds x [NOT] REGEXP p, the front end's form of x ~ p and
// x !~ p; a pattern wrapped in __sdb_icase stands for ~* and !~*.
func (b *binder) bindRegexp(c *exprCtx, n *ast.PatternRegexpExpr) (expr.Expr, error) {
	op, pattern := "~", n.Pattern
	if f, ok := pattern.(*ast.FuncCallExpr); ok && f.FnName.L == markerICase && len(f.Args) == 1 {
		op, pattern = "~*", f.Args[0]
	}
	if n.Not {
		op = "!" + op
	}
	x, err := b.bindExpr(c, n.Expr)
	if err != nil {
		return nil, err
	}
	p, err := b.bindExpr(c, pattern)
	if err != nil {
		return nil, err
	}
	return b.binary(op, x, p)
}

// bindAnyAll binds l op ANY (arr) and l op ALL (arr) (the front end's
// l op __sdb_any(arr)).
func (b *binder) bindAnyAll(c *exprCtx, op string, l ast.ExprNode, f *ast.FuncCallExpr) (expr.Expr, error) {
	if len(f.Args) != 1 {
		return nil, pgerr.New(pgerr.SyntaxError, "syntax error at or near \"(\"")
	}
	x, err := b.bindExpr(c, l)
	if err != nil {
		return nil, err
	}
	arr, err := b.bindExpr(c, f.Args[0])
	if err != nil {
		return nil, err
	}
	if arr.Type().ID == types.IDArray {
		if x, err = b.decideParam(x, arr.Type().ElemType()); err != nil {
			return nil, err
		}
	}
	return expr.AnyAll(op, x, arr, f.FnName.L == markerAll)
}

// bindArrayMarker binds ARRAY[...] and ARRAY(SELECT ...).
func (b *binder) bindArrayMarker(c *exprCtx, n *ast.FuncCallExpr) (expr.Expr, error) {
	if n.FnName.L == markerArraySub {
		sq, ok := n.Args[0].(*ast.SubqueryExpr)
		if len(n.Args) != 1 || !ok {
			return nil, pgerr.New(pgerr.SyntaxError, "syntax error at or near \"ARRAY\"")
		}
		return b.bindArraySubquery(c, sq)
	}
	args, err := b.bindArgs(c, n.Args)
	if err != nil {
		return nil, err
	}
	if len(args) == 0 {
		err := pgerr.New("42P18", "cannot determine type of empty array")
		err.Hint = "Explicitly cast to the desired type, for example ARRAY[]::integer[]."
		return nil, err
	}
	return expr.Array(args, types.TText)
}

// emptyArrayCast binds ARRAY[]::t[], which has no element to take a type
// from; ok is false for anything else.
func emptyArrayCast(n ast.ExprNode, t types.Type) (expr.Expr, bool) {
	f, ok := n.(*ast.FuncCallExpr)
	if !ok || f.FnName.L != markerArrayLit || len(f.Args) != 0 || t.ID != types.IDArray {
		return nil, false
	}
	return expr.NewConst(types.FormatArray(nil, t.ElemType()), t), true
}

// bindSubscript binds arr[i], arr[lo:hi] and chains of them
// (arr[i][j], which the front end nests) as one subscript list.
func (b *binder) bindSubscript(c *exprCtx, n *ast.FuncCallExpr) (expr.Expr, error) {
	var subs []ast.ExprNode
	for {
		if len(n.Args) != 2 {
			return nil, pgerr.New(pgerr.Internal, "binder: malformed subscript marker")
		}
		subs = append([]ast.ExprNode{n.Args[1]}, subs...)
		inner, ok := n.Args[0].(*ast.FuncCallExpr)
		if !ok || inner.FnName.L != markerSubscript {
			break
		}
		n = inner
	}
	arr, err := b.bindExpr(c, n.Args[0])
	if err != nil {
		return nil, err
	}
	args := make([]expr.SubscriptArg, len(subs))
	for i, s := range subs {
		if args[i], err = b.bindSubscriptArg(c, s); err != nil {
			return nil, err
		}
	}
	return expr.Subscript(arr, args)
}

// bindSubscriptArg binds one subscript: an index, or __sdb_slice(lo, hi)
// with __sdb_nobound() for a left-out bound.
func (b *binder) bindSubscriptArg(c *exprCtx, n ast.ExprNode) (expr.SubscriptArg, error) {
	bound := func(n ast.ExprNode) (expr.Expr, error) {
		if f, ok := n.(*ast.FuncCallExpr); ok && f.FnName.L == markerNoBound {
			return nil, nil
		}
		e, err := b.bindExpr(c, n)
		if err != nil {
			return nil, err
		}
		return b.decideParam(e, types.TInt32)
	}
	f, ok := n.(*ast.FuncCallExpr)
	if !ok || f.FnName.L != markerSlice {
		lo, err := bound(n)
		return expr.SubscriptArg{Lo: lo}, err
	}
	if len(f.Args) != 2 {
		return expr.SubscriptArg{}, pgerr.New(pgerr.Internal, "binder: malformed slice marker")
	}
	lo, err := bound(f.Args[0])
	if err != nil {
		return expr.SubscriptArg{}, err
	}
	hi, err := bound(f.Args[1])
	return expr.SubscriptArg{Lo: lo, Hi: hi, Slice: true}, err
}

// functions returns the catalog's functions, if it has any.
func (b *binder) functions() catalog.Functions {
	f, _ := b.cat.(catalog.Functions)
	return f
}

// bindSystemFunc binds a call of a function the catalog implements; ok is
// false when it has none of that name for these arguments.
func (b *binder) bindSystemFunc(name string, args []expr.Expr) (expr.Expr, bool, error) {
	fs := b.functions()
	if fs == nil {
		return nil, false, nil
	}
	f, ok := fs.Function(name, exprTypesOf(args))
	if !ok {
		return nil, false, nil
	}
	if b.inView {
		return nil, true, notSupported("function %s in a materialized view", name)
	}
	b.sysFuncs = true
	coerced := make([]expr.Expr, len(args))
	for i, a := range args {
		var err error
		if a, err = b.decideParam(a, f.Params[i]); err != nil {
			return nil, true, err
		}
		if coerced[i], err = b.convert(a, f.Params[i]); err != nil {
			return nil, true, err
		}
	}
	return expr.Native(name, coerced, f.Result, f.Strict, f.Eval), true, nil
}

func exprTypesOf(es []expr.Expr) []types.Type {
	out := make([]types.Type, len(es))
	for i, e := range es {
		out[i] = e.Type()
	}
	return out
}

// convert casts e to t, with the catalog's name lookups for the reg*
// types: text to regclass reads a relation name, regclass to text prints
// one.
func (b *binder) convert(e expr.Expr, t types.Type) (expr.Expr, error) {
	from := e.Type()
	switch {
	case from == t:
		return e, nil
	case t.IsReg() && (from.IsString() || from.ID == types.IDUnknown):
		return b.regCast(e, t, strings.TrimPrefix(t.String(), "reg")+"in", types.TText, t)
	case from.IsReg() && t.IsString():
		out, err := b.regCast(e, from, strings.TrimPrefix(from.String(), "reg")+"out", from, types.TText)
		if err != nil || t.ID == types.IDText {
			return out, err
		}
		return castTo(out, t)
	}
	return castTo(e, t)
}

// regCast builds a call of the catalog's reg* input or output function
// ("classin" -> regclassin), folding it when e is a constant.
func (b *binder) regCast(e expr.Expr, t types.Type, fn string, in, out types.Type) (expr.Expr, error) {
	fs := b.functions()
	var f *catalog.Func
	if fs != nil {
		f, _ = fs.Function("reg"+fn, []types.Type{in})
	}
	if f == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "conversions between %s and text are not supported here", t)
	}
	if e.Type().ID == types.IDUnknown {
		var err error
		if e, err = castTo(e, types.TText); err != nil {
			return nil, err
		}
	}
	call := expr.Native("reg"+fn, []expr.Expr{e}, out, true, f.Eval)
	if k, ok := e.(*expr.Const); ok {
		if _, isParam := b.unknownParams[k]; !isParam {
			v, err := call.Eval(nil)
			if err != nil {
				return nil, err
			}
			return expr.NewConst(v, out), nil
		}
	}
	return call, nil
}

// sqlValueFunctions are the keywords Postgres reads as function calls
// without parentheses (besides those the parser already does).
var sqlValueFunctions = map[string]string{
	"session_user":    "session_user",
	"current_role":    "current_user",
	"user":            "current_user",
	"current_catalog": "current_database",
	"current_schema":  "current_schema",
}

// sqlValueFunction binds such a keyword written where a column could be;
// ok is false for other names.
func (b *binder) sqlValueFunction(table, name string) (expr.Expr, bool, error) {
	fn, ok := sqlValueFunctions[name]
	if table != "" || !ok {
		return nil, false, nil
	}
	return b.bindSystemFunc(fn, nil)
}

// bindSimilar binds x [NOT] SIMILAR TO p [ESCAPE e], which the front end
// wrote as sql.SimilarFunc(x, p [, e]) (sql.NotSimilarFunc), as
// PostgreSQL's parser does: x ~ similar_to_escape(p [, e]) (!~ for NOT).
func (b *binder) bindSimilar(c *exprCtx, n *ast.FuncCallExpr) (expr.Expr, error) {
	if len(n.Args) < 2 || len(n.Args) > 3 {
		return nil, pgerr.New(pgerr.SyntaxError, "malformed SIMILAR TO")
	}
	x, err := b.bindExpr(c, n.Args[0])
	if err != nil {
		return nil, err
	}
	args, err := b.bindArgs(c, n.Args[1:])
	if err != nil {
		return nil, err
	}
	pattern, err := expr.Func("similar_to_escape", args)
	if err != nil {
		return nil, b.atNode(err, n)
	}
	b.decideCallParams(args, pattern)
	op := "~"
	if n.FnName.L == sql.NotSimilarFunc {
		op = "!~"
	}
	e, err := b.binary(op, x, pattern)
	if err != nil {
		return nil, b.atNode(err, n)
	}
	return e, nil
}
