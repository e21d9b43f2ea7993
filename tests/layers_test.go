package tests

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"strings"
	"testing"
)

// layer ranks the packages: a package may import only packages of a lower
// rank (the ARCHITECTURE.md layering: cmd > root > engine > system
// catalogs > pgwire, sql > planner > exec > connectors > expressions >
// storage > internal foundations). The system catalogs rank below sql
// too: they import none of it, and the binder reaches their functions
// only through the engine's catalog.Functions.
// Nothing under sql/ may import anything under exec/: the binder builds
// expressions (internal/expr) and names connectors (internal/connector),
// both shared layers below it.
var layer = map[string]int{
	"cmd/streamdb":           90,
	"internal/sltdb":         85,
	"internal/bench":         85,
	"":                       80, // the root package: the public API
	"internal/engine":        75,
	"internal/dashboard":     74, // the dashboard's handler and assets; reads the engine through its Source interface
	"internal/engine/write":  72,
	"pgwire":                 70,
	"internal/slt":           70,
	"sql/binder":             60,
	"sql":                    55,
	"sql/literal":            50,
	"internal/systemcatalog": 45, // pg_catalog, information_schema, streamdb_catalog; lists the planner's fragments
	"planner":                40,
	"exec/batch":             30,
	"exec/stream":            30,
	"internal/connector":     25,
	"internal/window":        22, // window functions: their definitions (bound by sql) and evaluation
	"internal/vec":           21, // predicates over whole Arrow chunks, compiled from internal/expr's
	"internal/expr":          20,
	"internal/distsim":       11, // the multi-process-over-Kafka simulation (docs/distributed.md); imports storage's vnode hash
	"storage":                10,
	"internal/catalog":       5,
	"internal/chunk":         5,
	"internal/pgcopy":        5,
	"internal/types":         2,
	"internal/jsonb":         1, // jsonb values (types keeps jsonb as their text)
	"internal/pgerr":         0,
	"internal/failpoint":     0, // imports nothing of ours
	"internal/pgserver":      0, // starts PostgreSQL for tests and bench; imports nothing of ours
	"internal/testcert":      0, // self-signed TLS certificates for tests

	// The Kafka source's reader (franz-go), options and decoders: over
	// internal/connector, under exec/stream (the planner joins them).
	"internal/connector/kafka": 26,
}

// TestLayering fails when a package imports one of the same or a higher
// layer.
func TestLayering(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "../...").Output()
	if err != nil {
		t.Fatal(err)
	}
	const mod = "github.com/streamdb/streamdb"
	rel := func(p string) (string, bool) {
		if p == mod {
			return "", true
		}
		if strings.HasPrefix(p, mod+"/") {
			return strings.TrimPrefix(p, mod+"/"), true
		}
		return "", false
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		from, _ := rel(fields[0])
		fromRank, known := layer[from]
		if !known {
			if !strings.HasPrefix(from, "tests") {
				t.Errorf("package %q has no layer in layers_test.go", from)
			}
			continue
		}
		for _, imp := range fields[1:] {
			to, ours := rel(imp)
			if !ours {
				continue
			}
			if toRank, ok := layer[to]; ok && toRank >= fromRank {
				t.Errorf("%q (layer %d) imports %q (layer %d)", from, fromRank, to, toRank)
			}
		}
	}
}

// TestSQLDoesNotImportExec keeps the front end off the executors: sql/
// binds statements into the planner's logical plan using the shared layers
// (internal/expr, internal/connector); only the planner imports exec/.
func TestSQLDoesNotImportExec(t *testing.T) {
	out, err := exec.Command("go", "list", "-test", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "../sql/...").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		for _, imp := range fields[1:] {
			if strings.HasPrefix(imp, "github.com/streamdb/streamdb/exec/") {
				t.Errorf("%s imports %s", fields[0], imp)
			}
		}
	}
}

// TestRootAPINamesNoInternalType keeps the public API public: no exported
// declaration of the root package (a function's or method's signature, an
// exported field, a type, a constant's or variable's type) names a type
// of an internal/ package, which an embedding program could not name.
func TestRootAPINamesNoInternalType(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, "..", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			internal := map[string]string{} // local name -> import path
			for _, imp := range f.Imports {
				path := strings.Trim(imp.Path.Value, `"`)
				if !strings.Contains(path, "/internal/") {
					continue
				}
				local := path[strings.LastIndex(path, "/")+1:]
				if imp.Name != nil {
					local = imp.Name.Name
				}
				internal[local] = path
			}
			check := func(what string, n ast.Node) {
				if n == nil {
					return
				}
				ast.Inspect(n, func(n ast.Node) bool {
					if sel, ok := n.(*ast.SelectorExpr); ok {
						if id, ok := sel.X.(*ast.Ident); ok && internal[id.Name] != "" {
							t.Errorf("%s: %s names %s.%s (%s)", fset.Position(sel.Pos()), what, id.Name, sel.Sel.Name, internal[id.Name])
						}
					}
					return true
				})
			}
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if !d.Name.IsExported() || (d.Recv != nil && !exportedRecv(d.Recv)) {
						continue
					}
					check("func "+d.Name.Name, d.Type)
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							if !s.Name.IsExported() {
								continue
							}
							if st, ok := s.Type.(*ast.StructType); ok {
								for _, fld := range st.Fields.List {
									for _, n := range fld.Names {
										if n.IsExported() {
											check("field "+s.Name.Name+"."+n.Name, fld.Type)
										}
									}
									if len(fld.Names) == 0 {
										check("embedded field of "+s.Name.Name, fld.Type)
									}
								}
								continue
							}
							check("type "+s.Name.Name, s.Type)
						case *ast.ValueSpec:
							for i, n := range s.Names {
								if !n.IsExported() {
									continue
								}
								check("value "+n.Name, s.Type)
								if i < len(s.Values) {
									check("value "+n.Name, s.Values[i])
								}
							}
						}
					}
				}
			}
		}
	}
}

// exportedRecv reports whether a method's receiver type is exported.
func exportedRecv(recv *ast.FieldList) bool {
	typ := recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	if idx, ok := typ.(*ast.IndexExpr); ok {
		typ = idx.X
	}
	id, ok := typ.(*ast.Ident)
	return ok && id.IsExported()
}
