package expr

import (
	"strings"

	"github.com/streamdb/streamdb/internal/types"
)

// registerConditionals adds coalesce, nullif, greatest and least.
func registerConditionals() {
	register(buildCoalesce, "coalesce")
	register(buildNullif, "nullif")
	register(buildExtreme(1), "greatest")
	register(buildExtreme(-1), "least")
	register(buildOverlaps, "overlaps")
}

// unified coerces args to their common type.
func unified(context string, args []Expr) ([]Expr, types.Type, error) {
	t, err := commonTypeFor(context, exprTypes(args))
	if err != nil {
		return nil, t, err
	}
	out, err := coerceAll(args, t)
	return out, t, err
}

// coalesceNode returns its first non-NULL argument, evaluating no further.
type coalesceNode struct {
	args []Expr
	typ  types.Type
}

func buildCoalesce(name string, args []Expr) (Expr, error) {
	if len(args) == 0 {
		return nil, functionError(name, nil, resolveNone)
	}
	out, t, err := unified("COALESCE", args)
	if err != nil {
		return nil, err
	}
	return &coalesceNode{args: out, typ: t}, nil
}

func (c *coalesceNode) Type() types.Type            { return c.typ }
func (c *coalesceNode) Children() []Expr            { return c.args }
func (c *coalesceNode) WithChildren(ch []Expr) Expr { return &coalesceNode{args: ch, typ: c.typ} }
func (c *coalesceNode) String() string {
	return (&call{name: "COALESCE", args: c.args}).String()
}

func (c *coalesceNode) Eval(row []types.Datum) (types.Datum, error) {
	for _, a := range c.args {
		v, err := a.Eval(row)
		if err != nil || v != nil {
			return v, err
		}
	}
	return nil, nil
}

// buildNullif is nullif(a, b): NULL when a = b, else a (of a's type).
func buildNullif(name string, args []Expr) (Expr, error) {
	if len(args) != 2 {
		return nil, functionError(name, exprTypes(args), resolveNone)
	}
	e, err := binary("=", args[0], args[1])
	if err != nil {
		return nil, err
	}
	eq := e.(*call)
	return &call{name: "NULLIF", args: eq.args, typ: eq.args[0].Type(), nonStrict: true,
		fn: func(a []types.Datum) (types.Datum, error) {
			if a[0] == nil || a[1] == nil {
				return a[0], nil
			}
			same, err := eq.fn(a)
			if err != nil || same == true {
				return nil, err
			}
			return a[0], nil
		}}, nil
}

// buildExtreme builds greatest (sign 1) or least (-1): NULLs are ignored;
// NULL only when all arguments are.
func buildExtreme(sign int) funcBuilder {
	return func(name string, args []Expr) (Expr, error) {
		if len(args) == 0 {
			return nil, functionError(name, nil, resolveNone)
		}
		out, t, err := unified(strings.ToUpper(name), args)
		if err != nil {
			return nil, err
		}
		return &call{name: strings.ToUpper(name), args: out, typ: t, nonStrict: true,
			fn: func(a []types.Datum) (types.Datum, error) {
				var best types.Datum
				for _, v := range a {
					if v != nil && (best == nil || compare(v, best, t)*sign > 0) {
						best = v
					}
				}
				return best, nil
			}}, nil
	}
}
