package vec

import (
	"math"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// call compiles an operator or function call with value kernels: integer
// and float arithmetic, unary minus, date +/- integer, || and concat(),
// date_part of a date or timestamp, a time +/- a constant interval and
// tumble_start (value_interval.go).
func (c *compiler) call(e expr.Expr, name string, args []expr.Expr, isFunc, strict bool) (valueNode, bool) {
	res := e.Type()
	if isFunc {
		switch name {
		case "concat":
			return c.concatFunc(args)
		case "date_part":
			return c.datePart(e, args)
		case "tumble_start":
			return c.tumbleStart(args)
		case "abs", "ceil", "ceiling", "floor", "round", "trunc", "mod":
			return c.numFunc(e, name, args)
		}
		return nil, false
	}
	if !strict {
		return nil, false
	}
	if len(args) == 1 && (name == "-" || name == "+") {
		return c.negate(e, name, args[0])
	}
	if len(args) != 2 {
		return nil, false
	}
	lt, rt := args[0].Type(), args[1].Type()
	switch {
	case name == "||" && res.ID == types.IDText && kindOf(lt) == kString && kindOf(rt) == kString:
		return c.concatOp(args)
	case res.IsInteger() && lt.IsInteger() && rt.IsInteger() && len(name) == 1:
		return c.arith(e, name[0], args, res)
	case res.IsFloat() && lt.IsFloat() && rt.IsFloat() && len(name) == 1 && name != "%" && name != "^":
		return c.arith(e, name[0], args, res)
	case res.ID == types.IDNumeric && res.Precision == 0 && lt.ID == types.IDNumeric && rt.ID == types.IDNumeric &&
		(name == "+" || name == "-" || name == "*" || name == "/" || name == "%"):
		ns, ok := c.values(args)
		if !ok {
			return nil, false
		}
		return &numArith{op: name[0], l: ns[0], r: ns[1], e: e}, true
	case res.ID == types.IDDate && (name == "+" || name == "-"):
		return c.dateDays(e, name[0], args)
	case (res.ID == types.IDTimestamp || res.ID == types.IDTimestampTZ) && (name == "+" || name == "-"):
		return c.timeInterval(e, name[0], args)
	}
	return nil, false
}

// arith compiles l op r over integers or floats.
func (c *compiler) arith(e expr.Expr, op byte, args []expr.Expr, res types.Type) (valueNode, bool) {
	switch op {
	case '+', '-', '*', '/', '%':
	default:
		return nil, false
	}
	ns, ok := c.values(args)
	if !ok {
		return nil, false
	}
	if res.IsFloat() {
		return &floatArith{op: op, l: ns[0], r: ns[1], e: e, real: res.ID == types.IDFloat32}, true
	}
	lo, hi := intRange(res)
	return &intArith{op: op, l: ns[0], r: ns[1], e: e, lo: lo, hi: hi}, true
}

// intArith is integer + - * / % with the result type's range [lo, hi].
// A row the kernel cannot compute (overflow, division by zero) goes to
// the row evaluator's operator, which raises its error.
type intArith struct {
	op     byte
	l, r   valueNode
	e      expr.Expr
	lo, hi int64
}

func (a *intArith) eval(x *evalCtx) vvec {
	l := a.l.eval(x)
	r := a.r.eval(x)
	out := strictArgs(x, []vvec{l, r})
	out.i = l.i // the left operand's scratch is ours to overwrite
	for i, p := range l.i {
		q := r.i[i]
		v, ok := intOp(a.op, p, q) // NULL rows too: no branch
		if ok && v >= a.lo && v <= a.hi {
			out.i[i] = v
			continue
		}
		if !out.isValid(i) {
			continue
		}
		d, err, _ := expr.ApplyCall(a.e, []types.Datum{p, q})
		if err != nil {
			out.fail(x, i, err)
			continue
		}
		out.i[i], _ = d.(int64)
	}
	return out
}

// intOp computes x op y, reporting false on int64 overflow and division
// by zero.
func intOp(op byte, x, y int64) (int64, bool) {
	switch op {
	case '/':
		if y == 0 || (y == -1 && x == math.MinInt64) {
			return 0, false
		}
		return x / y, true
	case '%':
		if y == 0 {
			return 0, false
		}
		if y == -1 {
			return 0, true
		}
		return x % y, true
	}
	return int64Op(op, x, y)
}

// floatArith is float + - * /, in double precision then rounded to real
// when real. A row whose result is infinite, NaN or a zero from * or /
// (overflow, underflow, division by zero, or a NaN or infinite operand)
// goes to the row evaluator's operator, which decides it.
type floatArith struct {
	op   byte
	l, r valueNode
	e    expr.Expr
	real bool
}

func (a *floatArith) eval(x *evalCtx) vvec {
	l := a.l.eval(x)
	r := a.r.eval(x)
	out := strictArgs(x, []vvec{l, r})
	out.f = l.f
	mulDiv := a.op == '*' || a.op == '/'
	for i, p := range l.f {
		q := r.f[i]
		var v float64
		switch a.op {
		case '+':
			v = p + q
		case '-':
			v = p - q
		case '*':
			v = p * q
		default:
			v = p / q
		}
		if a.real {
			v = float64(float32(v))
		}
		if !math.IsInf(v, 0) && v == v && (v != 0 || !mulDiv) {
			out.f[i] = v
			continue
		}
		if !out.isValid(i) {
			continue
		}
		d, err, _ := expr.ApplyCall(a.e, []types.Datum{p, q})
		if err != nil {
			out.fail(x, i, err)
			continue
		}
		out.f[i], _ = d.(float64)
	}
	return out
}

// negate compiles -e and +e of an integer or a float.
func (c *compiler) negate(e expr.Expr, name string, arg expr.Expr) (valueNode, bool) {
	k := kindOf(arg.Type())
	if k == kNumeric && e.Type().ID == types.IDNumeric && name == "-" {
		return c.numNegate(e, arg)
	}
	if (k != kInt && k != kFloat) || familyOf(arg.Type()) == famTime || arg.Type().ID != e.Type().ID {
		return nil, false
	}
	n, ok := c.value(arg)
	if !ok || name == "+" {
		return n, ok
	}
	lo, hi := intRange(e.Type())
	return &negNode{arg: n, e: e, lo: lo, hi: hi}, true
}

// negNode is -arg; an integer out of range goes to the row evaluator.
type negNode struct {
	arg    valueNode
	e      expr.Expr
	lo, hi int64
}

func (n *negNode) eval(x *evalCtx) vvec {
	v := n.arg.eval(x)
	if v.f != nil {
		for i, f := range v.f {
			v.f[i] = -f
		}
		return v
	}
	for i, p := range v.i {
		if p != math.MinInt64 && -p >= n.lo && -p <= n.hi {
			v.i[i] = -p
			continue
		}
		if !v.isValid(i) {
			continue
		}
		d, err, _ := expr.ApplyCall(n.e, []types.Datum{p})
		if err != nil {
			v.fail(x, i, err)
			continue
		}
		v.i[i], _ = d.(int64)
	}
	return v
}

// dateDays compiles date + integer, integer + date and date - integer.
func (c *compiler) dateDays(e expr.Expr, op byte, args []expr.Expr) (valueNode, bool) {
	lt, rt := args[0].Type(), args[1].Type()
	dateLeft := lt.ID == types.IDDate && rt.IsInteger()
	if !dateLeft && !(op == '+' && lt.IsInteger() && rt.ID == types.IDDate) {
		return nil, false
	}
	ns, ok := c.values(args)
	if !ok {
		return nil, false
	}
	return &dateDaysNode{sub: op == '-', dateLeft: dateLeft, l: ns[0], r: ns[1], e: e}, true
}

// dateDaysNode adds days to a date; an infinite date or a result out of
// range goes to the row evaluator.
type dateDaysNode struct {
	sub, dateLeft bool
	l, r          valueNode
	e             expr.Expr
}

func (n *dateDaysNode) eval(x *evalCtx) vvec {
	l := n.l.eval(x)
	r := n.r.eval(x)
	out := strictArgs(x, []vvec{l, r})
	d, days := l.i, r.i
	if !n.dateLeft {
		d, days = r.i, l.i
	}
	out.i = d
	for i, v := range d {
		k := days[i]
		if n.sub {
			k = -k
		}
		res := v + k // both within int32: no overflow
		if !types.IsInfinite(types.Date(v)) && types.DateValid(types.Date(res)) && k != math.MinInt64 {
			out.i[i] = res
			continue
		}
		if !out.isValid(i) {
			continue
		}
		args := []types.Datum{types.Date(l.i[i]), r.i[i]}
		if !n.dateLeft {
			args = []types.Datum{l.i[i], types.Date(r.i[i])}
		}
		dv, err, _ := expr.ApplyCall(n.e, args)
		if err != nil {
			out.fail(x, i, err)
			continue
		}
		out.i[i] = int64(dv.(types.Date))
	}
	return out
}
