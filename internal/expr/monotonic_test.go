package expr

import (
	"testing"

	"github.com/streamdb/streamdb/internal/types"
)

func TestNonDecreasing(t *testing.T) {
	ts := NewColumn(0, types.TTimestamp, "ts")
	n := NewColumn(1, types.TInt32, "n")
	sec := NewConst(types.Interval{Micros: 1_000_000}, types.TInterval)
	must := func(e Expr, err error) Expr {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	unit := NewConst("minute", types.TText)
	cases := []struct {
		name string
		e    Expr
		col  int
		want bool
	}{
		{"the column", ts, 0, true},
		{"another column", n, 0, false},
		{"minus a constant", must(Binary("-", ts, sec)), 0, true},
		{"a constant plus", must(Binary("+", sec, ts)), 0, true},
		{"a constant minus", must(Binary("-", NewConst(int64(5), types.TInt64), n)), 1, false},
		{"tumble_start", must(Func("tumble_start", []Expr{ts, sec})), 0, true},
		{"tumble_start minus a slide", must(Binary("-", must(Func("tumble_start", []Expr{ts, sec})), sec)), 0, true},
		{"date_trunc", must(Func("date_trunc", []Expr{unit, ts})), 0, true},
		{"widening", must(Cast(n, types.TInt64)), 1, true},
		{"narrowing", must(Cast(must(Cast(n, types.TInt64)), types.TInt16)), 1, false},
		{"to a date", must(Cast(ts, types.TDate)), 0, true},
		{"negated", must(Unary("-", n)), 1, false},
		{"two columns", must(Binary("+", n, NewColumn(2, types.TInt32, "m"))), 1, false},
	}
	for _, c := range cases {
		if got := NonDecreasing(c.e, c.col); got != c.want {
			t.Errorf("%s: NonDecreasing(%s, %d) = %v, want %v", c.name, c.e, c.col, got, c.want)
		}
	}
	// Substitute puts an expression where the column was.
	wm := NewColumn(0, types.TTimestamp, "watermark")
	e := Substitute(must(Func("tumble_start", []Expr{NewColumn(3, types.TTimestamp, "ts"), sec})), 3, wm)
	if got := e.String(); got != "tumble_start(watermark, 00:00:01)" {
		t.Errorf("Substitute: %s", got)
	}
}
