package planner_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/cockroachdb/datadriven"

	"github.com/streamdb/streamdb/exec/batch"
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
	"github.com/streamdb/streamdb/sql/binder"
)

type memCatalog map[string]*catalog.Relation

func (c memCatalog) Relation(name string) (*catalog.Relation, bool) {
	r, ok := c[name]
	return r, ok
}

func (c memCatalog) RelationByID(id uint32) (*catalog.Relation, bool) {
	for _, r := range c {
		if r.ID == id {
			return r, true
		}
	}
	return nil, false
}

func dec(s string) *apd.Decimal {
	d, _, err := apd.NewFromString(s)
	if err != nil {
		panic(err)
	}
	return d
}

// fixture returns the test tables and their rows:
//
//	t(a integer primary key, b text, c numeric)
//	u(a integer, d text) with a hidden row id
//	e(x bigint), empty
func fixture() (memCatalog, batch.MemSource) {
	col := func(name string, t types.Type) catalog.Column { return catalog.Column{Name: name, Type: t} }
	cat := memCatalog{
		"t": {ID: 1, Name: "t", Columns: []catalog.Column{
			{Name: "a", Type: types.TInt32, NotNull: true}, col("b", types.TText), col("c", types.TNumeric)}, PK: []int{0}},
		"u": {ID: 2, Name: "u", Columns: []catalog.Column{
			col("a", types.TInt32), col("d", types.TText), {Name: "_row_id", Type: types.TInt64, Hidden: true}},
			PK: []int{2}, RowID: true},
		"e": {ID: 3, Name: "e", Columns: []catalog.Column{col("x", types.TInt64)}},
	}
	src := batch.MemSource{
		"t": {
			{int64(1), "x", dec("1.5")},
			{int64(2), "y", nil},
			{int64(3), "x", dec("2")},
			{int64(4), nil, dec("10")},
		},
		"u": {
			{int64(1), "one", int64(100)},
			{int64(3), "three", int64(101)},
			{nil, "nul", int64(102)},
			{int64(5), "five", int64(103)},
			{int64(3), "tres", int64(104)},
		},
		"e": {},
	}
	return cat, src
}

// execute parses, binds, builds and runs a statement: a query's rows, or
// an INSERT's source rows.
func execute(query string) ([]planner.Column, [][]types.Datum, error) {
	cat, src := fixture()
	stmts, err := sql.NewParser().Parse(query)
	if err != nil {
		return nil, nil, err
	}
	res, err := binder.Bind(cat, stmts[0], binder.Options{})
	if err != nil {
		return nil, nil, err
	}
	var plan planner.Node
	switch s := res.Stmt.(type) {
	case *planner.Query:
		plan = s.Plan
	case *planner.Insert:
		plan = s.Source
	default:
		return nil, nil, fmt.Errorf("cannot run %T", s)
	}
	ex, err := planner.BuildBatch(plan, src)
	if err != nil {
		return nil, nil, err
	}
	rows, err := batch.ReadAll(context.Background(), ex)
	if cerr := ex.Close(); err == nil {
		err = cerr
	}
	return plan.Columns(), rows, err
}

func TestBatchTestdata(t *testing.T) {
	datadriven.RunTest(t, "testdata/batch", func(t *testing.T, d *datadriven.TestData) string {
		if d.Cmd != "query" {
			d.Fatalf(t, "unknown command %q", d.Cmd)
		}
		for _, a := range d.CmdArgs {
			if a.Key != "sort" {
				d.Fatalf(t, "unknown argument %q", a.Key)
			}
		}
		cols, rows, err := execute(d.Input)
		if err != nil {
			pe := pgerr.As(err)
			return fmt.Sprintf("ERROR %s: %s", pe.Code, pe.Message)
		}
		lines := renderRows(cols, rows)
		if d.HasArg("sort") {
			slices.Sort(lines)
		}
		return strings.Join(append([]string{header(cols)}, lines...), "\n")
	})
}

func header(cols []planner.Column) string {
	var names []string
	for _, c := range cols {
		if !c.Hidden {
			names = append(names, c.Name)
		}
	}
	return strings.Join(names, " | ")
}

// renderRows renders the visible columns of rows as psql shows them.
func renderRows(cols []planner.Column, rows [][]types.Datum) []string {
	var out []string
	for _, r := range rows {
		var vals []string
		for j, c := range cols {
			if c.Hidden {
				continue
			}
			if r[j] == nil {
				vals = append(vals, "NULL")
			} else {
				vals = append(vals, types.Format(r[j], c.Type))
			}
		}
		out = append(out, strings.Join(vals, " | "))
	}
	return out
}

func TestBuildBatchUnknownNode(t *testing.T) {
	_, err := planner.BuildBatch(bogusNode{}, batch.MemSource{})
	if err == nil {
		t.Fatal("expected an error")
	}
}

type bogusNode struct{}

func (bogusNode) Columns() []planner.Column { return nil }
func (bogusNode) Inputs() []planner.Node    { return nil }

// TestQueryCancel: a cancelled context stops a long query between chunks.
func TestQueryCancel(t *testing.T) {
	cat, src := fixture()
	stmts, err := sql.NewParser().Parse("SELECT count(*) FROM generate_series(1, 100000000)")
	if err != nil {
		t.Fatal(err)
	}
	res, err := binder.Bind(cat, stmts[0], binder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ex, err := planner.BuildBatch(res.Stmt.(*planner.Query).Plan, src)
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ex.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
}
