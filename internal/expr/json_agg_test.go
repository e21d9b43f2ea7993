package expr

import (
	"testing"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// TestJSONAgg checks json_agg's text against PostgreSQL 15's: ", "
// between values, to_json's rendering (json kept as written), and a
// newline before each non-NULL array after the first row.
func TestJSONAgg(t *testing.T) {
	if k, ok := AggByName("json_agg"); !ok || k != AggJSONAgg || k.String() != "json_agg" || !k.IsList() {
		t.Fatalf("AggByName(json_agg) = %v, %v", k, ok)
	}
	items := func(vals ...types.Datum) []ListItem {
		out := make([]ListItem, len(vals))
		for i, v := range vals {
			out[i] = ListItem{Value: v, Keys: []types.Datum{int64(i)}}
		}
		return out
	}
	byPos := []ListOrder{{Type: types.TInt64}}
	intArr := types.ArrayOf(types.IDInt32)
	cases := []struct {
		vals []types.Datum
		elem types.Type
		want string
	}{
		{[]types.Datum{int64(1), int64(2), int64(3)}, types.TInt32, "[1, 2, 3]"},
		{[]types.Datum{"a", nil, `b"c`}, types.TText, `["a", null, "b\"c"]`},
		{[]types.Datum{`{"b":1,  "a":2}`, "[1, 2]"}, types.Type{ID: types.IDJSON}, `[{"b":1,  "a":2}, [1, 2]]`},
		{[]types.Datum{`{"a": 2, "b": 1}`}, types.TJSONB, `[{"a": 2, "b": 1}]`},
		{[]types.Datum{true, false}, types.TBool, "[true, false]"},
		{[]types.Datum{nil, "{1,2}", nil, "{3}"}, intArr, "[null, \n [1,2], null, \n [3]]"},
		{[]types.Datum{"{1,2}", "{3}"}, intArr, "[[1,2], \n [3]]"},
	}
	for _, c := range cases {
		got, _ := ListAgg(AggJSONAgg, items(c.vals...), byPos, false, "", c.elem)
		if got != c.want {
			t.Errorf("json_agg(%v of %s) = %q, want %q", c.vals, c.elem, got, c.want)
		}
	}
	if got, _ := ListAgg(AggJSONAgg, nil, byPos, false, "", types.TInt32); got != nil {
		t.Errorf("json_agg over no rows = %v, want NULL", got)
	}
}

// TestUnknownPolymorphic checks PostgreSQL's 42804 for to_jsonb of an
// unknown-typed literal, and pg_typeof's types.
func TestUnknownPolymorphic(t *testing.T) {
	lit := NewConst("x", types.TUnknown)
	if _, err := Func("to_jsonb", []Expr{lit}); pgerr.Code(err) != pgerr.DatatypeMismatch {
		t.Errorf("to_jsonb('x'): error %v, want 42804", err)
	}
	if _, err := Func("jsonb_build_array", []Expr{lit}); err != nil {
		t.Errorf("jsonb_build_array('x'): %v", err)
	}
	for _, c := range []struct {
		arg  Expr
		want int64
	}{
		{lit, 705},
		{NewConst(nil, types.TUnknown), 705},
		{NewConst(int64(1), types.TInt64), 20},
		{NewColumn(0, types.Type{ID: types.IDVarchar, Width: 3}, "v"), 1043},
	} {
		e, err := Func("pg_typeof", []Expr{c.arg})
		if err != nil {
			t.Fatal(err)
		}
		v, err := e.Eval([]types.Datum{nil})
		if err != nil || v != c.want || e.Type().ID != types.IDRegtype {
			t.Errorf("pg_typeof(%s) = %v (%s), %v; want %d", c.arg, v, e.Type(), err, c.want)
		}
	}
}
