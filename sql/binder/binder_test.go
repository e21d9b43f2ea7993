package binder

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
)

// bindSQL parses query and binds its last statement.
func bindSQL(query string, opts Options) (*Result, error) {
	stmts, err := sql.NewParser().Parse(query)
	if err != nil {
		return nil, err
	}
	return Bind(newTestCatalog(), stmts[len(stmts)-1], opts)
}

func TestBindTestdata(t *testing.T) {
	datadriven.RunTest(t, "testdata/bind", func(t *testing.T, d *datadriven.TestData) string {
		res, err := bindSQL(d.Input, Options{})
		if err != nil {
			return renderError(err)
		}
		switch d.Cmd {
		case "columns":
			return renderColumns(res)
		case "plan":
			return renderPlan(res)
		}
		d.Fatalf(t, "unknown command %q", d.Cmd)
		return ""
	})
}

func renderError(err error) string {
	pe := pgerr.As(err)
	s := fmt.Sprintf("ERROR %s: %s", pe.Code, pe.Message)
	if pe.Position > 0 {
		s += fmt.Sprintf(" (at %d)", pe.Position)
	}
	return s
}

// renderColumns prints a query's visible output columns and parameters.
func renderColumns(res *Result) string {
	var sb strings.Builder
	if q, ok := res.Stmt.(*planner.Query); ok {
		for _, c := range q.Plan.Columns() {
			if !c.Hidden {
				fmt.Fprintf(&sb, "%s %s\n", c.Name, c.Type)
			}
		}
	}
	for i, t := range res.ParamTypes {
		fmt.Fprintf(&sb, "$%d %s\n", i+1, t)
	}
	return sb.String()
}

// renderPlan prints a bound statement.
func renderPlan(res *Result) string {
	switch s := res.Stmt.(type) {
	case *planner.Query:
		return strings.Join(planner.Explain(s.Plan), "\n")
	case *planner.Insert:
		out := fmt.Sprintf("insert into %s\n%s", s.Rel.Name, strings.Join(planner.Explain(s.Source), "\n"))
		if v, ok := s.Source.(*planner.Values); ok {
			for _, r := range v.Rows {
				var vals []string
				for _, e := range r {
					vals = append(vals, fmt.Sprintf("%s::%s", e, e.Type()))
				}
				out += "\n  (" + strings.Join(vals, ", ") + ")"
			}
		}
		return out
	case *planner.Update:
		var sets []string
		for i, c := range s.Cols {
			sets = append(sets, fmt.Sprintf("%s = %s", s.Rel.Columns[c].Name, s.Set[i]))
		}
		return fmt.Sprintf("update %s set %s where %v", s.Rel.Name, strings.Join(sets, ", "), s.Filter)
	case *planner.Delete:
		return fmt.Sprintf("delete from %s where %v", s.Rel.Name, s.Filter)
	case *planner.CreateTable:
		var cols []string
		for _, c := range s.Columns {
			cols = append(cols, fmt.Sprintf("%s %s notnull=%v", c.Name, c.Type, c.NotNull))
		}
		return fmt.Sprintf("create table %s (%s) pk %v", s.Name, strings.Join(cols, ", "), s.PK)
	case *planner.CreateView:
		return fmt.Sprintf("create view %s as %q cols %v\n%s", s.Name, s.Definition, s.ColNames,
			strings.Join(planner.Explain(s.Query.Plan), "\n"))
	case *planner.Drop:
		return fmt.Sprintf("drop %s %v if_exists=%v cascade=%v", s.Kind, s.Names, s.IfExists, s.Cascade)
	}
	return fmt.Sprintf("%T", res.Stmt)
}

