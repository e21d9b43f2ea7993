package pgwire

import (
	"fmt"
	"io"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// CopyInWriter is implemented by a ResultWriter whose connection can carry
// the data of COPY ... FROM STDIN (both of pgwire's writers do; a Session
// finds out with a type assertion).
type CopyInWriter interface {
	// CopyIn puts the connection in copy-in mode for a COPY of cols in
	// format (0 text or CSV, 1 binary): it sends CopyInResponse and
	// returns a reader of the data the client then sends in CopyData
	// messages, read as they arrive. The reader returns io.EOF at the
	// client's CopyDone and a 57014 *pgerr.Error at its CopyFail; Flush
	// and Sync are ignored meanwhile, as PostgreSQL does. It is valid
	// only until the statement returns; the statement then completes (or
	// fails) as any other. A statement that fails before the client is
	// done leaves the rest of its data to be discarded.
	CopyIn(cols []Column, format int16) (io.Reader, error)
}

// CopyOutWriter is implemented by a ResultWriter whose connection can
// carry the data of COPY ... TO STDOUT.
type CopyOutWriter interface {
	// CopyOut puts the connection in copy-out mode: it sends
	// CopyOutResponse and returns a writer each Write of which sends one
	// CopyData message (one row, as PostgreSQL sends). Complete then ends
	// the copy with CopyDone before its CommandComplete; an error ends it
	// with just the ErrorResponse.
	CopyOut(cols []Column, format int16) (io.Writer, error)
}

// copyState is the copy mode of the statement running on a connection.
type copyState struct {
	in  *copyInReader // copy-in data not yet read to its end, or nil
	out bool          // in copy-out mode
}

// CopyIn implements CopyInWriter.
func (w *simpleWriter) CopyIn(cols []Column, format int16) (io.Reader, error) {
	return w.c.copyIn(cols, format)
}

// CopyOut implements CopyOutWriter.
func (w *simpleWriter) CopyOut(cols []Column, format int16) (io.Writer, error) {
	return w.c.copyOut(cols, format)
}

// CopyIn implements CopyInWriter.
func (w *portalWriter) CopyIn(cols []Column, format int16) (io.Reader, error) {
	return w.c.copyIn(cols, format)
}

// CopyOut implements CopyOutWriter.
func (w *portalWriter) CopyOut(cols []Column, format int16) (io.Writer, error) {
	return w.c.copyOut(cols, format)
}

func copyFormats(cols []Column, format int16) []uint16 {
	codes := make([]uint16, len(cols))
	for i := range codes {
		codes[i] = uint16(format)
	}
	return codes
}

func (c *conn) copyIn(cols []Column, format int16) (io.Reader, error) {
	if format != textFormat && format != binaryFormat {
		return nil, pgerr.New(pgerr.Internal, "pgwire: COPY format %d", format)
	}
	c.send(&pgproto3.CopyInResponse{OverallFormat: byte(format), ColumnFormatCodes: copyFormats(cols, format)})
	if err := c.flush(); err != nil {
		return nil, err
	}
	c.copying.in = &copyInReader{c: c}
	return c.copying.in, nil
}

func (c *conn) copyOut(cols []Column, format int16) (io.Writer, error) {
	if format != textFormat && format != binaryFormat {
		return nil, pgerr.New(pgerr.Internal, "pgwire: COPY format %d", format)
	}
	c.send(&pgproto3.CopyOutResponse{OverallFormat: byte(format), ColumnFormatCodes: copyFormats(cols, format)})
	c.copying.out = true
	return &copyOutWriter{c: c}, c.ioErr
}

// endCopy ends the copy mode of a statement that completed: copy-out ends
// with CopyDone; copy-in data the statement left unread is read to its
// end, so that it is not taken for the next messages.
func (c *conn) endCopy() {
	if c.copying.out {
		c.send(&pgproto3.CopyDone{})
	}
	if in := c.copying.in; in != nil {
		for in.err == nil {
			in.next()
		}
	}
	c.copying = copyState{}
}

// copyInReader reads the data of a copy-in from CopyData messages.
type copyInReader struct {
	c   *conn
	buf []byte // what is left of the last CopyData (valid until Receive)
	err error  // io.EOF after CopyDone, or why the copy ended
}

// Read implements io.Reader.
func (r *copyInReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		r.next()
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// next receives the next message of the copy.
func (r *copyInReader) next() {
	msg, err := r.c.be.Receive()
	if err != nil {
		r.receiveError(err)
		return
	}
	switch m := msg.(type) {
	case *pgproto3.CopyData:
		r.buf = m.Data
	case *pgproto3.CopyDone:
		r.err = io.EOF
	case *pgproto3.CopyFail:
		r.err = pgerr.New(pgerr.QueryCanceled, "COPY from stdin failed: %s", m.Message)
	case *pgproto3.Flush, *pgproto3.Sync:
		// Ignored, for clients that send them after every Execute.
	case *pgproto3.Terminate:
		r.c.ioErr = errCloseConn
		r.err = errCloseConn
	default:
		typ := byte('?')
		if b, err := msg.Encode(nil); err == nil && len(b) > 0 {
			typ = b[0]
		}
		r.err = pgerr.New(pgerr.ProtocolViolation, "unexpected message type 0x%02X during COPY from stdin", typ)
	}
}

// receiveError ends the copy, and the connection, after a failed Receive.
func (r *copyInReader) receiveError(err error) {
	if !isIOError(err) && r.c.ctx.Err() == nil {
		r.c.receiveError(err) // sends the FATAL error the protocol allows
	}
	r.c.ioErr = fmt.Errorf("pgwire: reading COPY data: %w", err)
	r.err = r.c.ioErr
}

// copyOutWriter sends each Write as one CopyData message.
type copyOutWriter struct {
	c   *conn
	msg pgproto3.CopyData
}

// Flush sends the copy data written so far to the client at once (a
// stream of changes, COPY (SUBSCRIBE ...), flushes after each batch).
func (w *copyOutWriter) Flush() error { return w.c.flush() }

// Write implements io.Writer.
func (w *copyOutWriter) Write(p []byte) (int, error) {
	w.msg.Data = p
	w.c.send(&w.msg)
	if err := w.c.sent(len(p) + 5); err != nil {
		return 0, err
	}
	return len(p), nil
}
