package engine

import (
	"context"
	"errors"
	"sort"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/systemcatalog"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/sql"
	"github.com/streamdb/streamdb/sql/binder"
)

// namedStatement is a prepared statement of the session made by SQL's
// PREPARE (EXECUTE runs it, DEALLOCATE ends it, pg_prepared_statements
// lists it). The session owns it; it lives until DEALLOCATE or the
// session's end.
type namedStatement struct {
	// source is the PREPARE statement's text, parsed again at each
	// EXECUTE: a bound statement is not reused, so a catalog change in
	// between (a dropped or altered table) is seen as in PostgreSQL.
	source string
	// shown is the query string that held the PREPARE, as
	// pg_prepared_statements.statement shows it.
	shown  string
	params []types.Type
	at     types.Timestamp
	// execs counts the EXECUTEs that ran (pg_prepared_statements'
	// custom_plans: every execution plans anew).
	execs int64
	// protocol: a statement the extended protocol's Parse named (source
	// is then the statement itself, not a PREPARE); pgwire keeps it, the
	// session lists it and EXECUTE runs it.
	protocol bool
}

// KeepStatement implements pgwire.StatementKeeper.
func (s *Session) KeepStatement(name, query string, params []types.Type) error {
	if _, ok := s.named[name]; ok {
		return pgerr.New("42P05", "prepared statement %q already exists", name)
	}
	if s.named == nil {
		s.named = map[string]*namedStatement{}
	}
	s.named[name] = &namedStatement{source: query, shown: query, params: params, at: s.stmtTime, protocol: true}
	return nil
}

// ForgetStatement implements pgwire.StatementKeeper.
func (s *Session) ForgetStatement(name string) {
	if ps, ok := s.named[name]; ok && ps.protocol {
		delete(s.named, name)
	}
}

// HasStatement implements pgwire.StatementKeeper.
func (s *Session) HasStatement(name string) bool {
	ps, ok := s.named[name]
	return ok && ps.protocol
}

// preparedStatement parses the statement ps runs.
func (s *Session) preparedStatement(ps *namedStatement) (*sql.Statement, error) {
	stmts, err := s.parser.Parse(ps.source)
	if err != nil {
		return nil, err
	}
	if ps.protocol {
		if len(stmts) != 1 {
			return nil, pgerr.New(pgerr.SyntaxError, "cannot insert multiple commands into a prepared statement")
		}
		return stmts[0], nil
	}
	return stmts[0].Node.(*sql.PrepareStmt).Stmt, nil
}

// errPreparedMissing is 26000, as PostgreSQL words it.
func errPreparedMissing(name string) error {
	return pgerr.New(pgerr.InvalidSQLStatement, "prepared statement %q does not exist", name)
}

// prepare runs PREPARE: it binds the statement once, to check it and to
// decide the types of the parameters not declared.
func (s *Session) prepare(st *sql.Statement, n *sql.PrepareStmt, w ResultWriter) error {
	if _, ok := s.named[n.Name]; ok {
		return pgerr.New("42P05", "prepared statement %q already exists", n.Name)
	}
	declared, err := binder.PrepareTypes(st, n)
	if err != nil {
		return err
	}
	res, err := binder.Bind(s.catalog(), n.Stmt, binder.Options{ParamTypes: declared})
	if err != nil {
		return err
	}
	if s.named == nil {
		s.named = map[string]*namedStatement{}
	}
	shown := s.queryText
	if shown == "" {
		shown = st.Text
	}
	s.named[n.Name] = &namedStatement{source: st.Text, shown: shown, params: res.ParamTypes, at: s.stmtTime}
	return w.Complete("PREPARE")
}

