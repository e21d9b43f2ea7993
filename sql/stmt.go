// Package sql is streamdb's SQL front end: a Postgres-aware lexer that
// splits a query string into statements, recognizes the statements streamdb
// parses itself (stream DDL, CREATE TABLE, DROP, SET/SHOW, transactions,
// FLUSH ...), and rewrites Postgres-only syntax into text the TiDB parser
// accepts, with reserved markers that the binder (package sql/binder) undoes.
//
// # Markers
//
// The rewrite never produces text a user could have written, because every
// marker starts with the reserved prefix "__sdb_" (identifiers starting with
// it are rejected in user input):
//
//   - x::T, CAST(x AS T), and typed literals (DATE '...', TIMESTAMP '...',
//     INTERVAL '...') become __sdb_cast(x, 'T'), T being the Postgres type
//     name as written, lower case, with modifiers: 'numeric(10,2)',
//     'varchar(20)', 'timestamp with time zone', 'int'.
//   - A table function in FROM (generate_series(1, 10) [AS] g[(x)]) becomes
//     the table name __sdb_tf_N (N = 0, 1, ...); Statement.TableFuncs[N] keeps
//     its name and arguments.
//   - a FULL [OUTER] JOIN b ON cond becomes a LEFT JOIN b ON
//     __sdb_full_join() AND (cond).
//   - a [LEFT] JOIN t FOR SYSTEM_TIME AS OF PROCTIME() [AS d] ON cond
//     becomes a [LEFT] JOIN t [AS d] ON __sdb_temporal_join() AND (cond).
//   - A written concat(...) becomes __sdb_concat(...): TiDB reads a || b
//     as a call of concat too, and the two differ on NULLs.
//   - ARRAY[a, b] becomes __sdb_array_lit(a, b), ARRAY(SELECT ...)
//     __sdb_array((SELECT ...)), x op ANY (arr) x op __sdb_any(arr) (ALL:
//     __sdb_all), arr[i] __sdb_subscript(arr, i), and the pattern of a ~* p
//     (a REGEXP p, case-insensitively) __sdb_icase(p).
//   - A JSON operator use a op b (op one of -> ->> #> #>> #- @> <@ ? ?| ?&)
//     becomes __sdb_op('op', a, b) (JSONOpFunc), the operands grouped by
//     Postgres's precedence: j -> 'a' ->> 'b' is
//     __sdb_op('->>', __sdb_op('->', j, 'a'), 'b').
//   - a [NOT] SIMILAR TO b [ESCAPE e] becomes __sdb_similar(a, b [, e])
//     (SimilarFunc; NOT: __sdb_not_similar), the operands grouped by
//     Postgres's precedence, and substring(s SIMILAR p ESCAPE e) becomes
//     substring(s, p, e).
//   - extract(field FROM x) becomes __sdb_extract('field', x), the field
//     lower case: TiDB knows only MySQL's time units, Postgres has dow,
//     epoch, isodow, ... and also takes the field as a string.
//   - OFFSET without LIMIT, LIMIT ALL, OFFSET n ROWS and FETCH FIRST|NEXT
//     [c] ROW|ROWS ONLY become LIMIT c OFFSET n; a missing count is written
//     LIMIT 9223372036854775807, which the binder reads as no limit.
//   - e [ASC|DESC] NULLS FIRST|LAST becomes __sdb_nulls_first(e) or
//     __sdb_nulls_last(e), keeping ASC|DESC.
//   - A VALUES list used as a query gets ROW before each row:
//     VALUES ROW(1, 'a'), ROW(2, 'b').
//   - Column aliases of a FROM item, (SELECT ...) AS s(p, q) or t AS x(a),
//     become LATERAL (SELECT ...) AS s(__sdb_derived, p, q) (a table: LATERAL
//     (SELECT * FROM t) AS x(__sdb_derived, a)); the marker first name says
//     the item is not LATERAL.
//   - $N placeholders become ? markers; ast.ParamMarkerExpr.Order is N-1.
//   - INSERT's ON CONFLICT ... DO UPDATE SET a = e [WHERE c] becomes ON
//     DUPLICATE KEY UPDATE a = e [, __sdb_conflict_where = (c)]; the
//     conflict target and DO NOTHING are kept in InsertStmt.OnConflict,
//     the target's alias (INSERT INTO t AS x) in InsertStmt.Alias
//     (upsert.go).
//   - UPDATE t SET ... FROM items becomes UPDATE t, items SET ..., and
//     DELETE FROM t USING items DELETE __sdb_target FROM t, items: the
//     target is the leftmost item (dml_join.go).
//   - SELECT ... INTO t ... and CREATE TABLE t AS query are
//     CreateTableAsStmt, the query parsed as any (create_table_as.go).
//   - Unquoted identifiers are folded to lower case, as Postgres does;
//     quoted ones keep their case.
//
// One Parser per session: the TiDB parser is not safe for concurrent use.
package sql

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Statement is one statement of a query string.
type Statement struct {
	// Text is the statement's original text, without the trailing ';'.
	Text string
	// Offset is the byte offset of Text in the whole query string.
	Offset int
	// Node is the parsed statement: one of the *...Stmt types of this
	// package.
	Node Node
	// TableFuncs holds the table functions the rewrite replaced, by N.
	TableFuncs []*TableFunc
	// NumParams is the highest $N placeholder used.
	NumParams int

	// tidbText is the text the TiDB parser read for a query or DML
	// statement, with the map back to the user's tokens.
	tidbText *rendered
}

