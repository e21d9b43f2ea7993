package expr

import (
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// asBool coerces e to boolean for the construct named what (AND, NOT,
// CASE/WHEN ...): an untyped literal is parsed as a boolean, any other
// non-boolean type is 42804.
func asBool(e Expr, what string) (Expr, error) {
	switch e.Type().ID {
	case types.IDBool:
		return e, nil
	case types.IDUnknown:
		return coerce(e, types.TBool)
	}
	return nil, pgerr.New(pgerr.DatatypeMismatch, "argument of %s must be type boolean, not type %s", what, e.Type())
}

// logicOp is AND or OR with SQL's three-valued logic: AND is false if
// either side is false, OR true if either is true, otherwise NULL if
// either is NULL. The right side is not evaluated when the left decides.
type logicOp struct {
	or   bool
	l, r Expr
}

func logical(op string, l, r Expr) (Expr, error) {
	l, err := asBool(l, op)
	if err != nil {
		return nil, err
	}
	if r, err = asBool(r, op); err != nil {
		return nil, err
	}
	return &logicOp{or: op == "OR", l: l, r: r}, nil
}

func (o *logicOp) Type() types.Type { return types.TBool }
func (o *logicOp) Children() []Expr { return []Expr{o.l, o.r} }

func (o *logicOp) WithChildren(ch []Expr) Expr { return &logicOp{or: o.or, l: ch[0], r: ch[1]} }

func (o *logicOp) String() string {
	name := " AND "
	if o.or {
		name = " OR "
	}
	return "(" + o.l.String() + name + o.r.String() + ")"
}

func (o *logicOp) Eval(row []types.Datum) (types.Datum, error) {
	a, err := o.l.Eval(row)
	if err != nil {
		return nil, err
	}
	// The deciding value: true for OR, false for AND.
	decide := o.or
	if a == decide {
		return decide, nil
	}
	b, err := o.r.Eval(row)
	if err != nil {
		return nil, err
	}
	if b == decide {
		return decide, nil
	}
	if a == nil || b == nil {
		return nil, nil
	}
	return !decide, nil
}

// not builds NOT e: NULL stays NULL.
func not(e Expr) (Expr, error) {
	e, err := asBool(e, "NOT")
	if err != nil {
		return nil, err
	}
	return &call{name: "NOT", style: stylePrefix, args: []Expr{e}, typ: types.TBool,
		fn: func(a []types.Datum) (types.Datum, error) { return !a[0].(bool), nil }}, nil
}

// nullTest is e IS [NOT] NULL.
type nullTest struct {
	e   Expr
	not bool
}

func isNull(e Expr, not bool) Expr { return &nullTest{e: e, not: not} }

func (n *nullTest) Type() types.Type            { return types.TBool }
func (n *nullTest) Children() []Expr            { return []Expr{n.e} }
func (n *nullTest) WithChildren(ch []Expr) Expr { return &nullTest{e: ch[0], not: n.not} }

func (n *nullTest) Eval(row []types.Datum) (types.Datum, error) {
	v, err := n.e.Eval(row)
	if err != nil {
		return nil, err
	}
	return (v == nil) != n.not, nil
}

func (n *nullTest) String() string {
	if n.not {
		return "(" + n.e.String() + " IS NOT NULL)"
	}
	return "(" + n.e.String() + " IS NULL)"
}

// boolTest is e IS [NOT] TRUE/FALSE: never NULL.
type boolTest struct {
	e        Expr
	val, not bool
}

func isBool(e Expr, val, not bool) (Expr, error) {
	what := "IS TRUE"
	if !val {
		what = "IS FALSE"
	}
	e, err := asBool(e, what)
	if err != nil {
		return nil, err
	}
	return &boolTest{e: e, val: val, not: not}, nil
}

func (b *boolTest) Type() types.Type            { return types.TBool }
func (b *boolTest) Children() []Expr            { return []Expr{b.e} }
func (b *boolTest) WithChildren(ch []Expr) Expr { return &boolTest{e: ch[0], val: b.val, not: b.not} }

func (b *boolTest) Eval(row []types.Datum) (types.Datum, error) {
	v, err := b.e.Eval(row)
	if err != nil {
		return nil, err
	}
	return (v == b.val) != b.not, nil
}

func (b *boolTest) String() string {
	s := "(" + b.e.String() + " IS "
	if b.not {
		s += "NOT "
	}
	if b.val {
		return s + "TRUE)"
	}
	return s + "FALSE)"
}

// distinctTest is l IS [NOT] DISTINCT FROM r: equality where NULL equals
// NULL, never NULL itself.
type distinctTest struct {
	eq  *call
	not bool
}

func distinct(l, r Expr, not bool) (Expr, error) {
	e, err := newCall("=", styleInfix, binaryOps["="], []Expr{l, r})
	if err != nil {
		return nil, err
	}
	return &distinctTest{eq: e.(*call), not: not}, nil
}

func (d *distinctTest) Type() types.Type { return types.TBool }
func (d *distinctTest) Children() []Expr { return d.eq.args }

func (d *distinctTest) WithChildren(ch []Expr) Expr {
	return &distinctTest{eq: d.eq.WithChildren(ch).(*call), not: d.not}
}

func (d *distinctTest) Eval(row []types.Datum) (types.Datum, error) {
	a, err := d.eq.args[0].Eval(row)
	if err != nil {
		return nil, err
	}
	b, err := d.eq.args[1].Eval(row)
	if err != nil {
		return nil, err
	}
	var same bool
	switch {
	case a == nil || b == nil:
		same = a == nil && b == nil
	default:
		eq, err := d.eq.fn([]types.Datum{a, b})
		if err != nil {
			return nil, err
		}
		same = eq.(bool)
	}
	return same == d.not, nil
}

func (d *distinctTest) String() string {
	op := " IS DISTINCT FROM "
	if d.not {
		op = " IS NOT DISTINCT FROM "
	}
	return "(" + d.eq.args[0].String() + op + d.eq.args[1].String() + ")"
}

// Conjuncts splits e on AND into the conditions that must all hold.
func Conjuncts(e Expr) []Expr {
	if o, ok := e.(*logicOp); ok && !o.or {
		return append(Conjuncts(o.l), Conjuncts(o.r)...)
	}
	return []Expr{e}
}

// Comparison takes apart l op r, op one of = <> < <= > >=; ok is false for
// any other expression.
func Comparison(e Expr) (op string, l, r Expr, ok bool) {
	c, isCall := e.(*call)
	if !isCall || c.style != styleInfix || len(c.args) != 2 {
		return "", nil, nil, false
	}
	switch c.name {
	case "=", "<>", "<", "<=", ">", ">=":
		return c.name, c.args[0], c.args[1], true
	}
	return "", nil, nil, false
}
