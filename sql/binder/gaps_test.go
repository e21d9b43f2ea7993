package binder

import (
	"testing"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/planner"
)

// TestAssignmentErrors: a value that cannot be stored in a column names
// the column, points at the value and hints, as Postgres does.
func TestAssignmentErrors(t *testing.T) {
	for _, tc := range []struct {
		query, msg string
		pos        int
	}{
		{"UPDATE t SET a = b", `column "a" is of type integer but expression is of type text`, 18},
		{"INSERT INTO t VALUES (1, 2, 'x'::text)", `column "c" is of type numeric but expression is of type text`, 29},
		{"select 1; INSERT INTO e (ts) VALUES (1)", `column "ts" is of type timestamp without time zone but expression is of type integer`, 38},
	} {
		_, err := bindSQL(tc.query, Options{})
		pe := pgerr.As(err)
		if pe.Code != pgerr.DatatypeMismatch || pe.Message != tc.msg || pe.Position != tc.pos ||
			pe.Hint != "You will need to rewrite or cast the expression." {
			t.Errorf("%s: %s %q at %d hint %q; want %q at %d", tc.query, pe.Code, pe.Message, pe.Position, pe.Hint, tc.msg, tc.pos)
		}
	}
}

// TestSubqueryPlacement: subqueries bind in WHERE, HAVING, the select
// list and ORDER BY, and are 0A000 elsewhere.
func TestSubqueryPlacement(t *testing.T) {
	// NOT IN: a positive IN would bind as a semi join.
	res, err := bindSQL("SELECT a, (SELECT max(x) FROM e) FROM t WHERE a NOT IN (SELECT x FROM e)", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var applies []*planner.Apply
	var walk func(planner.Node)
	walk = func(n planner.Node) {
		if a, ok := n.(*planner.Apply); ok {
			applies = append(applies, a)
		}
		for _, in := range n.Inputs() {
			walk(in)
		}
	}
	walk(res.Stmt.(*planner.Query).Plan)
	if len(applies) != 2 {
		t.Fatalf("got %d Apply nodes, want 2 (WHERE, select list)", len(applies))
	}
	// The IN probe is a over t's row, cast to the common type bigint.
	var in *planner.Subquery
	for _, a := range applies {
		for i := range a.Subs {
			if a.Subs[i].Kind == planner.InSubquery {
				in = &a.Subs[i]
			}
		}
		if got, want := len(a.Cols), len(a.Input.Columns())+len(a.Subs); got != want {
			t.Errorf("Apply has %d columns, want %d", got, want)
		}
	}
	if in == nil || in.Probe.Type().String() != "bigint" || len(expr.Columns(in.Probe)) != 1 {
		t.Errorf("IN subquery probe: %+v", in)
	}
	for _, q := range []string{
		"UPDATE t SET b = 'x' WHERE a IN (SELECT x FROM e)",
		"DELETE FROM t WHERE EXISTS (SELECT 1 FROM e)",
		"SELECT count((SELECT 1)) FROM t",
		"SELECT a FROM t GROUP BY (SELECT 1)",
		"INSERT INTO t VALUES ((SELECT 1), 'x', 1)",
	} {
		if _, err := bindSQL(q, Options{}); pgerr.Code(err) != pgerr.FeatureNotSupported {
			t.Errorf("%s: %v, want 0A000", q, err)
		}
	}
}
