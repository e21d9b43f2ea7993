package pgwire

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// handleQuery runs a simple Query message: results stream out as the
// Session produces them, then ReadyForQuery.
func (c *conn) handleQuery(query string) error {
	delete(c.stmts, "")
	c.closePortal("")
	if isEmptyQuery(query) {
		c.send(&pgproto3.EmptyQueryResponse{})
		return c.readyForQuery()
	}
	w := &simpleWriter{c: c}
	err := c.runStatement(func(ctx context.Context) error {
		return c.sess.Run(ctx, query, w)
	})
	switch {
	case err != nil:
		if c.statementFailed(err) {
			return errCloseConn
		}
	case w.statements == 0:
		c.send(&pgproto3.EmptyQueryResponse{})
	}
	if c.status() == 'I' {
		c.closePortals() // a COMMIT or ROLLBACK ended their transaction
	}
	return c.readyForQuery()
}

// statementFailed reports a statement's error to the client and notes it
// in the transaction status; it reports whether the error was FATAL, which
// ends the connection.
func (c *conn) statementFailed(err error) bool {
	c.copying = copyState{}
	if c.ioErr != nil {
		return true
	}
	c.noteError()
	if c.sendError(err) {
		c.flush()
		return true
	}
	return false
}

// isEmptyQuery reports whether query holds no statement text at all.
func isEmptyQuery(query string) bool {
	return strings.Trim(query, " \t\r\n\f;") == ""
}

// simpleWriter is the ResultWriter of the simple protocol: every result is
// described (text format) and streamed.
type simpleWriter struct {
	c          *conn
	cols       []Column
	statements int
}

func (w *simpleWriter) Columns(cols []Column) error {
	w.cols = cols
	w.c.send(rowDescription(cols, nil))
	return w.c.ioErr
}

func (w *simpleWriter) Row(row []types.Datum) error {
	if w.cols == nil {
		return pgerr.New(pgerr.Internal, "pgwire: Row called before Columns")
	}
	values, n, err := w.c.encodeRow(row, w.cols, nil)
	if err != nil {
		return err
	}
	w.c.send(&pgproto3.DataRow{Values: values})
	return w.c.sent(n)
}

func (w *simpleWriter) Complete(tag string) error {
	w.c.endCopy()
	w.cols = nil
	w.statements++
	w.c.noteTag(tag)
	w.c.send(&pgproto3.CommandComplete{CommandTag: []byte(tag)})
	return w.c.sent(len(tag))
}

func (w *simpleWriter) Notice(severity, msg string) error {
	return w.c.notice(severity, msg)
}

// notice sends a NoticeResponse at once: notices report progress.
func (c *conn) notice(severity, msg string) error {
	c.send(&pgproto3.NoticeResponse{Severity: severity, SeverityUnlocalized: severity, Code: "00000", Message: msg})
	return c.flush()
}
