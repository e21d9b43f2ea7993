package engine

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
	"github.com/streamdb/streamdb/sql/binder"
)

// A cursor is the row source of a named cursor (DECLARE ... CURSOR):
// a query's rows (queryCursor), or a subscription's changes (see
// subscription_cursor.go). The session owns its cursors and uses each
// from its own goroutine; FETCH and MOVE read through fetch, CLOSE, the
// end of a transaction block (for cursors without HOLD) and the end of
// the session call close.
type cursor interface {
	// columns are the columns of the rows fetch emits.
	columns() []Column
	// fetch emits up to n rows (-1: all that remain; 0: the row the
	// cursor is on again, if it is on one) and returns how many it
	// emitted. A row is valid only during its emit call. timeout is how
	// long a subscription cursor waits for rows when it has none (0: it
	// does not wait); a query cursor refuses one.
	fetch(ctx context.Context, n int64, timeout time.Duration, emit func(row []types.Datum) error) (int64, error)
	// close releases what the cursor holds; it is idempotent.
	close()
}

// SQLSTATEs of cursor errors that package pgerr does not name.
const (
	codeDuplicateCursor        = "42P03" // duplicate_cursor
	codeNoActiveSQLTransaction = "25P01" // no_active_sql_transaction
)

// namedCursor is a session's open cursor.
type namedCursor struct {
	cursor
	// hold: WITH HOLD (and subscription cursors), kept at the end of the
	// transaction block; without it the cursor closes there.
	hold bool
	// inTx: declared in the open transaction block, whose ROLLBACK
	// closes it even with HOLD, as in PostgreSQL.
	inTx bool
}

// declare runs DECLARE: it opens a cursor under a name new to the
// session. A query cursor reads its SELECT over a snapshot taken now, a
// chunk at a time as FETCH asks for rows; without HOLD it may only be
// declared inside a transaction block, which closes it.
func (s *Session) declare(ctx context.Context, n *sql.DeclareStmt, opts binder.Options, w ResultWriter) error {
	if _, dup := s.cursors[n.Name]; dup {
		return pgerr.New(codeDuplicateCursor, "cursor %q already exists", n.Name)
	}
	var cur cursor
	var err error
	hold := n.Hold
	if n.SubscriptionName != "" {
		cur, err = s.declareSubscriptionCursor(ctx, n)
		hold = true // a subscription cursor lives as long as the session
	} else {
		cur, err = s.declareQueryCursor(ctx, n, opts)
	}
	if err != nil {
		return err
	}
	if s.cursors == nil {
		s.cursors = map[string]*namedCursor{}
	}
	s.cursors[n.Name] = &namedCursor{cursor: cur, hold: hold, inTx: s.inTx}
	return w.Complete("DECLARE CURSOR")
}

func (s *Session) declareQueryCursor(ctx context.Context, n *sql.DeclareStmt, opts binder.Options) (cursor, error) {
	switch {
	case !n.Hold && !s.inTx:
		return nil, pgerr.New(codeNoActiveSQLTransaction, "DECLARE CURSOR can only be used in transaction blocks")
	case n.Scroll:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "SCROLL cursors are not supported: cursors only scan forward")
	case n.Binary:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "BINARY cursors are not supported")
	}
	opts.Time = s.instants()
	res, err := binder.Bind(s.catalog(), n.Query, opts)
	if err != nil {
		return nil, err
	}
	q, ok := res.Stmt.(*planner.Query)
	if !ok {
		return nil, pgerr.New(pgerr.SyntaxError, "DECLARE CURSOR takes a SELECT")
	}
	it, err := s.db.openQuery(s.withIdentity(ctx), q)
	if err != nil {
		return nil, err
	}
	if err := s.db.iters.add(it); err != nil {
		it.Close()
		return nil, err
	}
	return &queryCursor{it: it}, nil
}

// fetch runs FETCH and MOVE: FETCH sends the rows, both complete with
// how many rows they passed.
func (s *Session) fetch(ctx context.Context, n *sql.FetchStmt, w ResultWriter) error {
	c, ok := s.cursors[n.Name]
	if !ok {
		return pgerr.New(pgerr.InvalidCursorName, "cursor %q does not exist", n.Name)
	}
	emit := func([]types.Datum) error { return nil }
	verb := "MOVE"
	if !n.Move {
		if err := w.Columns(c.columns()); err != nil {
			return err
		}
		emit, verb = w.Row, "FETCH"
	}
	defer s.db.coord.Live()()
	got, err := c.fetch(s.withIdentity(ctx), n.Count, n.Timeout, emit)
	if err != nil {
		return err
	}
	return w.Complete(fmt.Sprintf("%s %d", verb, got))
}

