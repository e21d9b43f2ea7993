package vec

import (
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// The generator of random value expressions for the projection tests:
// every shape the value kernels compile (arithmetic, casts, CASE,
// COALESCE, ||, concat, date arithmetic, date_part, comparisons of
// values, interval arithmetic and window starts), over the columns and
// constants of gen, with unsupported leaves (numeric, functions without
// kernels) mixed in, built with the constructors the binder uses.

var (
	intTypes   = []types.Type{types.TInt16, types.TInt32, types.TInt64}
	floatTypes = []types.Type{types.TFloat32, types.TFloat64}
)

// valueOf returns a random expression of a type of kind k (for kInt:
// integers; dates and timestamps come from timeValue).
func (g *gen) valueOf(k kind, depth int) expr.Expr {
	for {
		if e, err := g.tryValue(k, depth); err == nil && e != nil {
			return e
		}
	}
}

func (g *gen) tryValue(k kind, depth int) (expr.Expr, error) {
	if depth <= 0 || g.pick(4) == 0 {
		return g.valueLeaf(k), nil
	}
	switch g.pick(10) {
	case 0: // CASE
		n := 1 + g.pick(3)
		whens, thens := make([]expr.Expr, n), make([]expr.Expr, n)
		for i := range whens {
			whens[i], thens[i] = g.boolValue(depth-1), g.valueOf(k, depth-1)
		}
		var els expr.Expr
		if g.pick(3) > 0 {
			els = g.valueOf(k, depth-1)
		}
		return expr.Case(nil, whens, thens, els)
	case 1: // COALESCE
		args := make([]expr.Expr, 1+g.pick(3))
		for i := range args {
			args[i] = g.valueOf(k, depth-1)
		}
		return expr.Func("coalesce", args)
	case 2: // a cast into k
		return g.castInto(k, depth-1)
	}
	switch k {
	case kNumeric:
		if g.pick(4) == 0 { // an integer operand, cast to numeric by the binder
			return expr.Binary([]string{"+", "-", "*"}[g.pick(3)], g.valueOf(kNumeric, depth-1), g.valueOf(kInt, depth-1))
		}
		switch g.pick(6) {
		case 0: // -x, abs, ceil, floor, round, trunc (value_numeric_ops.go)
			if f := []string{"-", "abs", "ceil", "floor", "round", "trunc"}[g.pick(6)]; f == "-" {
				return expr.Unary("-", g.valueOf(kNumeric, depth-1))
			} else {
				return expr.Func(f, []expr.Expr{g.valueOf(kNumeric, depth-1)})
			}
		case 1: // round(x, s), trunc(x, s), mod(x, y)
			if f := []string{"round", "trunc", "mod"}[g.pick(3)]; f == "mod" {
				return expr.Func(f, []expr.Expr{g.valueOf(kNumeric, depth-1), g.valueOf(kNumeric, depth-1)})
			} else {
				return expr.Func(f, []expr.Expr{g.valueOf(kNumeric, depth-1), g.numericScale(depth - 1)})
			}
		}
		return expr.Binary([]string{"+", "-", "*", "/", "%"}[g.pick(5)], g.valueOf(kNumeric, depth-1), g.valueOf(kNumeric, depth-1))
	case kInt, kFloat:
		if g.pick(6) == 0 {
			return expr.Unary("-", g.valueOf(k, depth-1))
		}
		if k == kFloat && g.pick(5) == 0 {
			f := []string{"year", "month", "day", "hour", "epoch", "dow"}[g.pick(6)]
			return expr.Func("date_part", []expr.Expr{expr.NewConst(f, types.TText), g.timeValue(depth - 1)})
		}
		ops := []string{"+", "-", "*", "/", "%"}
		if k == kFloat {
			ops = ops[:4]
		}
		return expr.Binary(ops[g.pick(len(ops))], g.valueOf(k, depth-1), g.valueOf(k, depth-1))
	case kString:
		if g.pick(2) == 0 {
			args := make([]expr.Expr, 1+g.pick(3))
			for i := range args {
				args[i] = g.anyValue(depth - 1)
			}
			return expr.Func("concat", args)
		}
		return expr.Binary("||", g.anyValue(depth-1), g.anyValue(depth-1))
	case kBool:
		return g.boolValue(depth), nil
	}
	return nil, nil
}

// valueLeaf returns a column or a constant of kind k, now and then an
// unsupported expression.
func (g *gen) valueLeaf(k kind) expr.Expr {
	ok := func(t types.Type) bool { return kindOf(t) == k && familyOf(t) != famTime }
	switch g.pick(40) {
	case 0, 1, 2, 3, 4, 5, 6, 7, 8, 9:
		var t types.Type
		switch k {
		case kInt:
			t = intTypes[g.pick(3)]
		case kFloat:
			t = floatTypes[g.pick(2)]
		case kBool:
			t = types.TBool
		case kNumeric:
			t = types.TNumeric
		default:
			t = types.TText
		}
		if g.pick(6) == 0 {
			return expr.NewConst(nil, t)
		}
		return expr.NewConst(g.value(t), t)
	case 10:
		if k == kInt { // unsupported: abs()
			if e, err := expr.Func("abs", []expr.Expr{g.col(g.colOf(ok))}); err == nil {
				return e
			}
		}
	}
	return g.col(g.colOf(ok))
}

// anyValue returns an expression of a random kind (for || and concat).
func (g *gen) anyValue(depth int) expr.Expr {
	if g.pick(6) == 0 {
		return g.timeValue(depth)
	}
	if g.pick(10) == 0 { // a boolean: unsupported (the text of true is true, in concat() t)
		return g.valueOf(kBool, depth)
	}
	return g.valueOf([]kind{kInt, kFloat, kString, kString}[g.pick(4)], depth)
}

// timeValue returns a date or timestamp expression.
func (g *gen) timeValue(depth int) expr.Expr {
	isTime := func(t types.Type) bool { return t.ID == types.IDDate || t.ID == types.IDTimestamp }
	if depth <= 0 || g.pick(3) == 0 {
		return g.col(g.colOf(isTime))
	}
	switch g.pick(4) {
	case 2: // time +/- interval, tumble_start (value_interval_test.go)
		if e := g.windowValue(depth - 1); e.Type().ID != types.IDTimestampTZ {
			return e
		}
	case 0: // date +/- integer
		d := g.col(g.colOf(func(t types.Type) bool { return t.ID == types.IDDate }))
		if e, err := expr.Binary([]string{"+", "-"}[g.pick(2)], d, g.valueOf(kInt, depth-1)); err == nil {
			return e
		}
	case 1: // date <-> timestamp
		to := []types.Type{types.TDate, types.TTimestamp}[g.pick(2)]
		if e, err := expr.Cast(g.timeValue(depth-1), to); err == nil {
			return e
		}
	}
	return g.col(g.colOf(isTime))
}

// castInto returns a cast of an expression into a type of kind k.
func (g *gen) castInto(k kind, depth int) (expr.Expr, error) {
	switch k {
	case kInt:
		from := []kind{kInt, kFloat, kNumeric}[g.pick(3)]
		return expr.Cast(g.valueOf(from, depth), intTypes[g.pick(3)])
	case kFloat:
		from := []kind{kInt, kFloat, kNumeric}[g.pick(3)]
		return expr.Cast(g.valueOf(from, depth), floatTypes[g.pick(2)])
	case kNumeric:
		var from expr.Expr
		switch g.pick(6) {
		case 0:
			from = g.valueOf(kFloat, depth)
		case 1:
			from = g.numericText()
		case 2, 3:
			from = g.valueOf(kInt, depth)
		default:
			from = g.valueOf(kNumeric, depth)
		}
		to := types.TNumeric
		if g.pick(3) == 0 { // a typmod: rounds, and overflows with 22003
			p := 1 + g.pick(20)
			to = types.Type{ID: types.IDNumeric, Precision: p, Scale: g.pick(p + 1)}
		}
		return expr.Cast(from, to)
	case kString:
		if g.pick(4) == 0 {
			return expr.Cast(g.timeValue(depth), types.TText)
		}
		return expr.Cast(g.valueOf([]kind{kInt, kFloat, kString}[g.pick(3)], depth), types.TText)
	}
	return g.boolValue(depth), nil
}

// boolValue returns a boolean expression over values: comparisons, IS
// NULL, IN, AND/OR/NOT, and the predicates of gen.
func (g *gen) boolValue(depth int) expr.Expr {
	for {
		if e, err := g.tryBool(depth); err == nil {
			return e
		}
	}
}

func (g *gen) tryBool(depth int) (expr.Expr, error) {
	if depth <= 0 {
		return g.leaf(), nil
	}
	switch g.pick(7) {
	case 0, 1:
		k := []kind{kInt, kFloat, kString, kBool, kNumeric}[g.pick(5)]
		return expr.Binary(cmpOps[g.pick(len(cmpOps))], g.valueOf(k, depth-1), g.valueOf(k, depth-1))
	case 2:
		return expr.IsNull(g.anyValue(depth-1), g.pick(2) == 0), nil
	case 3:
		k := []kind{kInt, kFloat, kString, kNumeric}[g.pick(4)]
		list := make([]expr.Expr, 1+g.pick(3))
		for i := range list {
			list[i] = g.valueOf(k, depth-1)
		}
		return expr.In(g.valueOf(k, depth-1), list, g.pick(3) == 0)
	case 4:
		return expr.Binary([]string{"AND", "OR"}[g.pick(2)], g.boolValue(depth-1), g.boolValue(depth-1))
	case 5:
		return expr.Unary("NOT", g.boolValue(depth-1))
	}
	if g.pick(3) == 0 {
		return g.pred(1), nil // some leaves do not compile
	}
	return g.leaf(), nil
}

// projExpr returns a random expression for a projection column.
func (g *gen) projExpr(depth int) expr.Expr {
	switch g.pick(8) {
	case 0:
		return g.col(g.pick(len(genTypes)))
	case 1:
		return g.timeValue(depth)
	}
	return g.valueOf([]kind{kInt, kFloat, kString, kBool, kNumeric}[g.pick(5)], depth)
}
