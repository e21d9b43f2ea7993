package vec

import (
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/streamdb/streamdb/internal/expr"
)

// in compiles e [NOT] IN (list), given as its comparisons e = list[i].
// The row evaluator's IN is the OR of those comparisons, left to right
// (true on the first true one; else NULL if one was NULL; errors only
// from comparisons it reached), so a list of anything compiles to that
// OR; a column against constants becomes a hash lookup.
func (c *compiler) in(eqs []expr.Expr, not bool) (boolNode, bool) {
	if len(eqs) == 0 {
		return constNode{val: not}, true
	}
	var n boolNode
	if s, ok := c.inSet(eqs); ok {
		n = s
	} else {
		for _, eq := range eqs {
			op, l, r, ok := expr.Comparison(eq)
			if !ok {
				return nil, false
			}
			m, ok := c.comparison(eq, op, l, r)
			if !ok {
				return nil, false
			}
			if n == nil {
				n = m
			} else {
				n = logicNode{or: true, l: n, r: m}
			}
		}
	}
	if not {
		n = notNode{e: n}
	}
	return n, true
}

// inSet compiles col IN (constants) for one integer or string column.
func (c *compiler) inSet(eqs []expr.Expr) (boolNode, bool) {
	s := &inSetNode{idx: -1, ints: map[int64]struct{}{}, strs: map[string]struct{}{}}
	for _, eq := range eqs {
		op, l, r, ok := expr.Comparison(eq)
		k, isConst := r.(*expr.Const)
		if !ok || op != "=" || !isConst {
			return nil, false
		}
		idx, str, ok := c.setColumn(l)
		if !ok || (s.idx >= 0 && (idx != s.idx || str != s.str)) {
			return nil, false
		}
		s.idx, s.str = idx, str
		switch v := k.Value.(type) {
		case nil:
			s.sawNull = true
		case int64:
			if str {
				return nil, false
			}
			s.ints[v] = struct{}{}
		case string:
			if !str {
				return nil, false
			}
			s.strs[v] = struct{}{}
		default:
			return nil, false
		}
	}
	return s, true
}

// setColumn returns the integer or string column e reads.
func (c *compiler) setColumn(e expr.Expr) (idx int, str, ok bool) {
	if col, isCol := e.(*expr.Column); isCol && familyOf(col.Typ) == famInt && c.column(col, col.Typ.ID) {
		return col.Index, false, true
	}
	idx, ok = c.stringColumn(e, famString)
	return idx, true, ok
}

// inSetNode is column IN (constants): true when the value is one of
// them; otherwise NULL when the value or a constant is NULL, else false.
type inSetNode struct {
	idx     int
	str     bool
	ints    map[int64]struct{}
	strs    map[string]struct{}
	sawNull bool
}

func (s *inSetNode) eval(x *evalCtx) bvec {
	res := x.bits()
	col := x.c.Rec.Column(s.idx)
	if s.str {
		a := col.(*array.String)
		forWords(x.n, res, func(lo, hi int) uint64 {
			var word uint64
			for i := lo; i < hi; i++ {
				_, hit := s.strs[a.Value(i)]
				word |= b2u(hit) << uint(i-lo)
			}
			return word
		})
	} else {
		vals := intColumn{idx: s.idx}.vec(x).vals
		forWords(x.n, res, func(lo, hi int) uint64 {
			var word uint64
			for i := lo; i < hi; i++ {
				_, hit := s.ints[vals[i]]
				word |= b2u(hit) << uint(i-lo)
			}
			return word
		})
	}
	v := truthOf(res, x.validOf(s.idx), x.bits(), x.n, false)
	if s.sawNull { // not found is NULL
		clear(v.f)
	}
	return v
}
