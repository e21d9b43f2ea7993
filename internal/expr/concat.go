package expr

import (
	"github.com/streamdb/streamdb/internal/types"
)

// concatOp builds l || r: text concatenation where one side may be of any
// type, rendered with its output format (textanycat / anytextcat). NULL if
// either side is NULL. Two non-string operands are 42883.
func concatOp(l, r Expr) (Expr, error) {
	if e, ok, err := byteaConcat(l, r); ok {
		return e, err
	}
	lt, rt := l.Type(), r.Type()
	if !textLike(lt) && !textLike(rt) {
		return nil, operatorError("||", []types.Type{lt, rt}, resolveNone)
	}
	args := []Expr{castToText(l), castToText(r)}
	return &call{name: "||", style: styleInfix, args: args, typ: types.TText,
		fn: func(a []types.Datum) (types.Datum, error) { return a[0].(string) + a[1].(string), nil }}, nil
}

// textLike reports whether t is stringish or character(n), which
// converts to text implicitly (without its trailing blanks), so that
// char || char is textcat's, as in PostgreSQL.
func textLike(t types.Type) bool { return stringish(t) || t.ID == types.IDBpchar }

// stringish reports whether t is text, varchar or an untyped literal.
func stringish(t types.Type) bool { return t.IsString() || t.ID == types.IDUnknown }

// castToText converts e to text as a cast would (booleans become
// true/false): || is defined as text || x::text.
func castToText(e Expr) Expr {
	t := e.Type()
	if stringish(t) {
		return e
	}
	return &castExpr{e: e, to: types.TText, implicit: true, fn: toText(t, types.TText, false)}
}

// asText converts e to text with the type's output function (booleans
// print as t/f), as concat() does.
func asText(e Expr) Expr {
	t := e.Type()
	if stringish(t) {
		return e
	}
	return &castExpr{e: e, to: types.TText, implicit: true, fn: func(v types.Datum) (types.Datum, error) {
		return types.Format(v, t), nil
	}}
}
