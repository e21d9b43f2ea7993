package vec

import (
	"math/bits"

	"github.com/streamdb/streamdb/internal/expr"
)

// caseValue compiles CASE WHEN conds[i] THEN results[i] ... ELSE els END.
func (c *compiler) caseValue(k kind, conds, results []expr.Expr, els expr.Expr) (valueNode, bool) {
	n := &caseNode{k: k}
	for i, e := range conds {
		cn, ok := c.cond(e)
		if !ok {
			return nil, false
		}
		rn, ok := c.value(results[i])
		if !ok {
			return nil, false
		}
		n.conds, n.results = append(n.conds, cn), append(n.results, rn)
	}
	if els != nil {
		var ok bool
		if n.els, ok = c.value(els); !ok {
			return nil, false
		}
	}
	return n, true
}

// caseNode evaluates each condition over the rows no earlier one
// decided, and each result over every row, keeping its values and errors
// only on the rows that take it: the row evaluator evaluates a result
// only when its condition is the first true one, so an error (a division
// by zero a WHEN guards against) counts only there. A result no row takes
// is not evaluated at all.
type caseNode struct {
	k       kind
	conds   []boolNode
	results []valueNode
	els     valueNode // nil: NULL
}

func (n *caseNode) eval(x *evalCtx) vvec {
	out := x.newVec(n.k)
	rest := x.bits() // the rows no condition decided yet
	fill(rest, x.n)
	for i, cond := range n.conds {
		if !anySet(rest) {
			return out
		}
		cv := cond.eval(x)
		for r, err := range cv.errs {
			if bit(rest, r) {
				out.fail(x, r, err)
				clearBit(rest, r)
			}
		}
		take := cv.t
		for w := range take {
			take[w] &= rest[w]
			rest[w] &^= take[w]
		}
		if anySet(take) {
			merge(x, &out, n.results[i].eval(x), take)
		}
	}
	if n.els != nil && anySet(rest) {
		merge(x, &out, n.els.eval(x), rest)
	}
	return out
}

// coalesce compiles COALESCE(args...).
func (c *compiler) coalesce(k kind, args []expr.Expr) (valueNode, bool) {
	ns, ok := c.values(args)
	if !ok {
		return nil, false
	}
	return &coalesceNode{k: k, args: ns}, true
}

// coalesceNode takes each row's first non-NULL argument; an argument's
// errors count only on the rows all earlier arguments were NULL on, and
// an argument no row needs is not evaluated.
type coalesceNode struct {
	k    kind
	args []valueNode
}

func (n *coalesceNode) eval(x *evalCtx) vvec {
	out := x.newVec(n.k)
	rest := x.bits() // the rows whose arguments so far were NULL
	fill(rest, x.n)
	take := x.bits()
	for _, a := range n.args {
		if !anySet(rest) {
			break
		}
		v := a.eval(x)
		for w := range take {
			m := rest[w]
			if v.valid != nil {
				m &= v.valid[w]
			}
			take[w] = m
		}
		for r := range v.errs { // error rows are not valid: not in take
			if bit(rest, r) {
				take[r>>6] |= 1 << (uint(r) & 63)
			}
		}
		merge(x, &out, v, take)
		for w := range rest {
			rest[w] &^= take[w]
		}
	}
	return out
}

// merge copies v's values, NULLs and errors on the rows of take into out
// (whose valid is its own).
func merge(x *evalCtx, out *vvec, v vvec, take []uint64) {
	for r, err := range v.errs {
		if bit(take, r) {
			out.fail(x, r, err)
		}
	}
	for w, m := range take {
		if v.valid != nil {
			m &= v.valid[w]
		}
		if m == 0 {
			continue
		}
		out.valid[w] |= m
		if out.b != nil {
			out.b[w] = out.b[w]&^m | v.b[w]&m
			continue
		}
		for m != 0 {
			i := w<<6 + bits.TrailingZeros64(m)
			m &= m - 1
			switch {
			case out.i != nil:
				out.i[i] = v.i[i]
			case out.f != nil:
				out.f[i] = v.f[i]
			case out.n != nil:
				out.n[i] = v.n[i]
			default:
				out.s[i] = v.s[i]
			}
		}
	}
}

// anySet reports whether a bit of w is set.
func anySet(w []uint64) bool {
	for _, x := range w {
		if x != 0 {
			return true
		}
	}
	return false
}
