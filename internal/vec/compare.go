package vec

import (
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// intComparison compiles l op r over integers, dates or timestamps
// (asTS: a date against a timestamp, compared as timestamps).
func (c *compiler) intComparison(k kop, neg bool, l, r expr.Expr, asTS bool) (boolNode, bool) {
	if isNullConst(l) { // the right side is never evaluated
		return constNode{isNull: true}, true
	}
	lo, ok := c.intOperand(l, asTS)
	if !ok {
		return nil, false
	}
	ro, ok := c.intOperand(r, asTS)
	if !ok {
		return nil, false
	}
	if kc, isK := lo.(intConstant); isK { // constants never fail: swap freely
		lo, ro, k = ro, kc, k.flip()
	}
	return &intCmp{k: k, neg: neg, l: lo, r: ro}, true
}

// intCmp compares integer operands; a constant is always on the right.
type intCmp struct {
	k    kop
	neg  bool
	l, r intOperand
}

func (n *intCmp) eval(x *evalCtx) bvec {
	res := x.bits()
	if kc, ok := n.r.(intConstant); ok {
		if col, ok := n.l.(intColumn); ok && !col.asTS {
			intColumnConst(x, col.idx, kc.v, n.k, res)
			return truthOf(res, x.validOf(col.idx), x.bits(), x.n, n.neg)
		}
		l := n.l.vec(x)
		cmpConst(l.vals, kc.v, n.k, res)
		v := truthOf(res, l.valid, x.bits(), x.n, n.neg)
		v.errs = l.errs
		return v
	}
	l := n.l.vec(x)
	r := n.r.vec(x)
	valid, errs := strict(x, l, r)
	cmpVec(l.vals, r.vals, n.k, res)
	v := truthOf(res, valid, x.bits(), x.n, n.neg)
	v.errs = errs
	return v
}

// intColumnConst compares an integer, date or timestamp column with c in
// the column's own width.
func intColumnConst(x *evalCtx, idx int, c int64, k kop, out []uint64) {
	switch a := x.c.Rec.Column(idx).(type) {
	case *array.Int16:
		intConst(a.Int16Values(), c, k, out)
	case *array.Int32:
		intConst(a.Int32Values(), c, k, out)
	case *array.Int64:
		intConst(a.Int64Values(), c, k, out)
	case *array.Date32:
		intConst(a.Date32Values(), c, k, out)
	case *array.Timestamp:
		intConst(a.TimestampValues(), c, k, out)
	}
}

// floatComparison compiles l op r over real and double precision columns
// and constants.
func (c *compiler) floatComparison(k kop, neg bool, l, r expr.Expr) (boolNode, bool) {
	if nullDecides(l, r) {
		return constNode{isNull: true}, true
	}
	if isConst(l) {
		l, r, k = r, l, k.flip()
	}
	lc, ok := l.(*expr.Column)
	if !ok || !c.column(lc, lc.Typ.ID) {
		return nil, false
	}
	if kc, ok := r.(*expr.Const); ok {
		v, isFloat := kc.Value.(float64)
		return &floatCmp{k: k, neg: neg, l: lc.Index, r: -1, c: v}, isFloat
	}
	rc, ok := r.(*expr.Column)
	if !ok || !c.column(rc, rc.Typ.ID) {
		return nil, false
	}
	return &floatCmp{k: k, neg: neg, l: lc.Index, r: rc.Index}, true
}

// floatCmp compares float column l with column r, or with c when r < 0.
type floatCmp struct {
	k    kop
	neg  bool
	l, r int
	c    float64
}

func (n *floatCmp) eval(x *evalCtx) bvec {
	res := x.bits()
	valid := x.validOf(n.l)
	if n.r < 0 {
		switch a := x.c.Rec.Column(n.l).(type) {
		case *array.Float32:
			floatConst(a.Float32Values(), n.c, n.k, res)
		case *array.Float64:
			floatConst(a.Float64Values(), n.c, n.k, res)
		}
	} else {
		floatVec(floats(x, n.l), floats(x, n.r), n.k, res)
		valid = and2(valid, x.validOf(n.r), x.bits())
	}
	return truthOf(res, valid, x.bits(), x.n, n.neg)
}

// floats returns float column idx as float64s.
func floats(x *evalCtx, idx int) []float64 {
	switch a := x.c.Rec.Column(idx).(type) {
	case *array.Float64:
		return a.Float64Values()
	case *array.Float32:
		out := make([]float64, a.Len())
		for i, v := range a.Float32Values() {
			out[i] = float64(v)
		}
		return out
	}
	return nil
}

// boolComparison compiles l op r over boolean columns and constants.
func (c *compiler) boolComparison(k kop, neg bool, l, r expr.Expr) (boolNode, bool) {
	if nullDecides(l, r) {
		return constNode{isNull: true}, true
	}
	if isConst(l) {
		l, r, k = r, l, k.flip()
	}
	lc, ok := l.(*expr.Column)
	if !ok || !c.column(lc, types.IDBool) {
		return nil, false
	}
	if kc, ok := r.(*expr.Const); ok {
		v, isBool := kc.Value.(bool)
		return &boolCmpNode{k: k, neg: neg, l: lc.Index, r: -1, c: v}, isBool
	}
	rc, ok := r.(*expr.Column)
	if !ok || !c.column(rc, types.IDBool) {
		return nil, false
	}
	return &boolCmpNode{k: k, neg: neg, l: lc.Index, r: rc.Index}, true
}

// boolCmpNode compares boolean column l with column r, or with c when
// r < 0 (false < true).
type boolCmpNode struct {
	k    kop
	neg  bool
	l, r int
	c    bool
}

func (n *boolCmpNode) eval(x *evalCtx) bvec {
	a := boolValues(x, n.l)
	valid := x.validOf(n.l)
	var b []uint64
	if n.r < 0 {
		b = x.bits()
		constBits(b, x.n, n.c)
	} else {
		b = boolValues(x, n.r)
		valid = and2(valid, x.validOf(n.r), x.bits())
	}
	res := x.bits()
	boolCmp(a, b, n.k, res)
	return truthOf(res, valid, x.bits(), x.n, n.neg)
}

// stringComparison compiles l op r over text and varchar columns and
// constants: byte-wise, as the row evaluator compares strings.
func (c *compiler) stringComparison(k kop, neg bool, l, r expr.Expr, fam family) (boolNode, bool) {
	if nullDecides(l, r) {
		return constNode{isNull: true}, true
	}
	if isConst(l) {
		l, r, k = r, l, k.flip()
	}
	li, ok := c.stringColumn(l, fam)
	if !ok {
		return nil, false
	}
	if kc, ok := r.(*expr.Const); ok {
		v, isString := kc.Value.(string)
		return &stringCmp{k: k, neg: neg, l: li, r: -1, c: v}, isString
	}
	ri, ok := c.stringColumn(r, fam)
	if !ok {
		return nil, false
	}
	return &stringCmp{k: k, neg: neg, l: li, r: ri}, true
}

// stringColumn returns the index of the column of family fam (text and
// varchar, or bytea) e reads, through an implicit cast between text types
// that keeps the value (one to text or to varchar without a length).
func (c *compiler) stringColumn(e expr.Expr, fam family) (int, bool) {
	if arg, to, ok := expr.ImplicitCast(e); ok {
		if fam != famString || familyOf(to) != famString || to.Width != 0 || familyOf(arg.Type()) != famString {
			return 0, false
		}
		e = arg
	}
	col, ok := e.(*expr.Column)
	if !ok || !c.column(col, col.Typ.ID) || familyOf(col.Typ) != fam {
		return 0, false
	}
	return col.Index, true
}

// stringCmp compares string column l with column r, or with c when
// r < 0.
type stringCmp struct {
	k    kop
	neg  bool
	l, r int
	c    string
}

func (n *stringCmp) eval(x *evalCtx) bvec {
	res := x.bits()
	a := x.c.Rec.Column(n.l).(*array.String)
	valid := x.validOf(n.l)
	if n.r < 0 {
		stringConst(a, n.c, n.k, res)
	} else {
		b := x.c.Rec.Column(n.r).(*array.String)
		stringVec(a, b, n.k, res)
		valid = and2(valid, x.validOf(n.r), x.bits())
	}
	return truthOf(res, valid, x.bits(), x.n, n.neg)
}

// stringsOf returns the offsets (one past the last row included) and
// bytes of a string array; row i is data[offs[i]-offs[0]:offs[i+1]-offs[0]].
func stringsOf(a *array.String) (offs []int32, data []byte) {
	return a.ValueOffsets(), a.ValueBytes()
}

func stringConst(a *array.String, c string, k kop, out []uint64) {
	offs, data := stringsOf(a)
	base := offs[0]
	n := a.Len()
	for w := range out {
		lo := w << 6
		hi := min(lo+64, n)
		var word uint64
		switch k {
		case kEQ:
			for i := lo; i < hi; i++ {
				s, e := offs[i]-base, offs[i+1]-base
				word |= b2u(int(e-s) == len(c) && string(data[s:e]) == c) << uint(i-lo)
			}
		case kLT:
			for i := lo; i < hi; i++ {
				word |= b2u(string(data[offs[i]-base:offs[i+1]-base]) < c) << uint(i-lo)
			}
		default:
			for i := lo; i < hi; i++ {
				word |= b2u(string(data[offs[i]-base:offs[i+1]-base]) > c) << uint(i-lo)
			}
		}
		out[w] = word
	}
}

func stringVec(a, b *array.String, k kop, out []uint64) {
	n := a.Len()
	forWords(n, out, func(lo, hi int) uint64 {
		var word uint64
		for i := lo; i < hi; i++ {
			v, u := a.Value(i), b.Value(i)
			var r bool
			switch k {
			case kEQ:
				r = v == u
			case kLT:
				r = v < u
			default:
				r = v > u
			}
			word |= b2u(r) << uint(i-lo)
		}
		return word
	})
}
