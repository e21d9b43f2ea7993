package vec

import (
	"github.com/streamdb/streamdb/internal/expr"
)

// valueCmp compiles l op r over any value operands of one kind (the
// predicate kernels take columns and constants only). Dates compare with
// dates, timestamps with timestamps: the cross-type comparisons convert,
// and are left to the predicate kernels (date against timestamp) or the
// row evaluator (against timestamptz, in the session time zone).
func (c *compiler) valueCmp(op string, l, r expr.Expr) (boolNode, bool) {
	k, neg, ok := kernelOp(op)
	lt, rt := l.Type(), r.Type()
	kd := kindOf(lt)
	if !ok || kd == kNone || kindOf(rt) != kd || (familyOf(lt) == famTime && lt.ID != rt.ID) {
		return nil, false
	}
	ln, ok := c.value(l)
	if !ok {
		return nil, false
	}
	rn, ok := c.value(r)
	if !ok {
		return nil, false
	}
	return &valueCmpNode{k: k, neg: neg, kd: kd, l: ln, r: rn}, true
}

// valueCmpNode compares two value operands, strictly: NULL when either
// is NULL, the right side's errors only where the left side is not NULL.
type valueCmpNode struct {
	k    kop
	neg  bool
	kd   kind
	l, r valueNode
}

func (n *valueCmpNode) eval(x *evalCtx) bvec {
	l := n.l.eval(x)
	r := n.r.eval(x)
	s := strictArgs(x, []vvec{l, r})
	res := x.bits()
	switch n.kd {
	case kInt:
		cmpVec(l.i, r.i, n.k, res)
	case kFloat:
		floatVec(l.f, r.f, n.k, res)
	case kBool:
		boolCmp(l.b, r.b, n.k, res)
	case kString:
		cmpVec(l.s, r.s, n.k, res)
	case kNumeric:
		numCmpVec(l.n, r.n, n.k, res)
	}
	v := truthOf(res, s.valid, x.bits(), x.n, n.neg)
	v.errs = s.errs
	return v
}
