package engine

import (
	"context"
	"slices"
	"time"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/systemcatalog"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/storage"
)

// The engine's side of the system catalogs (package systemcatalog:
// pg_catalog, information_schema, streamdb_catalog): the state they read
// (systemSource), who a session is for them (identity), and the
// catalog a session binds statements against (sessionCatalog).

// systemSource is the engine as the system catalogs read it.
type systemSource struct{ db *DB }

var _ systemcatalog.Engine = systemSource{}

// Relations implements systemcatalog.Engine.
// A table CREATE TABLE AS is still filling is not listed.
func (s systemSource) Relations() []*catalog.Relation {
	rels := s.db.relationsSorted()
	return slices.DeleteFunc(slices.Clone(rels), func(r *catalog.Relation) bool { return r.Filling })
}

// RelationByID implements systemcatalog.Engine.
func (s systemSource) RelationByID(id uint32) (*catalog.Relation, bool) { return s.db.RelationByID(id) }

// SequenceState implements systemcatalog.Engine.
func (s systemSource) SequenceState(id uint32) (int64, bool, error) {
	rel, err := s.db.sequenceRelation(id)
	if err != nil {
		return 0, false, err
	}
	return s.db.sequenceValues(rel)
}

// Fragments implements systemcatalog.Engine.
func (s systemSource) Fragments(id uint32) []planner.Fragment {
	s.db.mu.RLock()
	defer s.db.mu.RUnlock()
	if rt := s.db.runtime[id]; rt != nil {
		return rt.fragments
	}
	return nil
}

// RowsGenerated implements systemcatalog.Engine.
func (s systemSource) RowsGenerated(id uint32) (int64, bool) {
	s.db.mu.RLock()
	rt := s.db.runtime[id]
	s.db.mu.RUnlock()
	if rt == nil || rt.generated == nil {
		return 0, false
	}
	return rt.generated.Load(), true
}

// Watermark implements systemcatalog.Engine.
func (s systemSource) Watermark(id uint32) (types.Datum, int64, bool) {
	s.db.mu.RLock()
	rt := s.db.runtime[id]
	s.db.mu.RUnlock()
	if rt == nil || rt.watermark == nil {
		return nil, 0, false
	}
	wm, late := rt.watermark.Watermark()
	return wm, late, true
}

// Jobs implements systemcatalog.Engine.
func (s systemSource) Jobs() []systemcatalog.Job {
	var out []systemcatalog.Job
	for _, j := range s.db.jobList() {
		st := j.status()
		rel := j.rel
		if cur, ok := s.db.RelationByID(j.rel.ID); ok {
			rel = cur
		}
		failures, lastErr, quarantined := j.health()
		out = append(out, systemcatalog.Job{ID: st.id, Statement: st.statement, Phase: st.phase,
			Progress: st.pct, RowsRead: st.read, RowsTotal: st.total, RowsPerSecond: st.rate, LogLag: st.lag,
			Elapsed: time.Since(j.started), View: rel, Failures: failures, LastError: lastErr, Quarantined: quarantined,
			Epoch: st.epoch, CommittedEpoch: s.db.coord.CommittedEpoch(), OwnEpoch: st.ownEpoch, Joined: st.joined,
			AdaptiveRate: st.adaptiveRate, AdaptiveTarget: st.adaptiveTarget})
	}
	return out
}

// Recoveries implements systemcatalog.Engine.
func (s systemSource) Recoveries() []systemcatalog.Recovery { return s.db.recoveries.snapshot() }

// ViewErrors implements systemcatalog.Engine.
func (s systemSource) ViewErrors() []systemcatalog.ViewError {
	return s.db.viewErrors.snapshot(func(id uint32) (string, bool) {
		r, ok := s.db.RelationByID(id)
		if !ok {
			return "", false
		}
		return r.Name, true
	})
}

// systemScan reads the rows of a system relation for the session in ctx.
func (db *DB) systemScan(ctx context.Context, r *catalog.Relation) storage.Iterator {
	rows, err := systemcatalog.Rows(systemSource{db}, identityOf(ctx), r)
	return &rowsIter{rows: rows, err: err}
}

// jobColumns are SHOW JOBS's: streamdb_catalog.ddl_progress's.
var jobColumns = func() []Column {
	r, _ := systemcatalog.Relation(systemcatalog.DDLProgress)
	cols := make([]Column, len(r.Columns))
	for i, c := range r.Columns {
		cols[i] = Column{Name: c.Name, Type: c.Type}
	}
	return cols
}()