// executeTarget returns the statement EXECUTE n runs and the options to
// bind it with: its parameters' types, and their values, the arguments
// evaluated and cast to them. opts are the EXECUTE's own options.
func (s *Session) executeTarget(ctx context.Context, n *sql.ExecuteStmt, opts binder.Options) (*sql.Statement, binder.Options, error) {
	ps, ok := s.named[n.Name]
	if !ok {
		return nil, opts, errPreparedMissing(n.Name)
	}
	if n.NumArgs != len(ps.params) {
		return nil, opts, &pgerr.Error{Code: pgerr.SyntaxError,
			Message: "wrong number of parameters for prepared statement \"" + n.Name + "\"",
			Detail:  "Expected " + itoa(int64(len(ps.params))) + " parameters but got " + itoa(int64(n.NumArgs)) + "."}
	}
	vals := []types.Datum{}
	if n.NumArgs > 0 {
		var err error
		if vals, err = s.executeArgs(ctx, n, ps.params, opts); err != nil {
			return nil, opts, err
		}
	}
	inner, err := s.preparedStatement(ps)
	if err != nil {
		return nil, opts, err
	}
	ps.execs++
	return inner, binder.Options{ParamTypes: ps.params, ParamValues: vals}, nil
}

// executeArgs evaluates EXECUTE's arguments as the parameters' values.
func (s *Session) executeArgs(ctx context.Context, n *sql.ExecuteStmt, params []types.Type, opts binder.Options) ([]types.Datum, error) {
	q, _, err := binder.BindExecuteArgs(s.catalog(), n.Args, params, binder.Options{
		ParamTypes: opts.ParamTypes, ParamValues: opts.ParamValues, Time: s.instants()})
	if err != nil {
		return nil, err
	}
	c := &collector{}
	if err := s.db.runQuery(ctx, q, c); err != nil {
		return nil, err
	}
	if len(c.rows) != 1 {
		return nil, pgerr.New(pgerr.Internal, "EXECUTE parameters gave %d rows", len(c.rows))
	}
	return c.rows[0], nil
}

// unpositioned drops the position of an error raised by a prepared
// statement's text, which is not the EXECUTE's query string.
func unpositioned(err error) error {
	var pe *pgerr.Error
	if errors.As(err, &pe) && pe.Position != 0 {
		cp := *pe
		cp.Position = 0
		return &cp
	}
	return err
}

// deallocate runs DEALLOCATE [PREPARE] name | ALL.
func (s *Session) deallocate(n *sql.DeallocateStmt, w ResultWriter) error {
	if n.All {
		s.named = nil
		return w.Complete("DEALLOCATE ALL")
	}
	if _, ok := s.named[n.Name]; !ok {
		return errPreparedMissing(n.Name)
	}
	delete(s.named, n.Name)
	return w.Complete("DEALLOCATE")
}

// describeExecute gives the parameters and result columns of EXECUTE
// name (args) for the extended protocol: those of the prepared statement.
func (s *Session) describeExecute(n *sql.ExecuteStmt, paramTypes []types.Type) ([]types.Type, []Column, error) {
	ps, ok := s.named[n.Name]
	if !ok {
		return nil, nil, errPreparedMissing(n.Name)
	}
	inner, err := s.preparedStatement(ps)
	if err != nil {
		return nil, nil, err
	}
	res, err := binder.Bind(s.catalog(), inner, binder.Options{ParamTypes: ps.params})
	if err != nil {
		return nil, nil, unpositioned(err)
	}
	var params []types.Type
	if n.Args != nil && n.NumArgs == len(ps.params) {
		if _, params, err = binder.BindExecuteArgs(s.catalog(), n.Args, ps.params, binder.Options{ParamTypes: paramTypes}); err != nil {
			return nil, nil, err
		}
	}
	return params, boundColumns(res.Stmt), nil
}

// preparedStatements lists the session's prepared statements, by name,
// for pg_prepared_statements.
func (s *Session) preparedStatements() []systemcatalog.PreparedStatement {
	out := make([]systemcatalog.PreparedStatement, 0, len(s.named))
	for name, ps := range s.named {
		out = append(out, systemcatalog.PreparedStatement{Name: name, Statement: ps.shown, PrepareTime: ps.at,
			ParamTypes: ps.params, FromSQL: !ps.protocol, CustomPlans: ps.execs})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
