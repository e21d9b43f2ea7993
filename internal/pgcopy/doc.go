// Package pgcopy reads and writes the data of PostgreSQL's COPY command in
// its three formats: text (tab-separated, backslash escapes, \N for
// NULL), CSV (RFC 4180 quoting, with PostgreSQL's options) and binary
// (the PGCOPY signature, then per tuple a field count and length-prefixed
// values in each type's binary send/receive form).
//
// It knows nothing of tables or the wire protocol: a Reader turns a byte
// stream into rows of raw fields, a Decoder turns a field into a Datum of a
// column's type, and a Writer turns rows of Datums into COPY TO output,
// one Write per row (the protocol sends a CopyData message per row).
//
// Errors are *pgerr.Error values with PostgreSQL's SQLSTATEs and messages
// (22P04 bad copy file format, 22P02 invalid text representation, 22P03
// invalid binary representation, ...). They carry no CONTEXT: the caller,
// which knows the table, adds one from Reader.Line and Reader.LineText the
// way PostgreSQL words it: COPY t, line 3, column v: "abc".
//
// Nothing here holds more than one row (and one read buffer): COPY streams.
// A Reader reuses its buffers, so the fields it returns are valid only
// until the next call to Next.
package pgcopy
