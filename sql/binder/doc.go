// Package binder turns a parsed statement (package sql, TiDB ASTs plus the
// front end's markers) into a bound statement of package planner: a logical
// plan whose expressions are typed exec/expr trees that refer to their input
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
// Names are resolved through a scope: the columns of the plan built so far,
// each with its qualifier, in the plan's column order, so a resolved column
// is directly an expr.Column index. After aggregation, expressions are bound
// against the grouped output: an aggregate call becomes a reference to its
// Aggregate column, and any sub-expression equal to a GROUP BY key becomes a
// reference to that key; any other column reference is a 42803 error.
//
// # Markers
//
// The front end rewrites Postgres-only syntax into reserved "__sdb_" forms
// (see package sql); the binder undoes them: __sdb_cast(x, 'type') is a
// cast, a table name __sdb_tf_N is Statement.TableFuncs[N], and a LEFT JOIN
// whose ON clause has a __sdb_full_join() conjunct is a FULL JOIN.
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
// the parser's offset for the node (which is an offset in the front end's
// rewritten text, close to the original), and adds Statement.Offset.
package binder
