package vec

import (
	"math"
	"math/rand"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// The generator of random chunks and predicates for the differential
// tests: every column type the kernels read, with NULLs and edge values,
// and predicate trees of the supported shapes with some unsupported
// leaves, built with the constructors the binder uses.

var genTypes = []types.Type{
	types.TInt16, types.TInt32, types.TInt64, types.TInt16, types.TInt64,
	types.TFloat32, types.TFloat64, types.TFloat64,
	types.TBool, types.TBool,
	types.TDate, types.TTimestamp, types.TTimestampTZ, types.TDate,
	types.TText, types.TText, {ID: types.IDVarchar, Width: 5},
	types.TNumeric, types.TInterval, types.TBytea, types.TBytea,
}

type gen struct {
	r *rand.Rand
	// edges: dates and timestamps are now and then those at the ends of
	// the timestamp range (value_interval_test.go).
	edges bool
}

func (g *gen) pick(n int) int { return g.r.Intn(n) }

var (
	strVals  = []string{"", "a", "b", "ab", "abc", "abd", "x", "é", "日本", "Z", "a b", "ä", "a%", "a_b", "\xff", "a\xffb", "\ufffd"}
	fltVals  = []float64{math.NaN(), 0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), 1, -1, 1.5, 2, 0.1, math.MaxFloat32, -math.MaxFloat64, math.SmallestNonzeroFloat64}
	dateVals = []types.Date{0, 1, -1, 10, 19000, types.DateInfinity, types.DateNegInfinity, 100000000, -100000000}
)

// value returns a random non-NULL Datum of t.
func (g *gen) value(t types.Type) types.Datum {
	switch t.ID {
	case types.IDInt16, types.IDInt32, types.IDInt64:
		lo, hi := intRange(t)
		switch g.pick(6) {
		case 0:
			return lo
		case 1:
			return hi
		case 2:
			return lo + int64(g.pick(3))
		case 3:
			return hi - int64(g.pick(3))
		case 4:
			return g.r.Int63n(hi/2+1) - g.r.Int63n(hi/2+1)
		}
		return int64(g.pick(11) - 5)
	case types.IDFloat32, types.IDFloat64:
		v := fltVals[g.pick(len(fltVals))]
		if t.ID == types.IDFloat32 {
			v = float64(float32(v))
		}
		return v
	case types.IDBool:
		return g.pick(2) == 0
	case types.IDDate:
		if g.edges && g.pick(3) == 0 {
			return edgeDates[g.pick(len(edgeDates))]
		}
		if g.pick(2) == 0 {
			return dateVals[g.pick(len(dateVals))]
		}
		return types.Date(g.pick(21) - 10)
	case types.IDTimestamp, types.IDTimestampTZ:
		if g.edges && g.pick(3) == 0 {
			return types.Timestamp(edgeTimestamps[g.pick(len(edgeTimestamps))])
		}
		switch g.pick(5) {
		case 0:
			return types.TimestampInfinity
		case 1:
			return types.TimestampNegInfinity
		case 2:
			return types.Timestamp(int64(g.pick(21)-10) * types.MicrosPerDay)
		}
		return types.Timestamp(int64(g.pick(21)-10)*types.MicrosPerDay + int64(g.pick(3)-1))
	case types.IDText, types.IDVarchar:
		return strVals[g.pick(len(strVals))]
	case types.IDBytea:
		return []string{"", "\x00", "\xff", "a", "\x00\xff", "ab"}[g.pick(6)]
	case types.IDNumeric:
		return g.numeric()
	case types.IDInterval:
		return types.Interval{Days: int32(g.pick(5))}
	}
	panic(t.String())
}

