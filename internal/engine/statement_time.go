package engine

import (
	"context"
	"time"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// The time of a statement, as PostgreSQL keeps it: a statement starts
// when its message arrives (a simple Query, with all its statements, or
// an extended protocol Execute), and reads the clock once then. now()
// and the like are the start of the transaction: in a transaction block,
// of its BEGIN's statement; else of the statement itself.
// statement_timestamp() is the statement's; clock_timestamp() reads the
// clock at each call. The clock is Options.Clock when set, so that tests
// move time by hand; the binder fixes the calls (binder.Options.Time).

// now is the DB's clock: Options.Clock, or the system's.
func (db *DB) now() time.Time {
	if db.opts.Clock != nil {
		return db.opts.Clock()
	}
	return time.Now()
}

// startStatement records the start of the statement (or statements) of
// the message the session was given.
func (s *Session) startStatement() {
	s.stmtTime = types.Timestamp(s.db.now().UnixMicro())
}

// beginTransaction records the start of a transaction block: the
// statement's start.
func (s *Session) beginTransaction() { s.txTime = s.stmtTime }

// instants are the times the current statement's functions of the time
// read.
func (s *Session) instants() *expr.Instants {
	tx := s.stmtTime
	if s.inTx {
		tx = s.txTime
	}
	return &expr.Instants{Transaction: tx, Statement: s.stmtTime, Clock: s.db.opts.Clock}
}

// sleepContext is the context pg_sleep waits on in a statement run with
// ctx (its statement_timeout included) inside outer: ctx, unless w takes
// a SELECT's rows to pull after the statement returns (a portal with a
// row limit, OpenQuery), when ctx has ended and outer is what remains.
func sleepContext(ctx, outer context.Context, w ResultWriter) context.Context {
	if _, ok := w.(iterTaker); ok {
		return outer
	}
	return ctx
}
