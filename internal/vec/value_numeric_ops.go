package vec

import (
	"math"
	"math/bits"
	"strconv"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// Numeric / and %, unary minus, abs, round, trunc, ceil and floor, and
// the casts to and from numeric, over 64-bit coefficients (see
// value_numeric.go for num and the fallback). Each computes exactly what
// the row evaluator's operator or conversion computes for the values it
// takes, and declines (ok false) for any other, which then goes to that
// operator or conversion (expr.ApplyCall, expr.ApplyCast) with the row's
// value: NaN, ±Infinity, wide coefficients, a positive exponent where
// the row evaluator's apd contexts decide the digits, a division by zero
// (which raises 22012 there), results past 64 bits, and typmod and
// integer overflows (22003 there).
//
//   - x / y rounds x/y half away from zero to select_div_scale's scale
//     (expr.divScale: 16 significant digits, no less than either input's
//     scale, at most 1000), from the weight and leading base-10000 digit
//     PostgreSQL's representation would give each operand.
//   - x % y is x - trunc(x/y)*y, exact, at the larger scale, with x's sign.
//   - round(x, s) and casts to numeric(p,s) round half away from zero;
//     trunc toward zero; ceil and floor to integers (types.RoundNumeric,
//     TruncNumeric, ApplyTypmod, expr.numericToward).
//   - numeric to float8 is the correctly rounded nearest double, which
//     one IEEE division or multiplication of a coefficient below 2^53 by
//     an exact power of ten (10^0 .. 10^22) gives (Clinger's fast path);
//     to float4, that double rounded to real, as the row evaluator does.
//   - float8 (float4) to numeric reads the value's %.15g (%.6g) text, as
//     float8_numeric does.
//   - text to numeric reads [-]digits[.digits] of up to 19 digits.

// numDigits is the number of decimal digits of c (1 for zero).
func numDigits(c uint64) int {
	n := 1
	for n < len(pow10) && c >= pow10[n] {
		n++
	}
	return n
}

// numLead is expr.nbaseLead: the weight (power of 10000) and leading
// base-10000 digit of a small value's PostgreSQL representation.
func numLead(v *num) (weight, first int64) {
	if v.coeff == 0 {
		return 0, 0
	}
	nd := int64(numDigits(v.coeff))
	adj := int64(v.exp) + nd - 1
	weight = adj / 4
	if adj%4 != 0 && adj < 0 {
		weight--
	}
	n := adj - weight*4 + 1 // 1 .. 4 digits
	if nd >= n {
		return weight, int64(v.coeff / pow10[nd-n])
	}
	return weight, int64(v.coeff * pow10[n-nd])
}

// numScale is a value's display scale.
func numScale(v *num) int64 { return max(-int64(v.exp), 0) }

// numDivScale is select_div_scale (expr.divScale) of p / q.
func numDivScale(p, q *num) int64 {
	w1, f1 := numLead(p)
	w2, f2 := numLead(q)
	qw := w1 - w2
	if f1 <= f2 {
		qw--
	}
	rs := max(16-qw*4, numScale(p), numScale(q), 0)
	return min(rs, 1000)
}

// numDiv is p / q of small values, q not zero.
func numDiv(p, q num) (num, bool) {
	if q.coeff == 0 {
		return num{}, false
	}
	scale := numDivScale(&p, &q)
	shift := int64(p.exp) - int64(q.exp) + scale
	var hi, lo uint64
	den := q.coeff
	switch {
	case p.coeff == 0:
	case shift >= 0:
		if shift >= int64(len(pow10)) {
			return num{}, false
		}
		hi, lo = bits.Mul64(p.coeff, pow10[shift])
	default:
		if -shift >= int64(len(pow10)) {
			return num{}, false
		}
		h, l := bits.Mul64(den, pow10[-shift])
		if h != 0 {
			return num{}, false
		}
		den, lo = l, p.coeff
	}
	if hi >= den { // the quotient needs more than 64 bits
		return num{}, false
	}
	qt, rem := bits.Div64(hi, lo, den)
	if rem >= den-rem { // 2·rem >= den: half away from zero
		if qt++; qt == 0 {
			return num{}, false
		}
	}
	return numNorm(num{coeff: qt, exp: int32(-scale), neg: p.neg != q.neg})
}

// numMod is p % q of small values, q not zero.
func numMod(p, q num) (num, bool) {
	if q.coeff == 0 {
		return num{}, false
	}
	e := min(p.exp, q.exp)
	a, okA := scaleUp(p.coeff, int64(p.exp)-int64(e))
	b, okB := scaleUp(q.coeff, int64(q.exp)-int64(e))
	if !okA || !okB {
		return num{}, false
	}
	return numNorm(num{coeff: a % b, exp: e, neg: p.neg})
}

// numNorm is types.NormalizeNumeric of a finite value: no negative zero,
// no positive exponent; ok is false when the coefficient overflows.
func numNorm(r num) (num, bool) {
	if r.coeff == 0 {
		r.neg = false
	}
	if r.exp > 0 {
		c, ok := scaleUp(r.coeff, int64(r.exp))
		if !ok {
			return num{}, false
		}
		r.coeff, r.exp = c, 0
	}
	return r, true
}

// dropDigits divides c by 10^k, truncating or rounding half up.
func dropDigits(c uint64, k int64, trunc bool) uint64 {
	if k <= 0 {
		return c
	}
	if k >= int64(len(pow10)) { // c < 10^20 / 2
		return 0
	}
	d := pow10[k]
	q, r := c/d, c%d
	if !trunc && r >= d-r {
		q++
	}
	return q
}

// numRound is types.RoundNumeric (TruncNumeric when trunc) of a small
// value with no positive exponent (where apd's precision, which the row
// evaluator sizes from the digits, could decide otherwise).
func numRound(v num, scale int64, trunc bool) (num, bool) {
	if !v.small() || v.exp > 0 {
		return num{}, false
	}
	scale = min(max(scale, -1000), 1000)
	if scale >= 0 {
		t := -scale
		if int64(v.exp) >= t {
			c, ok := scaleUp(v.coeff, int64(v.exp)-t)
			if !ok {
				return num{}, false
			}
			return numNorm(num{coeff: c, exp: int32(t), neg: v.neg})
		}
		return numNorm(num{coeff: dropDigits(v.coeff, t-int64(v.exp), trunc), exp: int32(t), neg: v.neg})
	}
	q := dropDigits(v.coeff, -scale-int64(v.exp), trunc)
	c, ok := scaleUp(q, -scale)
	if !ok {
		return num{}, false
	}
	return numNorm(num{coeff: c, neg: v.neg})
}

// numToward is ceil (up) or floor of a small value with no positive
// exponent: its integer part, one further toward that side when a
// fraction was cut off on it.
func numToward(v num, up bool) (num, bool) {
	if !v.small() || v.exp > 0 {
		return num{}, false
	}
	k := -int64(v.exp)
	q := dropDigits(v.coeff, k, true)
	cut := k > 0 && (k >= int64(len(pow10)) || v.coeff%pow10[k] != 0)
	if cut && v.coeff != 0 && up != v.neg {
		q++
	}
	return numNorm(num{coeff: q, neg: v.neg})
}

// numTypmod is types.ApplyTypmod of a small value to numeric(p,s).
func numTypmod(v num, t types.Type) (num, bool) {
	r, ok := numRound(v, int64(t.Scale), false)
	if !ok || (r.coeff != 0 && int64(numDigits(r.coeff))+int64(r.exp) > int64(t.Precision-t.Scale)) {
		return num{}, false
	}
	return r, true
}

// pow10f are the powers of ten a float64 holds exactly.
var pow10f = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// numFloat is the double nearest a small value, when the fast path
// gives it.
func numFloat(v num) (float64, bool) {
	if !v.small() || v.coeff > 1<<53 || v.exp < -22 || v.exp > 22 {
		return 0, false
	}
	f := float64(v.coeff)
	if v.exp < 0 {
		f /= pow10f[-v.exp]
	} else {
		f *= pow10f[v.exp]
	}
	if v.neg {
		f = -f
	}
	return f, true
}

// parseNum reads [-]digits[.digits] (and [e[+-]digits] when exp) of up
// to 19 digits, normalized as types.ParseNumeric leaves it.
func parseNum[T string | []byte](b T, withExp bool) (num, bool) {
	var r num
	i := 0
	if i < len(b) && b[i] == '-' {
		r.neg = true
		i++
	}
	nd, start := 0, i
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		r.coeff = r.coeff*10 + uint64(b[i]-'0')
		nd++
	}
	if i == start {
		return num{}, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		start = i
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			r.coeff = r.coeff*10 + uint64(b[i]-'0')
			r.exp--
			nd++
		}
		if i == start {
			return num{}, false
		}
	}
	if nd > 19 {
		return num{}, false
	}
	if withExp && i < len(b) && b[i] == 'e' {
		i++
		sign := int32(1)
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			if b[i] == '-' {
				sign = -1
			}
			i++
		}
		e, start := int32(0), i
		for ; i < len(b) && i-start < 4 && b[i] >= '0' && b[i] <= '9'; i++ {
			e = e*10 + int32(b[i]-'0')
		}
		if i == start {
			return num{}, false
		}
		r.exp += sign * e
	}
	if i != len(b) {
		return num{}, false
	}
	return numNorm(r)
}

