package expr

import (
	"testing"

	"github.com/streamdb/streamdb/internal/types"
)

// TestRecordText checks the record text against PostgreSQL 15's
// record_out: SELECT ROW(...)::text.
func TestRecordText(t *testing.T) {
	for _, c := range []struct {
		row  []types.Datum
		want types.Datum
	}{
		{[]types.Datum{"a", "1"}, "(a,1)"},
		{[]types.Datum{"", `""`}, `("","""""")`},
		{[]types.Datum{"s p", "(x)"}, `("s p","(x)")`},
		{[]types.Datum{"a,b", `a\b`}, `("a,b","a\\b")`},
		{[]types.Datum{"t\tab", "v\vf\f"}, "(\"t\tab\",\"v\vf\f\")"},
		{[]types.Datum{"k", nil}, "(k,)"},
		{[]types.Datum{nil, nil}, nil},
	} {
		e := RecordText([]Expr{NewColumn(0, types.TText, "a"), NewColumn(1, types.TText, "b")})
		got, err := e.Eval(c.row)
		if err != nil || got != c.want {
			t.Errorf("RecordText(%q) = %#v, %v; want %#v", c.row, got, err, c.want)
		}
	}
	e := RecordText([]Expr{NewColumn(0, types.TBool, "b"), NewColumn(1, types.TInt32, "i")})
	if got, err := e.Eval([]types.Datum{true, int64(-3)}); err != nil || got != "(t,-3)" {
		t.Errorf("RecordText(true, -3) = %#v, %v; want (t,-3)", got, err)
	}
}
