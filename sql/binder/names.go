package binder

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/sql"
)

// figureName names an output column the way Postgres does when it has no
// alias: a column keeps its name, a function call takes the function's
// name, a cast of an unnamed expression the type's name, CASE is "case",
// anything else "?column?".
func figureName(n ast.ExprNode) string {
	switch n := n.(type) {
	case *ast.ParenthesesExpr:
		return figureName(n.Expr)
	case *ast.ColumnNameExpr:
		return n.Name.Name.O
	case *ast.AggregateFuncExpr:
		return strings.ToLower(n.F)
	case *ast.WindowFuncExpr:
		return windowFuncName(n)
	case *ast.CaseExpr:
		return "case"
	case *ast.ExistsSubqueryExpr:
		return "exists"
	case *ast.SubqueryExpr:
		// A scalar subquery is named after its one column.
		if sel, ok := n.Query.(*ast.SelectStmt); ok && sel.Fields != nil && len(sel.Fields.Fields) == 1 {
			if f := sel.Fields.Fields[0]; f.WildCard == nil {
				if f.AsName.O != "" {
					return f.AsName.O
				}
				return figureName(f.Expr)
			}
		}
	case *ast.FuncCallExpr:
		return funcColumnName(n)
	case ast.ParamMarkerExpr:
		return "?column?"
	case ast.ValueExpr:
		if c, err := bindLiteral(n); err == nil && c.Typ.ID == types.IDBool {
			return "bool"
		}
	}
	return "?column?"
}

func funcColumnName(n *ast.FuncCallExpr) string {
	name := n.FnName.L
	switch {
	case name == markerCast && len(n.Args) == 2:
		if inner := figureName(n.Args[0]); inner != "?column?" {
			return inner
		}
		if tv, ok := n.Args[1].(ast.ValueExpr); ok {
			s, _ := tv.GetValue().(string)
			if t, err := parseCastType(s); err == nil {
				return internalTypeName(t)
			}
		}
		return "?column?"
	case name == ast.Concat:
		return "?column?" // a || b
	case name == markerConcat:
		return "concat"
	case strings.HasPrefix(name, sql.MarkerFuncPrefix):
		return name[len(sql.MarkerFuncPrefix):]
	case name == markerExtract:
		return "extract"
	case name == sql.JSONOpFunc, name == sql.PrefixOpFunc, name == sql.SimilarFunc, name == sql.NotSimilarFunc:
		return "?column?"
	case name == markerArrayLit || name == markerArraySub:
		return "array"
	case name == markerSubscript && len(n.Args) == 2:
		return figureName(n.Args[0])
	case name == "trim":
		return trimName(n)
	case name == "curdate":
		return "current_date"
	}
	return name
}

func trimName(n *ast.FuncCallExpr) string {
	if len(n.Args) == 3 {
		if d, ok := n.Args[2].(*ast.TrimDirectionExpr); ok {
			switch d.Direction {
			case ast.TrimLeading:
				return "ltrim"
			case ast.TrimTrailing:
				return "rtrim"
			}
		}
	}
	return "btrim"
}
