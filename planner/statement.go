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
	// OnConflict is the ON CONFLICT clause; nil without one.
	OnConflict *OnConflict
	// Rules, when not nil, are the table's generated columns and CHECK
	// constraints, applied to each row.
	Rules *RowRules
	Returning
}

// OnConflict is INSERT's ON CONFLICT on Rel's primary key: a proposed row
// whose key a row already has (committed, or added by the same statement)
// is skipped (DoNothing) or updates that row. Set[i] computes the new
// value of column Cols[i], and Where (nil: always) whether the row is
// updated, from the existing row followed by the proposed one (EXCLUDED):
// 2*len(Rel.Columns) values.
type OnConflict struct {
	DoNothing bool
	Cols      []int
	Set       []expr.Expr
	Where     expr.Expr
}

// RowRules are what a table computes and checks on each row written
// (INSERT, UPDATE, COPY): its generated columns (computed first) and its
// CHECK constraints; every expression reads the table's full row.
type RowRules struct {
	Generated []GeneratedColumn
	Checks    []BoundCheck
}

// GeneratedColumn is a column GENERATED ALWAYS AS (Expr) STORED.
type GeneratedColumn struct {
	Col  int
	Expr expr.Expr
}

// BoundCheck is a CHECK constraint: a row for which Expr is false is
// refused.
type BoundCheck struct {
	Name string
	Expr expr.Expr
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
	// From, for UPDATE ... FROM, is the plan of the target's rows joined
	// with the FROM items and filtered by WHERE (Filter is then nil): each
	// row is the target's row (its catalog columns) followed by the FROM
	// items' columns. Set and Returning evaluate over such rows (the
	// target's part new, for Returning).
	From Node
	// Rules: see Insert.
	Rules *RowRules
	Returning
}

// Delete deletes the rows of Rel matching Filter (nil: all rows).
type Delete struct {
	Rel    *catalog.Relation
	Filter expr.Expr
	// Indexes are Rel's indexes the scan for Filter's rows may read.
	Indexes []*catalog.Relation
	// Using, for DELETE ... USING, is the plan of the target's rows
	// joined with the USING items and filtered by WHERE (Filter is then
	// nil), as Update.From's; Returning evaluates over its rows.
	Using Node
	Returning
}

// CreateTableAs is CREATE TABLE ... AS query and SELECT ... INTO: Table
// (columns from the query, no primary key) filled with Query's rows
// unless NoData.
type CreateTableAs struct {
	Table  *CreateTable
	Query  *Query
	NoData bool
	// SelectInto: the statement was SELECT ... INTO (its command tag).
	SelectInto bool
}

// CreateTable creates a table. PK empty means a hidden row id is added.
type CreateTable struct {
	// Temporary: a temporary table of the session (Name in its
	// pg_temp_N schema).
	Temporary   bool
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
	// OnConflict is the table's catalog.Relation.OnConflict.
	OnConflict string
	// Sequences are the sequences the table's serial and identity columns
	// own, created with it.
	Sequences []*CreateSequence
	// Checks are the table's CHECK constraints; Uniques its UNIQUE
	// constraints (their indexes are created with the table).
	Checks  []catalog.Check
	Uniques []catalog.Unique
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
	// Unique: the index of a UNIQUE constraint.
	Unique bool
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

// CreateSequence creates a sequence (CREATE SEQUENCE, or the one a serial
// or identity column owns: then Seq.OwnedColumn names the column and the
// table's id fills Seq.OwnedBy).
type CreateSequence struct {
	Name        string
	IfNotExists bool
	Seq         catalog.Sequence
}

// AlterSequence replaces a sequence's options (ALTER SEQUENCE); Restart,
// when not nil, is the value its next nextval returns.
type AlterSequence struct {
	Name    string
	Seq     catalog.Sequence
	Restart *int64
	// Missing: IF EXISTS found no sequence (a notice).
	Missing bool
}
