package vec

import (
	"cmp"
	"math/bits"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// Numeric kernels. A numeric column holds each value in the binary form
// (types.AppendNumericBinary) of the plain value; a kernel reads it into
// a num, computes + - * and comparisons on 64-bit coefficients, and
// writes the result's binary form straight into the output column. The
// row evaluator's numeric arithmetic (expr.numericArith) is exact: the
// coefficient of x * y is the product of the coefficients, its exponent
// their sum (the result scale of * is the sum of the scales); x + y and
// x - y align both to the smaller exponent (the larger scale). Its
// result is normalized (types.NormalizeNumeric: no positive exponent, no
// negative zero) and a column holds the plain form (types.PlainNumeric).
// A kernel computes exactly that for finite operands whose coefficients
// and results fit in 64 bits and whose exponents are far from apd's
// limits; any other row (NaN, ±Infinity, a wider coefficient, an
// overflow) is computed by the row evaluator's own operator
// (expr.ApplyCall) over Decimals, and its result kept as it is.

// num is a numeric value in a kernel: coeff × 10^exp, negative when neg,
// of form form (finite, NaN or infinite); or, when big is set, the
// Decimal big (a coefficient wider than 64 bits, or a value the row
// evaluator made).
type num struct {
	coeff uint64
	exp   int32
	form  apd.Form
	neg   bool
	big   *apd.Decimal
}

// numExpLimit bounds the exponents of the finite values kernels compute
// on: their sums stay far inside apd's exponent range (±100000), where
// its exact arithmetic never signals.
const numExpLimit = 40000

// small reports whether v is finite with a 64-bit coefficient and an
// exponent within numExpLimit.
func (v *num) small() bool {
	return v.big == nil && v.form == apd.Finite && v.exp >= -numExpLimit && v.exp <= numExpLimit
}

// decimal returns v as a Decimal (big itself, when set).
func (v *num) decimal() *apd.Decimal {
	if v.big != nil {
		return v.big
	}
	d := &apd.Decimal{Form: v.form, Negative: v.neg, Exponent: v.exp}
	d.Coeff.SetUint64(v.coeff)
	return d
}

// numOf returns d as a num, kept exactly as it is.
func numOf(d *apd.Decimal) num {
	if !d.Coeff.IsUint64() {
		return num{form: d.Form, neg: d.Negative, exp: d.Exponent, big: d}
	}
	return num{coeff: d.Coeff.Uint64(), exp: d.Exponent, form: d.Form, neg: d.Negative}
}

// nums returns a scratch vector of the chunk's rows (contents undefined).
func (x *evalCtx) nums() []num {
	var v []num
	if k := len(x.freeN); k > 0 && cap(x.freeN[k-1]) >= x.n {
		v = x.freeN[k-1][:x.n]
		x.freeN = x.freeN[:k-1]
	} else {
		v = make([]num, x.n)
	}
	x.usedN = append(x.usedN, v)
	return v
}

// numColumn reads numeric column idx; NULL rows are zero.
func numColumn(x *evalCtx, idx int, valid []uint64) []num {
	out := x.nums()
	a := x.c.Rec.Column(idx).(*array.Binary)
	for i := range out {
		if valid != nil && !bit(valid, i) {
			out[i] = num{}
			continue
		}
		out[i] = readNum(a.Value(i))
	}
	return out
}

// readNum decodes a value in the binary form: the common shape (a
// one-byte exponent and length, a coefficient of up to 8 bytes) inline.
func readNum(b []byte) num {
	if len(b) >= 3 && b[0]>>3 == 0 && b[1] < 0x80 && b[2] <= 8 && len(b) == 3+int(b[2]) {
		v := num{form: apd.Form(b[0] & 3), neg: b[0]&4 != 0, exp: int32(b[1]>>1) ^ -int32(b[1]&1)}
		for _, c := range b[3:] {
			v.coeff = v.coeff<<8 | uint64(c)
		}
		return v
	}
	d := new(apd.Decimal)
	if _, err := types.DecodeNumericBinary(d, b); err != nil {
		// As chunk.NumericAt, which the row evaluator reads with.
		panic("vec: corrupt numeric: " + err.Error())
	}
	return numOf(d)
}

// pow10 are the powers of ten a uint64 holds.
var pow10 = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// scaleUp returns c × 10^k; ok is false when it overflows.
func scaleUp(c uint64, k int64) (uint64, bool) {
	if k == 0 || c == 0 {
		return c, true
	}
	if k >= int64(len(pow10)) {
		return 0, false
	}
	hi, lo := bits.Mul64(c, pow10[k])
	return lo, hi == 0
}

// numOp computes p op q (op + - * / %, value_numeric_ops.go) of small values as the row evaluator
// does, normalized; ok is false when the result does not fit.
func numOp(op byte, p, q num) (num, bool) {
	var r num
	switch op {
	case '/':
		return numDiv(p, q)
	case '%':
		return numMod(p, q)
	case '*':
		hi, lo := bits.Mul64(p.coeff, q.coeff)
		if hi != 0 {
			return num{}, false
		}
		r = num{coeff: lo, exp: p.exp + q.exp, neg: p.neg != q.neg}
	default:
		e := min(p.exp, q.exp)
		a, okA := scaleUp(p.coeff, int64(p.exp)-int64(e))
		b, okB := scaleUp(q.coeff, int64(q.exp)-int64(e))
		if !okA || !okB {
			return num{}, false
		}
		qneg := q.neg != (op == '-')
		r.exp = e
		switch {
		case p.neg == qneg:
			s, carry := bits.Add64(a, b, 0)
			if carry != 0 {
				return num{}, false
			}
			r.coeff, r.neg = s, p.neg
		case a >= b:
			r.coeff, r.neg = a-b, p.neg
		default:
			r.coeff, r.neg = b-a, qneg
		}
	}
	if r.coeff == 0 {
		r.neg = false
	}
	if r.exp > 0 { // no positive exponent (types.NormalizeNumeric)
		c, ok := scaleUp(r.coeff, int64(r.exp))
		if !ok {
			return num{}, false
		}
		r.coeff, r.exp = c, 0
	}
	return r, true
}

// numArith is numeric + - * / % (and mod()).
type numArith struct {
	op   byte
	l, r valueNode
	e    expr.Expr
}

func (a *numArith) eval(x *evalCtx) vvec {
	l := a.l.eval(x)
	r := a.r.eval(x)
	out := strictArgs(x, []vvec{l, r})
	out.n = l.n // the left operand's scratch is ours to overwrite
	for i := range l.n {
		if !out.isValid(i) {
			continue
		}
		p, q := &l.n[i], &r.n[i]
		if p.small() && q.small() {
			if v, ok := numOp(a.op, *p, *q); ok {
				out.n[i] = v
				continue
			}
		}
		d, err, _ := expr.ApplyCall(a.e, []types.Datum{p.decimal(), q.decimal()})
		if err != nil {
			out.fail(x, i, err)
			continue
		}
		out.n[i] = numOf(d.(*apd.Decimal))
	}
	return out
}

// numCmpVec sets the bits of out where a[i] k b[i], numerics ordered as
// the row evaluator orders them (NaN above +Infinity, 1.0 = 1.00).
func numCmpVec(a, b []num, k kop, out []uint64) {
	clear(out)
	for i := range a {
		c := numCmp(&a[i], &b[i])
		var r bool
		switch k {
		case kEQ:
			r = c == 0
		case kLT:
			r = c < 0
		default:
			r = c > 0
		}
		if r {
			out[i>>6] |= 1 << uint(i&63)
		}
	}
}

// numCmp orders two numerics.
func numCmp(a, b *num) int {
	if a.big != nil || b.big != nil || a.form != apd.Finite || b.form != apd.Finite {
		return numCmpSlow(a, b)
	}
	sa, sb := numSign(a), numSign(b)
	if sa != sb || sa == 0 {
		return cmp.Compare(sa, sb)
	}
	var c int
	switch d := int64(a.exp) - int64(b.exp); {
	case d == 0:
		c = cmp.Compare(a.coeff, b.coeff)
	case d > 0:
		if s, ok := scaleUp(a.coeff, d); ok {
			c = cmp.Compare(s, b.coeff)
		} else {
			c = 1 // a's magnitude is at least 10^d times b's exponent unit, past b's
		}
	default:
		if s, ok := scaleUp(b.coeff, -d); ok {
			c = cmp.Compare(a.coeff, s)
		} else {
			c = -1
		}
	}
	return c * sa
}

// numCmpSlow orders values of which one is not finite or has a wide
// coefficient, as the row evaluator does: -Infinity, finite values,
// +Infinity, NaN.
func numCmpSlow(a, b *num) int {
	ra, rb := numRank(a), numRank(b)
	if ra != rb || ra != 1 {
		return cmp.Compare(ra, rb)
	}
	return a.decimal().Cmp(b.decimal())
}

func numRank(v *num) int {
	switch v.form {
	case apd.Finite:
		return 1
	case apd.Infinite:
		if v.neg {
			return 0
		}
		return 2
	}
	return 3
}

func numSign(v *num) int {
	switch {
	case v.coeff == 0:
		return 0
	case v.neg:
		return -1
	}
	return 1
}

// numericBuffers builds the offsets and data of a numeric (Arrow
// Binary) array of v's valid rows (the others empty), each value in the
// binary form of its plain value, as a chunk.Builder appends it.
func numericBuffers(mem memory.Allocator, v vvec, n int) (offs, data *memory.Buffer) {
	enc := make([]byte, 0, 12*n)
	ends := make([]int32, n)
	for i := 0; i < n; i++ {
		if v.isValid(i) {
			enc = appendNum(enc, &v.n[i])
		}
		ends[i] = int32(len(enc))
	}
	offs = memory.NewResizableBuffer(mem)
	offs.Resize((n + 1) * 4)
	o := unsafe.Slice((*int32)(unsafe.Pointer(&offs.Bytes()[0])), n+1)
	o[0] = 0
	copy(o[1:], ends)
	data = memory.NewResizableBuffer(mem)
	data.Resize(len(enc))
	copy(data.Bytes(), enc)
	return offs, data
}

// appendNum appends v's plain value in the binary form.
func appendNum(buf []byte, v *num) []byte {
	switch {
	case v.big != nil:
		return types.AppendNumericBinary(buf, types.PlainNumeric(v.big))
	case v.form != apd.Finite:
		return append(buf, byte(v.form)&3|b2byte(v.neg)<<2, 0, 0)
	case v.exp > 0:
		return types.AppendNumericBinary(buf, types.PlainNumeric(v.decimal()))
	}
	buf = appendZigzag(append(buf, b2byte(v.neg)<<2), int64(v.exp))
	k := (bits.Len64(v.coeff) + 7) / 8
	buf = append(buf, byte(k))
	for j := k - 1; j >= 0; j-- {
		buf = append(buf, byte(v.coeff>>(8*j)))
	}
	return buf
}

func appendZigzag(buf []byte, x int64) []byte {
	u := uint64(x<<1) ^ uint64(x>>63)
	for u >= 0x80 {
		buf = append(buf, byte(u)|0x80)
		u >>= 7
	}
	return append(buf, byte(u))
}

func b2byte(b bool) byte {
	if b {
		return 1
	}
	return 0
}
