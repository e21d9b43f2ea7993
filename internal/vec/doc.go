// Package vec evaluates filter conditions a chunk at a time: Compile turns
// the common predicate shapes of a bound expression (comparisons of
// integers, floats, booleans, dates, timestamps and strings between
// columns and constants, bytea too; AND, OR, NOT; IS [NOT] NULL; IS
// [NOT] TRUE/FALSE; IN lists; prefix LIKE 'abc%'; integer + - * inside
// comparisons; a whole condition guarded by expr.Guard) into typed kernels
// over the chunk's Arrow arrays, and Predicate.Select returns the rows
// where the condition is TRUE. Anything else does not compile (numeric,
// interval, oid, arrays, json; function calls; casts other than those
// between text types and of number constants; outer references; a
// timestamptz against a date or timestamp, which compares in the session
// time zone), and the caller keeps evaluating the expression a row at a
// time (package expr), which stays the reference semantics.
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
// A Predicate reuses scratch buffers between calls: it is owned by one
// executor and not safe for concurrent use. It never retains or releases
// the chunks it reads.
package vec
