package pgwire

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime/debug"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// flushThreshold is how many bytes of results a connection buffers before
// writing them out.
const flushThreshold = 32 << 10

// errCloseConn tells the message loop to end the connection after a FATAL
// error has been sent.
var errCloseConn = errors.New("pgwire: closing connection")

// conn is one client connection. Everything but mu's fields is owned by the
// goroutine running serve.
type conn struct {
	srv *Server
	nc  net.Conn
	rd  *bufio.Reader
	be  *pgproto3.Backend
	log *slog.Logger

	ctx    context.Context // cancelled by Server.Close and when serve ends
	cancel context.CancelFunc

	// certHash is the tls-server-end-point channel binding data of the
	// certificate this connection's TLS handshake served (RFC 5929), nil
	// without TLS or when it is undefined (see startTLS).
	certHash []byte

	// Set by Server.admit under srv.mu before the key is published.
	admitted bool
	key      cancelKey

	mu         sync.Mutex
	stmtCancel context.CancelCauseFunc // the running statement's, or nil
	shutting   bool                    // Server.Close has set deadlines

	sess     Session
	user     string
	typeMap  *pgtype.Map // built on first binary value; see types()
	pending  int         // bytes sent since the last flush
	txStatus byte        // tracked from tags when sess is not a TxStatuser
	ioErr    error

	stmts          map[string]*statement
	portals        map[string]*portal
	ignoreTillSync bool
	copying        copyState // the running statement's COPY, if any
	sentZone       string    // the TimeZone last reported (timezone.go)
}

func newConn(s *Server, nc net.Conn) *conn {
	ctx, cancel := context.WithCancel(s.ctx)
	rd := bufio.NewReader(nc)
	be := pgproto3.NewBackend(rd, nc)
	be.SetMaxBodyLen(s.opts.MaxMessageSize)
	return &conn{
		srv: s, nc: nc, rd: rd, be: be, ctx: ctx, cancel: cancel,
		log:      s.opts.Logger.With("remote", nc.RemoteAddr().String()),
		txStatus: 'I',
		stmts:    make(map[string]*statement),
		portals:  make(map[string]*portal),
	}
}

// serve runs the connection from startup to close. A panic anywhere below
// ends only this connection, with XX000 to the client.
func (c *conn) serve() {
	defer c.srv.wg.Done()
	defer c.srv.forget(c)
	// c.nc at the end: over TLS, closing the TLS connection sends its
	// close_notify before the socket goes.
	defer func() { c.nc.Close() }()
	defer c.cancel()
	defer c.recoverPanic()
	if !c.startup() {
		return
	}
	defer c.closeSession()
	err := c.loop()
	if err != nil && err != errCloseConn {
		c.log.Debug("pgwire: connection ended", "err", err)
	}
}

func (c *conn) recoverPanic() {
	r := recover()
	if r == nil {
		return
	}
	if _, ok := r.(interface{ Unrecoverable() }); ok {
		panic(r) // the store found its state broken: stop the process
	}
	c.log.Error("pgwire: panic serving connection", "panic", r, "stack", string(debug.Stack()))
	c.nc.SetWriteDeadline(time.Now().Add(c.srv.opts.ShutdownGrace))
	c.sendError(&pgerr.Error{Code: pgerr.Internal, Severity: "FATAL", Message: fmt.Sprintf("internal error: %v", r)})
	c.flush()
}

func (c *conn) closeSession() {
	c.closePortals()
	if err := c.sess.Close(); err != nil {
		c.log.Debug("pgwire: closing session", "err", err)
	}
}

// shutdown makes blocked reads return now and blocked writes within grace;
// called by Server.Close with srv.mu held, after the server context is
// cancelled.
func (c *conn) shutdown(grace time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.shutting = true
	c.nc.SetReadDeadline(time.Now())
	c.nc.SetWriteDeadline(time.Now().Add(grace))
}

// setDeadline sets the connection's deadline unless shutdown has set its own.
func (c *conn) setDeadline(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.shutting {
		c.nc.SetDeadline(t)
	}
}

// loop reads and dispatches messages until the connection ends.
func (c *conn) loop() error {
	for {
		if c.ioErr != nil {
			return c.ioErr
		}
		if c.ctx.Err() != nil {
			return c.fatal(errAdminShutdown)
		}
		msg, err := c.be.Receive()
		if err != nil {
			return c.receiveError(err)
		}
		if err := c.dispatch(msg); err != nil {
			return err
		}
	}
}

