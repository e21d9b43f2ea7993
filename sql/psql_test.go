package sql

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPsqlQueries parses the catalog queries psql 15 sends for \d-style
// commands (captured with psql -E). They must parse; the binder decides
// what to do with the pg_catalog tables.
func TestPsqlQueries(t *testing.T) {
	files, err := filepath.Glob("testdata/psql/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		stmts, err := NewParser().Parse(string(b))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if len(stmts) != 1 {
			t.Errorf("%s: %d statements", f, len(stmts))
		} else if _, ok := stmts[0].Node.(*SelectStmt); !ok {
			t.Errorf("%s: %T", f, stmts[0].Node)
		}
	}
}
