package expr

import (
	"testing"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// TestArrayCastContext checks that an array converts as its elements do,
// decided when the cast is built: text[] (ARRAY[NULL, NULL] is one) is no
// integer[] in an assignment, PostgreSQL's 42804, however few non-NULL
// elements it has.
func TestArrayCastContext(t *testing.T) {
	arr := func(elem types.ID, v string) Expr { return NewConst(v, types.ArrayOf(elem)) }
	ints := types.ArrayOf(types.IDInt32)
	for _, c := range []struct {
		e      Expr
		to     types.Type
		assign bool
		want   string // the value, or the error's SQLSTATE and message
	}{
		{arr(types.IDText, "{NULL,NULL}"), ints, true, "42804 column is of type integer[] but expression is of type text[]"},
		{arr(types.IDText, "{1}"), ints, true, "42804 column is of type integer[] but expression is of type text[]"},
		{arr(types.IDBool, "{t}"), ints, true, "42804 column is of type integer[] but expression is of type boolean[]"},
		{arr(types.IDText, "{NULL,NULL}"), ints, false, "{NULL,NULL}"},
		{arr(types.IDText, "{1,2}"), ints, false, "{1,2}"},
		{arr(types.IDDate, "{2024-01-01}"), ints, false, "42846 cannot cast type date[] to integer[]"},
		{arr(types.IDInt64, "{1,NULL}"), ints, true, "{1,NULL}"},
		{arr(types.IDNumeric, "{1.5}"), ints, true, "{2}"},
		{arr(types.IDInt32, "{7}"), types.ArrayOf(types.IDText), true, "{7}"},
	} {
		var e Expr
		var err error
		if c.assign {
			e, err = AssignCast(c.e, c.to)
		} else {
			e, err = Cast(c.e, c.to)
		}
		var got string
		if err == nil {
			var v types.Datum
			if v, err = e.Eval(nil); err == nil {
				got = types.Format(v, c.to)
			}
		}
		if err != nil {
			got = pgerr.Code(err) + " " + pgerr.As(err).Message
		}
		if got != c.want {
			t.Errorf("%s to %s (assign=%v) = %s; want %s", c.e.Type(), c.to, c.assign, got, c.want)
		}
	}
}
