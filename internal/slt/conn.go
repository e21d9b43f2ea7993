package slt

import "context"

// Conn is one database session the runner drives. The runner uses a Conn
// from a single goroutine and closes it when the file that opened it ends.
type Conn interface {
	// Exec runs a statement whose rows, if any, are ignored.
	Exec(ctx context.Context, sql string) error
	// Query runs a query and returns its rows, each value already rendered
	// in Postgres text output format (what psql shows).
	Query(ctx context.Context, sql string) ([][]Value, error)
	// Close releases the session.
	Close() error
}

// RowCounter is implemented by a Conn that can report how many rows a
// statement affected. `statement count N` records need it; on a Conn
// without it they fail with a message saying so.
type RowCounter interface {
	ExecCount(ctx context.Context, sql string) (int64, error)
}

// Value is one result value: Text in Postgres text output format, or SQL
// NULL when Null is set (Text is then ignored). The zero Value is the empty
// string, not NULL.
type Value struct {
	Text string
	Null bool
}

// Text returns a non-NULL Value.
func Text(s string) Value { return Value{Text: s} }

// Null returns the NULL Value.
func Null() Value { return Value{Null: true} }
