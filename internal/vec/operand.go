package vec

import (
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// ivec is an integer value per row (dates, timestamps as their int64):
// valid has the non-NULL rows (nil: all), errs the rows that raised an
// error, which are not valid.
type ivec struct {
	vals  []int64
	valid []uint64
	errs  rowErrs
}

// intOperand is an integer-valued operand: a column, a constant, or
// integer arithmetic over them.
type intOperand interface {
	vec(x *evalCtx) ivec
}

// intColumn is an integer, date or timestamp column; asTS reads a date
// as the timestamp of its midnight (for cross-type comparisons).
type intColumn struct {
	idx  int
	asTS bool
}

func (c intColumn) vec(x *evalCtx) ivec {
	out := x.ints()
	switch a := x.c.Rec.Column(c.idx).(type) {
	case *array.Int16:
		widen(a.Int16Values(), out)
	case *array.Int32:
		widen(a.Int32Values(), out)
	case *array.Int64:
		copy(out, a.Int64Values())
	case *array.Timestamp:
		widen(a.TimestampValues(), out)
	case *array.Date32:
		if c.asTS {
			for i, d := range a.Date32Values() {
				out[i] = int64(expr.DateAsTimestamp(types.Date(d)))
			}
		} else {
			widen(a.Date32Values(), out)
		}
	}
	return ivec{vals: out, valid: x.validOf(c.idx)}
}

// intConstant is a non-NULL constant.
type intConstant struct{ v int64 }

func (k intConstant) vec(x *evalCtx) ivec {
	out := x.ints()
	for i := range out {
		out[i] = k.v
	}
	return ivec{vals: out}
}

// nullConstant is NULL of an integer type.
type nullConstant struct{}

func (nullConstant) vec(x *evalCtx) ivec {
	return ivec{vals: x.ints(), valid: x.zeros()}
}

// intOperand compiles an integer-valued expression (of the integer or the
// date/time family); asTS reads dates as timestamps.
func (c *compiler) intOperand(e expr.Expr, asTS bool) (intOperand, bool) {
	switch x := e.(type) {
	case *expr.Column:
		if !c.column(x, x.Typ.ID) || (familyOf(x.Typ) != famInt && familyOf(x.Typ) != famTime) {
			return nil, false
		}
		return intColumn{idx: x.Index, asTS: asTS && x.Typ.ID == types.IDDate}, true
	case *expr.Const:
		if x.Value == nil {
			return nullConstant{}, true
		}
		v, ok := intValue(x.Value, asTS)
		return intConstant{v: v}, ok
	}
	if op, l, r, ok := expr.Arithmetic(e); ok && !asTS {
		lo, ok := c.intOperand(l, false)
		if !ok {
			return nil, false
		}
		ro, ok := c.intOperand(r, false)
		if !ok {
			return nil, false
		}
		return &arith{op: op[0], l: lo, r: ro, res: e.Type(), e: e}, true
	}
	return nil, false
}

// intValue is the int64 of an integer, date or timestamp Datum.
func intValue(v types.Datum, asTS bool) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case types.Date:
		if asTS {
			return int64(expr.DateAsTimestamp(x)), true
		}
		return int64(x), true
	case types.Timestamp:
		return int64(x), true
	}
	return 0, false
}

// strict combines the validity and errors of the operands of a strict
// operator evaluated left to right: an error of the left operand, else
// NULL if it is NULL, else an error of the right one, else NULL if it is.
func strict(x *evalCtx, l, r ivec) ([]uint64, rowErrs) {
	errs := union(l.errs, r.errs, func(row int) bool { return l.valid == nil || bit(l.valid, row) })
	var out []uint64
	if l.valid != nil && r.valid != nil {
		out = x.bits()
	}
	return and2(l.valid, r.valid, out), errs
}
