//go:build !invariants

package failpoint

// Enabled reports whether failpoints are compiled in: not in this build
// (build with -tags invariants).
const Enabled = false

// Hit is a no-op in this build.
func Hit(string) error { return nil }

// Enable fails in this build with ErrDisabled.
func Enable(string, Spec) (func(), error) { return nil, ErrDisabled }

// Disable is a no-op in this build.
func Disable(string) {}

// Reset is a no-op in this build.
func Reset() {}

// Stats returns zeros in this build.
func Stats(string) (hits, fired int64) { return 0, 0 }
