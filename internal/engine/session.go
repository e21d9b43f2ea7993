package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
	"github.com/streamdb/streamdb/sql/binder"
)

// Column describes a result column.
type Column = pgwire.Column

// ResultWriter receives the results of the statements a Session runs.
type ResultWriter = pgwire.ResultWriter

// Session is one client's connection state: its parser and settings. It
// is not safe for concurrent use.
type Session struct {
	db     *DB
	parser *sql.Parser
	vars   map[string]string
	// prepared remembers the parameter types Prepare inferred, by query.
	prepared map[string][]types.Type
	// inTx is true inside BEGIN ... COMMIT; txWrites counts the writes
	// made there (each already committed: see transaction).
	inTx     bool
	txWrites int
	// user and database are the names the client connected with ("" for
	// an in-process session); see identity.
	user, database string
	// pid is the session's backend process ID (pg_backend_pid()): the
	// server's cancel key ID for a connection (SetBackendPID), else one
	// from nextPID.
	pid uint32
	// zone is the TimeZone setting (nil: UTC); see timezone.go.
	zone *types.Zone
	// stmtTime is when the current statement started, txTime when the
	// transaction block did (see statement_time.go).
	stmtTime, txTime types.Timestamp
	// cursors are the open cursors by name (see cursor.go).
	cursors map[string]*namedCursor
	// seqs are the session's currval and lastval (sequence_ddl.go).
	seqs sessionSequences
	// named are the statements SQL's PREPARE made, by name (prepare.go).
	named map[string]*namedStatement
	// queryText is the query string of the statement running, as
	// pg_prepared_statements shows a PREPARE's ("" when not known).
	queryText string
}

// NewSession returns a new session.
func (db *DB) NewSession() *Session {
	return &Session{db: db, parser: sql.NewParser(), vars: defaultVars(), pid: nextPID.Add(1)}
}

// nextPID numbers the in-process sessions' backend process IDs.
var nextPID atomic.Uint32

// SetBackendPID implements pgwire.BackendPIDSetter.
func (s *Session) SetBackendPID(pid uint32) { s.pid = pid }

func defaultVars() map[string]string {
	return map[string]string{
		"application_name":            "",
		"client_encoding":             "UTF8",
		"datestyle":                   "ISO, MDY",
		"intervalstyle":               "postgres",
		"timezone":                    "UTC",
		"server_version":              "15.0",
		"server_encoding":             "UTF8",
		"standard_conforming_strings": "on",
		"integer_datetimes":           "on",
		"search_path":                 "public",
		"transaction_isolation":       "read committed",
		"extra_float_digits":          "1",
		"background_ddl":              "false",
		"streaming_parallelism":       "default",
		"backfill_latency_target":     "5ms",
		// A new view's backfill adapts its rate to the live work (issue
		// 16); 'unlimited' opts out, n rows/s or 0 (paused) fix it.
		"backfill_rate_limit": "adaptive",
		// off: queries read no index (as Postgres's planner setting).
		"enable_indexscan": "on",
	}
}

// Run executes every statement of query in order, reporting results to w.
// It stops at the first error.
func (s *Session) Run(ctx context.Context, query string, w ResultWriter) error {
	s.startStatement()
	s.queryText = query
	stmts, err := s.parser.Parse(query)
	if err != nil {
		return err
	}
	for _, st := range stmts {
		if err := s.exec(ctx, st, binder.Options{}, w); err != nil {
			return statementError(err)
		}
	}
	return nil
}

// statementError gives errors from the streaming layer their SQLSTATE: a
// statement cut short by a graph failure may be retried (40001).
func statementError(err error) error {
	var pe *pgerr.Error
	if !errors.As(err, &pe) && errors.Is(err, stream.ErrGraphFailed) {
		return pgerr.Wrap(err, pgerr.SerializationFailure, "statement not committed")
	}
	return err
}

