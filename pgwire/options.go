package pgwire

import (
	"crypto/tls"
	"errors"
	"log/slog"
	"time"
)

// Options configure a Server. The zero value of every field means its
// documented default; EnsureDefaults fills them in.
type Options struct {
	// Addr is the TCP address ListenAndServe listens on. Default
	// "127.0.0.1:5432".
	Addr string
	// MaxConnections is the most sessions open at once; one more gets FATAL
	// 53300 "too many connections". Default 100.
	MaxConnections int
	// MaxMessageSize is the largest message body, in bytes, a client may
	// send; a larger one is a protocol violation that closes the
	// connection. Default 64 MiB.
	MaxMessageSize int
	// StartupTimeout bounds the time from accepting a connection to the end
	// of its startup (TLS refusal, startup message, authentication).
	// Default 10s.
	StartupTimeout time.Duration
	// ShutdownGrace bounds how long Close lets a connection write its final
	// "terminating connection" error. Default 1s.
	ShutdownGrace time.Duration
	// ServerVersion is reported as the server_version parameter. It must
	// parse as a Postgres version for psql and pgx. Default "15.0".
	ServerVersion string
	// Password, when set, makes every client authenticate with
	// SCRAM-SHA-256 using it, whatever its user name; a wrong password is
	// FATAL 28P01. The server keeps only a salted verifier, derived at
	// NewServer. Empty (the default): "trust", every client is admitted,
	// which is safe only on a loopback address.
	Password string
	// TLSConfig, when set, makes the server answer a client's SSLRequest
	// with 'S' and run TLS on the connection before its startup message;
	// the server uses a clone whose MinVersion is at least TLS 1.2. It
	// needs a certificate (Certificates or GetCertificate). Nil (the
	// default): SSLRequest is refused with 'N' and clients that prefer TLS
	// continue in plain text. GSSENCRequest is always refused.
	TLSConfig *tls.Config
	// RequireTLS makes the server refuse a plain-text StartupMessage with
	// FATAL 28000; a CancelRequest is still accepted in plain text, as
	// clients send it so. It needs TLSConfig (see Validate).
	RequireTLS bool
	// Logger receives connection errors (at debug level) and recovered
	// panics (at error level). Default: discard.
	Logger *slog.Logger
}

// Defaults for Options.
const (
	DefaultAddr           = "127.0.0.1:5432"
	DefaultMaxConnections = 100
	DefaultMaxMessageSize = 64 << 20
	DefaultStartupTimeout = 10 * time.Second
	DefaultShutdownGrace  = time.Second
	DefaultServerVersion  = "15.0"
)

// EnsureDefaults returns o with every zero field set to its default.
func (o Options) EnsureDefaults() Options {
	if o.Addr == "" {
		o.Addr = DefaultAddr
	}
	if o.MaxConnections <= 0 {
		o.MaxConnections = DefaultMaxConnections
	}
	if o.MaxMessageSize <= 0 {
		o.MaxMessageSize = DefaultMaxMessageSize
	}
	if o.StartupTimeout <= 0 {
		o.StartupTimeout = DefaultStartupTimeout
	}
	if o.ShutdownGrace <= 0 {
		o.ShutdownGrace = DefaultShutdownGrace
	}
	if o.ServerVersion == "" {
		o.ServerVersion = DefaultServerVersion
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.TLSConfig != nil && o.TLSConfig.MinVersion < tls.VersionTLS12 {
		o.TLSConfig = o.TLSConfig.Clone()
		o.TLSConfig.MinVersion = tls.VersionTLS12
	}
	return o
}

// Validate's errors.
var (
	// ErrRequireTLSWithoutConfig: RequireTLS without a TLSConfig would
	// admit no client.
	ErrRequireTLSWithoutConfig = errors.New("pgwire: RequireTLS needs a TLSConfig")
	// ErrTLSWithoutCertificate: a TLSConfig with no way to find a
	// certificate fails every handshake.
	ErrTLSWithoutCertificate = errors.New("pgwire: TLSConfig has no certificate")
)

// Validate reports options the server cannot serve with. Serve calls it
// before accepting any connection.
func (o Options) Validate() error {
	if o.RequireTLS && o.TLSConfig == nil {
		return ErrRequireTLSWithoutConfig
	}
	if c := o.TLSConfig; c != nil && len(c.Certificates) == 0 && c.GetCertificate == nil && c.GetConfigForClient == nil {
		return ErrTLSWithoutCertificate
	}
	return nil
}