// SourceOffset maps an offset in the text the TiDB parser read (what
// ast.Node.OriginTextPosition returns for a node of this statement's AST)
// to the byte offset, in the whole query string, of the user's token that
// the node starts at (for a node that starts with a rewritten construct,
// the token the construct stands for; a cast x::int maps to x). ok is false when the statement has no such text
// (the front end parsed it itself) or off lies outside it.
func (s *Statement) SourceOffset(off int) (pos int, ok bool) {
	r := s.tidbText
	if r == nil || off < 0 || off >= len(r.text) || len(r.toks) == 0 {
		return 0, false
	}
	k := r.tokenAt(off)
	if k >= len(r.toks) {
		return 0, false
	}
	return r.toks[k].Pos, true
}

// Node is a parsed statement.
type Node interface{ node() }

// TableFunc is a table function call that appeared in FROM.
type TableFunc struct {
	Name    string         // lower case: generate_series
	Args    []ast.ExprNode // its arguments, rewritten like the rest
	Columns []string       // column aliases: g(x) -> ["x"]; nil when none
	// ColumnTypes are the types of a column definition list, AS t(a
	// int, b text), as the type names a cast takes; nil when none.
	ColumnTypes []string
	// Ordinality: WITH ORDINALITY, a bigint column numbering the rows
	// from 1 after the function's.
	Ordinality bool
}

// SelectStmt is a query: *ast.SelectStmt or *ast.SetOprStmt (UNION ...).
type SelectStmt struct{ AST ast.ResultSetNode }

// InsertStmt is INSERT ... VALUES / SELECT.
type InsertStmt struct {
	AST *ast.InsertStmt
	// Overriding is "system" or "user" for OVERRIDING SYSTEM VALUE or
	// OVERRIDING USER VALUE, "" without.
	Overriding string
	// Returning is the RETURNING list (nil without one).
	Returning *ast.FieldList
	// Alias is the target's alias (INSERT INTO t AS x); "" when none.
	Alias string
	// OnConflict is the ON CONFLICT clause (nil without one); a DO
	// UPDATE's assignments are AST.OnDuplicate (see upsert.go).
	OnConflict *OnConflict
}

// UpdateStmt is UPDATE. With FROM (From set), AST.TableRefs joins the
// target, its leftmost item, with the FROM items (see dml_join.go).
type UpdateStmt struct {
	AST       *ast.UpdateStmt
	Returning *ast.FieldList
	From      bool
}

// DeleteStmt is DELETE. With USING (Using set), AST.TableRefs joins the
// target, its leftmost item, with the USING items (see dml_join.go).
type DeleteStmt struct {
	AST       *ast.DeleteStmt
	Returning *ast.FieldList
	Using     bool
}

// ColumnDef is a column of CREATE TABLE.
type ColumnDef struct {
	Name       string
	TypeName   string // Postgres type as written, lower case, with modifiers
	NotNull    bool
	PrimaryKey bool
	Default    ast.ExprNode // nil when absent
	// DefaultText is the DEFAULT expression as written.
	DefaultText string
	// Identity is "a" (GENERATED ALWAYS AS IDENTITY) or "d" (BY
	// DEFAULT), "" for none; IdentityOpts its sequence options.
	Identity     string
	IdentityOpts SequenceOptions
	// Generated is the expression of GENERATED ALWAYS AS (expr) STORED
	// (nil for none), GeneratedText as written.
	Generated     ast.ExprNode
	GeneratedText string
	// Checks are the column's CHECK constraints.
	Checks []CheckDef
	// Unique: a UNIQUE column constraint (UniqueName its CONSTRAINT
	// name, if any).
	Unique     bool
	UniqueName string
}

// CheckDef is a CHECK (expr) constraint; Name is "" when the
// constraint is not named.
type CheckDef struct {
	Name string
	Expr ast.ExprNode
	Text string
}

// UniqueDef is a table constraint UNIQUE (columns).
type UniqueDef struct {
	Name    string
	Columns []string
}

