package expr

import (
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// commonType is Postgres's select_common_type: untyped inputs are ignored
// (all untyped gives text); the rest must share a category; the result is
// the first preferred type among them, else the type reached by going
// left to right and moving to the next input's type only when the
// current converts to it implicitly and not back (so character, varchar
// and text, which all convert to each other, resolve to the first).
// Modifiers survive only when all inputs agree.
func commonType(ts []types.Type) (types.Type, error) { return commonTypeFor("", ts) }

// commonTypeFor is commonType for the construct named context (CASE,
// COALESCE ...), which the error message names.
func commonTypeFor(context string, ts []types.Type) (types.Type, error) {
	var known []types.Type
	for _, t := range ts {
		if t.ID != types.IDUnknown {
			known = append(known, t)
		}
	}
	if len(known) == 0 {
		return types.TText, nil
	}
	res := known[0]
	for _, t := range known[1:] {
		if category(t.ID) != category(res.ID) {
			return types.Type{}, mismatch(context, res, t)
		}
		if preferred(res.ID) || res.ID == t.ID {
			continue
		}
		toT, toRes := implicitCast(res.ID, t.ID), implicitCast(t.ID, res.ID)
		switch {
		case toT && !toRes:
			res = t
		case !toRes:
			return types.Type{}, mismatch(context, res, t)
		}
	}
	return withCommonTypmod(res, ts), nil
}

// withCommonTypmod keeps res's modifiers only if every input has res's
// type and the same modifiers (select_common_typmod: an untyped literal
// or NULL, which has none, drops them).
func withCommonTypmod(res types.Type, ts []types.Type) types.Type {
	for _, t := range ts {
		if t != res {
			return types.Type{ID: res.ID, Elem: res.Elem}
		}
	}
	return res
}

// coerceAll converts each expression to t (implicitly).
func coerceAll(es []Expr, t types.Type) ([]Expr, error) {
	out := make([]Expr, len(es))
	for i, e := range es {
		c, err := coerce(e, t)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

func mismatch(context string, a, b types.Type) error {
	if context != "" {
		context += " "
	}
	return pgerr.New(pgerr.DatatypeMismatch, "%stypes %s and %s cannot be matched", context, a, b)
}
