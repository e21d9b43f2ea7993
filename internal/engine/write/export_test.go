package write

import (
	"os"
	"testing"
)

// SetStagingLimits lowers the staging limits (bytes of rows held in
// memory, bytes of a key run) until the test ends, so that statements
// spill to temporary files.
func SetStagingLimits(t testing.TB, mem, keys int) {
	oldMem, oldKeys := copyMemBytes, copyKeyRunBytes
	copyMemBytes, copyKeyRunBytes = mem, keys
	t.Cleanup(func() { copyMemBytes, copyKeyRunBytes = oldMem, oldKeys })
}

// SetBeforeSend makes fn run when a COPY's rows are checked, before they
// are sent, until the test ends; fn gets the staged rows' spill file (nil
// when they are all in memory).
func SetBeforeSend(t testing.TB, fn func(spill *os.File)) {
	copyBeforeSend = func(s *copyStage) {
		var f *os.File
		if s.held.spill != nil {
			f = s.held.spill.f
		}
		fn(f)
	}
	t.Cleanup(func() { copyBeforeSend = nil })
}

// SetIngestParts makes bulk ingests (of at least minRows rows) cut their
// keys into up to parts ranges, of at least partRows rows, each walked
// by a goroutine, until the test ends.
func SetIngestParts(t testing.TB, minRows int64, parts int, partRows int64) {
	oldMin, oldParts, oldRows := ingestMinRows, ingestParts, ingestPartRows
	ingestMinRows, ingestParts, ingestPartRows = minRows, parts, partRows
	t.Cleanup(func() { ingestMinRows, ingestParts, ingestPartRows = oldMin, oldParts, oldRows })
}

// SetIngestPartsHook makes fn get the number of ranges of each bulk
// ingest, until the test ends.
func SetIngestPartsHook(t testing.TB, fn func(n int)) {
	ingestPartsHook = fn
	t.Cleanup(func() { ingestPartsHook = nil })
}
