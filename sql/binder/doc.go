// Package binder turns a parsed statement (package sql, TiDB ASTs plus the
// front end's markers) into a bound statement of package planner: a logical
// plan whose expressions are typed internal/expr trees that refer to their input
// row by column index.
//
// # Design
//
// Bind is a single pass over the AST with one binder value per statement
// (not safe for concurrent use, never shared). SELECT is bound in the order
// Postgres evaluates it, each step wrapping the plan built so far:
//
//	FROM (scans, joins, subqueries, CTEs, table functions)
//	  -> WHERE (Filter)
//	  -> GROUP BY / aggregates (Project of keys and arguments, Aggregate)
//	  -> HAVING (Filter)
//	  -> select list plus hidden ORDER BY extras (Project)
//	  -> DISTINCT (Aggregate without aggregates)
//	  -> ORDER BY (Sort) -> LIMIT/OFFSET (Limit) -> drop extras (Project)
//
// UNION [ALL] chains (bind_setop.go) become a UnionAll (UNION: under a
// DISTINCT Aggregate); INTERSECT and EXCEPT are 0A000. TUMBLE and HOP in
// FROM (bind_window.go) become a Project adding window_start and
// window_end (TUMBLE) or an Expand emitting each row once per window
// (HOP).
//
// Names are resolved through a scope: the columns of the plan built so far,
// each with its qualifier, in the plan's column order, so a resolved column
// is directly an expr.Column index. After aggregation, expressions are bound
// against the grouped output: an aggregate call becomes a reference to its
// Aggregate column, and any sub-expression equal to a GROUP BY key becomes a
// reference to that key; any other column reference is a 42803 error.
// When every primary key column of a scanned table is grouped, its other
// columns are added to the group keys (they depend on the key, and
// Postgres lets the query use them ungrouped: addDependentKeys).
//
// # Markers
//
// The front end rewrites Postgres-only syntax into reserved "__sdb_" forms
// (see package sql); the binder undoes them: __sdb_cast(x, 'type') is a
// cast, a table name __sdb_tf_N is Statement.TableFuncs[N], a LEFT JOIN
// whose ON clause has a __sdb_full_join() conjunct is a FULL JOIN,
// __sdb_concat(...) is a written concat(...) (the parser's own concat call
// is always a || b), __sdb_extract('field', x) is extract(field FROM x)
// (named extract), a LIMIT of 9223372036854775807 is no limit (OFFSET
// without LIMIT), a LATERAL item whose first column alias is __sdb_derived
// is a plain FROM item with column aliases, and the array markers
// (__sdb_array_lit, __sdb_array, __sdb_any / __sdb_all, __sdb_subscript)
// and __sdb_icase (the pattern of ~* and !~*) are bound in bind_pg.go,
// as is __sdb_[not_]similar(x, p [, e]) (x [NOT] SIMILAR TO p [ESCAPE e],
// which becomes x ~ similar_to_escape(p [, e]) as in PostgreSQL);
// __sdb_nulls_first(e) / __sdb_nulls_last(e) in ORDER BY are e with NULLS
// FIRST / LAST.
//
// # Subqueries
//
// Subqueries in WHERE, HAVING, the select list and ORDER BY ((SELECT ...),
// x [NOT] IN (SELECT ...), x = ANY / <> ALL (SELECT ...), [NOT] EXISTS
// (SELECT ...), ARRAY(SELECT ...)) become a planner.Apply under the
// clause, which appends one column per subquery to its input
// (bind_subquery.go). A subquery may refer to the columns of the queries
// around it (not of an aggregating one): such a reference is an
// expr.OuterRef to the row the Apply is at, and the Apply runs a
// correlated subquery once per row. Subqueries in other clauses, in
// UPDATE/DELETE and in materialized views are 0A000.
//
// # Catalog functions
//
// A catalog that implements catalog.Functions (the root package's
// per-session catalog) provides the pg_catalog functions over its live
// state and the reg* types' name lookups; the binder calls them as
// expr.Native functions, never in a materialized view.
//
// # Parameters
//
// A $N parameter of a declared type is a constant of that type (its value
// from Options.ParamValues, or NULL while only preparing). A parameter of
// unknown type behaves like a string literal: the first context that gives
// it a type (the other operand of a comparison or arithmetic operator, an
// IN list's left side, a cast, an INSERT/UPDATE target column, LIMIT)
// decides it, and Result.ParamTypes reports the decision; undecided
// parameters are text, as in Postgres.
//
// # Errors and positions
//
// Errors are *pgerr.Error with Postgres's SQLSTATEs and messages. Where an
// error names an identifier, Position points at it in the original query
// string: the binder searches Statement.Text for the identifier, nearest to
// where the node starts (Statement.SourceOffset maps the parser's offset
// back to the user's text), and adds Statement.Offset. Errors about a
// value (a column that cannot store it) point where the value starts.
package binder
