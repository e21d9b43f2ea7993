// Package expr is the scalar expression layer shared by the whole query
// path: the binder (sql/binder) builds typed expressions with Postgres
// semantics, the planner rewrites their column references, and the batch
// and stream executors evaluate them row by row. It also defines the
// aggregates (AggKind) and the retractable sum state both kinds of
// executors keep (SumState).
//
// # Expressions
//
// An Expr is a tree over one input row: Column reads a column of the row
// by index, Const is a value, OuterRef reads the row of an enclosing query
// (a correlated subquery), and the rest are built by the constructors
// (api.go: Binary, Unary, Cast, AssignCast, Func, Case, In, IsNull,
// IsBool; array.go: Array, AnyAll, Subscript; native.go: Native, for a
// function the caller implements, such as the pg_catalog functions over
// the engine's catalog).
// Operators and functions are mostly one node kind, a call of an
// implementation with its arguments; AND/OR, CASE, COALESCE, IN and IS
// [NOT] DISTINCT FROM have nodes of their own for their evaluation order
// and NULL rules.
//
// Expressions are immutable once built, and their Eval is safe for
// concurrent use: the actors of a stream fragment share one expression.
// Rewriting builds new trees (Children and WithChildren; Remap renumbers
// column references, as the planner does when it adds key columns to a
// join's inputs), and Columns lists the columns an expression reads, so an
// executor can decode only those. The exception is OuterRef: its OuterRow
// belongs to one execution of a batch plan on one goroutine, which sets
// it before each run of the subquery.
//
// String renders an expression for EXPLAIN and error messages: column
// names, operators infix, implicit casts left out.
//
// # Types and resolution
//
// Every Expr has a types.Type, fixed when it is built. The constructors
// type-check as Postgres does and fail with *pgerr.Error (42883 no such
// operator or function, 42725 ambiguous, 42804 datatype mismatch, 42846
// no cast, 22P02 bad literal):
//
//   - Operators and functions are catalogs of overloads built at init and
//     read-only afterwards: binaryOps and unaryOps (as pg_operator rows)
//     and functions (name to builder; FuncNames and HasFunc list it, as
//     pg_proc does). A call picks its overload with Postgres's rules
//     (func_select_candidate in resolve.go: an exact match, else the only
//     candidate its arguments convert to implicitly, else by most exact
//     matches, preferred types, then type categories for unknowns) and
//     converts its arguments to the overload's parameter types.
//   - An untyped literal (type unknown: a string literal or NULL) takes
//     the type its context asks for and is parsed then, so a bad literal
//     fails when the expression is built: '1' + 2 is integer 3.
//   - Casts follow pg_cast's three levels (CastContext): implicit in
//     expressions, assignment for INSERT and UPDATE (AssignCast, which
//     also checks lengths and ranges: 22001, 22003), explicit for CAST and
//     ::. A cast to a type with a modifier (varchar(n), numeric(p,s))
//     applies it.
//   - CommonType unifies the types of UNION branches, CASE results,
//     COALESCE arguments and VALUES columns.
//   - AggResultType gives an aggregate's result type (count bigint, sum of
//     integer bigint, of bigint numeric ...), AccType the type sum and avg
//     accumulate in.
//
// # NULL and errors
//
// Eval returns nil for NULL. Calls are strict unless marked otherwise: a
// NULL argument makes the result NULL without running the implementation,
// so implementations never see nil. The non-strict constructs follow
// SQL's rules: AND and OR are three-valued and skip the right side when
// the left decides; COALESCE, CASE and IN stop at the first argument that
// decides; IS [NOT] NULL, IS [NOT] TRUE/FALSE and IS [NOT] DISTINCT FROM
// never yield NULL; x IN (list) is NULL when nothing matched and x or an
// element was NULL. Compare orders two non-NULL values only: where NULLs
// go is the caller's choice (Sort, storage keys). Aggregates skip NULL
// inputs, except array_agg, which keeps them; sum, avg, min and max of no
// values are NULL, count is 0.
//
// An error during Eval (division by zero 22012, overflow 22003, a bad
// cast 22P02 ...) is a *pgerr.Error: in a batch query it fails the
// statement; in a stream actor it fails the actor, and so the graph,
// which recovers.
//
// random() reads the random source at every evaluation. now(),
// current_timestamp, current_date and the other functions of the current
// time read the clock at every evaluation as built; a batch statement
// fixes them to its transaction's and statement's instants (AtInstants,
// clock.go).
package expr
