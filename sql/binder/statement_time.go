package binder

import (
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
)

// The time of a batch statement. As in PostgreSQL, now() (and
// current_timestamp, transaction_timestamp(), current_date,
// localtimestamp) is when the transaction started and
// statement_timestamp() when the statement did: one value for every row
// and every call. The engine gives Bind the session's instants
// (Options.Time); once a batch statement (a query, INSERT, UPDATE,
// DELETE) that calls any of them is bound (binder.readsClock),
// finishExprs makes those calls constants and points clock_timestamp()
// at the session's clock (expr.AtInstants), as ColumnDefaults does for
// COPY's defaults. Other statements keep the calls: a materialized
// view's now() is each barrier's time (planner/temporal.go), and a
// column's DEFAULT is bound again by each statement that uses it. A
// statement bound without instants (Prepare, EXPLAIN) is only
// described, not run.

// finishExprs gives every expression of the bound statement stmt zone z
// and, for a batch statement, the instants at (nil: none).
func finishExprs(stmt any, z *types.Zone, at *expr.Instants) {
	if !batchStatement(stmt) {
		at = nil
	}
	if z.IsUTC() && at == nil {
		return
	}
	rewriteExprs(stmt, func(e expr.Expr) expr.Expr { return finishExpr(e, z, at) })
}

// finishExpr gives e zone z and, when at is not nil, the instants at.
func finishExpr(e expr.Expr, z *types.Zone, at *expr.Instants) expr.Expr {
	e = inZone(e, z)
	if at != nil {
		e = expr.AtInstants(e, at, z)
	}
	return e
}

// batchStatement reports whether stmt runs once, now: a query or DML.
func batchStatement(stmt any) bool {
	switch stmt.(type) {
	case *planner.Query, *planner.Insert, *planner.Update, *planner.Delete:
		return true
	}
	return false
}
