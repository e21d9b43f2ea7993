package binder

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/sql"
)

// Aggregates of two arguments (sql.PairAggs: the regression family,
// jsonb_object_agg and json_object_agg). The planner's aggregate calls
// take one argument column, so the binder packs the two arguments into
// one value, an expression of its own:
//
//   - the regression family: expr.RegrPair's float8[] [Y, X], NULL when
//     either is NULL, so that the row is skipped as every aggregate
//     skips a NULL argument; regr_count is then count of that pair.
//   - the object aggregates: expr.ObjectPair's text[] [key, value], the
//     value as JSON text (JSON null for NULL). A FILTER goes into the
//     pair (NULL where it rejects the row), so that a NULL key in a
//     rejected row is no error.

func init() {
	// The parser reads them as plain calls, as the other funcAggs.
	for name := range sql.PairAggs {
		funcAggs[name] = true
	}
}

// aggPairArg packs the first argument, bound, and the second, second,
// of e (of aggregate name) into its argument. An object aggregate's
// FILTER moves into the pair.
func (b *binder) aggPairArg(c *exprCtx, e *aggEntry, name string, first expr.Expr, second ast.ExprNode) (expr.Expr, error) {
	arg2, err := b.bindExpr(c.noAggs("nested"), second)
	if err != nil {
		return nil, err
	}
	if e.kind.IsObjectAgg() {
		pair, err := expr.ObjectPair(e.kind, first, arg2, e.filter)
		e.filter = nil
		return pair, err
	}
	return expr.RegrPair(name, first, arg2)
}

// windowFuncName is the name of a window call: that of the aggregate a
// sql.WindowAggFunc marker holds, if it holds one (see unwrapWindowAgg).
func windowFuncName(call *ast.WindowFuncExpr) string {
	if name, _, ok := windowAggMarker(call); ok {
		return name
	}
	return strings.ToLower(call.Name)
}

// windowAggMarker reads a call marked by sql.WindowAggFunc: the
// aggregate's name (empty if malformed) and its arguments.
func windowAggMarker(call *ast.WindowFuncExpr) (string, []ast.ExprNode, bool) {
	if len(call.Args) != 1 {
		return "", nil, false
	}
	m, ok := call.Args[0].(*ast.FuncCallExpr)
	if !ok || m.FnName.L != sql.WindowAggFunc || len(m.Args) == 0 {
		return "", nil, false
	}
	var name string
	if v, ok := m.Args[0].(ast.ValueExpr); ok {
		name, _ = v.GetValue().(string)
	}
	return name, m.Args[1:], true
}

// unwrapWindowAgg turns a call marked by sql.WindowAggFunc (an aggregate
// the parser reads as a plain call, used as a window function) back
// into that call: its name and arguments. PostgreSQL has no DISTINCT
// and no ORDER BY in a window aggregate.
func unwrapWindowAgg(call *ast.WindowFuncExpr) error {
	name, args, ok := windowAggMarker(call)
	if !ok {
		return nil
	}
	if name == "" {
		return pgerr.New(pgerr.Internal, "binder: malformed window aggregate marker")
	}
	for _, a := range args {
		if f, ok := a.(*ast.FuncCallExpr); ok {
			switch f.FnName.L {
			case sql.AggDistinctFunc:
				return pgerr.New(pgerr.FeatureNotSupported, "DISTINCT is not implemented for window functions")
			case sql.AggOrderFunc:
				return pgerr.New(pgerr.FeatureNotSupported, "aggregate ORDER BY is not implemented for window functions")
			}
		}
	}
	call.Name, call.Args = name, args
	return nil
}
