package engine

import (
	"context"
	"fmt"
	"io"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// CopyFrom runs query, a COPY ... FROM STDIN statement, on a new session,
// with r as the data the client would stream (in the statement's format).
// Like a COPY over the wire it loads every row or, on the first bad one,
// none; the error then says which line (pgerr CONTEXT).
func (db *DB) CopyFrom(ctx context.Context, query string, r io.Reader) (Result, error) {
	return db.NewSession().CopyFrom(ctx, query, r)
}

// CopyTo runs query, a COPY ... TO STDOUT statement, on a new session,
// writing the data to w (one Write per row).
func (db *DB) CopyTo(ctx context.Context, query string, w io.Writer) (Result, error) {
	return db.NewSession().CopyTo(ctx, query, w)
}

// CopyFrom runs a COPY ... FROM STDIN statement on this session; see
// DB.CopyFrom.
func (s *Session) CopyFrom(ctx context.Context, query string, r io.Reader) (Result, error) {
	return s.runCopy(ctx, query, &copyCollector{in: r})
}

// CopyTo runs a COPY ... TO STDOUT statement on this session; see
// DB.CopyTo.
func (s *Session) CopyTo(ctx context.Context, query string, w io.Writer) (Result, error) {
	return s.runCopy(ctx, query, &copyCollector{out: w})
}

func (s *Session) runCopy(ctx context.Context, query string, c *copyCollector) (Result, error) {
	if err := s.Run(ctx, query, c); err != nil {
		return Result{}, err
	}
	if !c.used {
		return Result{}, pgerr.New(pgerr.InvalidParameterValue, "the statement is not a COPY with the client's data stream")
	}
	var n int64
	fmt.Sscanf(c.tag, "COPY %d", &n)
	return Result{Tag: c.tag, RowsAffected: n}, nil
}

// copyCollector is the ResultWriter of CopyFrom and CopyTo: a collector
// whose copy data stream is the caller's reader or writer.
type copyCollector struct {
	collector
	in   io.Reader
	out  io.Writer
	used bool
}

func (c *copyCollector) CopyIn([]Column, int16) (io.Reader, error) {
	if c.in == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY FROM STDIN needs CopyFrom, not CopyTo")
	}
	c.used = true
	return c.in, nil
}

func (c *copyCollector) CopyOut([]Column, int16) (io.Writer, error) {
	if c.out == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY TO STDOUT needs CopyTo, not CopyFrom")
	}
	c.used = true
	return c.out, nil
}