// CreateTableStmt is CREATE TABLE.
type CreateTableStmt struct {
	// Temporary: CREATE TEMP[ORARY] TABLE, a table of the session
	// (temp_table.go).
	Temporary bool
	// Source is CREATE SOURCE: a stream from a connector that stores no rows.
	Source      bool
	Name        string
	IfNotExists bool
	Columns     []ColumnDef
	PrimaryKey  []string          // from a table constraint PRIMARY KEY (...)
	With        map[string]string // WITH (k = v, ...), keys lower case
	// Format and Encode are a connector's FORMAT and ENCODE words, if any;
	// EncodeOptions the ENCODE e (k = v, ...) options, keys lower case.
	Format, Encode string
	EncodeOptions  map[string]string
	// AppendOnly is APPEND ONLY: the table takes INSERTs only.
	AppendOnly bool
	// OnConflict is RisingWave's ON CONFLICT clause of CREATE TABLE, one
	// of the Conflict* words ("" when absent).
	OnConflict string
	// Watermark is WATERMARK FOR column AS expr, if given.
	Watermark *WatermarkDef
	// Checks and Uniques are the table constraints CHECK and UNIQUE.
	Checks  []CheckDef
	Uniques []UniqueDef
	// Includes are the INCLUDE items, in order.
	Includes []IncludeDef
}

// WatermarkDef is a table element WATERMARK FOR Column AS Expr
// (RisingWave's syntax): the table's watermark is the greatest Expr over
// its rows, and a row whose Column is below it is late.
type WatermarkDef struct {
	Column string
	Expr   ast.ExprNode
	// ExprText is Expr as written; Pos is the error position (1-based,
	// in characters) of WATERMARK.
	ExprText string
	Pos      int
}

// CreateMaterializedViewStmt is CREATE MATERIALIZED VIEW name [(cols)]
// [WITH (...)] AS query [EMIT ON WINDOW CLOSE].
type CreateMaterializedViewStmt struct {
	Name              string
	IfNotExists       bool
	Columns           []string
	Query             *SelectStmt
	QueryText         string // the query's original text
	With              map[string]string
	EmitOnWindowClose bool
}

// CreateViewStmt is CREATE [OR REPLACE] VIEW name [(cols)] AS query: a
// plain view, expanded where a query names it.
type CreateViewStmt struct {
	Name      string
	OrReplace bool
	Columns   []string
	Query     *SelectStmt
	QueryText string // the query's original text
}

// ObjectKind is the kind of object a DROP or SHOW names.
type ObjectKind uint8

// Object kinds.
const (
	ObjTable ObjectKind = iota
	ObjMaterializedView
	ObjView
	ObjSource
	ObjIndex
	ObjSchema
	ObjSubscription
	ObjSink
	ObjSequence
)

// CreateSchemaStmt is CREATE SCHEMA [IF NOT EXISTS] name.
type CreateSchemaStmt struct {
	Name        string
	IfNotExists bool
}

// DropStmt is DROP TABLE / MATERIALIZED VIEW [IF EXISTS] names [CASCADE].
type DropStmt struct {
	Kind     ObjectKind
	Names    []string
	IfExists bool
	Cascade  bool
}

// ShowStmt is SHOW TABLES, SHOW MATERIALIZED VIEWS, SHOW JOBS or SHOW var.
type ShowStmt struct {
	// What is "tables", "materialized views", "jobs", or a variable name
	// (lower case; "all" for SHOW ALL).
	What string
}

// SetStmt is SET [SESSION|LOCAL] name {=|TO} value | DEFAULT.
type SetStmt struct {
	Name    string
	Value   string // as written, quotes removed; empty when Default
	Default bool
	Local   bool // SET LOCAL: for the current transaction only
}

// TransactionStmt is BEGIN / START TRANSACTION / COMMIT / END / ROLLBACK.
type TransactionStmt struct {
	Kind string // "begin", "commit", "rollback"
}

// FlushStmt is FLUSH.
type FlushStmt struct{}

// ExplainStmt is EXPLAIN stmt.
type ExplainStmt struct{ Stmt *Statement }

// EmptyStmt is a statement with only whitespace or comments.
type EmptyStmt struct{}

func (*SelectStmt) node()                 {}
func (*InsertStmt) node()                 {}
func (*UpdateStmt) node()                 {}
func (*DeleteStmt) node()                 {}
func (*CreateTableStmt) node()            {}
func (*CreateMaterializedViewStmt) node() {}
func (*CreateViewStmt) node()             {}
func (*DropStmt) node()                   {}
func (*CreateSchemaStmt) node()           {}
func (*ShowStmt) node()                   {}
func (*SetStmt) node()                    {}
func (*TransactionStmt) node()            {}
func (*FlushStmt) node()                  {}
func (*ExplainStmt) node()                {}
func (*EmptyStmt) node()                  {}
