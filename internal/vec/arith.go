package vec

import (
	"math"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// arith is integer l + r, l - r or l * r of result type res. On overflow
// it asks the row evaluator's operator (e's) for the error, so that the
// error is the one a row at a time raises ("integer out of range" ...).
type arith struct {
	op   byte
	l, r intOperand
	res  types.Type
	e    expr.Expr
}

func (a *arith) vec(x *evalCtx) ivec {
	l := a.l.vec(x)
	r := a.r.vec(x)
	valid, errs := strict(x, l, r)
	out := l.vals // the left operand's scratch is ours to overwrite
	lo, hi := intRange(a.res)
	owned := false // valid may be a column's bitmap: copy before clearing
	for i, p := range l.vals {
		v, ok := int64Op(a.op, p, r.vals[i]) // NULL rows too: no branch
		if ok && v >= lo && v <= hi {
			out[i] = v
			continue
		}
		if valid != nil && !bit(valid, i) {
			continue
		}
		res, err := a.fail(p, r.vals[i])
		if err == nil {
			out[i] = res
			continue
		}
		if errs == nil {
			errs = rowErrs{} // else a map of this evaluation's, ours to add to
		}
		errs[i] = err
		if !owned {
			w := x.bits()
			if valid == nil {
				fill(w, x.n)
			} else {
				copy(w, valid)
			}
			valid, owned = w, true
		}
		clearBit(valid, i)
	}
	return ivec{vals: out, valid: valid, errs: errs}
}

// fail runs the row evaluator's operator on a row the kernel found out of
// range: the error it raises (or, should it not, its value).
func (a *arith) fail(p, q int64) (int64, error) {
	v, err, _ := expr.ApplyCall(a.e, []types.Datum{p, q})
	if err != nil {
		return 0, err
	}
	n, _ := v.(int64)
	return n, nil
}

// intRange is the range of integer type t.
func intRange(t types.Type) (lo, hi int64) {
	switch t.ID {
	case types.IDInt16:
		return math.MinInt16, math.MaxInt16
	case types.IDInt32:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// int64Op computes x op y, reporting false on int64 overflow.
func int64Op(op byte, x, y int64) (int64, bool) {
	switch op {
	case '+':
		r := x + y
		return r, (x >= 0) != (y >= 0) || (r >= 0) == (x >= 0)
	case '-':
		r := x - y
		return r, (x >= 0) == (y >= 0) || (r >= 0) == (x >= 0)
	case '*':
		if x == 0 || y == 0 {
			return 0, true
		}
		r := x * y
		if r/y != x || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64) {
			return 0, false
		}
		return r, true
	}
	return 0, false
}
