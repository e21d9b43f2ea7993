package streamdb_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"strconv"
	"strings"
	"testing"
)

// internalLeaks returns, for the Go files of one package, every exported
// declaration whose type names a type of an internal/ package: exported
// types (their exported fields and methods), functions, methods of
// exported types, and variables and constants.
func internalLeaks(fset *token.FileSet, files []*ast.File) []string {
	var leaks []string
	for _, f := range files {
		internal := map[string]bool{} // import names of internal packages
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !strings.Contains(p, "/internal/") && !strings.HasPrefix(p, "internal/") {
				continue
			}
			name := path.Base(p)
			if imp.Name != nil {
				name = imp.Name.Name
			}
			internal[name] = true
		}
		check := func(what string, n ast.Node) {
			if n == nil {
				return
			}
			ast.Inspect(n, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && internal[id.Name] {
						leaks = append(leaks, fset.Position(sel.Pos()).String()+": "+what+" names "+id.Name+"."+sel.Sel.Name)
					}
				}
				return true
			})
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() || d.Recv != nil && !exportedRecv(d.Recv) {
					continue
				}
				check(d.Name.Name, d.Type)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							checkType(s.Name.Name, s.Type, check)
						}
					case *ast.ValueSpec:
						for i, name := range s.Names {
							if !name.IsExported() {
								continue
							}
							check(name.Name, s.Type)
							if i < len(s.Values) {
								check(name.Name, s.Values[i])
							}
						}
					}
				}
			}
		}
	}
	return leaks
}

// checkType checks an exported type: its exported struct fields and
// interface methods, or the whole of any other type expression.
func checkType(name string, t ast.Expr, check func(string, ast.Node)) {
	var fields *ast.FieldList
	switch t := t.(type) {
	case *ast.StructType:
		fields = t.Fields
	case *ast.InterfaceType:
		fields = t.Methods
	default:
		check(name, t)
		return
	}
	for _, f := range fields.List {
		if len(f.Names) == 0 { // embedded: its exported members are promoted
			check(name, f.Type)
		}
		for _, n := range f.Names {
			if n.IsExported() {
				check(name+"."+n.Name, f.Type)
			}
		}
	}
}

func exportedRecv(recv *ast.FieldList) bool {
	t := recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if g, ok := t.(*ast.IndexExpr); ok {
		t = g.X
	}
	id, ok := t.(*ast.Ident)
	return ok && id.IsExported()
}

// TestNoInternalTypesInAPI fails when an exported identifier of package
// streamdb names a type of an internal/ package: an embedding program
// could receive a value it cannot name.
func TestNoInternalTypesInAPI(t *testing.T) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		t.Fatal("no files")
	}
	for _, l := range internalLeaks(fset, files) {
		t.Error(l)
	}

	// The check finds each kind of leak.
	src := `package p
import (
	"example.com/m/internal/engine"
	ty "example.com/m/internal/types"
)
type Rows struct{ Datums []ty.Datum; ok engine.Rows }
type Alias = engine.Rows
type Face interface{ Get() *engine.Rows }
func (r *Rows) Relation() engine.Relation { return nil }
func Open(f func(engine.Opts)) {}
var Default = engine.Options{}
type hidden struct{ X engine.Rows }
func (h hidden) Y() engine.Rows { return nil }
`
	f, err := parser.ParseFile(fset, "leak.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	leaks := internalLeaks(fset, []*ast.File{f})
	want := []string{"Rows.Datums", "Alias", "Face.Get", "Relation", "Open", "Default"}
	if len(leaks) != len(want) {
		t.Fatalf("found %d leaks, want %d: %v", len(leaks), len(want), leaks)
	}
	for i, w := range want {
		if !strings.Contains(leaks[i], ": "+w+" names ") {
			t.Errorf("leak %d: %s, want %s", i, leaks[i], w)
		}
	}
}
