package tests

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMain removes, after the run, the server binary streamdbBinary built
// for the tests that start streamdb as a process (80 MB a run, left in
// the temporary directory otherwise).
func TestMain(m *testing.M) {
	code := m.Run()
	if binary.path != "" {
		os.RemoveAll(filepath.Dir(binary.path))
	}
	os.Exit(code)
}
