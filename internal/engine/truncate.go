package engine

import (
	"context"
	"time"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
	"github.com/streamdb/streamdb/sql/binder"
)

// truncate runs TRUNCATE [TABLE] t, ...: every row of each table is
// deleted, as DELETE FROM t would, through the write path (package
// write): the table's rows are read from one snapshot, staged (on disk
// past a limit, so a big table is streamed, not held) and sent as
// deletes into one epoch per table, so every view over the table
// receives the retractions and equals its query afterwards (I3, I6).
// A range delete of the table's own storage would not save the scan:
// the views downstream need each deleted row's values to retract it (an
// aggregate subtracts them). All tables are checked before any is
// emptied; a statement naming several tables commits one epoch per
// table, in the order named. Inside a transaction block it commits at
// once, as every DML statement does (see transaction).
func (s *Session) truncate(ctx context.Context, n *sql.TruncateStmt, w ResultWriter) error {
	var dels []*planner.Delete
	for _, name := range n.Names {
		r, err := s.lookupRelation(name)
		if err != nil {
			return err
		}
		if err := truncatable(r, name); err != nil {
			return err
		}
		st, err := s.parser.Parse("DELETE FROM " + quoteName(r.Name))
		if err != nil {
			return err
		}
		res, err := binder.Bind(s.catalog(), st[0], binder.Options{Time: s.instants()})
		if err != nil {
			return err
		}
		dels = append(dels, res.Stmt.(*planner.Delete))
	}
	if s.inTx {
		s.txWrites++
	}
	ctx = s.withIdentity(ctx)
	defer s.db.coord.Live()()
	for _, del := range dels {
		start := time.Now()
		n, err := s.db.writer.Delete(ctx, del, nil)
		s.db.metrics.wrote(writeDelete, start, n, err)
		if err != nil {
			return err
		}
	}
	if n.RestartIdentity {
		for _, del := range dels {
			if err := s.db.restartOwnedSequences(del.Rel.ID); err != nil {
				return err
			}
		}
	}
	return w.Complete("TRUNCATE TABLE")
}

// truncatable refuses to truncate what is not a plain table: a view or
// source (42809, as PostgreSQL), a table whose rows come from a
// connector, or an append-only one (its views keep no retractions).
func truncatable(r *catalog.Relation, name string) error {
	switch {
	case r.Kind != catalog.KindTable:
		e := pgerr.New(pgerr.WrongObjectType, "%q is not a table", name)
		if r.Kind == catalog.KindSource {
			e.Detail = "A source stores no rows: its rows come from its connector."
		}
		return e
	case r.Connector != nil:
		e := pgerr.New(pgerr.WrongObjectType, "cannot truncate table %q: its rows come from a connector", name)
		e.Hint = "Drop and create the table again to start it over."
		return e
	case r.AppendOnly:
		e := pgerr.New(pgerr.ObjectNotInPrereqState, "cannot truncate table %q because it is append-only", name)
		e.Detail = "An APPEND ONLY table takes INSERT and COPY only."
		return e
	}
	return nil
}