// jobRows are SHOW JOBS's rows.
func (db *DB) jobRows() [][]types.Datum { return systemcatalog.JobRows(systemSource{db}.Jobs()) }

// regOutput converts the reg* values of a result row to the names they
// print as (the wire sends reg* values in their text form).
func (db *DB) regOutput(ctx context.Context, cols []Column) func(row []types.Datum) {
	typs := make([]types.Type, len(cols))
	for i, c := range cols {
		typs[i] = c.Type
	}
	return systemcatalog.NewFunctions(systemSource{db}, identityOf(ctx)).RegOutput(typs)
}

// Defaults for sessions opened in-process, which have no user or
// database name from a client.
const (
	defaultUser     = "streamdb"
	defaultDatabase = "streamdb"
)

// settingDefaults are the sessions' settings' defaults, shared and never
// changed.
var settingDefaults = defaultVars()

type identityKey struct{}

// identity returns who the session is, for the catalog: its user (the
// one role, a superuser that owns everything), its database and its
// settings.
func (s *Session) identity() systemcatalog.Identity {
	id := systemcatalog.Identity{User: s.user, Database: s.database, Settings: map[string]string{}, Defaults: settingDefaults,
		SetConfig: s.setConfig, PID: int32(s.pid & 0x7fffffff), Prepared: s.preparedStatements}
	if id.User == "" {
		id.User = defaultUser
	}
	if id.Database == "" {
		id.Database = defaultDatabase
	}
	for k, v := range s.vars {
		id.Settings[k] = v
	}
	return id
}

// withIdentity returns ctx carrying the session's identity, for the rows
// of the catalog relations that depend on it.
func (s *Session) withIdentity(ctx context.Context) context.Context {
	return context.WithValue(ctx, identityKey{}, s.identity())
}

func identityOf(ctx context.Context) systemcatalog.Identity {
	if id, ok := ctx.Value(identityKey{}).(systemcatalog.Identity); ok {
		return id
	}
	return systemcatalog.Identity{User: defaultUser, Database: defaultDatabase, Settings: defaultVars(), Defaults: settingDefaults}
}

// sessionCatalog is the catalog as one session's statements see it: the
// DB's relations, and the functions that know the session.
type sessionCatalog struct {
	*DB
	systemcatalog.Functions
	// noIndexes: enable_indexscan is off, queries read no index.
	noIndexes bool
	// searchPath is the session's search_path.
	searchPath []string
	// zone is the session's TimeZone.
	zone *types.Zone
	// session, when set, gives the sequence functions (nextval ...)
	// their session.
	session *Session
}

// Relation implements catalog.Reader: a table CREATE TABLE AS is still
// filling is not there yet, nor another session's temporary table.
func (c sessionCatalog) Relation(name string) (*catalog.Relation, bool) {
	return c.sessionRelation(name)
}

// IndexesOf implements catalog.IndexReader: none when the session's
// enable_indexscan is off.
func (c sessionCatalog) IndexesOf(id uint32) []*catalog.Relation {
	if c.noIndexes {
		return nil
	}
	return c.DB.IndexesOf(id)
}

var (
	_ catalog.Reader    = sessionCatalog{}
	_ catalog.Functions = sessionCatalog{}
)

// catalog returns the catalog the session binds statements against.
func (s *Session) catalog() sessionCatalog {
	return sessionCatalog{DB: s.db, Functions: systemcatalog.NewFunctions(systemSource{s.db}, s.identity()),
		noIndexes: !s.boolVar("enable_indexscan"), searchPath: catalog.ParseSearchPath(s.vars["search_path"]), zone: s.zone, session: s}
}

// rowsIter is a storage.Iterator over rows held in memory, or over none
// when computing them failed with err.
type rowsIter struct {
	rows [][]types.Datum
	i    int
	err  error
}

var _ storage.Iterator = (*rowsIter)(nil)

func (it *rowsIter) Next() bool {
	if it.i >= len(it.rows) {
		return false
	}
	it.i++
	return true
}

func (it *rowsIter) Row() []types.Datum { return it.rows[it.i-1] }
func (it *rowsIter) Err() error         { return it.err }
func (it *rowsIter) Close() error       { return nil }
