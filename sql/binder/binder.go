package binder

import (
	"fmt"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/internal/window"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
)

// WrongObjectType is the SQLSTATE of writes to a materialized view and of a
// DROP naming an object of the other kind.
const WrongObjectType = "42809"

// InvalidTableDefinition is the SQLSTATE of a table with two primary keys.
const InvalidTableDefinition = "42P16"

// Options configure one Bind call.
type Options struct {
	// ParamTypes are the client-declared types of $1, $2 ... (TUnknown, or
	// missing entries, where the client left them unspecified).
	ParamTypes []types.Type
	// ParamValues are the values of the parameters, Datums of their types
	// (a string for a parameter whose type is unknown). Nil when the
	// statement is only being prepared: parameters then bind as NULLs of
	// their types and the plan is only good for describing.
	ParamValues []types.Datum
	// View binds a query as a materialized view's definition (re-binding
	// a stored view): it may read sources, and the view rules apply.
	View bool
	// Time, when not nil, holds the instants of the statement's
	// transaction and of the statement, which now(), statement_timestamp()
	// and the like of a batch statement read (statement_time.go). Nil when
	// the statement is only described: those calls are left as they are.
	Time *expr.Instants
}

// Result is a bound statement.
type Result struct {
	// Stmt is one of *planner.Query, *planner.Insert, *planner.Update,
	// *planner.Delete, *planner.CreateTable, *planner.CreateView,
	// *planner.Drop.
	Stmt any
	// ParamTypes holds the type of every parameter: declared, or inferred
	// from its context (text when nothing decided it).
	ParamTypes []types.Type
}

// Bind binds st against the catalog.
func Bind(cat catalog.Reader, st *sql.Statement, opts Options) (*Result, error) {
	if opts.ParamValues != nil && len(opts.ParamValues) < st.NumParams {
		return nil, pgerr.New(pgerr.ProtocolViolation,
			"bind message supplies %d parameters, but prepared statement requires %d", len(opts.ParamValues), st.NumParams)
	}
	b := newBinder(cat, st, opts)
	b.inView = opts.View
	stmt, err := b.bindStatement(st.Node)
	if err != nil {
		return nil, err
	}
	at := opts.Time
	if !b.readsClock {
		at = nil
	}
	finishExprs(stmt, b.zone, at)
	return &Result{Stmt: stmt, ParamTypes: b.finalParamTypes()}, nil
}

// binder holds the state of binding one statement.
type binder struct {
	// lateralScope, while the right side of a comma or inner join binds,
	// is the scope of the items to its left, which a table function's
	// arguments may read (bindJoin).
	lateralScope *scope
	// defaults caches the bound column defaults of the statement, by
	// relation id and column.
	defaults map[string]expr.Expr
	cat      catalog.Reader
	// path, when set, is the search path names resolve through instead
	// of the catalog's: a plain view's definition binds with the path it
	// was created under.
	path   []string
	st     *sql.Statement
	params []types.Type
	values []types.Datum
	// unknownParams maps the constant standing for a parameter of unknown
	// type to its index, so a context can decide its type.
	unknownParams map[*expr.Const]int
	// ctes is the stack of WITH scopes, innermost last.
	ctes []map[string]*cteDef
	// outer is the stack of scopes of the queries enclosing the subquery
	// being bound, innermost last, for correlated references.
	outer []*outerScope
	// inView is set while binding a materialized view's query.
	inView bool
	// dml is "UPDATE" or "DELETE" while binding one (their expressions
	// are evaluated outside a plan that could hold subqueries).
	dml string
	// setOpBranch is set while a set operation binds a branch, until
	// the branch's SELECT takes it: its unknown-typed outputs (a bare
	// NULL or string literal) then take the other branches' type, as in
	// Postgres (SELECT 1 UNION ALL SELECT NULL), instead of text.
	setOpBranch bool
	// frameExcludes are the window frames' EXCLUDE clauses, by frame
	// (bind_frame_exclude.go).
	frameExcludes map[*ast.FrameClause]window.Exclusion
	// viewDepth counts the plain views being expanded around this
	// binder; refs lists the relations the statement names.
	viewDepth int
	refs      []uint32
	// zone is the session time zone the statement's expressions are
	// evaluated in (nil: UTC); see timezone.go.
	zone *types.Zone
	// readsClock is set once a call of a function that reads the clock
	// (now(), clock_timestamp(), ...) is bound: only then does the
	// statement need its instants (statement_time.go).
	readsClock bool
	// sysFuncs is set once a function the catalog implements (over its
	// live state: not immutable) is bound.
	sysFuncs bool
	// overriding is the INSERT's OVERRIDING clause ("system", "user" or
	// "").
	overriding string
}

func newBinder(cat catalog.Reader, st *sql.Statement, opts Options) *binder {
	n := max(st.NumParams, len(opts.ParamTypes), len(opts.ParamValues))
	params := make([]types.Type, n)
	copy(params, opts.ParamTypes)
	return &binder{
		cat:           cat,
		st:            st,
		params:        params,
		values:        opts.ParamValues,
		unknownParams: map[*expr.Const]int{},
		zone:          catalog.TimeZoneOf(cat),
	}
}

func (b *binder) finalParamTypes() []types.Type {
	out := make([]types.Type, len(b.params))
	for i, t := range b.params {
		if t.ID == types.IDUnknown {
			t = types.TText
		}
		out[i] = t
	}
	return out
}

func (b *binder) bindStatement(n sql.Node) (any, error) {
	switch s := n.(type) {
	case *sql.SelectStmt:
		return b.bindQuery(s)
	case *sql.InsertStmt:
		b.overriding = s.Overriding
		return b.bindInsert(s)
	case *sql.UpdateStmt:
		return b.bindUpdate(s)
	case *sql.DeleteStmt:
		return b.bindDelete(s)
	case *sql.CreateTableAsStmt:
		return b.bindCreateTableAs(s)
	case *sql.CreateTableStmt:
		return b.bindCreateTable(s)
	case *sql.CreateMaterializedViewStmt:
		return b.bindCreateView(s)
	case *sql.CreateViewStmt:
		return b.bindCreatePlainView(s)
	case *sql.DropStmt:
		return b.bindDrop(s)
	case *sql.CreateIndexStmt:
		return b.bindCreateIndex(s)
	case *sql.CreateSubscriptionStmt:
		return b.bindCreateSubscription(s)
	case *sql.CreateSinkStmt:
		return b.bindCreateSink(s)
	case *sql.CreateSequenceStmt:
		return b.bindCreateSequence(s)
	case *sql.AlterSequenceStmt:
		return b.bindAlterSequence(s)
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "binder: unsupported statement %T", n)
}

// bindQuery binds a top-level SELECT.
func (b *binder) bindQuery(s *sql.SelectStmt) (*planner.Query, error) {
	rel, err := b.bindResultSet(s.AST)
	if err != nil {
		return nil, err
	}
	return &planner.Query{Plan: rel.node, Refs: b.refs}, nil
}

// notSupported is the error for valid SQL that streamdb does not handle.
func notSupported(format string, args ...any) *pgerr.Error {
	return pgerr.New(pgerr.FeatureNotSupported, "%s is not supported", fmt.Sprintf(format, args...))
}

// columnsOf returns the types of a node's columns.
func columnTypes(cols []planner.Column) []types.Type {
	ts := make([]types.Type, len(cols))
	for i, c := range cols {
		ts[i] = c.Type
	}
	return ts
}
