package expr

import "github.com/streamdb/streamdb/internal/types"

// This file lets the vectorized kernels (package vec) take expressions
// apart without changing them: read-only views of the nodes they compile.

// Logic takes apart l AND r / l OR r; ok is false for any other
// expression.
func Logic(e Expr) (or bool, l, r Expr, ok bool) {
	o, isLogic := e.(*logicOp)
	if !isLogic {
		return false, nil, nil, false
	}
	return o.or, o.l, o.r, true
}

// Not takes apart NOT e (as Unary("NOT", e) builds it).
func Not(e Expr) (arg Expr, ok bool) {
	c, isCall := e.(*call)
	if !isCall || c.style != stylePrefix || c.name != "NOT" || len(c.args) != 1 || c.nonStrict {
		return nil, false
	}
	return c.args[0], true
}

// NullTest takes apart e IS [NOT] NULL.
func NullTest(e Expr) (arg Expr, not, ok bool) {
	n, isNull := e.(*nullTest)
	if !isNull {
		return nil, false, false
	}
	return n.e, n.not, true
}

// BoolTest takes apart e IS [NOT] TRUE / FALSE: val is the boolean
// compared with.
func BoolTest(e Expr) (arg Expr, val, not, ok bool) {
	b, isBool := e.(*boolTest)
	if !isBool {
		return nil, false, false, false
	}
	return b.e, b.val, b.not, true
}

// ImplicitCast takes apart a cast the binder inserted to match an
// operator (not CAST, ::, or an assignment): its input and target type.
func ImplicitCast(e Expr) (arg Expr, to types.Type, ok bool) {
	c, isCast := e.(*castExpr)
	if !isCast || !c.implicit {
		return nil, types.Type{}, false
	}
	return c.e, c.to, true
}

// Arithmetic takes apart the integer operators l + r, l - r, l * r
// between integer types (the overloads intArith implements); ok is false
// for any other expression.
func Arithmetic(e Expr) (op string, l, r Expr, ok bool) {
	c, isCall := e.(*call)
	if !isCall || c.style != styleInfix || len(c.args) != 2 || c.nonStrict {
		return "", nil, nil, false
	}
	switch c.name {
	case "+", "-", "*":
	default:
		return "", nil, nil, false
	}
	if !c.typ.IsInteger() || !c.args[0].Type().IsInteger() || !c.args[1].Type().IsInteger() {
		return "", nil, nil, false
	}
	return c.name, c.args[0], c.args[1], true
}

// ApplyCall runs the operator of a call node on non-NULL argument values,
// as Eval would after evaluating its arguments: the kernels call it to
// raise exactly the row evaluator's error. ok is false when e is no call.
func ApplyCall(e Expr, args []types.Datum) (v types.Datum, err error, ok bool) {
	c, isCall := e.(*call)
	if !isCall {
		return nil, nil, false
	}
	v, err = c.fn(args)
	return v, err, true
}

// DateAsTimestamp converts a date to a timestamp as the cross-type
// date/timestamp comparisons do: midnight, saturating at the infinities.
func DateAsTimestamp(d types.Date) types.Timestamp { return dateAsTimestamp(d) }

// Like takes apart l LIKE r and l NOT LIKE r over text (not ILIKE, not
// bytea); ok is false for any other expression.
func Like(e Expr) (not bool, l, r Expr, ok bool) {
	c, isCall := e.(*call)
	if !isCall || c.style != styleInfix || len(c.args) != 2 || c.nonStrict ||
		(c.name != "LIKE" && c.name != "NOT LIKE") || c.args[0].Type().ID != tText {
		return false, nil, nil, false
	}
	return c.name == "NOT LIKE", c.args[0], c.args[1], true
}
