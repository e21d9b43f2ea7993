package vec

import (
	"github.com/streamdb/streamdb/internal/expr"
)

// concatOp compiles l || r of strings (other operands come cast to text):
// strict.
func (c *compiler) concatOp(args []expr.Expr) (valueNode, bool) {
	ns, ok := c.values(args)
	if !ok {
		return nil, false
	}
	return &concatNode{args: ns, strict: true}, true
}

// concatFunc compiles concat(args...): NULL arguments are skipped, the
// result is never NULL; every argument is evaluated (the first error in
// argument order is the row's).
func (c *compiler) concatFunc(args []expr.Expr) (valueNode, bool) {
	for _, a := range args {
		if kindOf(a.Type()) != kString {
			return nil, false
		}
	}
	ns, ok := c.values(args)
	if !ok {
		return nil, false
	}
	return &concatNode{args: ns}, true
}

// concatNode concatenates strings into the evaluation's arena.
type concatNode struct {
	args   []valueNode
	strict bool
}

func (n *concatNode) eval(x *evalCtx) vvec {
	vs := make([]vvec, len(n.args))
	for k, a := range n.args {
		vs[k] = a.eval(x)
	}
	var out vvec
	if n.strict {
		out = strictArgs(x, vs)
	} else {
		for _, v := range vs {
			out.errs = union(out.errs, v.errs, func(int) bool { return true })
		}
		for r, err := range out.errs {
			out.fail(x, r, err)
		}
	}
	out.s = x.strs()
	for i := range out.s {
		if !out.isValid(i) {
			continue
		}
		start := len(x.arena)
		for _, v := range vs {
			if v.isValid(i) {
				x.arena = append(x.arena, v.s[i]...)
			}
		}
		out.s[i] = x.str(start)
	}
	return out
}
