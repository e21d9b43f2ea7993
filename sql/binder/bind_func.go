package binder

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/exec/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// Marker function names of the front end's rewrite (see package sql).
const (
	markerCast       = "__sdb_cast"
	markerFullJoin   = "__sdb_full_join"
	markerNullsFirst = "__sdb_nulls_first"
	markerNullsLast  = "__sdb_nulls_last"
	markerPrefix     = "__sdb_"
)

// funcAliases maps the names the parser gives some SQL-standard forms to
// the names expr.Func knows.
var funcAliases = map[string]string{
	"curdate":           "current_date",
	"current_date":      "current_date",
	"current_timestamp": "current_timestamp",
	"localtimestamp":    "current_timestamp",
}

func (b *binder) bindFunc(c *exprCtx, n *ast.FuncCallExpr) (expr.Expr, error) {
	name := n.FnName.L
	switch {
	case name == markerCast:
		return b.bindCast(c, n)
	case name == ast.Concat && b.isPipes(n):
		return b.bindConcatOp(c, n)
	case name == "trim" && len(n.Args) > 1:
		return b.bindTrim(c, n)
	case name == "extract":
		return b.bindExtract(c, n)
	case strings.HasPrefix(name, markerPrefix):
		return nil, pgerr.New(pgerr.SyntaxError, "%s is not allowed here", markerName(name))
	}
	if alias, ok := funcAliases[name]; ok && alias != "" {
		name = alias
	}
	args, err := b.bindArgs(c, n.Args)
	if err != nil {
		return nil, err
	}
	e, err := expr.Func(name, args)
	if err != nil {
		return nil, b.at(err, n, n.FnName.O)
	}
	return e, nil
}

func markerName(name string) string {
	switch name {
	case markerFullJoin:
		return "FULL JOIN"
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

// isPipes tells the parser's reading of a || b (a concat call starting
// where its first operand starts) from a written concat(a, b).
func (b *binder) isPipes(n *ast.FuncCallExpr) bool {
	return len(n.Args) == 2 && n.Args[0].OriginTextPosition() == n.OriginTextPosition()
}

func (b *binder) bindConcatOp(c *exprCtx, n *ast.FuncCallExpr) (expr.Expr, error) {
	args, err := b.bindArgs(c, n.Args)
	if err != nil {
		return nil, err
	}
	return b.binary("||", args[0], args[1])
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
	t, err := parseTypeName(name)
	if err != nil {
		return nil, b.at(err, n, typeBase(name))
	}
	x, err := b.bindExpr(c, n.Args[0])
	if err != nil {
		return nil, err
	}
	if x, err = b.decideParam(x, t); err != nil {
		return nil, err
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
