// Package sltdb connects the sqllogictest runner (internal/slt) to an
// in-process streamdb database.
package sltdb

import (
	"context"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/slt"
)

// Open returns a function that opens runner connections, each a new
// session of db.
func Open(db *streamdb.DB) func(context.Context) (slt.Conn, error) {
	return func(context.Context) (slt.Conn, error) {
		return &conn{s: db.NewSession()}, nil
	}
}

type conn struct{ s *streamdb.Session }

func (c *conn) Exec(ctx context.Context, sql string) error {
	_, err := c.s.Exec(ctx, sql)
	return err
}

func (c *conn) ExecCount(ctx context.Context, sql string) (int64, error) {
	r, err := c.s.Exec(ctx, sql)
	return r.RowsAffected, err
}

func (c *conn) Query(ctx context.Context, sql string) ([][]slt.Value, error) {
	rows, err := c.s.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]slt.Value
	for rows.Next() {
		text := rows.Text()
		vals := make([]slt.Value, len(text))
		for i, t := range text {
			if t == nil {
				vals[i] = slt.Null()
			} else {
				vals[i] = slt.Text(*t)
			}
		}
		out = append(out, vals)
	}
	return out, rows.Err()
}

func (c *conn) Close() error { return c.s.Close() }
