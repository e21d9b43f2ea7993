package storage

import "github.com/cockroachdb/pebble/v2"

// quietLogger drops Pebble's informational messages (WAL replay on every
// Open and the like, which would clutter a server's or CLI's output) and
// passes errors and fatal errors on to Pebble's default logger.
type quietLogger struct{}

func (quietLogger) Infof(string, ...any) {}

func (quietLogger) Errorf(format string, args ...any) {
	pebble.DefaultLogger.Errorf(format, args...)
}

func (quietLogger) Fatalf(format string, args ...any) {
	pebble.DefaultLogger.Fatalf(format, args...)
}
