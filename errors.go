package streamdb

import (
	"github.com/streamdb/streamdb/internal/pgerr"
)

// Error is the error of a statement: the Postgres error fields a client of
// the wire protocol would receive. Every error the DB, Session and Rows
// methods return is an *Error (test with errors.As); it wraps the engine's
// cause, so errors.Is(err, context.Canceled) still holds for a cancelled
// statement.
type Error struct {
	// Code is the SQLSTATE, e.g. "23505" for a unique violation; "XX000"
	// for an internal error.
	Code    string
	Message string
	Detail  string
	Hint    string
	// Position, when non-zero, is the 1-based character offset in the
	// statement text that the error points at.
	Position int
	// Where is the error's context (psql's CONTEXT line), such as
	// `COPY t, line 3, column v: "abc"`.
	Where string
	cause error
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the engine's error.
func (e *Error) Unwrap() error { return e.cause }

// SQLState returns Code (the interface pgx and lib/pq errors share).
func (e *Error) SQLState() string { return e.Code }

// publicError turns an engine error into an *Error; nil stays nil.
func publicError(err error) error {
	if err == nil {
		return nil
	}
	if e, ok := err.(*Error); ok {
		return e
	}
	pe := pgerr.As(err)
	return &Error{Code: pe.Code, Message: pe.Message, Detail: pe.Detail, Hint: pe.Hint,
		Position: pe.Position, Where: pe.Where, cause: err}
}