// exec runs one parsed statement.
func (s *Session) exec(ctx context.Context, st *sql.Statement, opts binder.Options, w ResultWriter) (err error) {
	if err := ctx.Err(); err != nil {
		return pgerr.As(err)
	}
	outer := ctx
	if d := s.statementTimeout(); d > 0 {
		// As a CancelRequest does, at the deadline: 57014, "canceling
		// statement due to statement timeout" (pgerr.As).
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
		defer func() {
			if errors.Is(err, context.DeadlineExceeded) {
				err = pgerr.As(err)
			}
		}()
	}
	if !s.db.enter() {
		return errClosing
	}
	defer s.db.leave()
	switch n := st.Node.(type) {
	case *sql.EmptyStmt:
		return nil
	case *sql.SetStmt:
		return s.set(n, w)
	case *sql.ShowStmt:
		return s.show(ctx, n, w)
	case *sql.ShowCreateStmt:
		return s.showCreate(n, w)
	case *sql.DescribeStmt:
		return s.describe(n, w)
	case *sql.ShowIndexesStmt:
		return s.showIndexes(n, w)
	case *sql.CommentStmt:
		return s.comment(n, w)
	case *sql.TruncateStmt:
		return s.truncate(ctx, n, w)
	case *sql.TransactionStmt:
		return s.transaction(n, w)
	case *sql.FlushStmt:
		if err := s.db.Flush(ctx); err != nil {
			return err
		}
		return w.Complete("FLUSH")
	case *sql.ExplainStmt:
		return s.explain(n, w)
	case *sql.AlterStmt:
		a := *n // the statement may be prepared: resolve a copy
		c := s.catalog()
		if r, ok := catalog.LookupName(c, c.SearchPath(), a.Name); ok {
			a.Name = r.Name
		}
		return s.db.alter(ctx, &a, w)
	case *sql.AlterSystemStmt:
		return s.db.alterSystem(ctx, n, w)
	case *sql.AlterRelationStmt:
		return s.alterRelation(ctx, st, n, w)
	case *sql.WaitStmt:
		if err := s.db.waitAllJobs(ctx); err != nil {
			return err
		}
		return w.Complete("WAIT")
	case *sql.CopyStmt:
		return s.copy(ctx, n, w)
	case *sql.CreateSchemaStmt:
		return s.db.createSchema(n, w)
	case *sql.DropStmt:
		if n.Kind == sql.ObjSchema {
			return s.db.dropSchemas(ctx, n, w)
		}
	case *sql.DeclareStmt:
		return s.declare(ctx, n, opts, w)
	case *sql.FetchStmt:
		return s.fetch(ctx, n, w)
	case *sql.CloseStmt:
		return s.closeCursor(n, w)
	case *sql.RefreshStmt:
		return s.refresh(n, w)
	case *sql.PrepareStmt:
		return s.prepare(st, n, w)
	case *sql.DeallocateStmt:
		return s.deallocate(n, w)
	case *sql.ExecuteStmt:
		inner, iopts, err := s.executeTarget(ctx, n, opts)
		if err != nil {
			return err
		}
		st, opts = inner, iopts
		defer func() { err = unpositioned(err) }()
	case *sql.CancelJobsStmt:
		for _, id := range n.IDs {
			if err := s.db.cancelJob(uint32(id)); err != nil {
				return err
			}
		}
		return w.Complete("CANCEL_JOBS")
	}
	opts.Time = s.instants()
	opts.Time.Ctx = sleepContext(ctx, outer, w)
	res, err := binder.Bind(s.catalog(), st, opts)
	if err != nil {
		return err
	}
	if _, isQuery := res.Stmt.(*planner.Query); !isQuery && s.inTx {
		s.txWrites++
	}
	return s.execBound(ctx, res.Stmt, w)
}

