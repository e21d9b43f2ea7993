package engine

import (
	"context"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
	"github.com/streamdb/streamdb/sql/binder"
)

// Backend returns the pgwire backend that serves this DB.
func (db *DB) Backend() pgwire.Backend { return backend{db} }

type backend struct{ db *DB }

func (b backend) NewSession(ctx context.Context, user, database string) (pgwire.Session, error) {
	s := b.db.NewSession()
	s.user, s.database = user, database
	b.db.metrics.connsTotal.Inc()
	b.db.metrics.connsOpen.Inc()
	return wireSession{s}, nil
}

// wireSession is a connection's session: closing it counts the
// connection closed (streamdb_connections).
type wireSession struct{ *Session }

func (s wireSession) Close() error {
	s.db.metrics.connsOpen.Dec()
	return s.Session.Close()
}

// Close implements pgwire.Session: it closes the session's cursors and
// drops its temporary tables (unless the DB is closing: Open drops them).
func (s *Session) Close() error {
	s.closeCursors()
	if !s.db.enter() {
		return nil
	}
	defer s.db.leave()
	return s.db.dropTempTables(s.tempPID())
}

// Prepare implements pgwire.Session: it describes one statement's
// parameters and result columns.
func (s *Session) Prepare(ctx context.Context, query string, paramTypes []types.Type) ([]types.Type, []Column, error) {
	st, err := s.parseOne(query)
	if err != nil || st == nil {
		return nil, nil, err
	}
	if params, cols, ok, err := s.describeCursorStmt(query, st, paramTypes); ok {
		return params, cols, err
	}
	if n, ok := st.Node.(*sql.ExecuteStmt); ok {
		return s.describeExecute(n, paramTypes)
	}
	if cols, ok := s.describeUnbound(st); ok {
		return nil, cols, nil
	}
	res, err := binder.Bind(s.catalog(), st, binder.Options{ParamTypes: paramTypes})
	if err != nil {
		return nil, nil, err
	}
	if s.prepared == nil {
		s.prepared = map[string][]types.Type{}
	}
	s.prepared[query] = res.ParamTypes
	return res.ParamTypes, boundColumns(res.Stmt), nil
}

// boundColumns are the result columns of a bound statement: a query's,
// or the RETURNING list of a write (nil when it returns no rows).
func boundColumns(stmt any) []Column {
	var ret planner.Returning
	switch st := stmt.(type) {
	case *planner.Query:
		return visibleColumns(st.Plan)
	case *planner.Insert:
		ret = st.Returning
	case *planner.Update:
		ret = st.Returning
	case *planner.Delete:
		ret = st.Returning
	}
	var cols []Column
	for _, c := range ret.Out {
		cols = append(cols, Column{Name: c.Name, Type: c.Type})
	}
	return cols
}

// Execute implements pgwire.Session.
func (s *Session) Execute(ctx context.Context, query string, args []types.Datum, w ResultWriter) error {
	s.startStatement()
	s.queryText = query
	st, err := s.parseOne(query)
	if err != nil || st == nil {
		return err
	}
	typs := s.prepared[query]
	if len(typs) != len(args) {
		typs = make([]types.Type, len(args))
		for i, a := range args {
			typs[i] = datumType(a)
		}
	}
	return statementError(s.exec(ctx, st, binder.Options{ParamTypes: typs, ParamValues: args}, w))
}

func (s *Session) parseOne(query string) (*sql.Statement, error) {
	stmts, err := s.parser.Parse(query)
	if err != nil {
		return nil, err
	}
	switch len(stmts) {
	case 0:
		return nil, nil
	case 1:
		return stmts[0], nil
	}
	return nil, pgerr.New(pgerr.SyntaxError, "cannot insert multiple commands into a prepared statement")
}

// datumType is the type a decoded parameter value carries (strings stay
// unknown: their statement decides).
func datumType(d types.Datum) types.Type {
	switch d.(type) {
	case int64:
		return types.TInt64
	case float64:
		return types.TFloat64
	case bool:
		return types.TBool
	case types.Date:
		return types.TDate
	case types.Timestamp:
		return types.TTimestampTZ
	case types.Interval:
		return types.TInterval
	case *types.Decimal:
		return types.TNumeric
	}
	return types.TUnknown
}

func visibleColumns(n planner.Node) []Column {
	var out []Column
	for _, c := range n.Columns() {
		if !c.Hidden {
			out = append(out, Column{Name: c.Name, Type: c.Type})
		}
	}
	return out
}

// describeUnbound gives the result columns of statements the binder does
// not handle.
func (s *Session) describeUnbound(st *sql.Statement) ([]Column, bool) {
	switch n := st.Node.(type) {
	case *sql.ShowStmt:
		switch n.What {
		case "tables", "materialized views":
			return []Column{{Name: "Name", Type: types.TText}}, true
		case "jobs":
			return jobColumns, true
		case "parameters":
			return sysParamColumns, true
		case "all":
			return []Column{{Name: "name", Type: types.TText}, {Name: "setting", Type: types.TText}}, true
		}
		return []Column{{Name: n.What, Type: types.TText}}, true
	case *sql.ExplainStmt:
		return []Column{{Name: "QUERY PLAN", Type: types.TText}}, true
	case *sql.ShowCreateStmt:
		return showCreateColumns, true
	case *sql.DescribeStmt:
		return describeColumns, true
	case *sql.ShowIndexesStmt:
		return showIndexesColumns, true
	case *sql.CommentStmt, *sql.TruncateStmt, *sql.PrepareStmt, *sql.DeallocateStmt, *sql.RefreshStmt:
		return nil, true
	case *sql.SetStmt, *sql.TransactionStmt, *sql.FlushStmt, *sql.EmptyStmt, *sql.WaitStmt, *sql.CancelJobsStmt, *sql.AlterStmt, *sql.AlterSystemStmt,
		*sql.AlterRelationStmt,
		*sql.CopyStmt:
		return nil, true
	}
	return nil, false
}
