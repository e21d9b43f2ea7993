package binder

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/sql"
)

// Marker function names of the front end's rewrite (see package sql).
const (
	markerCast       = "__sdb_cast"
	markerFullJoin   = "__sdb_full_join"
	markerTemporal   = "__sdb_temporal_join"
	markerNullsFirst = "__sdb_nulls_first"
	markerNullsLast  = "__sdb_nulls_last"
	markerConcat     = "__sdb_concat"
	markerDerived    = "__sdb_derived"
	markerExtract    = "__sdb_extract"
	markerPrefix     = "__sdb_"
)

// funcAliases maps the names the parser gives some SQL-standard forms to
// the names expr.Func knows.
var funcAliases = map[string]string{
	"mz_now":            "now", // Materialize's: see mzNowMillis
	"curdate":           "current_date",
	"current_date":      "current_date",
	"current_timestamp": "current_timestamp",
	"localtimestamp":    "localtimestamp",
}

func (b *binder) bindFunc(c *exprCtx, n *ast.FuncCallExpr) (expr.Expr, error) {
	name := n.FnName.L
	switch {
	case name == markerCast:
		return b.bindCast(c, n)
	case name == ast.Concat:
		// The parser's reading of a || b; a written concat(...) is
		// __sdb_concat(...).
		return b.bindConcatOp(c, n)
	case name == markerConcat:
		name = "concat"
	case strings.HasPrefix(name, sql.MarkerFuncPrefix):
		name = name[len(sql.MarkerFuncPrefix):]
	case name == "trim" && len(n.Args) > 1:
		return b.bindTrim(c, n)
	case name == "extract" || name == markerExtract:
		return b.bindExtract(c, n)
	case name == markerArrayLit || name == markerArraySub:
		return b.bindArrayMarker(c, n)
	case name == markerSubscript:
		return b.bindSubscript(c, n)
	case name == sql.JSONOpFunc:
		return b.bindJSONOp(c, n)
	case name == sql.PrefixOpFunc:
		return b.bindPrefixOp(c, n)
	case name == sql.SimilarFunc || name == sql.NotSimilarFunc:
		return b.bindSimilar(c, n)
	case funcAggs[name]:
		return nil, b.misplacedAggCall(c, n)
	case name == "generate_series" || name == "unnest" || expr.IsSetFunc(name):
		return b.bindSRF(c, n)
	case n.Schema.L != "" && n.Schema.L != "pg_catalog":
		err := pgerr.New("3F000", "schema %q does not exist", n.Schema.O)
		return nil, b.at(err, n, n.Schema.O)
	case strings.HasPrefix(name, markerPrefix):
		return nil, pgerr.New(pgerr.SyntaxError, "%s is not allowed here", markerName(name))
	}
	written := n.FnName.O // as the user wrote it, for the error position
	if name == "concat" {
		written = "concat"
	}
	if alias, ok := funcAliases[name]; ok && alias != "" {
		name = alias
	}
	bindArgs := b.bindArgs
	if hasNamedArgs(n.Args) {
		bindArgs = func(c *exprCtx, _ []ast.ExprNode) ([]expr.Expr, error) { return b.bindNamedArgs(c, name, n) }
	}
	args, err := bindArgs(c, n.Args)
	if err != nil {
		return nil, err
	}
	if name == "make_timestamptz" && len(args) == 7 {
		return b.makeTimestamptzIn(n, args)
	}
	if e, ok, err := b.bindSystemFunc(name, args); ok {
		if err != nil {
			return nil, b.at(err, n, written)
		}
		return e, nil
	}
	if e, ok, err := b.funcStyleCast(name, args); ok {
		if err != nil {
			return nil, b.at(err, n, written)
		}
		return e, nil
	}
	e, err := expr.Func(name, args)
	if err != nil {
		return nil, b.at(err, n, written)
	}
	b.readsClock = b.readsClock || expr.ReadsClockFunc(name)
	b.decideCallParams(args, e)
	return e, nil
}

// funcStyleCast binds typename(x), which Postgres reads as CAST(x AS
// typename) when no function of that name takes x: int4(x), text(x),
// date(x). The name is the type's pg_type name; ok is false for other
// names and argument counts.
func (b *binder) funcStyleCast(name string, args []expr.Expr) (expr.Expr, bool, error) {
	t, ok := castFuncType(name)
	if !ok || len(args) != 1 {
		return nil, false, nil
	}
	x, err := b.decideParam(args[0], t)
	if err != nil {
		return nil, true, err
	}
	if t.IsReg() || x.Type().IsReg() {
		e, err := b.convert(x, t)
		return e, true, err
	}
	e, err := expr.Cast(x, t)
	return e, true, err
}