// numUnaryFn is a function of one numeric computed by a kernel.
type numUnaryFn func(num) (num, bool)

// numUnary is -x, abs, ceil, floor, round(x) and trunc(x) of a numeric.
type numUnary struct {
	f   numUnaryFn
	arg valueNode
	e   expr.Expr
}

func (u *numUnary) eval(x *evalCtx) vvec {
	v := u.arg.eval(x)
	for i := range v.n {
		if !v.isValid(i) {
			continue
		}
		if r, ok := u.f(v.n[i]); ok {
			v.n[i] = r
			continue
		}
		d, err, _ := expr.ApplyCall(u.e, []types.Datum{v.n[i].decimal()})
		if err != nil {
			v.fail(x, i, err)
			continue
		}
		v.n[i] = numOf(d.(*apd.Decimal))
	}
	return v
}

// numRoundTo is round(x, s) and trunc(x, s).
type numRoundTo struct {
	trunc bool
	l, r  valueNode
	e     expr.Expr
}

func (n *numRoundTo) eval(x *evalCtx) vvec {
	l := n.l.eval(x)
	r := n.r.eval(x)
	out := strictArgs(x, []vvec{l, r})
	out.n = l.n
	for i := range l.n {
		if !out.isValid(i) {
			continue
		}
		if v, ok := numRound(l.n[i], r.i[i], n.trunc); ok {
			out.n[i] = v
			continue
		}
		d, err, _ := expr.ApplyCall(n.e, []types.Datum{l.n[i].decimal(), r.i[i]})
		if err != nil {
			out.fail(x, i, err)
			continue
		}
		out.n[i] = numOf(d.(*apd.Decimal))
	}
	return out
}

