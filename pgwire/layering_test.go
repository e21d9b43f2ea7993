package pgwire

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLayering keeps pgwire below the database: it must not depend on the
// root package or the SQL, planner, execution or storage layers.
func TestLayering(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("skipping: go list failed: %v", err)
	}
	const mod = "github.com/streamdb/streamdb"
	for _, pkg := range strings.Fields(string(out)) {
		rest, ok := strings.CutPrefix(pkg, mod)
		if !ok || pkg == mod+"/pgwire" || strings.HasPrefix(rest, "/internal/") {
			continue
		}
		t.Errorf("pgwire depends on %s", pkg)
	}
}
