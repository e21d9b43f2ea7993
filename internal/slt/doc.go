// Package slt runs sqllogictest files in the sqllogictest-rs dialect (the one
// RisingWave uses) against any database reachable through the small Conn
// interface: streamdb in-process, or a Postgres-protocol server via DialPG.
// It never imports the root package; the caller adapts its session to Conn.
//
// # Pipeline
//
// A file goes through three stages, each in its own file:
//
//   - parser.go turns text into records (record.go). Every record keeps the
//     Location (file:line) of its header line. Malformed input is a
//     *ParseError carrying file:line; Run reports it as one Failure for that
//     file and runs none of the file's records.
//   - include.go expands `include <glob>` at load time, relative to the
//     including file, so a parse error anywhere is found before anything runs.
//     A glob matching no file is an error (sqllogictest-rs silently includes
//     nothing; that hides typos). Include cycles are an error.
//   - runner.go executes the records in order on lazily opened connections
//     and turns every mismatch into a Failure (format.go renders it).
//
// # Dialect
//
//	statement ok | statement error [regex] | statement count N
//	query <types> [nosort|rowsort|valuesort] [label]   (then SQL, ----, rows)
//	query error [regex]
//	statement error / query error followed by ---- and an exact message,
//	  ended by two blank lines (or end of file)
//	... retry N backoff D   suffix on a statement/query header, or a
//	  standalone `retry N backoff D` line before it
//	skipif L | onlyif L     apply to the next statement, query or halt
//	connection NAME         the next statement/query runs on connection NAME
//	halt | sleep D | include GLOB | subtest NAME | hash-threshold N
//	control sortmode nosort|rowsort|valuesort | control substitution on|off
//	# comment
//
// A blank (or whitespace-only) line ends a record. Durations are Go
// durations (500ms, 1m30s) or humantime-style words (1sec, 2min, 1 hour).
//
// # Comparing results
//
// Conn.Query returns values already in Postgres text output format; the
// runner only renders NULL as "NULL" and the empty string as "(empty)". A row
// becomes its values joined by one space, and both actual and expected lines
// are normalized by collapsing runs of whitespace (as sqllogictest-rs's
// default normalizer does). Type strings (I, T, R, B, ...) are accepted but
// neither their letters nor their length are checked against the result:
// only the values are compared. rowsort sorts both actual and expected lines
// as strings; valuesort sorts every single value of both sides, so row
// grouping is ignored. nosort compares in order. `control sortmode` sets the
// mode of queries that name none. Result hashing ("N values hashing to
// ...") is not supported; hash-threshold is accepted and ignored.
//
// Error expectations: an inline regex is matched (unanchored, Go RE2 syntax)
// against err.Error(); an empty one accepts any error; a multi-line message
// under ---- must equal err.Error() after trimming both. DialPG's errors
// render as the server's message alone, like streamdb's in-process errors.
//
// # Retry
//
// `retry N backoff D` re-runs a failing record up to N more times (N+1
// attempts), sleeping D between attempts; only the last attempt's outcome is
// reported. Sleeps go through Options.Sleep, so tests need not wait.
//
// # Substitution
//
// With `control substitution on`, SQL text has $NAME, ${NAME} and
// ${NAME:default} replaced from Options.LookupEnv (the environment by
// default); \$ is a literal dollar sign and a $ not followed by a name (as in
// $1 or $$) is kept as is. $__TEST_DIR__ is a directory private to the file
// (Options.TestDir, or a temporary directory created on first use and
// removed when the file ends). An undefined variable fails the record.
//
// # Connections and lifetimes
//
// Each file gets fresh connections: the default one and every name used by
// `connection NAME` are opened through the caller's open function on first
// use and all closed when the file ends (also after halt or a cancelled
// context). `connection default` is the default connection. The runner
// starts no goroutines; Run is sequential and returns when its last
// connection is closed.
//
// # Outcome
//
// Each executed statement or query counts as passed or failed; a record
// skipped by skipif/onlyif counts as skipped. A failure never stops the
// file; only halt does (halt in an included file stops the including file
// too, since includes are inlined). Run returns an error only when ctx ends;
// Summary.Failed > 0 is the caller's signal of failure.
package slt