// numFunc compiles abs, ceil, floor, round, trunc and mod of numerics.
func (c *compiler) numFunc(e expr.Expr, name string, args []expr.Expr) (valueNode, bool) {
	if e.Type().ID != types.IDNumeric || len(args) == 0 || args[0].Type().ID != types.IDNumeric {
		return nil, false
	}
	ns, ok := c.values(args)
	if !ok {
		return nil, false
	}
	var f numUnaryFn
	switch {
	case len(args) == 2 && name == "mod" && args[1].Type().ID == types.IDNumeric:
		return &numArith{op: '%', l: ns[0], r: ns[1], e: e}, true
	case len(args) == 2 && (name == "round" || name == "trunc") && args[1].Type().IsInteger():
		return &numRoundTo{trunc: name == "trunc", l: ns[0], r: ns[1], e: e}, true
	case len(args) != 1:
		return nil, false
	case name == "abs":
		f = func(v num) (num, bool) { v.neg = false; return v, v.small() }
	case name == "ceil" || name == "ceiling":
		f = func(v num) (num, bool) { return numToward(v, true) }
	case name == "floor":
		f = func(v num) (num, bool) { return numToward(v, false) }
	case name == "round":
		f = func(v num) (num, bool) { return numRound(v, 0, false) }
	case name == "trunc":
		f = func(v num) (num, bool) { return numRound(v, 0, true) }
	default:
		return nil, false
	}
	return &numUnary{f: f, arg: ns[0], e: e}, true
}

