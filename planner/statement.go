package planner

import (
	"time"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
)

// The binder turns each SQL statement into one of the bound statements
// below; the root package executes them.

// Query is a bound SELECT. Only the columns not Hidden are shown.
type Query struct {
	Plan Node
	// Refs are the relations the query names (tables, views, plain views
	// it expands), for dependency tracking.
	Refs []uint32
}

// Insert inserts the rows of Source (whose columns are already cast to the
// target columns' types, one per column of Rel, in catalog order; a hidden
// row id column is left NULL and filled by the table).
type Insert struct {
	Rel    *catalog.Relation
	Source Node
	Returning
}

// Returning is a DML statement's RETURNING list, over the rows it leaves
// (INSERT, UPDATE) or removes (DELETE), in the relation's column order;
// empty without one.
type Returning struct {
	Exprs []expr.Expr
	Out   []Column
}

// Update sets columns of the rows of Rel matching Filter (nil: all rows).
// Set[i] computes the new value of column Cols[i] from the old row.
type Update struct {
	Rel    *catalog.Relation
	Filter expr.Expr
	// Indexes are Rel's indexes the scan for Filter's rows may read.
	Indexes []*catalog.Relation
	Cols    []int
	Set     []expr.Expr
	Returning
}

// Delete deletes the rows of Rel matching Filter (nil: all rows).
type Delete struct {
	Rel    *catalog.Relation
	Filter expr.Expr
	// Indexes are Rel's indexes the scan for Filter's rows may read.
	Indexes []*catalog.Relation
	Returning
}

// CreateTable creates a table. PK empty means a hidden row id is added.
type CreateTable struct {
	Name        string
	IfNotExists bool
	Columns     []catalog.Column
	PK          []int
	// With holds the checked WITH (...) options (keys lower case, values
	// as written): dml_rate_limit, source_rate_limit. nil when none.
	With map[string]string
	// Source is CREATE SOURCE: rows come from the connector only and are
	// not stored.
	Source bool
	// Connector holds the (checked) connector options; nil: none.
	Connector map[string]string
	// AppendOnly: APPEND ONLY (always, for a source); Watermark: WATERMARK
	// FOR (checked; its State is allocated when the table is created).
	AppendOnly bool
	Watermark  *catalog.Watermark
}

// CreateView creates a materialized view from a bound query.
type CreateView struct {
	Name        string
	IfNotExists bool
	Definition  string // the SELECT text as the user wrote it
	Query       *Query
	// ColNames optionally renames the output columns.
	ColNames []string
	// With holds the checked WITH (...) options (keys lower case, values
	// as written): backfill_rate_limit. nil when none.
	With map[string]string
	// SearchPath is the search path the query was bound with, kept with
	// the view so that it binds the same way again.
	SearchPath []string
	// TimeZone is the TimeZone setting the query was bound with ("" for
	// UTC), kept with the view for the same reason.
	TimeZone string
	// EmitOnWindowClose: EMIT ON WINDOW CLOSE (CheckEmitOnWindowClose).
	EmitOnWindowClose bool
}

// CreatePlainView is CREATE [OR REPLACE] VIEW: a name for a query, stored
// as text and expanded where named.
type CreatePlainView struct {
	Name       string
	OrReplace  bool
	Definition string // the SELECT text as the user wrote it
	Columns    []catalog.Column
	Deps       []uint32 // the relations the query names
	SearchPath []string // as CreateView's
}

// Drop drops a table or view.
type Drop struct {
	Kind     catalog.Kind
	Names    []string
	IfExists bool
	Cascade  bool
}

// CreateIndex creates an index on a table or materialized view.
type CreateIndex struct {
	// Name is the index's name; "" when the statement gives none (the
	// engine chooses one as Postgres does).
	Name        string
	IfNotExists bool
	// On is the indexed relation.
	On      *catalog.Relation
	Keys    []catalog.IndexKey
	Include []int
	// With holds the checked WITH (...) options, as CreateView's.
	With map[string]string
}

// DMLScan is the plan that finds the rows an UPDATE or DELETE changes:
// rel's rows matching filter (nil: all), through an index or a key
// prefix where the filter allows.
func DMLScan(rel *catalog.Relation, filter expr.Expr, indexes []*catalog.Relation) Node {
	s := ScanOf(rel)
	s.Indexes = indexes
	if filter == nil {
		return s
	}
	return &Filter{Input: s, Cond: filter}
}

// CreateSubscription creates a subscription: a change log of a table or
// materialized view, kept for Retention (0: forever).
type CreateSubscription struct {
	Name        string
	IfNotExists bool
	From        *catalog.Relation
	Retention   time.Duration
}
