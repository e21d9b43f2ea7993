package expr

import (
	"strings"

	"github.com/streamdb/streamdb/internal/types"
)

// callStyle says how a call is displayed.
type callStyle uint8

const (
	styleFunc   callStyle = iota // name(a, b)
	styleInfix                   // (a op b)
	stylePrefix                  // (op a)
)

// call applies an operator or function to its evaluated arguments. A
// strict call (the default) is NULL when any argument is NULL, without
// running fn.
type call struct {
	name      string
	style     callStyle
	args      []Expr
	typ       types.Type
	fn        evalFn
	nonStrict bool
	// zone is the time zone WithZone gave a call of zoneCalls (nil: UTC).
	zone *types.Zone
}

func (c *call) Type() types.Type { return c.typ }
func (c *call) Children() []Expr { return c.args }

func (c *call) WithChildren(ch []Expr) Expr {
	n := *c
	n.args = ch
	return &n
}

func (c *call) Eval(row []types.Datum) (types.Datum, error) {
	var buf [4]types.Datum
	vals := buf[:0]
	for _, a := range c.args {
		v, err := a.Eval(row)
		if err != nil {
			return nil, err
		}
		if v == nil && !c.nonStrict {
			return nil, nil
		}
		vals = append(vals, v)
	}
	return c.fn(vals)
}

func (c *call) String() string {
	switch c.style {
	case styleInfix:
		return "(" + c.args[0].String() + " " + c.name + " " + c.args[1].String() + ")"
	case stylePrefix:
		return "(" + c.name + " " + c.args[0].String() + ")"
	}
	parts := make([]string, len(c.args))
	for i, a := range c.args {
		parts[i] = a.String()
	}
	return c.name + "(" + strings.Join(parts, ", ") + ")"
}

// newCall resolves name among cands for args and builds the call, with
// the arguments coerced to the chosen overload's parameter types.
func newCall(name string, style callStyle, cands []sig, args []Expr) (Expr, error) {
	s, why := resolve(cands, typeIDs(args), style == styleInfix)
	if why != resolvedOK {
		if style == styleFunc {
			return nil, functionError(name, exprTypes(args), why)
		}
		return nil, operatorError(name, exprTypes(args), why)
	}
	coerced, err := coerceArgs(s, args)
	if err != nil {
		return nil, err
	}
	return &call{name: name, style: style, args: coerced, typ: types.Type{ID: s.result}, fn: s.fn}, nil
}
