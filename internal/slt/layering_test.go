package slt

import (
	goparser "go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportsStayBelowRoot keeps the runner independent of the database it
// tests: no non-test file may import a streamdb package.
func TestImportsStayBelowRoot(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := goparser.ParseFile(token.NewFileSet(), f, nil, goparser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "github.com/streamdb/streamdb") {
				t.Errorf("%s imports %s", f, path)
			}
		}
	}
}

// TestProjectFilesParse parses every .slt file of the repository, so a
// dialect gap shows up here rather than as a failed run.
func TestProjectFilesParse(t *testing.T) {
	var n int
	_ = filepath.WalkDir("../..", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".slt" {
			return nil
		}
		n++
		if _, err := loadFile(path); err != nil {
			t.Errorf("%v", err)
		}
		return nil
	})
	t.Logf("parsed %d files", n)
}
