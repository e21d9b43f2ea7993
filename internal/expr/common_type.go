package expr

import (
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// commonType is Postgres's select_common_type: untyped inputs are ignored
// (all untyped gives text); the rest must share a category; the result is
// the first preferred type among them, else the last type all the others
// convert to implicitly. Modifiers survive only when all inputs agree.
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
		if preferred(res.ID) && res.ID != t.ID {
			continue
		}
		if t.ID != res.ID && implicitCast(res.ID, t.ID) {
			res = t
		} else if t.ID != res.ID && !implicitCast(t.ID, res.ID) {
			return types.Type{}, mismatch(context, res, t)
		}
	}
	return withCommonTypmod(res, known), nil
}

// withCommonTypmod keeps res's modifiers only if every input of its type
// has the same ones.
func withCommonTypmod(res types.Type, known []types.Type) types.Type {
	for _, t := range known {
		if t != res {
			return types.Type{ID: res.ID}
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
