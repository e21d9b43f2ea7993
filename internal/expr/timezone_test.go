package expr

import (
	"sync"
	"testing"

	"github.com/streamdb/streamdb/internal/types"
)

// TestWithZone gives one expression two zones: each copy evaluates in its
// own (results as PostgreSQL 15 shows them), the original stays UTC, and
// copies in different zones run side by side.
func TestWithZone(t *testing.T) {
	ny, err := types.LoadZone("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	kolkata, err := types.LoadZone("Asia/Kolkata")
	if err != nil {
		t.Fatal(err)
	}
	col := NewColumn(0, types.TTimestampTZ, "ts")
	day, _ := types.ParseInterval("1 day")
	next, err := Binary("+", col, NewConst(day, types.TInterval))
	if err != nil {
		t.Fatal(err)
	}
	text, err := Cast(next, types.TText)
	if err != nil {
		t.Fatal(err)
	}
	// ts + '1 day' is text, compared with a literal read in the zone.
	lit, err := Cast(NewConst("2020-03-08 12:00", types.TUnknown), types.TTimestampTZ)
	if err != nil {
		t.Fatal(err)
	}
	same, err := Binary("=", next, lit)
	if err != nil {
		t.Fatal(err)
	}
	row := func(s string) []types.Datum {
		ts, err := types.ParseTimestamp(s, true)
		if err != nil {
			t.Fatal(err)
		}
		return []types.Datum{ts}
	}
	eval := func(e Expr, r []types.Datum) types.Datum {
		v, err := e.Eval(r)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	in := row("2020-03-07 17:00:00+00") // 12:00 in New York, before DST starts
	cases := []struct {
		z          *types.Zone
		text       string
		sameAsNoon bool
	}{
		{nil, "2020-03-08 17:00:00+00", false},
		{ny, "2020-03-08 12:00:00-04", true},
		{kolkata, "2020-03-08 22:30:00+05:30", false},
	}
	var wg sync.WaitGroup
	for _, c := range cases {
		zt, zs := WithZone(text, c.z), WithZone(same, c.z)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				if got := eval(zt, in); got != c.text {
					t.Errorf("in %s: %v, want %s", c.z.Name(), got, c.text)
					return
				}
				if got := eval(zs, in); got != c.sameAsNoon {
					t.Errorf("in %s: ts + 1 day = '2020-03-08 12:00' is %v", c.z.Name(), got)
					return
				}
			}
		}()
	}
	wg.Wait()
	if got := eval(text, in); got != "2020-03-08 17:00:00+00" {
		t.Errorf("the original changed: %v", got)
	}
	// No zone-dependent part: the same tree.
	plain, _ := Binary("+", NewColumn(0, types.TInt32, "x"), NewConst(int64(1), types.TInt32))
	if WithZone(plain, ny) != plain {
		t.Errorf("WithZone copied an expression that does not depend on the zone")
	}
}

// TestWithZoneFunctions checks the zone-dependent functions through
// WithZone, with PostgreSQL 15's results in America/New_York.
func TestWithZoneFunctions(t *testing.T) {
	ny, _ := types.LoadZone("America/New_York")
	ts := func(s string) Expr {
		e, err := Cast(NewConst(s, types.TUnknown), types.TTimestampTZ)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	txt := func(s string) Expr { return NewConst(s, types.TText) }
	call := func(name string, args ...Expr) Expr {
		e, err := Func(name, args)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	for _, c := range []struct {
		e    Expr
		want string
	}{
		{call("date_trunc", txt("day"), ts("2020-03-08 12:00")), "2020-03-08 00:00:00-05"},
		{call("date_trunc", txt("hour"), ts("2020-11-01 01:30-04")), "2020-11-01 01:00:00-04"},
		{call("date_part", txt("hour"), ts("2020-07-01 12:00+00")), "8"},
		{call("extract", txt("timezone"), ts("1850-01-01")), "-17762"},
		{call("to_char", ts("2020-07-01 00:00+00"), txt("DD HH24 TZ OF")), "30 20 EDT -04"},
		{call("age", ts("2020-03-09 00:00"), ts("2020-03-08 00:00")), "1 day"},
		{call("make_timestamptz", NewConst(int64(2020), types.TInt32), NewConst(int64(3), types.TInt32),
			NewConst(int64(8), types.TInt32), NewConst(int64(2), types.TInt32), NewConst(int64(30), types.TInt32),
			NewConst(0.0, types.TFloat64)), "2020-03-08 03:30:00-04"},
		{call("to_timestamp", txt("2020-03-08 02:30"), txt("YYYY-MM-DD HH24:MI")), "2020-03-08 03:30:00-04"},
		{call("timezone", txt("Asia/Tokyo"), ts("2020-07-01 12:00+00")), "2020-07-01 21:00:00"},
	} {
		z := WithZone(c.e, ny)
		v, err := z.Eval(nil)
		if err != nil {
			t.Fatalf("%s: %v", c.e, err)
		}
		if got := types.FormatIn(v, z.Type(), ny); got != c.want {
			t.Errorf("%s = %s, want %s", c.e, got, c.want)
		}
	}
}
