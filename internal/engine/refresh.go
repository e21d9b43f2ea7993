package engine

import (
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/sql"
)

// refresh runs REFRESH MATERIALIZED VIEW: a view already reflects every
// statement that has returned, so there is nothing to recompute; the
// view must exist and be a materialized view, as in PostgreSQL. WITH NO
// DATA, which would leave the view unscannable, is 0A000.
func (s *Session) refresh(n *sql.RefreshStmt, w ResultWriter) error {
	if _, err := s.lookupKind(sql.ObjMaterializedView, n.Name); err != nil {
		return err
	}
	if n.NoData {
		return pgerr.New(pgerr.FeatureNotSupported, "REFRESH MATERIALIZED VIEW ... WITH NO DATA is not supported: materialized views are always up to date")
	}
	return w.Complete("REFRESH MATERIALIZED VIEW")
}