// closeCursor runs CLOSE name and CLOSE ALL.
func (s *Session) closeCursor(n *sql.CloseStmt, w ResultWriter) error {
	if n.All {
		s.closeCursors()
		return w.Complete("CLOSE CURSOR ALL")
	}
	c, ok := s.cursors[n.Name]
	if !ok {
		return pgerr.New(pgerr.InvalidCursorName, "cursor %q does not exist", n.Name)
	}
	c.close()
	delete(s.cursors, n.Name)
	return w.Complete("CLOSE CURSOR")
}

// closeCursors closes all the session's cursors.
func (s *Session) closeCursors() {
	s.closeCursorsIf(func(*namedCursor) bool { return true })
}

// endCursors closes the cursors that end with the transaction block:
// those without HOLD, and at a ROLLBACK those the block declared. The
// others are kept, out of the block from now on.
func (s *Session) endCursors(commit bool) {
	s.closeCursorsIf(func(c *namedCursor) bool { return !c.hold || !commit && c.inTx })
	for _, c := range s.cursors {
		c.inTx = false
	}
}

func (s *Session) closeCursorsIf(end func(*namedCursor) bool) {
	names := make([]string, 0, len(s.cursors))
	for name := range s.cursors {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if c := s.cursors[name]; end(c) {
			c.close()
			delete(s.cursors, name)
		}
	}
}

// describeCursorStmt describes DECLARE, FETCH, MOVE and CLOSE for
// Prepare: a DECLARE's parameters are its query's; FETCH returns the
// columns of its cursor when that is open (else it is described as
// returning no rows, and fails when executed). ok is false for any other
// statement.
func (s *Session) describeCursorStmt(query string, st *sql.Statement, paramTypes []types.Type) (params []types.Type, cols []Column, ok bool, err error) {
	switch n := st.Node.(type) {
	case *sql.DeclareStmt:
		if n.Query == nil {
			return nil, nil, true, nil
		}
		res, err := binder.Bind(s.catalog(), n.Query, binder.Options{ParamTypes: paramTypes})
		if err != nil {
			return nil, nil, true, err
		}
		if s.prepared == nil {
			s.prepared = map[string][]types.Type{}
		}
		s.prepared[query] = res.ParamTypes
		return res.ParamTypes, nil, true, nil
	case *sql.FetchStmt:
		if c, open := s.cursors[n.Name]; open && !n.Move {
			return nil, c.columns(), true, nil
		}
		return nil, nil, true, nil
	case *sql.CloseStmt:
		return nil, nil, true, nil
	}
	return nil, nil, false, nil
}

// DescribeCursor implements pgwire.CursorDescriber: the columns of the
// session's cursor name.
func (s *Session) DescribeCursor(name string) ([]Column, bool) {
	c, ok := s.cursors[name]
	if !ok {
		return nil, false
	}
	return c.columns(), true
}

// queryCursor is a cursor over a SELECT's rows, read through a
// QueryIter: however large the result, it holds one chunk, and the row
// it is on (for FETCH 0).
type queryCursor struct {
	it *QueryIter
	// cur is the row the cursor is on, when on: not before the first
	// row nor after the last.
	cur []types.Datum
	on  bool
}

func (c *queryCursor) columns() []Column { return c.it.Columns }

func (c *queryCursor) fetch(ctx context.Context, n int64, timeout time.Duration, emit func([]types.Datum) error) (int64, error) {
	if timeout != 0 {
		return 0, pgerr.New(pgerr.FeatureNotSupported, "FETCH ... WITH (timeout) is only supported for subscription cursors")
	}
	if n == 0 {
		if !c.on {
			return 0, nil
		}
		return 1, emit(c.cur)
	}
	var got int64
	var last []types.Datum
	for n < 0 || got < n {
		row, err := c.it.Next(ctx)
		if err != nil || row == nil {
			c.on = false
			return got, err
		}
		got++
		if err := emit(row); err != nil {
			c.on = false
			return got, err
		}
		last = row
	}
	// The row stays valid until the next Next; its values do not alias
	// memory the iterator reuses (strings and numerics are immutable).
	c.cur, c.on = append(c.cur[:0], last...), true
	return got, nil
}

func (c *queryCursor) close() { c.it.Close() }
