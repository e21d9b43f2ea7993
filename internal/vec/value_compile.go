package vec

import (
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// value compiles a value expression; ok is false when some part of it
// has no kernel.
func (c *compiler) value(e expr.Expr) (valueNode, bool) {
	k := kindOf(e.Type())
	if k == kNone {
		return nil, false
	}
	if k == kBool {
		if n, ok := c.boolean(e); ok {
			return boolValue{n: n}, true
		}
	}
	switch x := e.(type) {
	case *expr.Column:
		if !c.column(x, x.Typ.ID) {
			return nil, false
		}
		return valueColumn{idx: x.Index, k: k}, true
	case *expr.Const:
		return constValue(x, k)
	}
	if conds, results, els, ok := expr.CaseParts(e); ok {
		return c.caseValue(k, conds, results, els)
	}
	if args, ok := expr.CoalesceArgs(e); ok {
		return c.coalesce(k, args)
	}
	if arg, to, ok := expr.CastParts(e); ok {
		return c.cast(e, arg, to)
	}
	if k == kBool {
		return c.boolValue(e)
	}
	if name, args, isFunc, strict, ok := expr.CallParts(e); ok {
		return c.call(e, name, args, isFunc, strict)
	}
	return nil, false
}

// values compiles each of es.
func (c *compiler) values(es []expr.Expr) ([]valueNode, bool) {
	out := make([]valueNode, len(es))
	for i, e := range es {
		n, ok := c.value(e)
		if !ok {
			return nil, false
		}
		out[i] = n
	}
	return out, true
}

// cond compiles a boolean expression as a condition: with the predicate
// kernels where they apply, else as a value.
func (c *compiler) cond(e expr.Expr) (boolNode, bool) {
	if n, ok := c.boolean(e); ok {
		return n, true
	}
	if e.Type().ID != types.IDBool {
		return nil, false
	}
	v, ok := c.value(e)
	if !ok {
		return nil, false
	}
	return valueBool{v: v}, true
}

// boolValue compiles the boolean expressions the predicate compiler does
// not, over operands it has no kernels for (CASE, arithmetic, casts ...):
// AND, OR, NOT, comparisons, IS [NOT] NULL, IS [NOT] TRUE/FALSE, IN.
func (c *compiler) boolValue(e expr.Expr) (valueNode, bool) {
	var n boolNode
	ok := false
	switch {
	case isLogic(e):
		or, l, r, _ := expr.Logic(e)
		var ln, rn boolNode
		if ln, ok = c.cond(l); ok {
			rn, ok = c.cond(r)
		}
		n = logicNode{or: or, l: ln, r: rn}
	case isNot(e):
		arg, _ := expr.Not(e)
		var a boolNode
		a, ok = c.cond(arg)
		n = notNode{e: a}
	case isNullTest(e):
		arg, not, _ := expr.NullTest(e)
		var v valueNode
		v, ok = c.value(arg)
		n = validNullTest{not: not, valid: func(x *evalCtx) ([]uint64, rowErrs) {
			r := v.eval(x)
			return r.valid, r.errs
		}}
	case isBoolTest(e):
		arg, val, not, _ := expr.BoolTest(e)
		var a boolNode
		a, ok = c.cond(arg)
		n = boolTestNode{e: a, val: val, not: not}
	case isComparison(e):
		op, l, r, _ := expr.Comparison(e)
		n, ok = c.valueCmp(op, l, r)
	case isIn(e):
		eqs, not, _ := expr.InList(e)
		n, ok = c.inValues(eqs, not)
	}
	if !ok {
		return nil, false
	}
	return boolValue{n: n}, true
}

func isLogic(e expr.Expr) bool      { _, _, _, ok := expr.Logic(e); return ok }
func isNot(e expr.Expr) bool        { _, ok := expr.Not(e); return ok }
func isNullTest(e expr.Expr) bool   { _, _, ok := expr.NullTest(e); return ok }
func isBoolTest(e expr.Expr) bool   { _, _, _, ok := expr.BoolTest(e); return ok }
func isComparison(e expr.Expr) bool { _, _, _, ok := expr.Comparison(e); return ok }
func isIn(e expr.Expr) bool         { _, _, ok := expr.InList(e); return ok }

// inValues compiles [NOT] IN as the OR of its comparisons, left to right,
// which is how the row evaluator reads it (true on the first true one,
// else NULL if one was NULL, errors only from those it reached).
func (c *compiler) inValues(eqs []expr.Expr, not bool) (boolNode, bool) {
	if len(eqs) == 0 {
		return constNode{val: not}, true
	}
	var n boolNode
	for _, eq := range eqs {
		m, ok := c.cond(eq)
		if !ok {
			return nil, false
		}
		if n == nil {
			n = m
		} else {
			n = logicNode{or: true, l: n, r: m}
		}
	}
	if not {
		n = notNode{e: n}
	}
	return n, true
}

// boolValue is a condition's result as a value: true, false or NULL.
type boolValue struct{ n boolNode }

func (b boolValue) eval(x *evalCtx) vvec {
	v := b.n.eval(x)
	valid := x.bits()
	for i := range valid {
		valid[i] = v.t[i] | v.f[i]
	}
	return vvec{b: v.t, valid: valid, ownValid: true, errs: v.errs}
}

// valueBool is a boolean value as a condition.
type valueBool struct{ v valueNode }

func (b valueBool) eval(x *evalCtx) bvec {
	v := b.v.eval(x)
	t, f := x.bits(), x.bits()
	for i := range t {
		m := ^uint64(0)
		if v.valid != nil {
			m = v.valid[i]
		}
		if i == len(t)-1 {
			m &= tailMask(x.n)
		}
		t[i] = v.b[i] & m
		f[i] = ^v.b[i] & m
	}
	return bvec{t: t, f: f, errs: v.errs}
}
