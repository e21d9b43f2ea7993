package binder

import (
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
// Expressions are built in UTC; once the statement is bound,
// finishExprs gives each of them the zone (expr.WithZone; see
// statement_time.go). Parameter values of unknown type and
// generate_series over timestamptz take it as they bind.

// zoneSetting is the TimeZone a materialized view keeps: "" for UTC.
func zoneSetting(z *types.Zone) string {
	if z.IsUTC() {
		return ""
	}
	return z.Name()
}

// inZone gives e time zone z; nothing changes for UTC, the zone
// expressions are built in.
func inZone(e expr.Expr, z *types.Zone) expr.Expr {
	if z.IsUTC() {
		return e
	}
	return expr.WithZone(e, z)
}
