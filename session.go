package streamdb

import (
	"context"
	"io"

	"github.com/streamdb/streamdb/internal/engine"
)

// Session is one client's state: its settings (SET), its transaction block
// and its prepared statements. It is not safe for concurrent use.
type Session struct {
	s *engine.Session
}

// Exec runs query on this session: every statement of it in order, or,
// with args for $1, $2 ..., its one statement.
func (s *Session) Exec(ctx context.Context, query string, args ...any) (Result, error) {
	r, err := s.s.Exec(ctx, query, args...)
	return Result{Tag: r.Tag, RowsAffected: r.RowsAffected}, publicError(err)
}

// Query runs query on this session and returns the last statement's rows.
// A SELECT's rows stream as they are read, through ctx (cancelling it ends
// them with an error); close them when done. Errors the executor raises
// before the first row are Query's; later ones end the rows (see
// Rows.Err).
func (s *Session) Query(ctx context.Context, query string, args ...any) (*Rows, error) {
	r, err := s.s.OpenRows(ctx, query, args...)
	if err != nil {
		return nil, publicError(err)
	}
	return openRows(ctx, r)
}

// CopyFrom runs a COPY ... FROM STDIN statement on this session; see
// DB.CopyFrom.
func (s *Session) CopyFrom(ctx context.Context, query string, r io.Reader) (Result, error) {
	res, err := s.s.CopyFrom(ctx, query, r)
	return Result{Tag: res.Tag, RowsAffected: res.RowsAffected}, publicError(err)
}

// CopyTo runs a COPY ... TO STDOUT statement on this session; see
// DB.CopyTo.
func (s *Session) CopyTo(ctx context.Context, query string, w io.Writer) (Result, error) {
	res, err := s.s.CopyTo(ctx, query, w)
	return Result{Tag: res.Tag, RowsAffected: res.RowsAffected}, publicError(err)
}

// Var returns the value of a session setting (as SHOW prints it).
func (s *Session) Var(name string) (string, bool) { return s.s.Var(name) }

// Close ends the session.
func (s *Session) Close() error { return publicError(s.s.Close()) }
