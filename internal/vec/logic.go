package vec

import (
	"github.com/apache/arrow-go/v18/arrow/array"
)

// boolNode evaluates a boolean expression over every row of a chunk.
type boolNode interface {
	eval(x *evalCtx) bvec
}

// constNode is TRUE, FALSE or NULL (isNull) on every row.
type constNode struct{ val, isNull bool }

func (k constNode) eval(x *evalCtx) bvec {
	t, f := x.zeros(), x.zeros()
	switch {
	case k.isNull:
	case k.val:
		fill(t, x.n)
	default:
		fill(f, x.n)
	}
	return bvec{t: t, f: f}
}

// boolColumn is a boolean column used as a condition.
type boolColumn struct{ idx int }

func (b boolColumn) eval(x *evalCtx) bvec {
	res := boolValues(x, b.idx)
	return truthOf(res, x.validOf(b.idx), x.bits(), x.n, false)
}

// boolValues returns the values of boolean column idx as a scratch
// bitmap.
func boolValues(x *evalCtx, idx int) []uint64 {
	a := x.c.Rec.Column(idx).(*array.Boolean)
	w := x.bits()
	copyBits(a.Data().Buffers()[1].Bytes(), a.Data().Offset(), a.Len(), w)
	return w
}

// logicNode is l AND r or l OR r: the right side's errors count only on
// the rows the left side does not decide (false for AND, true for OR).
type logicNode struct {
	or   bool
	l, r boolNode
}

func (o logicNode) eval(x *evalCtx) bvec {
	a := o.l.eval(x)
	b := o.r.eval(x)
	out := bvec{t: a.t, f: a.f}
	if o.or {
		for i := range out.t {
			out.t[i] = a.t[i] | b.t[i]
			out.f[i] = a.f[i] & b.f[i]
		}
	} else {
		for i := range out.t {
			out.t[i] = a.t[i] & b.t[i]
			out.f[i] = a.f[i] | b.f[i]
		}
	}
	if len(a.errs) == 0 && len(b.errs) == 0 {
		return out
	}
	// The rows the left side decides: a.t and a.f now hold the result,
	// which on the rows where the right side failed (no bits) equals
	// the left side.
	decided := out.f
	if o.or {
		decided = out.t
	}
	out.errs = union(a.errs, b.errs, func(r int) bool {
		_, left := a.errs[r]
		return !left && !bit(decided, r)
	})
	out.clearErrs()
	return out
}

// notNode is NOT e: NULL stays NULL.
type notNode struct{ e boolNode }

func (n notNode) eval(x *evalCtx) bvec {
	v := n.e.eval(x)
	return bvec{t: v.f, f: v.t, errs: v.errs}
}

// boolTestNode is e IS [NOT] TRUE / FALSE: never NULL.
type boolTestNode struct {
	e        boolNode
	val, not bool
}

func (b boolTestNode) eval(x *evalCtx) bvec {
	v := b.e.eval(x)
	hit := v.f
	if b.val {
		hit = v.t
	}
	return complementOf(x, hit, b.not, v.errs)
}

// complementOf returns hit as true and the other rows as false (swapped
// when neg), except the error rows.
func complementOf(x *evalCtx, hit []uint64, neg bool, errs rowErrs) bvec {
	other := x.bits()
	for i := range other {
		other[i] = ^hit[i]
	}
	if len(other) > 0 {
		other[len(other)-1] &= tailMask(x.n)
	}
	out := bvec{t: hit, f: other, errs: errs}
	if neg {
		out.t, out.f = out.f, out.t
	}
	out.clearErrs()
	return out
}

// boolNullTest is e IS [NOT] NULL of a boolean expression.
type boolNullTest struct {
	e   boolNode
	not bool
}

func (b boolNullTest) eval(x *evalCtx) bvec {
	v := b.e.eval(x)
	null := v.t
	for i := range null {
		null[i] = ^(v.t[i] | v.f[i])
	}
	if len(null) > 0 {
		null[len(null)-1] &= tailMask(x.n)
	}
	return complementOf(x, null, b.not, v.errs)
}

// validNullTest is e IS [NOT] NULL of a value whose validity a column or
// an integer expression gives.
type validNullTest struct {
	valid func(x *evalCtx) ([]uint64, rowErrs)
	not   bool
}

func (v validNullTest) eval(x *evalCtx) bvec {
	valid, errs := v.valid(x)
	null := x.bits()
	for i := range null {
		if valid == nil {
			null[i] = 0
		} else {
			null[i] = ^valid[i]
		}
	}
	if len(null) > 0 {
		null[len(null)-1] &= tailMask(x.n)
	}
	for r := range errs { // an error row is no NULL row
		clearBit(null, r)
	}
	return complementOf(x, null, v.not, errs)
}