// chunk returns a random chunk of n rows of genTypes, sometimes a slice
// of a larger one (so that Arrow offsets are not zero).
func (g *gen) chunk(n int) *chunk.Chunk {
	pre, post := 0, 0
	if g.pick(3) == 0 {
		pre, post = g.pick(70), g.pick(5)
	}
	nullP := []int{0, 5, 30, 90}[g.pick(4)]
	rows := make([][]types.Datum, pre+n+post)
	for i := range rows {
		row := make([]types.Datum, len(genTypes))
		for j, t := range genTypes {
			if g.pick(100) >= nullP {
				row[j] = g.value(t)
			}
		}
		rows[i] = row
	}
	c := chunk.FromRows(genTypes, chunk.Insert, rows)
	if pre == 0 && post == 0 {
		return c
	}
	rec := c.Rec.NewSlice(int64(pre), int64(pre+n))
	c.Release()
	return &chunk.Chunk{Rec: rec, Ops: make([]chunk.Op, n), Types: genTypes}
}

func (g *gen) col(i int) expr.Expr {
	return expr.NewColumn(i, genTypes[i], "c"+itoa(i))
}

func itoa(i int) string { return string(rune('a'+i/26)) + string(rune('a'+i%26)) }

// colOf returns a random column whose type satisfies ok.
func (g *gen) colOf(ok func(types.Type) bool) int {
	for {
		i := g.pick(len(genTypes))
		if ok(genTypes[i]) {
			return i
		}
	}
}

var cmpOps = []string{"=", "<>", "<", "<=", ">", ">=", "!="}

// constFor returns a constant to compare with a value of t: sometimes of
// another type of its family, sometimes an untyped literal or NULL.
func (g *gen) constFor(t types.Type) expr.Expr {
	switch g.pick(12) {
	case 0:
		return expr.NewConst(nil, types.TUnknown)
	case 1:
		return expr.NewConst(nil, t)
	}
	ct := t
	switch familyOf(t) {
	case famInt:
		ct = []types.Type{types.TInt16, types.TInt32, types.TInt64}[g.pick(3)]
	case famFloat:
		ct = []types.Type{types.TFloat32, types.TFloat64}[g.pick(2)]
	case famTime:
		ct = []types.Type{types.TDate, types.TTimestamp, types.TTimestampTZ}[g.pick(3)]
	case famBytes:
		ct = types.TBytea
	case famString:
		if g.pick(3) == 0 {
			return expr.NewConst(g.value(t), types.TUnknown) // 'literal'
		}
		ct = types.TText
	}
	if t.ID == types.IDDate && g.pick(4) == 0 {
		return expr.NewConst("2024-01-0"+string(rune('1'+g.pick(9))), types.TUnknown)
	}
	return expr.NewConst(g.value(ct), ct)
}

// intExpr returns a random integer expression: a column, a constant or
// arithmetic over them.
func (g *gen) intExpr(depth int) expr.Expr {
	if depth <= 0 || g.pick(3) > 0 {
		if g.pick(4) == 0 {
			t := []types.Type{types.TInt16, types.TInt32, types.TInt64}[g.pick(3)]
			if g.pick(8) == 0 {
				return expr.NewConst(nil, t)
			}
			return expr.NewConst(g.value(t), t)
		}
		return g.col(g.colOf(types.Type.IsInteger))
	}
	for {
		e, err := expr.Binary([]string{"+", "-", "*"}[g.pick(3)], g.intExpr(depth-1), g.intExpr(depth-1))
		if err == nil {
			return e
		}
	}
}

// leaf returns a random boolean leaf.
func (g *gen) leaf() expr.Expr {
	for {
		if e, err := g.tryLeaf(); err == nil {
			return e
		}
	}
}