// dispatch handles one message; a non-nil error ends the connection.
func (c *conn) dispatch(msg pgproto3.FrontendMessage) error {
	if c.ignoreTillSync {
		switch msg.(type) {
		case *pgproto3.Sync, *pgproto3.Terminate: // even Query waits, as in Postgres
		default:
			return nil
		}
	}
	switch m := msg.(type) {
	case *pgproto3.Query:
		return c.handleQuery(m.String)
	case *pgproto3.Parse:
		return c.handleParse(m)
	case *pgproto3.Bind:
		return c.handleBind(m)
	case *pgproto3.Describe:
		return c.handleDescribe(m)
	case *pgproto3.Execute:
		return c.handleExecute(m)
	case *pgproto3.Close:
		return c.handleClose(m)
	case *pgproto3.Sync:
		return c.handleSync()
	case *pgproto3.Flush:
		return c.flush()
	case *pgproto3.Terminate:
		return errCloseConn
	case *pgproto3.CopyData, *pgproto3.CopyDone, *pgproto3.CopyFail:
		return nil // not in copy mode: ignored, as Postgres does
	case *pgproto3.FunctionCall:
		return c.extendedError(pgerr.New(pgerr.FeatureNotSupported, "function call protocol is not supported"))
	default:
		return c.fatal(pgerr.New(pgerr.ProtocolViolation, "unexpected message type %T", msg))
	}
}

// receiveError ends the connection after a failed Receive: shutdown, I/O
// and protocol errors each get what the protocol allows.
func (c *conn) receiveError(err error) error {
	if c.ctx.Err() != nil {
		return c.fatal(errAdminShutdown)
	}
	var tooBig *pgproto3.ExceededMaxBodyLenErr
	switch {
	case errors.As(err, &tooBig):
		return c.fatal(pgerr.New(pgerr.ProtocolViolation, "message of %d bytes exceeds the maximum of %d", tooBig.ActualBodyLen, tooBig.MaxExpectedBodyLen))
	case isIOError(err):
		c.log.Debug("pgwire: reading from client", "err", err)
		return errCloseConn
	default:
		return c.fatal(pgerr.Wrap(err, pgerr.ProtocolViolation, "invalid frontend message"))
	}
}

func isIOError(err error) bool {
	var ne net.Error
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, io.ErrClosedPipe) || errors.As(err, &ne)
}

// fatal sends err as a FATAL error and ends the connection.
func (c *conn) fatal(err error) error {
	pe := *pgerr.As(err)
	pe.Severity = "FATAL"
	c.sendError(&pe)
	c.flush()
	return errCloseConn
}

// send queues msg; flush writes the queue out.
func (c *conn) send(msg pgproto3.BackendMessage) {
	c.be.Send(msg)
}

func (c *conn) flush() error {
	c.pending = 0
	if c.ioErr != nil {
		return c.ioErr
	}
	if err := c.be.Flush(); err != nil {
		c.ioErr = fmt.Errorf("pgwire: writing to client: %w", err)
		c.log.Debug("pgwire: writing to client", "err", err)
	}
	return c.ioErr
}

// sent records n more queued bytes and flushes when enough are queued.
func (c *conn) sent(n int) error {
	c.pending += n
	if c.pending >= flushThreshold {
		return c.flush()
	}
	return c.ioErr
}

// sendError queues err as an ErrorResponse and reports whether it is FATAL.
func (c *conn) sendError(err error) bool {
	pe := pgerr.As(err)
	sev := pe.Severity
	if sev == "" {
		sev = "ERROR"
	}
	c.send(&pgproto3.ErrorResponse{
		Severity: sev, SeverityUnlocalized: sev, Code: pe.Code, Message: pe.Message,
		Detail: pe.Detail, Hint: pe.Hint, Position: int32(pe.Position), Where: pe.Where,
	})
	return sev == "FATAL" || sev == "PANIC"
}

// readyForQuery sends ReadyForQuery, after a changed TimeZone's
// ParameterStatus, and flushes.
func (c *conn) readyForQuery() error {
	c.reportZone()
	c.send(&pgproto3.ReadyForQuery{TxStatus: c.status()})
	return c.flush()
}

// types returns the connection's pgtype map, which encodes and decodes
// binary values. A Map caches plans and is not safe for concurrent use, so
// each connection has its own.
func (c *conn) types() *pgtype.Map {
	if c.typeMap == nil {
		c.typeMap = pgtype.NewMap()
	}
	return c.typeMap
}
