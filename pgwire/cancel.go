package pgwire

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"errors"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// cancelKey is the (process id, secret key) pair a client receives in
// BackendKeyData and sends back in a CancelRequest. Protocol 3.0 fixes the
// secret at four bytes.
type cancelKey struct {
	pid    uint32
	secret [4]byte
}

// errUserCancel is the cause a CancelRequest gives a statement context.
var errUserCancel = errors.New("pgwire: statement cancelled by CancelRequest")

// newKeyLocked returns a random key whose pid no admitted connection uses.
// Pids are positive int32s, as Postgres clients expect. s.mu is held.
func (s *Server) newKeyLocked() cancelKey {
	var k cancelKey
	var b [8]byte
	for {
		rand.Read(b[:])
		k.pid = binary.BigEndian.Uint32(b[:4]) & 0x7fffffff
		if _, used := s.keys[k.pid]; k.pid != 0 && !used {
			break
		}
	}
	copy(k.secret[:], b[4:])
	return k
}

// cancelRequest cancels the statement running on the connection with the
// given key, if any. A wrong key is ignored silently, as Postgres does.
func (s *Server) cancelRequest(pid uint32, secret []byte) bool {
	s.mu.Lock()
	c, ok := s.keys[pid]
	s.mu.Unlock()
	if !ok || subtle.ConstantTimeCompare(c.key.secret[:], secret) != 1 {
		return false
	}
	c.cancelStatement(errUserCancel)
	return true
}

// cancelStatement cancels the context of the statement running now, if any.
func (c *conn) cancelStatement(cause error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stmtCancel != nil {
		c.stmtCancel(cause)
	}
}

// runStatement runs fn with a statement context that a CancelRequest can
// cancel, and translates the error a cancellation produced.
func (c *conn) runStatement(fn func(ctx context.Context) error) error {
	ctx, cancel := context.WithCancelCause(c.ctx)
	defer cancel(nil)
	c.mu.Lock()
	c.stmtCancel = cancel
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.stmtCancel = nil
		c.mu.Unlock()
	}()
	err := fn(ctx)
	return c.statementError(err, context.Cause(ctx))
}

// statementError maps the error of a statement whose context ended with
// cause: a user's cancel becomes 57014, a server shutdown FATAL 57P01.
func (c *conn) statementError(err, cause error) error {
	if err == nil {
		return nil
	}
	if c.ctx.Err() != nil {
		return errAdminShutdown
	}
	if cause == errUserCancel {
		if code := pgerr.Code(err); code == pgerr.Internal || code == pgerr.QueryCanceled {
			return errQueryCanceled
		}
	}
	return err
}

var (
	errQueryCanceled = &pgerr.Error{Code: pgerr.QueryCanceled, Message: "canceling statement due to user request"}
	errAdminShutdown = &pgerr.Error{Code: pgerr.AdminShutdown, Severity: "FATAL",
		Message: "terminating connection due to administrator command"}
)
