// Package vec evaluates filter conditions and projections a chunk at a
// time. Filters: Compile turns the common predicate shapes of a bound
// expression (comparisons of integers, floats, booleans, dates,
// timestamps and strings between columns and constants, bytea too; AND,
// OR, NOT; IS [NOT] NULL; IS [NOT] TRUE/FALSE; IN lists; prefix LIKE
// 'abc%'; integer + - * inside comparisons; a whole condition guarded
// by expr.Guard) into typed kernels over the chunk's Arrow arrays, and
// Predicate.Select returns the rows where the condition is TRUE.
// Numeric comparisons compile too, as value kernels (see Projections).
// Anything else does not compile (interval, oid, arrays, json;
// function calls; casts other than those between text types and of
// number constants; outer references; a timestamptz against a date or
// timestamp, which compares in the session time zone), and the caller
// keeps evaluating the expression a row at a time (package expr), which
// stays the reference semantics.
//
// Invariants:
//
//   - A Predicate selects exactly the rows for which the row evaluator
//     (expr.Expr.Eval over chunk.Row) returns true, and fails with the
//     error the row evaluator raises on the first row, in row order, that
//     raises one. Kernels evaluate every row, so errors are tracked per
//     row and masked the way the row evaluator's short-circuits mask them
//     (AND skips its right side after false, OR after true, a strict
//     operator its later arguments after a NULL); the error value itself
//     comes from the row evaluator's own operator (expr.ApplyCall).
//   - A boolean result is two bitmaps, true and false; a row in neither is
//     NULL or raised an error. Bits past the chunk's last row are zero.
//     Bitmaps are uint64 words read as Arrow's little-endian bit order.
//
// # Projections
//
// CompileProjection compiles the expressions of a projection one by one
// (value.go and its neighbours): columns (passed through, the input's
// Arrow array retained, not copied) and constants; integer + - * / % with
// the result type's range (22003) and division by zero (22012); float
// + - * / in double or real precision; unary minus; comparisons, AND,
// OR, NOT, IS [NOT] NULL, IS [NOT] TRUE/FALSE and IN over any of these
// (the predicate kernels where they apply); CASE and COALESCE; casts
// between integer types, integers and floats, float types, date and
// timestamp, and of numbers, dates and timestamps to text; || and
// concat() of strings; date +/- integer; date_part of year, month, day,
// hour and epoch from a date or timestamp; a date or timestamp +/- a
// constant interval, a timestamptz +/- one of microseconds alone (months
// and days move in the session time zone), and tumble_start, which is
// what TUMBLE's and HOP's window bounds bind to; numeric + - * / %,
// unary minus, abs, ceil, floor, round and trunc (with a scale too),
// mod() and comparisons, and casts to numeric(p,s), from numeric to
// integers and floats, and to numeric from integers, floats and text
// (value_numeric.go, value_numeric_ops.go: 64-bit coefficients with the
// row evaluator's result scales, select_div_scale for /, rounding half
// away from zero; NaN, infinities, wider values, division by zero and
// overflows by its own operator or conversion). An expression that does
// not compile is evaluated a row at a time by Projection.Columns, next
// to the compiled ones. Numeric as text, interval, timestamptz (the
// session time zone) and booleans as text stay with the row evaluator.
//
// The projection invariants are the predicates':
//
//   - Each output value and NULL is the row evaluator's, and Columns fails
//     with the error the row evaluator raises first, row by row and within
//     a row expression by expression. A kernel decides the rows it can
//     compute exactly and hands the others (overflow, infinities, NaN,
//     out-of-range dates, BC years) to the row evaluator's own operator or
//     conversion (expr.ApplyCall, expr.ApplyCast), which gives the value
//     or the error.
//   - Kernels compute over every row, NULL rows too, and never fail or
//     panic doing so (a division checks its divisor first). Errors are
//     kept per row and masked as the row evaluator's laziness masks them:
//     a CASE result's errors count only on the rows that take it (a CASE
//     guarding a division by zero raises nothing), a COALESCE argument's
//     only where the earlier ones were NULL, a strict operator's later
//     arguments only where the earlier ones were not NULL.
//   - Guarded expressions (expr.Guard) compile only when all of a
//     projection's do, so that their data errors reach the sinks in the
//     row evaluator's order.
//   - A value vector's error rows are never valid; a node's result is
//     scratch its consumer may overwrite, but for a validity bitmap it
//     does not own (a column's, cached per chunk).
//
// Output columns are built straight into Arrow buffers from the
// allocator Projection.SetAllocator gives (tests pass a
// memory.CheckedAllocator); the strings kernels make live in an arena
// reused from chunk to chunk, copied into the output first.
//
// A Predicate or a Projection reuses scratch buffers between calls: it
// is owned by one executor and not safe for concurrent use. It never
// releases the chunks it reads; a Projection retains the columns it
// passes through.
package vec