// transaction handles BEGIN, COMMIT and ROLLBACK. streamdb has no
// multi-statement transactions yet: every statement commits when it
// returns, also inside a block. The block is tracked so clients see the
// transaction status they expect, and a ROLLBACK that cannot undo writes
// says so instead of pretending.
func (s *Session) transaction(n *sql.TransactionStmt, w ResultWriter) error {
	switch n.Kind {
	case "begin":
		if s.inTx {
			if err := w.Notice("WARNING", "there is already a transaction in progress"); err != nil {
				return err
			}
		}
		if !s.inTx {
			s.beginTransaction()
		}
		s.inTx, s.txWrites = true, 0
		return w.Complete("BEGIN")
	case "rollback":
		if !s.inTx {
			if err := w.Notice("WARNING", "there is no transaction in progress"); err != nil {
				return err
			}
		} else if s.txWrites > 0 {
			msg := fmt.Sprintf("streamdb commits every statement on its own: %d statement(s) of this transaction block were committed and cannot be rolled back", s.txWrites)
			if err := w.Notice("WARNING", msg); err != nil {
				return err
			}
		}
		s.endTransaction(false)
		return w.Complete("ROLLBACK")
	default:
		if !s.inTx {
			if err := w.Notice("WARNING", "there is no transaction in progress"); err != nil {
				return err
			}
		}
		s.endTransaction(true)
		return w.Complete("COMMIT")
	}
}

// endTransaction ends the transaction block, committed or rolled back,
// and with it the cursors that do not outlive it (see endCursors).
func (s *Session) endTransaction(commit bool) {
	if s.inTx {
		s.endCursors(commit)
	}
	s.inTx = false
}

// TxStatus implements pgwire.TxStatuser: 'T' inside a block, 'I' outside.
func (s *Session) TxStatus() byte {
	if s.inTx {
		return 'T'
	}
	return 'I'
}

func (s *Session) execBound(ctx context.Context, stmt any, w ResultWriter) error {
	ctx = s.withIdentity(ctx)
	switch stmt.(type) {
	case *planner.Query, *planner.Insert, *planner.Update, *planner.Delete:
		// Live work: a creating job's actors defer to it.
		defer s.db.coord.Live()()
	}
	switch b := stmt.(type) {
	case *planner.Query:
		if t, ok := w.(iterTaker); ok {
			it, err := s.db.openQuery(ctx, b)
			if err != nil {
				return err
			}
			if err := s.db.iters.add(it); err != nil {
				it.Close()
				return err
			}
			t.takeIter(it)
			return nil
		}
		return s.db.runQuery(ctx, b, w)
	case *planner.Insert:
		ret := newReturning(b.Returning)
		start := time.Now()
		n, err := s.db.writer.Insert(ctx, b, ret.collect())
		s.db.metrics.wrote(writeInsert, start, n, err)
		if err != nil {
			return err
		}
		return ret.write(w, fmt.Sprintf("INSERT 0 %d", n))
	case *planner.Update:
		ret := newReturning(b.Returning)
		start := time.Now()
		n, err := s.db.writer.Update(ctx, b, ret.collect())
		s.db.metrics.wrote(writeUpdate, start, n, err)
		if err != nil {
			return err
		}
		return ret.write(w, fmt.Sprintf("UPDATE %d", n))
	case *planner.Delete:
		ret := newReturning(b.Returning)
		start := time.Now()
		n, err := s.db.writer.Delete(ctx, b, ret.collect())
		s.db.metrics.wrote(writeDelete, start, n, err)
		if err != nil {
			return err
		}
		return ret.write(w, fmt.Sprintf("DELETE %d", n))
	case *planner.CreateTable:
		opts, err := s.tableOptions(b)
		if err != nil {
			return err
		}
		return s.db.createTable(ctx, b, opts, w)
	case *planner.CreateTableAs:
		opts, err := s.tableOptions(b.Table)
		if err != nil {
			return err
		}
		return s.db.createTableAs(ctx, b, opts, w)
	case *planner.CreateView:
		if err := s.db.refuseTempRefs(b.Query.Refs, "materialized views"); err != nil {
			return err
		}
		opts, err := s.viewOptions(b)
		if err != nil {
			return err
		}
		return s.db.createView(ctx, b, opts, w)
	case *planner.CreatePlainView:
		if err := s.db.refuseTempRefs(b.Deps, "views"); err != nil {
			return err
		}
		return s.db.createPlainView(b, w)
	case *planner.CreateIndex:
		opts, err := s.viewOptionsWith(b.With)
		if err != nil {
			return err
		}
		return s.db.createIndex(ctx, b, opts, w)
	case *planner.Drop:
		return s.db.drop(ctx, b, w)
	case *planner.CreateSequence:
		return s.db.createSequence(b, w)
	case *planner.AlterSequence:
		return s.db.alterSequence(b, w)
	case *planner.CreateSubscription:
		return s.db.createSubscription(ctx, b, w)
	case *planner.CreateSink:
		if err := s.db.refuseTempRefs(b.Query.Refs, "sinks"); err != nil {
			return err
		}
		opts, err := s.viewOptionsWith(nil)
		if err != nil {
			return err
		}
		return s.db.createSink(ctx, b, opts, w)
	}
	return pgerr.New(pgerr.FeatureNotSupported, "statement %T is not supported", stmt)
}

