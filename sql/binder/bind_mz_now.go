package binder

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// Materialize's mz_now() is the time the view (or query) is at: now(),
// which in a view's WHERE makes a temporal filter
// (WHERE mz_now() <= ts + INTERVAL '1 day'). Materialize's timestamps are
// also milliseconds since the Unix epoch: compared with a number, as in
// WHERE mz_now() <= insert_ms + 30000, mz_now() is
// extract(epoch FROM now()) * 1000.

// mzNowMillis returns the operands of the comparison n (bound as l, r)
// with an mz_now() compared with a number made milliseconds.
func mzNowMillis(op string, n *ast.BinaryOperationExpr, l, r expr.Expr) (expr.Expr, expr.Expr, error) {
	if _, cmp := comparisonOps[op]; !cmp {
		return l, r, nil
	}
	var err error
	switch {
	case isMzNow(n.L) && r.Type().IsNumeric():
		l, err = nowMillis()
	case isMzNow(n.R) && l.Type().IsNumeric():
		r, err = nowMillis()
	}
	return l, r, err
}

var comparisonOps = map[string]bool{"=": true, "<>": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true}

func isMzNow(e ast.ExprNode) bool {
	f, ok := e.(*ast.FuncCallExpr)
	return ok && f.FnName.L == "mz_now" && len(f.Args) == 0
}

// nowMillis is extract(epoch FROM now()) * 1000.
func nowMillis() (expr.Expr, error) {
	now, err := expr.Func("now", nil)
	if err != nil {
		return nil, err
	}
	epoch, err := expr.Func("extract", []expr.Expr{expr.NewConst("epoch", types.TText), now})
	if err != nil {
		return nil, err
	}
	return expr.Binary("*", epoch, expr.NewConst(int64(1000), types.TInt64))
}
