package vec

import (
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// compiler turns expressions over rows of the given column types into
// kernels.
type compiler struct {
	types []types.Type
}

// boolean compiles a boolean expression.
func (c *compiler) boolean(e expr.Expr) (boolNode, bool) {
	if e.Type().ID != types.IDBool {
		return nil, false
	}
	if or, l, r, ok := expr.Logic(e); ok {
		return c.logic(or, l, r)
	}
	if arg, ok := expr.Not(e); ok {
		n, ok := c.boolean(arg)
		return notNode{e: n}, ok
	}
	if arg, not, ok := expr.NullTest(e); ok {
		return c.nullTest(arg, not)
	}
	if arg, val, not, ok := expr.BoolTest(e); ok {
		n, ok := c.boolean(arg)
		return boolTestNode{e: n, val: val, not: not}, ok
	}
	if op, l, r, ok := expr.Comparison(e); ok {
		return c.comparison(e, op, l, r)
	}
	if eqs, not, ok := expr.InList(e); ok {
		return c.in(eqs, not)
	}
	if not, l, r, ok := expr.Like(e); ok {
		return c.like(not, l, r)
	}
	switch x := e.(type) {
	case *expr.Column:
		if !c.column(x, types.IDBool) {
			return nil, false
		}
		return boolColumn{idx: x.Index}, true
	case *expr.Const:
		b, isBool := x.Value.(bool)
		if x.Value != nil && !isBool {
			return nil, false
		}
		return constNode{val: b, isNull: x.Value == nil}, true
	}
	return nil, false
}

// column reports whether col reads an input column of type id.
func (c *compiler) column(col *expr.Column, id types.ID) bool {
	return col.Index >= 0 && col.Index < len(c.types) &&
		col.Typ.ID == id && c.types[col.Index].ID == id && !col.Typ.IsOID()
}

func (c *compiler) logic(or bool, l, r expr.Expr) (boolNode, bool) {
	ln, ok := c.boolean(l)
	if !ok {
		return nil, false
	}
	rn, ok := c.boolean(r)
	if !ok {
		return nil, false
	}
	return logicNode{or: or, l: ln, r: rn}, true
}

// nullTest compiles e IS [NOT] NULL: of a boolean expression, of any
// column (validity does not depend on the type), of an integer
// expression.
func (c *compiler) nullTest(e expr.Expr, not bool) (boolNode, bool) {
	if col, ok := e.(*expr.Column); ok {
		if col.Index < 0 || col.Index >= len(c.types) {
			return nil, false
		}
		idx := col.Index
		return validNullTest{not: not, valid: func(x *evalCtx) ([]uint64, rowErrs) {
			return x.validOf(idx), nil
		}}, true
	}
	if e.Type().ID == types.IDBool {
		n, ok := c.boolean(e)
		return boolNullTest{e: n, not: not}, ok
	}
	if e.Type().IsInteger() {
		o, ok := c.intOperand(e, false)
		if !ok {
			return nil, false
		}
		return validNullTest{not: not, valid: func(x *evalCtx) ([]uint64, rowErrs) {
			v := o.vec(x)
			return v.valid, v.errs
		}}, true
	}
	return nil, false
}

// family groups the types whose values one kernel compares.
type family uint8

const (
	famNone   family = iota
	famInt           // smallint, integer, bigint
	famFloat         // real, double precision
	famBool          // boolean
	famTime          // date, timestamp, timestamptz
	famString        // text, varchar: byte-wise (the C collation)
	famBytes         // bytea: byte-wise
)

func familyOf(t types.Type) family {
	switch t.ID {
	case types.IDInt16, types.IDInt32, types.IDInt64:
		return famInt
	case types.IDFloat32, types.IDFloat64:
		return famFloat
	case types.IDBool:
		return famBool
	case types.IDDate, types.IDTimestamp, types.IDTimestampTZ:
		return famTime
	case types.IDText, types.IDVarchar:
		return famString
	case types.IDBytea:
		return famBytes
	}
	return famNone
}

// comparison compiles e, which is l op r.
func (c *compiler) comparison(e expr.Expr, op string, l, r expr.Expr) (boolNode, bool) {
	k, neg, ok := kernelOp(op)
	l, r = c.constCast(l), c.constCast(r)
	if kindOf(l.Type()) == kNumeric && kindOf(r.Type()) == kNumeric {
		return c.valueCmp(op, l, r) // value_numeric.go
	}
	fam := familyOf(l.Type())
	if !ok || fam == famNone || familyOf(r.Type()) != fam {
		return nil, false
	}
	if fam == famTime && (l.Type().ID == types.IDTimestampTZ) != (r.Type().ID == types.IDTimestampTZ) {
		// A timestamptz against a date or timestamp compares in the
		// session's time zone (expr.WithZone): not a kernel's business.
		return nil, false
	}
	if isConst(l) && isConst(r) {
		return c.fold(e)
	}
	switch fam {
	case famInt, famTime:
		asTS := fam == famTime && (l.Type().ID == types.IDDate) != (r.Type().ID == types.IDDate)
		return c.intComparison(k, neg, l, r, asTS)
	case famFloat:
		return c.floatComparison(k, neg, l, r)
	case famBool:
		return c.boolComparison(k, neg, l, r)
	default:
		return c.stringComparison(k, neg, l, r, fam)
	}
}

// constCast returns an implicit cast to a number type of a number constant
// as the constant it evaluates to (e itself for anything else, or when
// the cast fails: the row evaluator then raises the error).
func (c *compiler) constCast(e expr.Expr) expr.Expr {
	arg, to, ok := expr.ImplicitCast(e)
	if !ok || !isConst(arg) {
		return e
	}
	isNumber := func(t types.Type) bool { return familyOf(t) == famInt || familyOf(t) == famFloat }
	if !(isNumber(arg.Type()) || arg.Type().ID == types.IDNumeric) || !isNumber(to) {
		return e
	}
	v, err := e.Eval(nil)
	if err != nil {
		return e
	}
	return expr.NewConst(v, to)
}

func isConst(e expr.Expr) bool {
	_, ok := e.(*expr.Const)
	return ok
}

func isNullConst(e expr.Expr) bool {
	k, ok := e.(*expr.Const)
	return ok && k.Value == nil
}

// fold evaluates a comparison of constants now; ok is false when that
// fails (the row evaluator then raises the error, row by row).
func (c *compiler) fold(e expr.Expr) (boolNode, bool) {
	v, err := e.Eval(nil)
	if err != nil {
		return nil, false
	}
	b, isBool := v.(bool)
	if v != nil && !isBool {
		return nil, false
	}
	return constNode{val: b, isNull: v == nil}, true
}

// nullDecides reports whether a comparison l op r is NULL on every row
// without evaluating anything: l is NULL (r is then not evaluated), or r
// is and l cannot fail (a column or a constant; any other l is evaluated
// first, and may raise an error).
func nullDecides(l, r expr.Expr) bool {
	_, lCol := l.(*expr.Column)
	return isNullConst(l) || (isNullConst(r) && (lCol || isConst(l)))
}