func (s *Session) set(n *sql.SetStmt, w ResultWriter) error {
	if err := s.setVar(n.Name, n.Value, n.Default); err != nil {
		return err
	}
	return w.Complete("SET")
}

// setVar sets a session variable to value, or to its default.
func (s *Session) setVar(name, value string, def bool) error {
	name = strings.ToLower(name)
	switch {
	case name == "timezone":
		return s.setTimeZone(value, def)
	case name == "all" && def: // RESET ALL
		s.vars, s.zone = defaultVars(), nil
		return nil
	}
	n := &sql.SetStmt{Name: name, Value: value, Default: def}
	if n.Default {
		if v, ok := defaultVars()[name]; ok {
			s.vars[name] = v
		} else {
			delete(s.vars, name)
		}
	} else {
		if rateLimitVars[name] {
			if _, err := binder.ParseRateLimit(name, n.Value); err != nil {
				return err
			}
		}
		if name == "statement_timeout" || name == "backfill_latency_target" {
			if _, err := parseTimeout(name, n.Value); err != nil {
				return err
			}
		}
		if name == "streaming_parallelism" {
			if _, err := binder.ParseParallelism(name, n.Value); err != nil {
				return err
			}
		}
		s.vars[name] = n.Value
	}
	return nil
}

// setConfig is set_config(name, value, is_local): SET name = value (a
// NULL value: RESET), returning the setting's new value. A local setting
// lasts until the transaction ends: outside a transaction block, that is
// the statement's, so the value is only checked (PostgreSQL's effect).
func (s *Session) setConfig(name string, value *string, local bool) (string, error) {
	name = strings.ToLower(name)
	v := ""
	if value != nil {
		v = *value
	}
	if local && !s.inTx {
		if name == "timezone" && value != nil {
			z, err := types.LoadZone(v)
			if err != nil {
				return "", err
			}
			return z.Name(), nil
		}
		return v, nil
	}
	if err := s.setVar(name, v, value == nil); err != nil {
		return "", err
	}
	return s.vars[name], nil
}

// rateLimitVars are the session variables that hold a rate limit (rows
// per second; 0 pauses; DEFAULT: none, but adaptive for
// backfill_rate_limit), checked when SET.
var rateLimitVars = map[string]bool{"backfill_rate_limit": true, "dml_rate_limit": true, "source_rate_limit": true}

// rateLimit reads a rate limit: the WITH option when given, else the
// session variable. ok is false when neither sets one.
func (s *Session) rateLimit(name string, with map[string]string) (n int64, ok bool, err error) {
	v, given := with[name]
	if !given {
		v = s.vars[name]
	}
	n, err = binder.ParseRateLimit(name, v)
	if err != nil || n < 0 {
		return 0, false, err
	}
	return n, true, nil
}

// viewOptions reads the settings a new view takes: its WITH options,
// else the session's.
func (s *Session) viewOptions(cv *planner.CreateView) (viewOptions, error) {
	return s.viewOptionsWith(cv.With)
}