func TestParamTypes(t *testing.T) {
	cases := []struct {
		query    string
		declared []types.Type
		want     string
	}{
		{"SELECT a FROM t WHERE a = $1 AND b = $2", nil, "integer text"},
		{"SELECT $1", nil, "text"},
		{"SELECT $1::bigint + 1", nil, "bigint"},
		{"SELECT a FROM t LIMIT $1 OFFSET $2", nil, "bigint bigint"},
		{"INSERT INTO t VALUES ($1, $2, $3)", nil, "integer text numeric"},
		{"INSERT INTO t (c, a) VALUES ($1, $2)", nil, "numeric integer"},
		{"UPDATE t SET b = $2 WHERE a = $1", nil, "integer text"},
		{"SELECT a FROM t WHERE a IN ($1, 2)", nil, "integer"},
		{"SELECT a FROM t WHERE $1 BETWEEN a AND 10", nil, "integer"},
		{"SELECT a FROM t WHERE a = $1", []types.Type{types.TInt64}, "bigint"},
	}
	for _, c := range cases {
		res, err := bindSQL(c.query, Options{ParamTypes: c.declared})
		if err != nil {
			t.Errorf("%s: %v", c.query, err)
			continue
		}
		var got []string
		for _, pt := range res.ParamTypes {
			got = append(got, pt.String())
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s: param types %v, want %s", c.query, got, c.want)
		}
	}
}

// TestParamValues binds with values: a typed parameter is its value, an
// untyped one sent as text is parsed once its context decides its type.
func TestParamValues(t *testing.T) {
	res, err := bindSQL("SELECT a FROM t LIMIT $1", Options{ParamTypes: []types.Type{types.TInt64}, ParamValues: []types.Datum{int64(3)}})
	if err != nil {
		t.Fatal(err)
	}
	if l := res.Stmt.(*planner.Query).Plan.(*planner.Limit); l.Count != 3 {
		t.Fatalf("limit %d", l.Count)
	}
	res, err = bindSQL("SELECT a FROM t LIMIT $1", Options{ParamValues: []types.Datum{"7"}})
	if err != nil {
		t.Fatal(err)
	}
	if l := res.Stmt.(*planner.Query).Plan.(*planner.Limit); l.Count != 7 {
		t.Fatalf("limit %d", l.Count)
	}
	_, err = bindSQL("SELECT a FROM t WHERE a = $1", Options{ParamValues: []types.Datum{"x"}})
	if pgerr.Code(err) != pgerr.InvalidTextRep {
		t.Fatalf("bad int text: %v", err)
	}
	_, err = bindSQL("SELECT $1::int + $2::int", Options{ParamValues: []types.Datum{int64(1)}})
	if pgerr.Code(err) != pgerr.ProtocolViolation {
		t.Fatalf("missing param: %v", err)
	}
}

func TestJoinKeys(t *testing.T) {
	res, err := bindSQL("SELECT * FROM t JOIN u ON u.a = t.a AND t.b > u.d AND t.c = 1", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var j *planner.Join
	findNode(res.Stmt.(*planner.Query).Plan, &j)
	if j == nil || j.Kind != planner.InnerJoin || fmt.Sprint(j.LeftKeys, j.RightKeys) != "[0] [0]" || j.Cond == nil {
		t.Fatalf("join %+v", j)
	}
	res, err = bindSQL("SELECT * FROM t FULL JOIN u ON t.a = u.a", Options{})
	if err != nil {
		t.Fatal(err)
	}
	j = nil
	findNode(res.Stmt.(*planner.Query).Plan, &j)
	if j.Kind != planner.FullJoin || j.Cond != nil || len(j.LeftKeys) != 1 {
		t.Fatalf("full join %+v", j)
	}
}

// findNode sets *out to the first node of type T in the plan.
func findNode[T planner.Node](n planner.Node, out *T) {
	if x, ok := n.(T); ok {
		*out = x
		return
	}
	for _, in := range n.Inputs() {
		findNode(in, out)
	}
}

// TestErrorPositionWithOffset: positions count from the start of the
// whole query string, not of the statement.
func TestErrorPositionWithOffset(t *testing.T) {
	_, err := bindSQL("SELECT 1; SELECT zz FROM t", Options{})
	pe := pgerr.As(err)
	if pe.Code != pgerr.UndefinedColumn || pe.Position != 18 {
		t.Fatalf("got %s at %d: %s", pe.Code, pe.Position, pe.Message)
	}
}
