// Package failpoint lets tests make named points of the engine fail: an
// error returned, a panic, a stream that ends without a barrier, or (in a
// server process a test started) an exit as sudden as a kill -9; on
// every hit or after some hits, a few times or with a probability. It is
// how the recovery paths (../../ARCHITECTURE.md, I5 and I6) are tested.
//
// # Cost
//
// Failpoints exist only under the invariants build tag (the test command,
// go test -tags invariants ./...). In a release build Enabled is false and
// Hit is an empty function, so a call site guarded by
//
//	if failpoint.Enabled {
//		if err := failpoint.Hit(failpoint.StorageCommit); err != nil {
//			return err
//		}
//	}
//
// compiles to nothing.
//
// # Use
//
// A test enables a point with Enable and disables it with the function
// Enable returns (or Reset). Points are process-wide: a test that enables
// one must not run in parallel with tests of the same process (the tests
// of this module do not call t.Parallel). A child process (a server a test
// starts) takes its points from the STREAMDB_FAILPOINTS environment
// variable, parsed at start-up (see Parse):
//
//	STREAMDB_FAILPOINTS='storage/commit=error,prob=0.01;stream/send=end,after=100,times=1'
//
// The names are the constants of names.go, each documented with where it
// is and what each action does there.
//
// # Concurrency
//
// Hit, Enable, Disable and Stats are safe for concurrent use. Enable
// replaces a point's settings and zeroes its counts.
package failpoint
