package storage

import (
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// quietLogger drops Pebble's informational messages (WAL replay on every
// Open and the like, which would clutter a server's or CLI's output) and
// passes errors on to Pebble's default logger.
//
// Fatalf, which Pebble calls when it cannot write or sync its WAL (a full
// disk, an I/O error) and which would exit the process, panics with a
// pebbleFatal instead: the write that called it (Store.guard) turns it
// into the failure of the store (failure.go), so that writers get a
// clear error (53100 disk_full, 58030 io_error) and readers keep working.
// Called from one of Pebble's own goroutines, the panic still ends the
// process, with the message and a stack.
type quietLogger struct{}

func (quietLogger) Infof(string, ...any) {}

func (quietLogger) Errorf(format string, args ...any) {
	pebble.DefaultLogger.Errorf(format, args...)
}

func (quietLogger) Fatalf(format string, args ...any) {
	f := &pebbleFatal{msg: fmt.Sprintf(format, args...)}
	for _, a := range args {
		if err, ok := a.(error); ok {
			f.err = err
			break
		}
	}
	panic(f)
}

// IsFatal reports whether v, a recovered panic, is a fatal error of
// Pebble. Outside a store write (Store.guard), where Pebble has found its
// own state broken (an iterator's invariant, a MANIFEST it cannot write),
// the process must stop as Pebble meant: a recover that meets one panics
// again.
func IsFatal(v any) bool {
	_, ok := v.(*pebbleFatal)
	return ok
}

// pebbleFatal is a fatal error of Pebble (see quietLogger.Fatalf).
type pebbleFatal struct {
	msg string
	err error // the error among Fatalf's arguments, if any
}

func (f *pebbleFatal) Error() string { return f.msg }

// Unrecoverable marks the panic as one a recover must raise again (see
// IsFatal), for packages that cannot import storage (pgwire).
func (f *pebbleFatal) Unrecoverable() {}
func (f *pebbleFatal) Unwrap() error  { return f.err }