// viewOptionsWith reads the settings of a new view or index from its
// WITH options, else the session's.
func (s *Session) viewOptionsWith(with map[string]string) (viewOptions, error) {
	opts := viewOptions{background: s.boolVar("background_ddl")}
	v, given := with["backfill_rate_limit"]
	if !given {
		v = s.vars["backfill_rate_limit"]
	}
	n, err := binder.ParseRateLimit("backfill_rate_limit", v)
	if err != nil {
		return opts, err
	}
	switch {
	case n == binder.RateAdaptive || n == binder.RateDefault:
		// The default is adaptive: the backfill goes as fast as the
		// live work lets it (binder.ParseRateLimit).
		opts.adaptive = true
		if opts.latencyTarget, err = s.latencyTarget(); err != nil {
			return opts, err
		}
	case n >= 0:
		opts.rateLimit, opts.paused = n, n == 0
	}
	v, given = with["streaming_parallelism"]
	if !given {
		v = s.vars["streaming_parallelism"]
	}
	if opts.parallelism, err = binder.ParseParallelism("streaming_parallelism", v); err != nil {
		return opts, err
	}
	return opts, nil
}

// latencyTarget is backfill_latency_target: the running graph's barrier
// latency an adaptive backfill keeps under.
func (s *Session) latencyTarget() (time.Duration, error) {
	d, err := parseTimeout("backfill_latency_target", s.vars["backfill_latency_target"])
	if err == nil && d <= 0 {
		err = pgerr.New(pgerr.InvalidParameterValue, "backfill_latency_target must be above 0")
	}
	return d, err
}

// tableOptions reads the settings a new table takes: its WITH options,
// else the session's.
func (s *Session) tableOptions(ct *planner.CreateTable) (tableOptions, error) {
	var opts tableOptions
	if ct.Temporary {
		if ct.Source || ct.Connector != nil {
			return opts, pgerr.New(pgerr.FeatureNotSupported, "a temporary table cannot be fed by a connector")
		}
		opts.tempOwner = s.tempPID()
	}
	n, ok, err := s.rateLimit("dml_rate_limit", ct.With)
	if err != nil {
		return opts, err
	}
	if ok {
		opts.dmlRateLimit, opts.dmlPaused = n, n == 0
	}
	if !ct.Source || readsSplits(ct.Connector) { // a Kafka source's actors read its partitions
		v, given := ct.With["streaming_parallelism"]
		if !given {
			v = s.vars["streaming_parallelism"]
		}
		if opts.parallelism, err = binder.ParseParallelism("streaming_parallelism", v); err != nil {
			return opts, err
		}
	}
	if ct.Connector != nil {
		n, ok, err := s.rateLimit("source_rate_limit", ct.With)
		if err != nil {
			return opts, err
		}
		if ok {
			opts.sourceRateLimit, opts.sourcePaused = n, n == 0
		}
	}
	return opts, nil
}

// boolVar reads a boolean session variable (false when unset).
func (s *Session) boolVar(name string) bool {
	switch strings.ToLower(s.vars[name]) {
	case "true", "on", "1", "yes", "t":
		return true
	}
	return false
}

// Var returns a session variable's value.
func (s *Session) Var(name string) (string, bool) {
	v, ok := s.vars[strings.ToLower(name)]
	return v, ok
}

func (s *Session) show(ctx context.Context, n *sql.ShowStmt, w ResultWriter) error {
	switch n.What {
	case "tables":
		return s.db.showRelations(w, catalog.KindTable)
	case "materialized views":
		return s.db.showRelations(w, catalog.KindMaterializedView)
	case "sources":
		return s.db.showRelations(w, catalog.KindSource)
	case "jobs":
		return s.db.showJobs(w)
	case "subscriptions":
		return s.db.showSubscriptions(w)
	case "sinks":
		return s.db.showSinks(w)
	case "parameters":
		return s.db.showParameters(w)
	case "all":
		if err := w.Columns([]Column{{Name: "name", Type: types.TText}, {Name: "setting", Type: types.TText}}); err != nil {
			return err
		}
		for _, k := range sortedKeys(s.vars) {
			if err := w.Row([]types.Datum{k, s.vars[k]}); err != nil {
				return err
			}
		}
		return w.Complete(fmt.Sprintf("SHOW %d", len(s.vars)))
	}
	v, ok := s.vars[n.What]
	if !ok {
		if ok, err := s.db.showSysParam(n.What, w); ok {
			return err
		}
		return pgerr.New(pgerr.UndefinedObject, "unrecognized configuration parameter %q", n.What)
	}
	if err := w.Columns([]Column{{Name: settingName(n.What), Type: types.TText}}); err != nil {
		return err
	}
	if err := w.Row([]types.Datum{v}); err != nil {
		return err
	}
	return w.Complete("SHOW")
}

