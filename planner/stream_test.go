package planner_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
	"github.com/streamdb/streamdb/sql/binder"
	"github.com/streamdb/streamdb/storage"
)

// defaultStreamParallelism stands in for the database's default
// parallelism (the number of cores) in the stream plan files, so their
// output does not depend on the machine.
const defaultStreamParallelism = 4

// TestStreamTestdata plans materialized views the way EXPLAIN CREATE
// MATERIALIZED VIEW does (PlanView, then BuildViewJob of a job that never
// runs) and prints the stream plan and its fragment graph. Each file
// under testdata/stream starts from an empty catalog; its commands:
//
//	exec: CREATE TABLE / CREATE SOURCE / CREATE MATERIALIZED VIEW
//	      statements, added to the catalog; a view prints its plan.
//	explain: a CREATE MATERIALIZED VIEW, planned but not added.
//
// A view's parallelism is its WITH (streaming_parallelism = n), else
// defaultStreamParallelism; a table's is 1 unless given.
func TestStreamTestdata(t *testing.T) {
	datadriven.Walk(t, "testdata/stream", func(t *testing.T, path string) {
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
				out, err = s.exec(d.Input)
			case "explain":
				out, err = s.explain(d.Input)
			default:
				d.Fatalf(t, "unknown command %q", d.Cmd)
			}
			if err != nil {
				pe := pgerr.As(err)
				out = append(out, fmt.Sprintf("ERROR %s: %s", pe.Code, pe.Message))
			}
			return strings.Join(out, "\n")
		})
	})
}

// streamCatalog is a stream plan file's catalog.
type streamCatalog struct {
	cat    memCatalog
	store  *storage.Store
	lastID uint32
}

// exec runs the DDL statements of input, printing the plans of the views.
func (s *streamCatalog) exec(input string) ([]string, error) {
	stmts, err := sql.NewParser().Parse(input)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, st := range stmts {
		res, err := binder.Bind(s.cat, st, binder.Options{})
		if err != nil {
			return out, err
		}
		switch b := res.Stmt.(type) {
		case *planner.CreateTable:
			if err := s.createTable(b); err != nil {
				return out, err
			}
		case *planner.CreateView:
			rel, lines, err := s.planView(b)
			if err != nil {
				return out, err
			}
			s.cat[rel.Name] = rel
			rel.State = catalog.StateCreated
			out = append(out, lines...)
		default:
			return out, fmt.Errorf("exec: unexpected %T", b)
		}
	}
	return out, nil
}

// explain plans the CREATE MATERIALIZED VIEW of input.
func (s *streamCatalog) explain(input string) ([]string, error) {
	stmts, err := sql.NewParser().Parse(input)
	if err != nil {
		return nil, err
	}
	res, err := binder.Bind(s.cat, stmts[0], binder.Options{})
	if err != nil {
		return nil, err
	}
	cv, ok := res.Stmt.(*planner.CreateView)
	if !ok {
		return nil, fmt.Errorf("explain: %T is not a CREATE MATERIALIZED VIEW", res.Stmt)
	}
	_, lines, err := s.planView(cv)
	return lines, err
}

// createTable adds a table or source to the catalog as CREATE TABLE does:
// a hidden row id when it has no primary key, distributed by its key.
func (s *streamCatalog) createTable(ct *planner.CreateTable) error {
	s.lastID++
	rel := &catalog.Relation{ID: s.lastID, Name: ct.Name, Kind: catalog.KindTable, State: catalog.StateCreated,
		Columns: append([]catalog.Column(nil), ct.Columns...), PK: append([]int(nil), ct.PK...),
		Connector: ct.Connector, Parallelism: 1}
	if ct.Source {
		rel.Kind = catalog.KindSource
	}
	if len(rel.PK) == 0 {
		rel.Columns = append(rel.Columns, catalog.Column{Name: "_row_id", Type: types.TInt64, NotNull: true, Hidden: true})
		rel.PK, rel.RowID = []int{len(rel.Columns) - 1}, true
	}
	rel.DistKey = rel.PK
	if v, ok := ct.With["streaming_parallelism"]; ok {
		n, err := binder.ParseParallelism("streaming_parallelism", v)
		if err != nil {
			return err
		}
		rel.Parallelism = max(n, 1)
	}
	s.cat[rel.Name] = rel
	return nil
}

// planView builds the job of a new view as EXPLAIN does, and returns the
// view's relation (its DistKey decided) and the lines to print: the
// stream plan, the view's columns and keys, and the fragment graph.
func (s *streamCatalog) planView(cv *planner.CreateView) (*catalog.Relation, []string, error) {
	shape, err := planner.PlanView(cv.Query, cv.ColNames)
	if err != nil {
		return nil, nil, err
	}
	par := defaultStreamParallelism
	if v, ok := cv.With["streaming_parallelism"]; ok {
		n, err := binder.ParseParallelism("streaming_parallelism", v)
		if err != nil {
			return nil, nil, err
		}
		if n > 0 {
			par = n
		}
	}
	rel := &catalog.Relation{ID: s.lastID + 1, Name: cv.Name, Kind: catalog.KindMaterializedView, State: catalog.StateCreating,
		Columns: shape.Columns, PK: shape.PK, DistKey: shape.PK, Parallelism: par}
	job, err := planner.BuildViewJob(rel, shape, &dryEnv{cat: s.cat, store: s.store}, planner.Backfill)
	if err != nil {
		return nil, nil, err
	}
	s.lastID++
	lines := planner.Explain(shape.Plan)
	lines = append(lines, describeRelation(rel))
	return rel, append(lines, planner.ExplainFragments(job.Fragments)...), nil
}

// describeRelation prints a view's columns (hidden ones marked), its key
// and its distribution key.
func describeRelation(r *catalog.Relation) string {
	cols := make([]string, len(r.Columns))
	for i, c := range r.Columns {
		cols[i] = c.Name + " " + c.Type.String()
		if c.Hidden {
			cols[i] += " hidden"
		}
	}
	names := func(idx []int) string {
		parts := make([]string, len(idx))
		for i, k := range idx {
			parts[i] = r.Columns[k].Name
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	return fmt.Sprintf("View %s (%s) key %s dist %s", r.Name, strings.Join(cols, ", "), names(r.PK), names(r.DistKey))
}

// dryEnv builds a job that never runs, with made-up actor and state table
// ids, as EXPLAIN does.
type dryEnv struct {
	cat    memCatalog
	store  *storage.Store
	actors stream.ActorID
	tables uint32
}

func (e *dryEnv) Store() *storage.Store                        { return e.store }
func (e *dryEnv) NewActorID() stream.ActorID                   { e.actors++; return e.actors }
func (e *dryEnv) ErrorLog() stream.ErrorLog                    { return nil }
func (e *dryEnv) NextStateTableID() uint32                     { e.tables++; return e.tables }
func (e *dryEnv) Relation(id uint32) (*catalog.Relation, bool) { return e.cat.RelationByID(id) }
