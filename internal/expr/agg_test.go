package expr

import (
	"testing"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

func TestAggResultType(t *testing.T) {
	cases := []struct {
		k    AggKind
		arg  types.Type
		want string
	}{
		{AggCount, types.TText, "bigint"},
		{AggCountStar, types.TUnknown, "bigint"},
		{AggSum, types.TInt16, "bigint"},
		{AggSum, types.TInt32, "bigint"},
		{AggSum, types.TInt64, "numeric"},
		{AggSum, types.Type{ID: types.IDNumeric, Precision: 5, Scale: 2}, "numeric"},
		{AggSum, types.TFloat32, "real"},
		{AggSum, types.TFloat64, "double precision"},
		{AggSum, types.TInterval, "interval"},
		{AggAvg, types.TInt32, "numeric"},
		{AggAvg, types.TInt64, "numeric"},
		{AggAvg, types.TFloat32, "double precision"},
		{AggAvg, types.TInterval, "interval"},
		{AggMin, types.TDate, "date"},
		{AggMax, types.Type{ID: types.IDVarchar, Width: 3}, "text"},
		{AggMax, types.TUnknown, "text"},
		{AggMin, types.TCidr, "inet"},
		{AggMax, types.TInet, "inet"},
		{AggJSONAgg, types.TInt32, "json"},
	}
	for _, c := range cases {
		got, err := AggResultType(c.k, c.arg)
		if err != nil || got.String() != c.want {
			t.Errorf("%s(%s) = %s, %v; want %s", c.k, c.arg, got, err, c.want)
		}
	}
	for _, c := range []struct {
		k    AggKind
		arg  types.Type
		code string
	}{{AggSum, types.TText, pgerr.UndefinedFunction}, {AggAvg, types.TDate, pgerr.UndefinedFunction},
		{AggSum, types.TUnknown, codeAmbiguousFunction}, {AggMin, types.TBool, pgerr.UndefinedFunction},
		{AggMin, types.TJSONB, pgerr.UndefinedFunction}, {AggMax, types.Type{ID: types.IDJSON}, pgerr.UndefinedFunction},
		{AggArrayAgg, types.TUnknown, codeAmbiguousFunction}, {AggBitAnd, types.TUnknown, codeAmbiguousFunction},
		{AggJSONBAgg, types.TUnknown, pgerr.DatatypeMismatch}, {AggJSONAgg, types.TUnknown, pgerr.DatatypeMismatch}, {AggMode, types.TUnknown, pgerr.DatatypeMismatch},
		{AggPercentileDisc, types.TUnknown, pgerr.DatatypeMismatch}} {
		if _, err := AggResultType(c.k, c.arg); pgerr.Code(err) != c.code {
			t.Errorf("%s(%s): error %v, want code %s", c.k, c.arg, err, c.code)
		}
	}
}

// sumOf accumulates values of type arg and formats sum and avg as
// Postgres shows them.
func sumOf(t *testing.T, arg types.Type, vals ...string) (sum, avg string) {
	t.Helper()
	var st SumState
	for _, v := range vals {
		d, err := types.Parse(v, arg)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Accumulate(d, arg, false); err != nil {
			t.Fatal(err)
		}
	}
	return formatAgg(t, &st, AggSum, arg), formatAgg(t, &st, AggAvg, arg)
}

func formatAgg(t *testing.T, st *SumState, k AggKind, arg types.Type) string {
	rt, err := AggResultType(k, arg)
	if err != nil {
		t.Fatal(err)
	}
	v, err := st.Result(k == AggAvg, rt)
	if err != nil {
		t.Fatal(err)
	}
	if v == nil {
		return "NULL"
	}
	return types.Format(v, rt)
}

// TestSumAvg checks results against Postgres 15's sum() and avg().
func TestSumAvg(t *testing.T) {
	cases := []struct {
		arg      types.Type
		vals     []string
		sum, avg string
	}{
		{types.TInt32, []string{"1", "2", "2"}, "5", "1.6666666666666667"},
		{types.TInt32, []string{"1", "2"}, "3", "1.5000000000000000"},
		{types.TInt32, []string{"100000", "200000"}, "300000", "150000.000000000000"},
		{types.TInt64, []string{"1", "2"}, "3", "1.5000000000000000"},
		{types.TNumeric, []string{"1.5", "2.25"}, "3.75", "1.8750000000000000"},
		{types.TFloat32, []string{"1.5", "2.25"}, "3.75", "1.875"},
		{types.TInterval, []string{"1 day", "2 hours"}, "1 day 02:00:00", "13:00:00"},
		{types.TInt32, nil, "NULL", "NULL"},
	}
	for _, c := range cases {
		sum, avg := sumOf(t, c.arg, c.vals...)
		if sum != c.sum || avg != c.avg {
			t.Errorf("sum/avg(%s %v) = %s, %s; want %s, %s", c.arg, c.vals, sum, avg, c.sum, c.avg)
		}
	}
}

func TestSumRetract(t *testing.T) {
	arg := types.TInt64
	var st SumState
	add := func(v int64, retract bool) {
		if err := st.Accumulate(v, arg, retract); err != nil {
			t.Fatal(err)
		}
	}
	add(9223372036854775807, false)
	add(10, false)
	add(10, true)
	if got := formatAgg(t, &st, AggSum, arg); got != "9223372036854775807" {
		t.Fatalf("after retract: %s", got)
	}
	add(9223372036854775807, true)
	if got := formatAgg(t, &st, AggSum, arg); got != "NULL" || st.Count != 0 {
		t.Fatalf("empty state: %s count %d", got, st.Count)
	}
}

func TestSumInt4Overflow(t *testing.T) {
	st := SumState{Sum: int64(9223372036854775807), Count: 1}
	err := st.Accumulate(int64(1), types.TInt32, false)
	if pgerr.Code(err) != pgerr.NumericOutOfRange || err.Error() != "bigint out of range" {
		t.Fatalf("got %v", err)
	}
}

func TestAccType(t *testing.T) {
	for arg, want := range map[types.Type]types.Type{
		types.TInt16: types.TInt64, types.TInt32: types.TInt64, types.TInt64: types.TNumeric,
		types.TNumeric: types.TNumeric, types.TFloat32: types.TFloat64, types.TInterval: types.TInterval,
	} {
		if got := AccType(arg); got != want {
			t.Errorf("AccType(%s) = %s, want %s", arg, got, want)
		}
	}
}
