//go:build !invariants

package stream

// invariants is false in the release build: every check guarded by it is
// compiled away. Build with -tags invariants to turn them on.
const invariants = false

// checkPausedEmit is the I2 check; see invariants_on.go.
func (s *StreamScan) checkPausedEmit(Message) {}
