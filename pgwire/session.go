package pgwire

import (
	"context"

	"github.com/streamdb/streamdb/internal/types"
)

// Column is a result column.
type Column struct {
	Name string
	Type types.Type
}

// ResultWriter receives the results of the statements a Session runs. Its
// methods are called only from the goroutine that called Run or Execute, and
// never after that call returns. The Datums of a Row may be reused by the
// caller once Row returns.
type ResultWriter interface {
	// Columns is called once, before any Row, by a row-returning statement.
	Columns(cols []Column) error
	// Row reports one row: Datums as described in internal/types, nil = NULL.
	Row(row []types.Datum) error
	// Complete ends a statement with its command tag ("SELECT 3",
	// "INSERT 0 5", "CREATE TABLE").
	Complete(tag string) error
	// Notice sends a NoticeResponse (severity such as "NOTICE", "WARNING").
	Notice(severity, msg string) error
}

// Session is one client's session with the database. pgwire uses a Session
// from a single goroutine. Contexts passed to it are cancelled on a client's
// CancelRequest and on Server.Close; a Session must then return promptly.
type Session interface {
	// Run executes the statements of a simple Query message in order,
	// reporting each through w; it stops at the first error and returns it.
	// Run reporting no statement at all means the query was empty.
	Run(ctx context.Context, query string, w ResultWriter) error
	// Prepare parses one statement for the extended protocol. paramTypes
	// are the client-given parameter types (OID 0 = unspecified, mapped to
	// types.TUnknown); it returns the inferred parameter types and the
	// result columns (nil when the statement returns no rows).
	Prepare(ctx context.Context, query string, paramTypes []types.Type) (params []types.Type, cols []Column, err error)
	// Execute runs a prepared query with bound argument values (decoded to
	// Datums of the parameter types; text arguments for TUnknown parameters
	// arrive as string).
	Execute(ctx context.Context, query string, args []types.Datum, w ResultWriter) error
	// Close ends the session; it is called once, when the connection ends.
	Close() error
}

// TxStatuser may be implemented by a Session that knows its transaction
// state. TxStatus returns the ReadyForQuery status byte: 'I' (idle), 'T' (in
// a transaction block) or 'E' (in a failed transaction block). Without it,
// pgwire tracks the status from command tags.
type TxStatuser interface {
	TxStatus() byte
}

// BackendPIDSetter may be implemented by a Session that reports its
// backend process ID (pg_backend_pid()): the server gives it the ID of
// the cancel key it sent the client (BackendKeyData), so the two agree.
type BackendPIDSetter interface {
	SetBackendPID(pid uint32)
}

// Backend creates sessions; it is the database as seen by the server.
// NewSession is called concurrently from many connection goroutines.
type Backend interface {
	NewSession(ctx context.Context, user, database string) (Session, error)
}

// RowSource is a query's rows, read as the client asks for them: a
// portal executed with a row limit holds one between its Executes, so a
// result of any size is never held whole. pgwire uses a RowSource from
// the connection's goroutine only, and closes it.
type RowSource interface {
	// Columns are the result's columns.
	Columns() []Column
	// Next returns the next row, or nil at the end. The row's Datums are
	// valid until the next call. ctx is the Execute's own.
	Next(ctx context.Context) ([]types.Datum, error)
	// Close releases the rows; it is idempotent.
	Close()
}

// PortalOpener may be implemented by a Session that can read a query's
// rows lazily. For an Execute with a row limit pgwire calls OpenPortal
// instead of Execute: a query (SELECT) is not run to the end but returned
// as a RowSource, writing nothing to w; any other statement runs through
// w as Execute runs it, and OpenPortal returns a nil RowSource. Without
// it, pgwire buffers the whole result of a portal run with a limit.
type PortalOpener interface {
	OpenPortal(ctx context.Context, query string, args []types.Datum, w ResultWriter) (RowSource, error)
}

// StatementKeeper may be implemented by a Session that keeps SQL-level
// prepared statements (PREPARE) too: PostgreSQL has one namespace for
// both kinds, and pg_prepared_statements lists both. pgwire tells it of
// each named statement a Parse makes and a Close ends.
type StatementKeeper interface {
	// KeepStatement records the statement a Parse named; an error (42P05
	// when the session has a statement of that name) refuses the Parse.
	KeepStatement(name, query string, params []types.Type) error
	// ForgetStatement drops it (Close).
	ForgetStatement(name string)
	// HasStatement reports whether the statement a Parse named is still
	// the session's: SQL's DEALLOCATE may have ended it, and pgwire then
	// closes it too.
	HasStatement(name string) bool
}

// CursorDescriber may be implemented by a Session with SQL cursors
// (DECLARE ... CURSOR). In PostgreSQL such a cursor is a portal too: a
// Describe of a portal name the protocol did not bind describes the
// session's cursor of that name (psycopg's named cursors learn their
// columns so). ok is false when there is none.
type CursorDescriber interface {
	DescribeCursor(name string) (cols []Column, ok bool)
}
