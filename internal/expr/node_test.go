package expr

import (
	"slices"
	"sort"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// must returns e, panicking (failing the test) on a construction error.
func must(e Expr, err error) Expr {
	if err != nil {
		panic(err)
	}
	return e
}

func evalString(t *testing.T, e Expr, row []types.Datum) string {
	t.Helper()
	v, err := e.Eval(row)
	if err != nil {
		return errString(err)
	}
	if v == nil {
		return "NULL"
	}
	return types.Format(v, e.Type())
}

func TestCaseAndIn(t *testing.T) {
	x := NewColumn(0, types.TInt32, "x")
	one, two := NewConst(int64(1), types.TInt32), NewConst(int64(2), types.TInt32)
	half := NewConst(apd.New(25, -1), types.TNumeric)
	c := must(Case(x, []Expr{one, two}, []Expr{NewConst("a", types.TUnknown), NewConst("b", types.TUnknown)}, nil))
	if c.Type() != types.TText {
		t.Fatalf("CASE type %s", c.Type())
	}
	for in, want := range map[int64]string{1: "a", 2: "b", 3: "NULL"} {
		if got := evalString(t, c, []types.Datum{in}); got != want {
			t.Errorf("CASE x=%d: %s, want %s", in, got, want)
		}
	}
	// Searched CASE unifies integer and numeric results to numeric.
	cond := must(Binary("=", x, one))
	c2 := must(Case(nil, []Expr{cond}, []Expr{one}, half))
	if c2.Type() != types.TNumeric || evalString(t, c2, []types.Datum{int64(1)}) != "1" || evalString(t, c2, []types.Datum{int64(5)}) != "2.5" {
		t.Errorf("searched CASE: %s %s", c2.Type(), evalString(t, c2, []types.Datum{int64(5)}))
	}
	if _, err := Case(nil, []Expr{one}, []Expr{one}, nil); pgerr.Code(err) != pgerr.DatatypeMismatch ||
		err.Error() != "argument of CASE/WHEN must be type boolean, not type integer" {
		t.Errorf("CASE WHEN 1: %v", err)
	}
	if _, err := Case(nil, []Expr{cond}, []Expr{one}, NewConst("x", types.TUnknown)); pgerr.Code(err) != pgerr.InvalidTextRep {
		t.Errorf("CASE ... ELSE 'x': %v", err)
	}

	null := NewConst(nil, types.TUnknown)
	inCases := []struct {
		list []Expr
		not  bool
		x    types.Datum
		want string
	}{
		{[]Expr{one, null}, false, int64(1), "t"},
		{[]Expr{one, null}, false, int64(2), "NULL"},
		{[]Expr{one, null}, true, int64(2), "NULL"},
		{[]Expr{one, two}, true, int64(3), "t"},
		{[]Expr{one, half}, false, int64(3), "f"},
		{[]Expr{one}, false, nil, "NULL"},
		{[]Expr{NewConst("2", types.TUnknown)}, false, int64(2), "t"},
	}
	for _, c := range inCases {
		e := must(In(x, c.list, c.not))
		if got := evalString(t, e, []types.Datum{c.x}); got != c.want {
			t.Errorf("%s with x=%v: %s, want %s", e, c.x, got, c.want)
		}
	}
}

func TestIsNullIsBool(t *testing.T) {
	b := NewColumn(0, types.TBool, "b")
	isTrue := must(IsBool(b, true, false))
	isNotFalse := must(IsBool(b, false, true))
	for _, c := range []struct {
		v                      types.Datum
		null, isTrue, notFalse string
	}{{true, "f", "t", "t"}, {false, "f", "f", "f"}, {nil, "t", "f", "t"}} {
		row := []types.Datum{c.v}
		if got := evalString(t, IsNull(b, false), row); got != c.null {
			t.Errorf("%v IS NULL = %s", c.v, got)
		}
		if got := evalString(t, isTrue, row); got != c.isTrue {
			t.Errorf("%v IS TRUE = %s", c.v, got)
		}
		if got := evalString(t, isNotFalse, row); got != c.notFalse {
			t.Errorf("%v IS NOT FALSE = %s", c.v, got)
		}
	}
	if _, err := IsBool(NewColumn(0, types.TInt32, "i"), true, false); pgerr.Code(err) != pgerr.DatatypeMismatch {
		t.Errorf("int IS TRUE: %v", err)
	}
}

// TestRemap checks that every node kind rebuilds itself through
// WithChildren so that Remap reaches all columns.
func TestRemap(t *testing.T) {
	a, b := NewColumn(0, types.TInt32, "a"), NewColumn(1, types.TText, "b")
	cond := must(Binary("<", a, NewConst("5", types.TUnknown)))
	exprs := []Expr{
		must(Binary("+", a, NewConst(apd.New(15, -1), types.TNumeric))),
		must(Binary("AND", cond, IsNull(b, true))),
		must(Binary("LIKE", b, NewConst("x%", types.TUnknown))),
		must(Binary("IS DISTINCT FROM", a, NewConst(nil, types.TUnknown))),
		must(Binary("||", b, a)),
		must(Unary("NOT", cond)),
		must(Cast(a, types.TText)),
		must(Func("coalesce", []Expr{a, NewConst(int64(0), types.TInt32)})),
		must(Func("upper", []Expr{b})),
		must(Case(nil, []Expr{cond}, []Expr{b}, NewConst("z", types.TUnknown))),
		must(In(a, []Expr{NewConst(int64(1), types.TInt32), NewConst(int64(2), types.TInt32)}, false)),
		must(IsBool(cond, true, false)),
	}
	row := []types.Datum{int64(3), "xy"}
	shifted := []types.Datum{"pad", "pad", int64(3), "xy"}
	for _, e := range exprs {
		r := Remap(e, func(i int) int { return i + 2 })
		if got, want := Columns(r), shift(Columns(e), 2); !slices.Equal(got, want) {
			t.Errorf("%s: remapped columns %v, want %v", e, got, want)
		}
		if got, want := evalString(t, r, shifted), evalString(t, e, row); got != want {
			t.Errorf("%s: remapped gives %s, original %s", e, got, want)
		}
		if r.Type() != e.Type() || r.String() == "" {
			t.Errorf("%s: remapped type %s", e, r.Type())
		}
	}
}

func shift(cols []int, n int) []int {
	out := make([]int, len(cols))
	for i, c := range cols {
		out[i] = c + n
	}
	return out
}

func TestResultTypes(t *testing.T) {
	cases := []struct {
		n    node
		want string
	}{
		{bin(lit("1", "int2"), "+", lit("1", "int2")), "smallint"},
		{bin(lit("1", "int2"), "%", i4(1)), "integer"},
		{bin(i4(1), "+", lit("1", "int8")), "bigint"},
		{bin(i4(1), "+", lit("1", "float4")), "double precision"},
		{bin(lit("1", "float4"), "+", lit("1", "float4")), "real"},
		{bin(num("1"), "+", lit("1", "float4")), "double precision"},
		{bin(i4(1), "+", num("1")), "numeric"},
		{bin(i4(2), "^", i4(2)), "double precision"},
		{bin(num("2"), "^", i4(2)), "numeric"},
		{bin(date("2024-01-01"), "-", date("2024-01-01")), "integer"},
		{bin(date("2024-01-01"), "+", ivl("1 day")), "timestamp without time zone"},
		{bin(ts("2024-01-01"), "-", tstz("2024-01-01 00:00+00")), "interval"},
		{fn("round", i4(1)), "double precision"},
		{fn("abs", str("1")), "double precision"},
		{fn("date_trunc", str("day"), date("2024-01-01")), "timestamp with time zone"},
		{fn("extract", str("day"), date("2024-01-01")), "numeric"},
		{fn("date_part", str("day"), date("2024-01-01")), "double precision"},
		{fn("coalesce", lit("a", "varchar(3)"), lit("b", "text")), "character varying"},
		{fn("coalesce", lit("b", "text"), lit("a", "varchar(3)")), "text"},
		{fn("greatest", date("2024-01-01"), ts("2024-01-01")), "timestamp without time zone"},
		{bin(lit("a", "varchar(3)"), "||", lit("b", "varchar(3)")), "text"},
		{cast_(num("1"), "numeric(5,2)"), "numeric(5,2)"},
	}
	for _, c := range cases {
		e, err := c.n.build()
		if err != nil || e.Type().String() != c.want {
			t.Errorf("%s: %v %v, want %s", c.n.sql(), e, err, c.want)
			continue
		}
	}
}

func TestCommonType(t *testing.T) {
	v3 := types.Type{ID: types.IDVarchar, Width: 3}
	n52 := types.Type{ID: types.IDNumeric, Precision: 5, Scale: 2}
	cases := []struct {
		in   []types.Type
		want string
	}{
		{[]types.Type{types.TUnknown, types.TUnknown}, "text"},
		{[]types.Type{types.TUnknown, types.TInt32}, "integer"},
		{[]types.Type{types.TInt32, types.TInt64, types.TInt16}, "bigint"},
		{[]types.Type{types.TInt32, types.TNumeric}, "numeric"},
		{[]types.Type{types.TNumeric, types.TFloat32}, "real"},
		{[]types.Type{types.TFloat64, types.TInt32}, "double precision"},
		{[]types.Type{v3, v3}, "character varying(3)"},
		{[]types.Type{v3, types.Type{ID: types.IDVarchar, Width: 5}}, "character varying"},
		// character, varchar and text convert to each other implicitly:
		// the first wins, unless it is text (the preferred type).
		{[]types.Type{v3, types.TText}, "character varying"},
		{[]types.Type{types.TText, v3}, "text"},
		{[]types.Type{types.Type{ID: types.IDBpchar, Width: 3}, types.TText}, "bpchar"},
		{[]types.Type{types.TUnknown, types.Type{ID: types.IDBpchar, Width: 3}, v3}, "bpchar"},
		{[]types.Type{types.Type{ID: types.IDBpchar, Width: 3}, types.Type{ID: types.IDBpchar, Width: 3}}, "character(3)"},
		{[]types.Type{types.TCidr, types.TInet}, "inet"},
		{[]types.Type{types.TTime, types.TTimeTZ}, "time with time zone"},
		{[]types.Type{n52, types.TInt32}, "numeric"},
		{[]types.Type{types.TDate, types.TTimestampTZ}, "timestamp with time zone"},
	}
	for _, c := range cases {
		got, err := CommonType(c.in)
		if err != nil || got.String() != c.want {
			t.Errorf("CommonType(%v) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
	_, err := CommonType([]types.Type{types.TInt32, types.TText})
	if pgerr.Code(err) != pgerr.DatatypeMismatch || err.Error() != "types integer and text cannot be matched" {
		t.Errorf("int/text: %v", err)
	}
}

func TestAssignCast(t *testing.T) {
	cases := []struct {
		n    node
		want string
	}{
		{castNode{e: str("abcd"), typ: "varchar(3)", assign: true}, "ERROR 22001 value too long for type character varying(3)"},
		{castNode{e: str("abc   "), typ: "varchar(3)", assign: true}, "abc"},
		{castNode{e: lit("abcd", "text"), typ: "varchar(3)", assign: true}, "ERROR 22001 value too long for type character varying(3)"},
		{castNode{e: num("2.5"), typ: "int4", assign: true}, "3"},
		{castNode{e: lit("1e10", "float8"), typ: "int4", assign: true}, "ERROR 22003 integer out of range"},
		{castNode{e: num("123.456"), typ: "numeric(4,2)", assign: true}, "ERROR 22003 numeric field overflow"},
		{castNode{e: i4(5), typ: "text", assign: true}, "5"},
		{castNode{e: lit("5", "text"), typ: "int4", assign: true}, "ERROR 42804 column is of type integer but expression is of type text"},
		{castNode{e: lit("t", "bool"), typ: "int4", assign: true}, "ERROR 42804 column is of type integer but expression is of type boolean"},
		{castNode{e: ts("2024-01-02 10:00"), typ: "date", assign: true}, "2024-01-02"},
	}
	runCases(t, toExprCases(cases))
}

func toExprCases(cs []struct {
	n    node
	want string
}) []exprCase {
	out := make([]exprCase, len(cs))
	for i, c := range cs {
		out[i] = exprCase{c.n, c.want}
	}
	return out
}

// TestCompareTotalOrder sorts values with Compare and checks the order
// Postgres's btree gives.
func TestCompareTotalOrder(t *testing.T) {
	cases := []struct {
		typ  string
		in   []string
		want []string
	}{
		{"float8", []string{"NaN", "1", "-Infinity", "Infinity", "-0", "0.5"}, []string{"-Infinity", "-0", "0.5", "1", "Infinity", "NaN"}},
		{"numeric", []string{"NaN", "1.00", "-Infinity", "Infinity", "0.5", "-2"}, []string{"-Infinity", "-2", "0.5", "1.00", "Infinity", "NaN"}},
		{"interval", []string{"1 mon 1 day", "-1 day", "25 hours", "1 day"}, []string{"-1 days", "1 day", "25:00:00", "1 mon 1 day"}},
		{"text", []string{"b", "a", "B", ""}, []string{"", "B", "a", "b"}},
		{"date", []string{"infinity", "2024-01-01", "-infinity", "0001-01-01 BC"}, []string{"-infinity", "0001-01-01 BC", "2024-01-01", "infinity"}},
		{"bool", []string{"t", "f"}, []string{"f", "t"}},
	}
	for _, c := range cases {
		typ := typeNamed(c.typ)
		vals := make([]types.Datum, len(c.in))
		for i, s := range c.in {
			vals[i], _ = types.Parse(s, typ)
		}
		sort.SliceStable(vals, func(i, j int) bool { return Compare(vals[i], vals[j], typ) < 0 })
		got := make([]string, len(vals))
		for i, v := range vals {
			got[i] = types.Format(v, typ)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s order %v, want %v", c.typ, got, c.want)
		}
	}
	one, oneOO := apd.New(1, 0), apd.New(100, -2)
	if Compare(one, oneOO, types.TNumeric) != 0 {
		t.Error("1 <> 1.00")
	}
	if Compare(types.Interval{Months: 1}, types.Interval{Days: 30}, types.TInterval) != 0 {
		t.Error("1 mon <> 30 days")
	}
}

// TestOperatorErrors checks errors raised when building, with SQLSTATEs
// and Postgres's messages.
func TestOperatorErrors(t *testing.T) {
	cases := []struct {
		n    node
		want string
	}{
		{bin(i4(1), "=", lit("1", "text")), "ERROR 42883 operator does not exist: integer = text"},
		{bin(date("2024-01-01"), "+", str("1 day")), "ERROR 42725 operator is not unique: date + unknown"},
		{bin(str("1"), "+", str("2")), "ERROR 42725 operator is not unique: unknown + unknown"},
		{bin(i4(1), "=", str("x")), "ERROR 22P02 invalid input syntax for type integer: \"x\""},
		{bin(ts("2024-01-01"), "-", str("1 day")), "ERROR 22007 invalid input syntax for type timestamp: \"1 day\""},
		{fn("substr", str("abc"), lit("1", "int8")), "ERROR 42883 function substr(unknown, bigint) does not exist"},
		{un("-", str("1")), "ERROR 42725 operator is not unique: - unknown"},
		{fn("nosuch", i4(1)), "ERROR 42883 function nosuch(integer) does not exist"},
	}
	for _, c := range cases {
		_, err := c.n.build()
		if err == nil {
			t.Errorf("%s: built without error, want %s", c.n.sql(), c.want)
		} else if got := errString(err); got != c.want {
			t.Errorf("%s: %v, want %s", c.n.sql(), err, c.want)
		}
	}
}

func TestColumnNulls(t *testing.T) {
	a := NewColumn(0, types.TInt32, "a")
	b := NewColumn(1, types.TNumeric, "b")
	sum := must(Binary("+", a, b))
	if got := evalString(t, sum, []types.Datum{int64(1), nil}); got != "NULL" {
		t.Errorf("1 + NULL = %s", got)
	}
	if got := evalString(t, sum, []types.Datum{int64(1), apd.New(25, -1)}); got != "3.5" {
		t.Errorf("1 + 2.5 = %s", got)
	}
	if sum.String() != "(a + b)" {
		t.Errorf("String() = %q", sum.String())
	}
}
