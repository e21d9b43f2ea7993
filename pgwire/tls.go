package pgwire

import (
	"bufio"
	"crypto/tls"
	"net"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// startTLS accepts an SSLRequest: it answers 'S', runs the TLS handshake
// (bounded by the startup deadline and the connection's context) and
// moves the connection onto TLS. It reports whether the handshake
// succeeded; on failure the connection just closes, as no protocol
// message can be sent.
func (c *conn) startTLS() bool {
	if c.rd.Buffered() > 0 {
		// Bytes sent before the client saw 'S' would be read as if they had
		// come over TLS (the buffer-stuffing attack, CVE-2021-23214).
		c.fatal(pgerr.New(pgerr.ProtocolViolation, "received unencrypted data after SSL request"))
		return false
	}
	if _, err := c.nc.Write([]byte{'S'}); err != nil {
		c.log.Debug("pgwire: accepting SSLRequest", "err", err)
		return false
	}
	tc := tls.Server(c.nc, c.srv.opts.TLSConfig)
	if err := tc.HandshakeContext(c.ctx); err != nil {
		c.log.Debug("pgwire: TLS handshake", "err", err)
		return false
	}
	c.useConn(tc)
	return true
}

// useConn makes nc the connection's transport, with a fresh reader and
// protocol backend over it. nc is swapped under mu, where shutdown and
// setDeadline read it.
func (c *conn) useConn(nc net.Conn) {
	c.mu.Lock()
	c.nc = nc
	c.mu.Unlock()
	c.rd = bufio.NewReader(nc)
	c.be = pgproto3.NewBackend(c.rd, nc)
	c.be.SetMaxBodyLen(c.srv.opts.MaxMessageSize)
}

// encrypted reports whether the connection runs over TLS.
func (c *conn) encrypted() bool {
	_, ok := c.nc.(*tls.Conn)
	return ok
}
