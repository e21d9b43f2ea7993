package pgwire

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// handleExecute runs a portal, or continues one that was suspended. With
// no row limit the result streams; with one it is read from the portal's
// RowSource when the Session opens one (PortalOpener), else buffered,
// and paged.
func (c *conn) handleExecute(m *pgproto3.Execute) error {
	p, ok := c.portals[m.Portal]
	switch {
	case !ok:
		return c.extendedError(pgerr.New(pgerr.InvalidCursorName, "portal %q does not exist", m.Portal))
	case p.stmt.empty:
		c.send(&pgproto3.EmptyQueryResponse{})
		return nil
	case p.done:
		c.send(&pgproto3.CommandComplete{CommandTag: []byte(p.tag)})
		return nil
	case p.src != nil:
		return c.sendFromSource(m.Portal, p, int(m.MaxRows))
	case !p.started:
		p.started = true
		w := &portalWriter{c: c, p: p, cols: p.stmt.cols, stream: m.MaxRows == 0}
		po, lazy := c.sess.(PortalOpener)
		err := c.runStatement(func(ctx context.Context) error {
			if lazy && !w.stream {
				var err error
				p.src, err = po.OpenPortal(ctx, p.stmt.query, p.args, w)
				return err
			}
			return c.sess.Execute(ctx, p.stmt.query, p.args, w)
		})
		if err == nil && p.src != nil {
			err = w.Columns(p.src.Columns())
		}
		if err != nil {
			c.closePortal(m.Portal) // a failed portal cannot be run again
			return c.extendedError(err)
		}
		if p.src != nil {
			return c.sendFromSource(m.Portal, p, int(m.MaxRows))
		}
		if !w.completed {
			p.done = true
			c.send(&pgproto3.EmptyQueryResponse{})
			return nil
		}
		if w.stream {
			p.done = true
			return nil
		}
	}
	return c.sendPage(p, int(m.MaxRows))
}

// sendFromSource sends up to max rows read from p's RowSource (all when
// max is 0), then PortalSuspended if max rows were sent, or
// CommandComplete once the rows ended, as PostgreSQL: its tag counts the
// rows of this Execute, and the source is released. An error closes the
// portal.
func (c *conn) sendFromSource(name string, p *portal, max int) error {
	n, end := 0, false
	err := c.runStatement(func(ctx context.Context) error {
		for max <= 0 || n < max {
			row, err := p.src.Next(ctx)
			if err != nil || row == nil {
				end = true
				return err
			}
			values, size, err := c.encodeRow(row, p.cols, p.formats)
			if err != nil {
				return err
			}
			c.send(&pgproto3.DataRow{Values: values})
			n++
			if err := c.sent(size); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		c.closePortal(name)
		return c.extendedError(err)
	}
	if !end {
		c.send(&pgproto3.PortalSuspended{})
		return nil
	}
	p.src.Close()
	p.src, p.done, p.tag = nil, true, "SELECT 0"
	c.send(&pgproto3.CommandComplete{CommandTag: fmt.Appendf(nil, "SELECT %d", n)})
	return nil
}

// sendPage sends up to max buffered rows of p (all when max is 0), then
// PortalSuspended if rows remain or CommandComplete if none do.
func (c *conn) sendPage(p *portal, max int) error {
	n := len(p.rows)
	if max > 0 && max < n {
		n = max
	}
	for _, values := range p.rows[:n] {
		c.send(&pgproto3.DataRow{Values: values})
		if err := c.sent(rowSize(values)); err != nil {
			return err
		}
	}
	p.rows = p.rows[n:]
	if len(p.rows) > 0 {
		c.send(&pgproto3.PortalSuspended{})
		return nil
	}
	p.rows, p.done = nil, true
	c.send(&pgproto3.CommandComplete{CommandTag: []byte(p.tag)})
	return nil
}

func rowSize(values [][]byte) int {
	n := 0
	for _, v := range values {
		n += len(v) + 4
	}
	return n
}

// portalWriter is the ResultWriter of an Execute. The row description was
// sent by Describe, so Columns only updates the types rows are encoded
// with. It streams rows out, or buffers them when the Execute has a limit.
type portalWriter struct {
	c         *conn
	p         *portal
	cols      []Column
	stream    bool
	completed bool
}

func (w *portalWriter) Columns(cols []Column) error {
	if len(cols) != len(w.p.stmt.cols) {
		return pgerr.New(pgerr.Internal, "pgwire: statement was described with %d columns but returns %d", len(w.p.stmt.cols), len(cols))
	}
	w.cols = cols
	w.p.cols = cols
	return nil
}

func (w *portalWriter) Row(row []types.Datum) error {
	if w.cols == nil {
		return pgerr.New(pgerr.Internal, "pgwire: statement was described as returning no rows")
	}
	values, n, err := w.c.encodeRow(row, w.cols, w.p.formats)
	if err != nil {
		return err
	}
	if !w.stream {
		w.p.rows = append(w.p.rows, values)
		return nil
	}
	w.c.send(&pgproto3.DataRow{Values: values})
	return w.c.sent(n)
}

func (w *portalWriter) Complete(tag string) error {
	w.c.endCopy()
	w.completed = true
	w.p.tag = tag
	w.c.noteTag(tag)
	if w.stream {
		w.c.send(&pgproto3.CommandComplete{CommandTag: []byte(tag)})
	}
	return w.c.ioErr
}

func (w *portalWriter) Notice(severity, msg string) error {
	return w.c.notice(severity, msg)
}
