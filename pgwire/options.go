package pgwire

import (
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
	return o
}
