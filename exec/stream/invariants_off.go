//go:build !invariants

package stream

import "github.com/streamdb/streamdb/internal/types"

// invariants is false in the release build: every check guarded by it is
// compiled away. Build with -tags invariants to turn them on.
const invariants = false

// checkPausedEmit is the I2 check; see invariants_on.go.
func (s *StreamScan) checkPausedEmit(Message) {}

// checkOwned and checkOwnedRow are the I4 routing checks; see
// invariants_on.go.
func (s *StreamScan) checkOwned(Message)           {}
func (s *StreamScan) checkOwnedRow([]types.Datum)  {}
func (m *Materialize) checkOwnedRow([]types.Datum) {}
