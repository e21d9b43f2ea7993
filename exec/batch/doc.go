// Package batch runs queries over a snapshot: pull-based executors that
// pass chunks (package chunk, up to ChunkSize rows) from the leaves to the
// root.
//
// # Protocol
//
// The consumer calls Next until it returns a nil chunk (the end) or an
// error, then Close, exactly once, whether or not it reached the end.
// Next hands over ownership of the chunk it returns: the caller releases
// it. Close releases whatever the executor still holds and closes its
// inputs; it is safe after an error.
//
// Executors run on the caller's goroutine, start no goroutines, and are not
// safe for concurrent use. Every Next checks its context first, so a
// cancelled query stops at the next chunk boundary; blocking executors
// (Sort, HashAgg, the build side of HashJoin) pull their input chunk by
// chunk and so observe cancellation too.
//
// # Memory
//
// Streaming executors (Scan, Values, GenerateSeries, Unnest, Filter,
// Project, Expand, Limit, UnionAll, the probe side of HashJoin) hold at
// most one chunk. Sort, HashAgg and HashJoin's build side keep their input
// in memory as decoded rows. Limit stops pulling as soon as it has its
// rows. Apply runs each uncorrelated subquery once, before its first row,
// and keeps only its result (a value, or an IN subquery's distinct values
// as a set of encoded keys); a correlated subquery gets a fresh executor
// per input row, closed before the next.
//
// # Keys
//
// HashAgg (GROUP BY, DISTINCT, aggregates' DISTINCT), HashJoin and the
// IN-subquery set key their hash tables with storage.AppendDatumKey, the
// key encoding of the state tables, so a query groups, matches and
// dedupes values exactly as a materialized view of it does: equal values
// spelled differently (interval '1 mon' and '30 days', numeric 1.0 and
// 1.00, float -0 and 0, NaN and NaN) are one key, and NULLs one group.
package batch