// castFuncType returns the type whose pg_type name is name.
func castFuncType(name string) (types.Type, bool) {
	if expr.HasFunc(name) {
		return types.Type{}, false
	}
	for id := types.IDBool; id <= types.IDLast; id++ {
		if t := (types.Type{ID: id}); id != types.IDArray && id != types.IDVoid && t.InternalName() == name {
			return t, true
		}
	}
	return types.Type{}, false
}

func markerName(name string) string {
	switch name {
	case markerFullJoin:
		return "FULL JOIN"
	case markerTemporal:
		return "FOR SYSTEM_TIME AS OF PROCTIME()"
	case markerNullsFirst:
		return "NULLS FIRST"
	case markerNullsLast:
		return "NULLS LAST"
	}
	return name
}

func (b *binder) bindArgs(c *exprCtx, nodes []ast.ExprNode) ([]expr.Expr, error) {
	args := make([]expr.Expr, len(nodes))
	for i, a := range nodes {
		var err error
		if args[i], err = b.bindExpr(c, a); err != nil {
			return nil, err
		}
	}
	return args, nil
}

// bindConcatOp binds the parser's concat(a, b, ...), which only a || b
// produces, as (a || b) || ...
func (b *binder) bindConcatOp(c *exprCtx, n *ast.FuncCallExpr) (expr.Expr, error) {
	args, err := b.bindArgs(c, n.Args)
	if err != nil {
		return nil, err
	}
	if len(args) < 2 {
		return nil, pgerr.New(pgerr.Internal, "binder: malformed || operator")
	}
	e := args[0]
	for _, r := range args[1:] {
		if e, err = b.binary("||", e, r); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// bindCast undoes __sdb_cast(x, 'type').
func (b *binder) bindCast(c *exprCtx, n *ast.FuncCallExpr) (expr.Expr, error) {
	if len(n.Args) != 2 {
		return nil, pgerr.New(pgerr.Internal, "binder: malformed cast marker")
	}
	tv, ok := n.Args[1].(ast.ValueExpr)
	if !ok {
		return nil, pgerr.New(pgerr.Internal, "binder: malformed cast marker")
	}
	name, _ := tv.GetValue().(string)
	t, err := parseCastType(name)
	if err != nil {
		return nil, b.at(err, n, typeBase(name))
	}
	if e, ok := emptyArrayCast(n.Args[0], t); ok {
		return e, nil
	}
	x, err := b.bindExpr(c, n.Args[0])
	if err != nil {
		return nil, err
	}
	if x, err = b.decideParam(x, t); err != nil {
		return nil, err
	}
	if t.IsReg() || x.Type().IsReg() {
		return b.convert(x, t)
	}
	return expr.Cast(x, t)
}

// bindTrim maps the parser's trim(src, chars[, direction]) to btrim, ltrim
// or rtrim(src, chars).
func (b *binder) bindTrim(c *exprCtx, n *ast.FuncCallExpr) (expr.Expr, error) {
	name := "btrim"
	if len(n.Args) == 3 {
		if d, ok := n.Args[2].(*ast.TrimDirectionExpr); ok {
			switch d.Direction {
			case ast.TrimLeading:
				name = "ltrim"
			case ast.TrimTrailing:
				name = "rtrim"
			}
		}
	}
	args, err := b.bindArgs(c, n.Args[:2])
	if err != nil {
		return nil, err
	}
	return expr.Func(name, args)
}

// bindExtract binds extract(field FROM x) as extract('field', x).
func (b *binder) bindExtract(c *exprCtx, n *ast.FuncCallExpr) (expr.Expr, error) {
	if len(n.Args) != 2 {
		return nil, pgerr.New(pgerr.SyntaxError, "syntax error at or near \"extract\"")
	}
	var field expr.Expr
	if u, ok := n.Args[0].(*ast.TimeUnitExpr); ok {
		field = expr.NewConst(strings.ToLower(u.Unit.String()), types.TText)
	} else {
		f, err := b.bindExpr(c, n.Args[0])
		if err != nil {
			return nil, err
		}
		field = f
	}
	src, err := b.bindExpr(c, n.Args[1])
	if err != nil {
		return nil, err
	}
	return expr.Func("extract", []expr.Expr{field, src})
}

// bindJSONOp binds a JSON operator (->, ->>, #>, #>>, @>, <@, ?, ?|, ?&,
// #-), which the front end wrote as sql.JSONOpFunc('op', l, r). A
// parameter on the right takes the type PostgreSQL resolves it to: text
// for a key, text[] for a path or key list, jsonb for containment.
func (b *binder) bindJSONOp(c *exprCtx, n *ast.FuncCallExpr) (expr.Expr, error) {
	if len(n.Args) != 3 {
		return nil, pgerr.New(pgerr.SyntaxError, "malformed JSON operator")
	}
	lit, ok := n.Args[0].(ast.ValueExpr)
	if !ok {
		return nil, pgerr.New(pgerr.SyntaxError, "malformed JSON operator")
	}
	op, _ := lit.GetValue().(string)
	l, err := b.bindExpr(c, n.Args[1])
	if err != nil {
		return nil, err
	}
	r, err := b.bindExpr(c, n.Args[2])
	if err != nil {
		return nil, err
	}
	switch op {
	case "&", "|", "<<", ">>":
		return b.binary(op, l, r)
	case "<<=", ">>=": // inet's
		if l, err = b.decideParam(l, types.TInet); err != nil {
			return nil, err
		}
		if r, err = b.decideParam(r, types.TInet); err != nil {
			return nil, err
		}
	}
	if b.isUnknownParam(l) {
		if l, err = b.decideParam(l, types.TJSONB); err != nil {
			return nil, err
		}
	}
	if b.isUnknownParam(r) {
		want := types.TText
		switch op {
		case "#>", "#>>", "?|", "?&", "#-":
			want = types.ArrayOf(types.IDText)
		case "@>", "<@":
			want = types.TJSONB
		}
		if r, err = b.decideParam(r, want); err != nil {
			return nil, err
		}
	}
	return expr.Binary(op, l, r)
}

// bindPrefixOp binds a prefix operator, which the front end wrote as
// sql.PrefixOpFunc('op', x): |/ x is sqrt and ||/ x cbrt of x as double
// precision (the only type PostgreSQL defines them for; a number or an
// untyped literal converts to it), @ x is abs(x).
func (b *binder) bindPrefixOp(c *exprCtx, n *ast.FuncCallExpr) (expr.Expr, error) {
	if len(n.Args) != 2 {
		return nil, pgerr.New(pgerr.SyntaxError, "malformed prefix operator")
	}
	lit, _ := n.Args[0].(ast.ValueExpr)
	var op string
	if lit != nil {
		op, _ = lit.GetValue().(string)
	}
	x, err := b.bindExpr(c, n.Args[1])
	if err != nil {
		return nil, err
	}
	fn := map[string]string{"|/": "sqrt", "||/": "cbrt", "@": "abs"}[op]
	if op == "@" {
		if x, err = b.decideParam(x, types.TNumeric); err != nil {
			return nil, err
		}
	} else {
		if x, err = b.decideParam(x, types.TFloat64); err != nil {
			return nil, err
		}
		if t := x.Type(); t.IsNumeric() || t.ID == types.IDUnknown {
			if x, err = castTo(x, types.TFloat64); err != nil {
				return nil, err
			}
		}
	}
	if fn == "" || (op == "@" && !x.Type().IsNumeric()) || (op != "@" && x.Type() != types.TFloat64) {
		e := pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s %s", op, x.Type())
		e.Hint = "No operator matches the given name and argument type. You might need to add an explicit type cast."
		return nil, b.atNode(e, n)
	}
	return expr.Func(fn, []expr.Expr{x})
}

// makeTimestamptzIn binds make_timestamptz(year, month, mday, hour, min,
// sec, timezone): the local time in that zone, as timezone(zone,
// make_timestamp(...)) reads it, except that a numeric offset ('+02')
// is east of UTC here (ISO 8601) where timezone() reads it as POSIX
// does (west): its sign is flipped first.
func (b *binder) makeTimestamptzIn(n *ast.FuncCallExpr, args []expr.Expr) (expr.Expr, error) {
	local, err := expr.Func("make_timestamp", args[:6])
	if err != nil {
		return nil, b.at(err, n, n.FnName.O)
	}
	zone, err := b.decideParam(args[6], types.TText)
	if err != nil {
		return nil, err
	}
	if zone, err = isoOffsetSign(zone); err != nil {
		return nil, err
	}
	e, err := expr.Func("timezone", []expr.Expr{zone, local})
	if err != nil {
		return nil, b.at(err, n, n.FnName.O)
	}
	return e, nil
}

// isoOffsetSign is CASE WHEN left(z, 1) IN ('+', '-') THEN translate(z,
// '+-', '-+') ELSE z END.
func isoOffsetSign(z expr.Expr) (expr.Expr, error) {
	if z.Type().ID == types.IDUnknown {
		var err error
		if z, err = expr.Cast(z, types.TText); err != nil {
			return nil, err
		}
	}
	first, err := expr.Func("left", []expr.Expr{z, expr.NewConst(int64(1), types.TInt32)})
	if err != nil {
		return nil, err
	}
	signed, err := expr.In(first, []expr.Expr{expr.NewConst("+", types.TText), expr.NewConst("-", types.TText)}, false)
	if err != nil {
		return nil, err
	}
	flipped, err := expr.Func("translate", []expr.Expr{z, expr.NewConst("+-", types.TText), expr.NewConst("-+", types.TText)})
	if err != nil {
		return nil, err
	}
	return expr.Case(nil, []expr.Expr{signed}, []expr.Expr{flipped}, z)
}
