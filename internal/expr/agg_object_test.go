package expr

import (
	"testing"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// objectPairs evaluates ObjectPair(k, key, value, filter) for each row
// of (key, value, filter) constants.
func objectPairs(t *testing.T, k AggKind, rows [][3]Expr) []types.Datum {
	t.Helper()
	var out []types.Datum
	for _, r := range rows {
		e, err := ObjectPair(k, r[0], r[1], r[2])
		if err != nil {
			t.Fatal(err)
		}
		v, err := e.Eval(nil)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// TestObjectFromPairs: jsonb_object_agg normalizes (a later value of a
// key wins), json_object_agg keeps the pairs as PostgreSQL prints them;
// a pair its FILTER rejects is skipped, a NULL value is JSON null.
func TestObjectFromPairs(t *testing.T) {
	text := func(s string) Expr { return NewConst(s, types.TText) }
	num := func(n int64) Expr { return NewConst(n, types.TInt32) }
	yes, no := NewConst(true, types.TBool), NewConst(false, types.TBool)
	rows := [][3]Expr{{text("b"), num(1), nil}, {text("a"), NewConst(nil, types.TInt32), yes},
		{text("b"), NewConst(`{"x" :  [1]}`, types.TJSON), nil}, {NewConst(nil, types.TText), num(9), no},
		{NewConst(true, types.TBool), NewConst(1.5, types.TFloat64), nil}}
	for _, tc := range []struct {
		k    AggKind
		want string
	}{
		{AggJSONBObjectAgg, `{"a": null, "b": {"x": [1]}, "true": 1.5}`},
		{AggJSONObjectAgg, `{ "b" : 1, "a" : null, "b" : {"x" :  [1]}, "true" : 1.5 }`},
	} {
		v, err := ObjectFromPairs(tc.k, objectPairs(t, tc.k, rows))
		if err != nil || v != tc.want {
			t.Errorf("%s = %v, %v; want %s", tc.k, v, err, tc.want)
		}
		if v, err := ObjectFromPairs(tc.k, []types.Datum{nil}); v != nil || err != nil {
			t.Errorf("%s of no pair = %v, %v; want NULL", tc.k, v, err)
		}
	}
}

// TestObjectPairNullKey: a NULL key is PostgreSQL's error (22023), unless
// the FILTER rejects the row.
func TestObjectPairNullKey(t *testing.T) {
	for _, filter := range []Expr{nil, NewConst(true, types.TBool)} {
		e, err := ObjectPair(AggJSONBObjectAgg, NewConst(nil, types.TText), NewConst(int64(1), types.TInt32), filter)
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.Eval(nil)
		if pe, ok := err.(*pgerr.Error); !ok || pe.Code != pgerr.InvalidParameterValue || pe.Message != "field name must not be null" {
			t.Errorf("filter %v: %v", filter, err)
		}
	}
	e, err := ObjectPair(AggJSONObjectAgg, NewConst(nil, types.TText), NewConst(int64(1), types.TInt32), NewConst(nil, types.TBool))
	if err != nil {
		t.Fatal(err)
	}
	if v, err := e.Eval(nil); v != nil || err != nil {
		t.Errorf("a NULL key the FILTER rejects: %v, %v", v, err)
	}
}