func (g *gen) tryLeaf() (expr.Expr, error) {
	supported := func(t types.Type) bool { return familyOf(t) != famNone }
	op := cmpOps[g.pick(len(cmpOps))]
	switch g.pick(16) {
	case 0, 1, 2: // column op constant
		i := g.colOf(supported)
		l, r := g.col(i), g.constFor(genTypes[i])
		if g.pick(3) == 0 {
			l, r = r, l
		}
		return expr.Binary(op, l, r)
	case 3, 4: // column op column of one family
		i := g.colOf(supported)
		j := g.colOf(func(t types.Type) bool { return familyOf(t) == familyOf(genTypes[i]) })
		return expr.Binary(op, g.col(i), g.col(j))
	case 5: // integer arithmetic
		l, r := g.intExpr(2), g.intExpr(1)
		if g.pick(2) == 0 {
			l, r = r, l
		}
		return expr.Binary(op, l, r)
	case 6: // IS [NOT] NULL
		var e expr.Expr
		switch g.pick(3) {
		case 0:
			e = g.col(g.pick(len(genTypes)))
		case 1:
			e = g.intExpr(2)
		default:
			e = g.leaf()
		}
		return expr.IsNull(e, g.pick(2) == 0), nil
	case 7, 8: // IN
		i := g.colOf(func(t types.Type) bool { return t.IsInteger() || t.IsString() || g.pick(4) == 0 && supported(t) })
		var lhs expr.Expr = g.col(i)
		if genTypes[i].IsInteger() && g.pick(4) == 0 {
			lhs = g.intExpr(2)
		}
		list := make([]expr.Expr, 1+g.pick(5))
		for k := range list {
			switch g.pick(8) {
			case 0:
				list[k] = g.col(g.colOf(func(t types.Type) bool { return familyOf(t) == familyOf(genTypes[i]) }))
			default:
				list[k] = g.constFor(genTypes[i])
			}
		}
		return expr.In(lhs, list, g.pick(3) == 0)
	case 9: // a boolean column
		return g.col(g.colOf(func(t types.Type) bool { return t.ID == types.IDBool })), nil
	case 10: // a boolean constant
		return expr.NewConst([]types.Datum{true, false, nil}[g.pick(3)], types.TBool), nil
	case 11: // IS [NOT] TRUE / FALSE
		return expr.IsBool(g.leaf(), g.pick(2) == 0, g.pick(2) == 0)
	case 12: // numeric (value_numeric.go)
		return expr.Binary(op, g.col(17), expr.NewConst(g.value(types.TNumeric), types.TNumeric))
	case 13: // unsupported: a function call
		f, err := expr.Func("abs", []expr.Expr{g.col(g.colOf(types.Type.IsInteger))})
		if err != nil {
			return nil, err
		}
		return expr.Binary(op, f, expr.NewConst(int64(2), types.TInt32))
	case 14: // LIKE: prefix patterns compile, others do not
		pats := []string{"a%", "a", "%", "", "ab%%", "a\\%%", "a\\_", "é%", "a_%", "%b", "\ufffd%", "日%"}
		op := []string{"LIKE", "NOT LIKE", "ILIKE"}[g.pick(3)]
		return expr.Binary(op, g.col(g.colOf(types.Type.IsString)), expr.NewConst(pats[g.pick(len(pats))], types.TUnknown))
	}
	if g.pick(2) == 0 { // a float column against an integer or numeric: the constant is cast
		t := []types.Type{types.TInt16, types.TInt32, types.TInt64, types.TNumeric}[g.pick(4)]
		return expr.Binary(op, g.col(g.colOf(types.Type.IsFloat)), expr.NewConst(g.value(t), t))
	}
	// an integer column against a float: the column is cast, unsupported
	return expr.Binary(op, g.col(g.colOf(types.Type.IsInteger)), expr.NewConst(1.5, types.TFloat64))
}

// pred returns a random boolean expression.
func (g *gen) pred(depth int) expr.Expr {
	if depth <= 0 || g.pick(4) == 0 {
		return g.leaf()
	}
	switch g.pick(5) {
	case 0:
		e, _ := expr.Unary("NOT", g.pred(depth-1))
		return e
	case 1, 2:
		e, _ := expr.Binary("AND", g.pred(depth-1), g.pred(depth-1))
		return e
	default:
		e, _ := expr.Binary("OR", g.pred(depth-1), g.pred(depth-1))
		return e
	}
}

// zones are session time zones the binder may evaluate in (expr.WithZone).
var zones = func() []*types.Zone {
	var out []*types.Zone
	for _, name := range []string{"America/New_York", "Asia/Kolkata", "UTC"} {
		if z, err := types.LoadZone(name); err == nil {
			out = append(out, z)
		}
	}
	return out
}()

// zoned returns e, sometimes in a session time zone other than UTC.
func (g *gen) zoned(e expr.Expr) expr.Expr {
	if len(zones) == 0 || g.pick(2) == 0 {
		return e
	}
	return expr.WithZone(e, zones[g.pick(len(zones))])
}
