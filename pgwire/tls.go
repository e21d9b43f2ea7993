package pgwire

import (
	"bufio"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"crypto/x509"
	"hash"
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
	base := c.srv.opts.TLSConfig
	cfg := base.Clone()
	cfg.Certificates = nil // so that the handshake always asks GetCertificate
	var served *tls.Certificate
	cfg.GetCertificate = func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
		cert, err := serverCertificate(base, hello)
		served = cert
		return cert, err
	}
	tc := tls.Server(c.nc, cfg)
	if err := tc.HandshakeContext(c.ctx); err != nil {
		c.log.Debug("pgwire: TLS handshake", "err", err)
		return false
	}
	c.certHash = endPointHash(served)
	c.useConn(tc)
	return true
}

// serverCertificate picks the certificate crypto/tls would serve from
// cfg for hello: cfg.GetCertificate's when it gives one, else the only
// certificate, else the first that hello supports, else the first. The
// handshake runs with a GetCertificate around it, so that the connection
// knows which one it served (its hash binds SCRAM to the channel). (A
// GetConfigForClient of cfg bypasses it: no channel binding then.)
func serverCertificate(cfg *tls.Config, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	if cfg.GetCertificate != nil && (len(cfg.Certificates) == 0 || hello.ServerName != "") {
		cert, err := cfg.GetCertificate(hello)
		if cert != nil || err != nil {
			return cert, err
		}
	}
	switch len(cfg.Certificates) {
	case 0:
		return nil, ErrTLSWithoutCertificate
	case 1:
		return &cfg.Certificates[0], nil
	}
	for i := range cfg.Certificates {
		if hello.SupportsCertificate(&cfg.Certificates[i]) == nil {
			return &cfg.Certificates[i], nil
		}
	}
	return &cfg.Certificates[0], nil
}

// endPointHash returns the tls-server-end-point channel binding data of
// cert (RFC 5929 §4.1): the hash of its DER form, by the hash of its
// signature algorithm, SHA-256 for MD5 and SHA-1. It returns nil when
// that is undefined (Ed25519) or cert cannot be parsed: the server then
// offers no SCRAM-SHA-256-PLUS, as PostgreSQL.
func endPointHash(cert *tls.Certificate) []byte {
	if cert == nil || len(cert.Certificate) == 0 {
		return nil
	}
	leaf := cert.Leaf
	if leaf == nil {
		var err error
		if leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
			return nil
		}
	}
	var h hash.Hash
	switch leaf.SignatureAlgorithm {
	case x509.MD5WithRSA, x509.SHA1WithRSA, x509.ECDSAWithSHA1, x509.DSAWithSHA1,
		x509.SHA256WithRSA, x509.SHA256WithRSAPSS, x509.ECDSAWithSHA256, x509.DSAWithSHA256:
		h = sha256.New()
	case x509.SHA384WithRSA, x509.SHA384WithRSAPSS, x509.ECDSAWithSHA384:
		h = sha512.New384()
	case x509.SHA512WithRSA, x509.SHA512WithRSAPSS, x509.ECDSAWithSHA512:
		h = sha512.New()
	default:
		return nil
	}
	h.Write(leaf.Raw)
	return h.Sum(nil)
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
