package expr

import "github.com/streamdb/streamdb/internal/types"

// This file lets package vec compile projections (value expressions, not
// only conditions): more read-only views of the nodes, and the row
// evaluator's own conversions, which the kernels call on the rows they
// cannot decide so that they raise exactly the row evaluator's error.

// CallParts takes apart an operator or function call: its name (an
// operator's symbol or keyword, a function's name as registered), its
// arguments (coerced to the overload's parameter types), whether it is
// displayed as a function (name(args)) and whether it is strict (NULL when
// an argument is, the arguments evaluated left to right up to the first
// NULL). ok is false for any other node.
func CallParts(e Expr) (name string, args []Expr, isFunc, strict, ok bool) {
	c, isCall := e.(*call)
	if !isCall {
		return "", nil, false, false, false
	}
	return c.name, c.args, c.style == styleFunc, !c.nonStrict, true
}

// CastParts takes apart a cast of any kind (implicit, assignment,
// explicit): its input and target type.
func CastParts(e Expr) (arg Expr, to types.Type, ok bool) {
	c, isCast := e.(*castExpr)
	if !isCast {
		return nil, types.Type{}, false
	}
	return c.e, c.to, true
}

// ApplyCast runs the conversion of a cast node on a non-NULL value, as
// Eval would after evaluating its input. ok is false when e is no cast.
func ApplyCast(e Expr, v types.Datum) (out types.Datum, err error, ok bool) {
	c, isCast := e.(*castExpr)
	if !isCast {
		return nil, nil, false
	}
	out, err = c.fn(v)
	return out, err, true
}

// CaseParts takes apart a searched CASE (a simple one is built as one):
// its conditions, their results, and ELSE (nil: NULL).
func CaseParts(e Expr) (conds, results []Expr, els Expr, ok bool) {
	c, isCase := e.(*caseNode)
	if !isCase {
		return nil, nil, nil, false
	}
	return c.conds, c.results, c.els, true
}

// CoalesceArgs takes apart COALESCE(args...).
func CoalesceArgs(e Expr) (args []Expr, ok bool) {
	c, isCoalesce := e.(*coalesceNode)
	if !isCoalesce {
		return nil, false
	}
	return c.args, true
}
