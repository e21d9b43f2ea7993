package planner_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
	"github.com/streamdb/streamdb/sql/binder"
	"github.com/streamdb/streamdb/storage"
)

// TestPruneTestdata prints the columns each scan of a plan reads
// (planner.ScanReads), per testdata/prune file; its commands:
//
//	exec: CREATE TABLE / CREATE MATERIALIZED VIEW statements, added to
//	      the catalog (nothing printed).
//	reads: a SELECT (its batch plan) or a CREATE MATERIALIZED VIEW (its
//	      stream plan, not added): one line per scan, in plan order.
func TestPruneTestdata(t *testing.T) {
	datadriven.Walk(t, "testdata/prune", func(t *testing.T, path string) {
		st, err := storage.Open("", storage.Options{InMemory: true, NoSync: true, MemTableSize: 1 << 20, CacheSize: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		s := &streamCatalog{cat: memCatalog{}, store: st}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			var out []string
			var err error
			switch d.Cmd {
			case "exec":
				_, err = s.exec(d.Input)
			case "reads":
				out, err = s.reads(d.Input)
			default:
				d.Fatalf(t, "unknown command %q", d.Cmd)
			}
			if err != nil {
				pe := pgerr.As(err)
				out = append(out, fmt.Sprintf("ERROR %s: %s", pe.Code, pe.Message))
			}
			return strings.Join(out, "\n") + "\n"
		})
	})
}

func (s *streamCatalog) reads(input string) ([]string, error) {
	stmts, err := sql.NewParser().Parse(input)
	if err != nil {
		return nil, err
	}
	res, err := binder.Bind(s.cat, stmts[0], binder.Options{})
	if err != nil {
		return nil, err
	}
	var plan planner.Node
	switch b := res.Stmt.(type) {
	case *planner.Query:
		plan = b.Plan
	case *planner.CreateView:
		shape, err := planner.PlanView(b.Query, b.ColNames)
		if err != nil {
			return nil, err
		}
		plan = shape.Plan
	default:
		return nil, fmt.Errorf("reads: unexpected %T", b)
	}
	reads := planner.ScanReads(plan)
	var out []string
	seen := map[*planner.Scan]bool{}
	var walk func(n planner.Node)
	walk = func(n planner.Node) {
		if sc, ok := n.(*planner.Scan); ok && !seen[sc] {
			seen[sc] = true
			out = append(out, describeReads(sc.Rel, reads[sc]))
		}
		for _, c := range n.Inputs() {
			walk(c)
		}
	}
	walk(plan)
	return out, nil
}

func describeReads(rel *catalog.Relation, read []bool) string {
	if read == nil {
		return rel.Name + ": all"
	}
	var cols []string
	for i, r := range read {
		if r {
			cols = append(cols, rel.Columns[i].Name)
		}
	}
	return rel.Name + ": " + strings.Join(cols, ", ")
}
