package engine

import (
	"context"
	"strings"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// Temporary tables (CREATE TEMP TABLE) are tables of one session, as in
// PostgreSQL: named in the session's schema pg_temp_N (N its backend
// process ID, catalog.TempSchema), which its search path starts with
// and which pg_temp names; hidden from every other session; dropped when
// the session closes, and at Open those a crash or a session never
// closed left, rows and all, so none outlives a restart. Their rows are
// stored and committed as any table's. A materialized view, sink or
// plain view may not read one (0A000): it would outlive the table.

// TempSchema implements catalog.TempSchemaReader.
func (c sessionCatalog) TempSchema() string {
	if c.session == nil {
		return catalog.TempSchema(0)
	}
	return catalog.TempSchema(c.session.tempPID())
}

// tempPID is the process ID a session's temporary tables are owned by
// and named after: its backend PID as pg_backend_pid() gives it.
func (s *Session) tempPID() uint32 { return s.pid & 0x7fffffff }

// sessionRelation resolves name for the session: pg_temp.x is x in the
// session's temporary schema; another session's temporary table does
// not exist here.
func (c sessionCatalog) sessionRelation(name string) (*catalog.Relation, bool) {
	if rest, ok := strings.CutPrefix(name, "pg_temp."); ok {
		name = c.TempSchema() + "." + rest
	}
	r, ok := c.DB.Relation(name)
	if !ok || r.Filling || r.TempOwner != 0 && (c.session == nil || r.TempOwner != c.session.tempPID()) {
		return nil, false
	}
	return r, true
}

// refuseTempRefs refuses a view, sink or plain view over a temporary
// table (ids are the relations its query names).
func (db *DB) refuseTempRefs(ids []uint32, what string) error {
	for _, id := range ids {
		if r, ok := db.RelationByID(id); ok && r.TempOwner != 0 {
			return pgerr.New(pgerr.FeatureNotSupported, "%s must not use temporary tables or views", what)
		}
	}
	return nil
}

// dropTempTables drops the temporary tables of the session with backend
// process ID pid.
func (db *DB) dropTempTables(pid uint32) error {
	return db.dropWhere(func(r *catalog.Relation) bool { return r.TempOwner != 0 && r.TempOwner == pid })
}

// dropLeftovers drops, at Open, the relations that live only as long as
// a session or a statement, which a crash or a close left: temporary
// tables and subscriptions, and the tables of a CREATE TABLE AS that
// never returned (still Filling: they never existed).
func (db *DB) dropLeftovers() error {
	return db.dropWhere(func(r *catalog.Relation) bool {
		return r.TempOwner != 0 || r.Kind == catalog.KindSubscription && r.Temporary ||
			r.Kind == catalog.KindTable && r.Filling
	})
}

// dropWhere drops (with CASCADE) every relation drop reports, each under
// ddlMu; one an earlier drop cascaded to is skipped.
func (db *DB) dropWhere(drop func(*catalog.Relation) bool) error {
	for _, r := range db.relationsSorted() {
		if !drop(r) {
			continue
		}
		db.ddlMu.Lock()
		cur, ok := db.RelationByID(r.ID)
		var err error
		if ok {
			err = db.dropRelation(context.Background(), cur, true, discardWriter{})
		}
		db.ddlMu.Unlock()
		if err != nil {
			return err
		}
	}
	return nil
}