// numNegate compiles -x of a numeric.
func (c *compiler) numNegate(e, arg expr.Expr) (valueNode, bool) {
	n, ok := c.value(arg)
	if !ok {
		return nil, false
	}
	return &numUnary{arg: n, e: e, f: func(v num) (num, bool) {
		if !v.small() {
			return num{}, false
		}
		v.neg = !v.neg
		return numNorm(v) // -0 is 0
	}}, true
}

// numCast converts to or from numeric: to numeric(p,s) from integers,
// numerics, floats and text; to numeric from floats and text; from
// numeric to integers and floats. NULL rows stay NULL.
type numCast struct {
	arg      valueNode
	e        expr.Expr
	from, to types.Type
	fk, tk   kind
	lo, hi   int64
	digits   int    // significant digits of a float's text
	buf      []byte // a float's text, reused
}

// numCast compiles a cast to or from numeric that castNode does not.
func (c *compiler) numCast(e, arg expr.Expr, from, to types.Type) (valueNode, bool) {
	fk, tk := kindOf(from), kindOf(to)
	switch {
	case tk == kNumeric && (fk == kNumeric || fk == kFloat || fk == kString || (fk == kInt && from.IsInteger())):
	case fk == kNumeric && (to.IsInteger() || tk == kFloat):
	default:
		return nil, false
	}
	n, ok := c.value(arg)
	if !ok {
		return nil, false
	}
	lo, hi := intRange(to)
	digits := 15
	if from.ID == types.IDFloat32 {
		digits = 6
	}
	return &numCast{arg: n, e: e, from: from, to: to, fk: fk, tk: tk, lo: lo, hi: hi, digits: digits}, true
}

func (n *numCast) eval(x *evalCtx) vvec {
	v := n.arg.eval(x)
	var on []num
	var oi []int64
	var of []float64
	switch n.tk {
	case kNumeric:
		if on = v.n; on == nil {
			on = x.nums()
		}
	case kInt:
		oi = x.ints()
	default:
		of = x.floats()
	}
	for i := 0; i < x.n; i++ {
		if !v.isValid(i) {
			continue
		}
		var p num
		ok := true
		switch n.fk {
		case kNumeric:
			p = v.n[i]
			ok = p.small()
		case kInt:
			c, neg := uint64(v.i[i]), v.i[i] < 0
			if neg {
				c = -c
			}
			p = num{coeff: c, neg: neg}
		case kFloat:
			if f := v.f[i]; math.IsNaN(f) || math.IsInf(f, 0) {
				ok = false
			} else {
				n.buf = strconv.AppendFloat(n.buf[:0], f, 'g', n.digits, 64)
				p, ok = parseNum(n.buf, true)
			}
		case kString:
			p, ok = parseNum(v.s[i], false)
		}
		if ok {
			switch n.tk {
			case kNumeric:
				if n.to.Precision > 0 {
					p, ok = numTypmod(p, n.to)
				}
				if ok { // on may be the input's v.n, which slow reads
					on[i] = p
				}
			case kInt:
				var r num
				if r, ok = numRound(p, 0, false); ok {
					ok = (!r.neg && r.coeff <= uint64(n.hi)) || (r.neg && r.coeff <= -uint64(n.lo))
					oi[i] = int64(r.coeff)
					if r.neg {
						oi[i] = -oi[i]
					}
				}
			default:
				var f float64
				if f, ok = numFloat(p); ok && n.to.ID == types.IDFloat32 {
					r := float64(float32(f))
					ok = !math.IsInf(r, 0) && (r != 0 || f == 0)
					f = r
				}
				of[i] = f
			}
		}
		if !ok {
			n.slow(x, &v, i, on, oi, of)
		}
	}
	v.n, v.i, v.f, v.s = on, oi, of, nil
	return v
}

// slow converts row i with the row evaluator's conversion.
func (n *numCast) slow(x *evalCtx, v *vvec, i int, on []num, oi []int64, of []float64) {
	var in types.Datum
	switch n.fk {
	case kNumeric:
		in = v.n[i].decimal()
	case kInt:
		in = v.i[i]
	case kFloat:
		in = v.f[i]
	default:
		in = v.s[i]
	}
	d, err, _ := expr.ApplyCast(n.e, in)
	if err != nil {
		v.fail(x, i, err)
		return
	}
	switch r := d.(type) {
	case *apd.Decimal:
		on[i] = numOf(r)
	case int64:
		oi[i] = r
	case float64:
		of[i] = r
	}
}