func (s *Session) explain(n *sql.ExplainStmt, w ResultWriter) error {
	res, err := binder.Bind(s.catalog(), n.Stmt, binder.Options{})
	if err != nil {
		return err
	}
	var lines []string
	switch b := res.Stmt.(type) {
	case *planner.Query:
		lines = planner.ExplainBatch(b.Plan)
	case *planner.CreateView:
		shape, err := planner.PlanView(b.Query, b.ColNames)
		if err != nil {
			return err
		}
		if b.EmitOnWindowClose {
			if err := planner.CheckEmitOnWindowClose(shape.Plan); err != nil {
				return err
			}
		}
		lines = planner.Explain(shape.Plan)
		opts, err := s.viewOptions(b)
		if err != nil {
			return err
		}
		frags, err := s.db.planFragments(b, shape, opts.parallelism)
		if err != nil {
			return err
		}
		lines = append(lines, "")
		lines = append(lines, planner.ExplainFragments(frags)...)
	case *planner.Insert:
		lines = append([]string{"Insert on " + b.Rel.Name}, conflictLines(b)...)
		lines = append(lines, indent(planner.ExplainBatch(b.Source))...)
	case *planner.Update:
		scan := indent(planner.Explain(planner.DMLScan(b.Rel, b.Filter, b.Indexes)))
		if b.From != nil {
			scan = indent(planner.ExplainBatch(b.From))
		}
		lines = append([]string{"Update on " + b.Rel.Name}, scan...)
	case *planner.Delete:
		scan := indent(planner.Explain(planner.DMLScan(b.Rel, b.Filter, b.Indexes)))
		if b.Using != nil {
			scan = indent(planner.ExplainBatch(b.Using))
		}
		lines = append([]string{"Delete on " + b.Rel.Name}, scan...)
	default:
		return pgerr.New(pgerr.FeatureNotSupported, "EXPLAIN of this statement is not supported")
	}
	if err := w.Columns([]Column{{Name: "QUERY PLAN", Type: types.TText}}); err != nil {
		return err
	}
	for _, l := range lines {
		if err := w.Row([]types.Datum{l}); err != nil {
			return err
		}
	}
	return w.Complete("EXPLAIN")
}

// statementTimeout is the session's statement_timeout (0: none).
func (s *Session) statementTimeout() time.Duration {
	v, ok := s.vars["statement_timeout"]
	if !ok {
		return 0
	}
	d, _ := parseTimeout("statement_timeout", v) // checked when SET
	return d
}

// parseTimeout reads a time setting as Postgres does: a bare number is
// milliseconds; a unit (us, ms, s, min, h, d) may follow; 0 is none.
func parseTimeout(name, v string) (time.Duration, error) {
	d, err := sql.ParseDuration(strings.Trim(strings.TrimSpace(v), "'"))
	if err != nil || d < 0 || d > time.Duration(math.MaxInt32)*time.Millisecond {
		return 0, pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", name, v)
	}
	return d, nil
}

// TxWrites counts the statements of the open transaction block that wrote
// (each committed on its own; a ROLLBACK cannot undo them).
func (s *Session) TxWrites() int { return s.txWrites }

// indent nests EXPLAIN lines under a parent line.
func indent(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		if i == 0 {
			out[i] = "  ->  " + l
			continue
		}
		out[i] = "  " + l
	}
	return out
}

// conflictLines are EXPLAIN's lines for an INSERT's ON CONFLICT, as
// PostgreSQL words them (its arbiter is the primary key).
func conflictLines(ins *planner.Insert) []string {
	oc := ins.OnConflict
	if oc == nil {
		return nil
	}
	what := "UPDATE"
	if oc.DoNothing {
		what = "NOTHING"
	}
	_, own := catalog.SplitName(ins.Rel.Name)
	return []string{"  Conflict Resolution: " + what, "  Conflict Arbiter Indexes: " + own + "_pkey"}
}
