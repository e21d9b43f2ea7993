package pgwire

import (
	"bytes"
	"encoding/binary"
	"io"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// Startup packet codes (the first int32 after the length).
const (
	codeCancelRequest = 80877102
	codeSSLRequest    = 80877103
	codeGSSENCRequest = 80877104
	protocolMajor3    = 3
	maxStartupLen     = 10000 // MAX_STARTUP_PACKET_LENGTH in Postgres
)

// startupPacket is a decoded startup-phase packet.
type startupPacket struct {
	code    uint32            // protocol version or request code
	params  map[string]string // startup parameters
	payload []byte            // bytes after the code
}

// startup runs the startup phase; it reports whether a session is ready.
// Before its StartupMessage a client may ask once for TLS (SSLRequest) and
// once for GSS encryption (GSSENCRequest); a repeated request, or one over
// an established TLS session, is a protocol violation, as in Postgres.
func (c *conn) startup() bool {
	c.setDeadline(time.Now().Add(c.srv.opts.StartupTimeout))
	var asked encryptionRequests
	for {
		p, err := c.readStartupPacket()
		if err != nil {
			c.startupFailed(err)
			return false
		}
		switch p.code {
		case codeSSLRequest, codeGSSENCRequest:
			if !c.answerEncryptionRequest(p.code, &asked) {
				return false
			}
		case codeCancelRequest:
			c.handleCancelRequest(p.payload)
			return false
		default:
			if c.srv.opts.RequireTLS && !c.encrypted() {
				c.fatal(&pgerr.Error{Code: "28000", Message: "connection requires SSL: this server accepts only TLS-encrypted connections",
					Hint: "Connect with sslmode=require (or verify-ca, verify-full)."})
				return false
			}
			return c.startSession(p)
		}
	}
}

// encryptionRequests records which encryption requests a client has made.
type encryptionRequests struct{ ssl, gss bool }

// answerEncryptionRequest answers an SSLRequest or GSSENCRequest: 'S' and
// a TLS handshake for an SSLRequest when the server has a TLSConfig, 'N'
// otherwise. It reports whether the startup goes on.
func (c *conn) answerEncryptionRequest(code uint32, asked *encryptionRequests) bool {
	seen := &asked.gss
	if code == codeSSLRequest {
		seen = &asked.ssl
	}
	switch {
	case c.encrypted():
		c.fatal(pgerr.New(pgerr.ProtocolViolation, "%s over an established TLS session", requestName(code)))
		return false
	case *seen:
		c.fatal(pgerr.New(pgerr.ProtocolViolation, "duplicate %s", requestName(code)))
		return false
	}
	*seen = true
	if code == codeSSLRequest && c.srv.opts.TLSConfig != nil {
		return c.startTLS()
	}
	if _, err := c.nc.Write([]byte{'N'}); err != nil {
		c.log.Debug("pgwire: refusing encryption", "err", err)
		return false
	}
	return true
}

func requestName(code uint32) string {
	if code == codeSSLRequest {
		return "SSLRequest"
	}
	return "GSSENCRequest"
}

func (c *conn) startupFailed(err error) {
	if isIOError(err) {
		c.log.Debug("pgwire: reading startup packet", "err", err)
		return
	}
	c.fatal(err)
}

// readStartupPacket reads one length-prefixed startup-phase packet.
func (c *conn) readStartupPacket() (*startupPacket, error) {
	var hdr [8]byte
	if _, err := io.ReadFull(c.rd, hdr[:4]); err != nil {
		return nil, err
	}
	n := int(int32(binary.BigEndian.Uint32(hdr[:4])))
	if n < 8 || n > maxStartupLen {
		return nil, pgerr.New(pgerr.ProtocolViolation, "invalid length of startup packet: %d", n)
	}
	body := make([]byte, n-4)
	if _, err := io.ReadFull(c.rd, body); err != nil {
		return nil, err
	}
	p := &startupPacket{code: binary.BigEndian.Uint32(body), payload: body[4:]}
	if p.code>>16 != protocolMajor3 || p.code == codeCancelRequest {
		return p, checkRequestCode(p.code)
	}
	var err error
	p.params, err = parseStartupParams(p.payload)
	return p, err
}

func checkRequestCode(code uint32) error {
	switch code {
	case codeCancelRequest, codeSSLRequest, codeGSSENCRequest:
		return nil
	}
	return pgerr.New(pgerr.FeatureNotSupported, "unsupported frontend protocol %d.%d: server supports 3.0 to 3.0", code>>16, code&0xffff)
}

// parseStartupParams reads the name/value pairs of a StartupMessage.
func parseStartupParams(b []byte) (map[string]string, error) {
	params := make(map[string]string)
	for len(b) > 1 {
		name, rest, ok1 := bytes.Cut(b, []byte{0})
		value, rest, ok2 := bytes.Cut(rest, []byte{0})
		if !ok1 || !ok2 {
			return nil, pgerr.New(pgerr.ProtocolViolation, "invalid startup packet layout: expected terminator as last byte")
		}
		params[string(name)] = string(value)
		b = rest
	}
	if len(b) != 1 || b[0] != 0 {
		return nil, pgerr.New(pgerr.ProtocolViolation, "invalid startup packet layout: expected terminator as last byte")
	}
	return params, nil
}

// handleCancelRequest acts on a CancelRequest; the connection then closes
// without a reply, as in Postgres.
func (c *conn) handleCancelRequest(payload []byte) {
	var req pgproto3.CancelRequest
	body := binary.BigEndian.AppendUint32(nil, codeCancelRequest)
	if err := req.Decode(append(body, payload...)); err != nil {
		c.log.Debug("pgwire: malformed cancel request", "err", err)
		return
	}
	c.srv.cancelRequest(req.ProcessID, req.SecretKey)
}

// startSession negotiates the protocol, admits and authenticates the user,
// opens the Session and reports the session parameters.
func (c *conn) startSession(p *startupPacket) bool {
	user := p.params["user"]
	if user == "" {
		c.fatal(pgerr.New("28000", "no PostgreSQL user name specified in startup packet"))
		return false
	}
	database := p.params["database"]
	if database == "" {
		database = user
	}
	c.negotiateVersion(p)
	if !c.srv.admit(c) {
		c.fatal(pgerr.New("53300", "too many connections (MaxConnections is %d)", c.srv.opts.MaxConnections))
		return false
	}
	if err := c.srv.auth.authenticate(c, user, database); err != nil {
		c.startupFailed(err)
		return false
	}
	sess, err := c.srv.backend.NewSession(c.ctx, user, database)
	if err != nil {
		c.fatal(err)
		return false
	}
	c.sess, c.user = sess, user
	if ps, ok := sess.(BackendPIDSetter); ok {
		ps.SetBackendPID(c.key.pid)
	}
	if err := c.startupZone(p.params); err != nil {
		c.fatal(err)
		return false
	}
	c.sendParameters(p.params)
	c.send(&pgproto3.BackendKeyData{ProcessID: c.key.pid, SecretKey: c.key.secret[:]})
	if c.readyForQuery() != nil {
		return true // serve closes the session; loop sees ioErr
	}
	c.setDeadline(time.Time{})
	return true
}

// negotiateVersion answers a 3.x request with x > 0, or protocol options
// (_pq_.*), with NegotiateProtocolVersion: this server speaks 3.0.
func (c *conn) negotiateVersion(p *startupPacket) {
	var unknown []string
	for name := range p.params {
		if strings.HasPrefix(name, "_pq_.") {
			unknown = append(unknown, name)
		}
	}
	if p.code&0xffff == 0 && len(unknown) == 0 {
		return
	}
	c.send(&pgproto3.NegotiateProtocolVersion{NewestMinorProtocol: 0, UnrecognizedOptions: unknown})
}

// sendParameters reports the session parameters clients rely on.
func (c *conn) sendParameters(params map[string]string) {
	for _, kv := range [][2]string{
		{"server_version", c.srv.opts.ServerVersion},
		{"server_encoding", "UTF8"},
		{"client_encoding", "UTF8"},
		{"DateStyle", "ISO, MDY"},
		{"IntervalStyle", "postgres"},
		{"TimeZone", c.zone().Name()},
		{"integer_datetimes", "on"},
		{"standard_conforming_strings", "on"},
		{"application_name", params["application_name"]},
		{"is_superuser", "on"},
		{"session_authorization", c.user},
	} {
		c.send(&pgproto3.ParameterStatus{Name: kv[0], Value: kv[1]})
	}
	c.sentZone = c.zone().Name()
}

// authenticator is one authentication method: trustAuth, or scramAuth
// (scram.go) when Options.Password is set. It exchanges messages through
// c.be and ends by queueing AuthenticationOk, or returns the error that
// refuses the client (sent as FATAL, unless it is an I/O error).
type authenticator interface {
	authenticate(c *conn, user, database string) error
}

// trustAuth admits every user.
type trustAuth struct{}

func (trustAuth) authenticate(c *conn, _, _ string) error {
	c.send(&pgproto3.AuthenticationOk{})
	return nil
}
