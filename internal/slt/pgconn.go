package slt

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// pgCloseTimeout bounds the goodbye to the server in Close.
const pgCloseTimeout = 5 * time.Second

// DialPG connects to a Postgres-protocol server (streamdb serve, or
// Postgres itself) at url, a libpq URL or DSN. The returned Conn speaks the
// simple query protocol, so values arrive in the server's own text output
// format and a record may hold several statements. It implements
// RowCounter. Server errors render as the server's message alone (like
// streamdb's in-process errors); errors.As still finds the *pgconn.PgError.
func DialPG(ctx context.Context, url string) (Conn, error) {
	c, err := pgconn.Connect(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("slt: connect: %w", err)
	}
	return &pgConn{c: c}, nil
}

// pgConn is a Conn over one pgconn connection.
type pgConn struct {
	c *pgconn.PgConn
}

func (p *pgConn) Exec(ctx context.Context, sql string) error {
	_, err := p.exec(ctx, sql)
	return err
}

// ExecCount returns the rows affected by the last statement of sql.
func (p *pgConn) ExecCount(ctx context.Context, sql string) (int64, error) {
	results, err := p.exec(ctx, sql)
	if err != nil || len(results) == 0 {
		return 0, err
	}
	return results[len(results)-1].CommandTag.RowsAffected(), nil
}

// Query returns the rows of the last statement of sql that has columns.
func (p *pgConn) Query(ctx context.Context, sql string) ([][]Value, error) {
	results, err := p.exec(ctx, sql)
	if err != nil {
		return nil, err
	}
	for i := len(results) - 1; i >= 0; i-- {
		if results[i].FieldDescriptions != nil {
			return pgRows(results[i].Rows), nil
		}
	}
	return nil, nil
}

func (p *pgConn) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), pgCloseTimeout)
	defer cancel()
	return p.c.Close(ctx)
}

// exec runs sql with the simple query protocol and reads every result.
func (p *pgConn) exec(ctx context.Context, sql string) ([]*pgconn.Result, error) {
	results, err := p.c.Exec(ctx, sql).ReadAll()
	if err != nil {
		return nil, serverError(err)
	}
	return results, nil
}

// pgRows converts text-format rows; a nil value is NULL.
func pgRows(raw [][][]byte) [][]Value {
	rows := make([][]Value, len(raw))
	for i, r := range raw {
		rows[i] = make([]Value, len(r))
		for j, v := range r {
			rows[i][j] = Value{Text: string(v), Null: v == nil}
		}
	}
	return rows
}

// serverError makes a server error render as its message.
func serverError(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return &pgMessageError{pe: pe}
	}
	return err
}

// pgMessageError is a server error shown as its message alone.
type pgMessageError struct {
	pe *pgconn.PgError
}

func (e *pgMessageError) Error() string { return e.pe.Message }
func (e *pgMessageError) Unwrap() error { return e.pe }
