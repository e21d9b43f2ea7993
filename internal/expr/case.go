package expr

import (
	"strings"

	"github.com/streamdb/streamdb/internal/types"
)

// caseNode is a searched CASE: the first true condition picks its result;
// ELSE (or NULL) otherwise. Results are evaluated only when picked.
type caseNode struct {
	conds, results []Expr
	els            Expr // may be nil
	typ            types.Type
}

// caseExpr builds CASE; a simple CASE (with an operand) becomes a searched
// one comparing operand = when with the ordinary = operator.
func caseExpr(operand Expr, whens, thens []Expr, els Expr) (Expr, error) {
	conds := make([]Expr, len(whens))
	for i, w := range whens {
		var err error
		if operand != nil {
			w, err = binary("=", operand, w)
			if err != nil {
				return nil, err
			}
		}
		if conds[i], err = asBool(w, "CASE/WHEN"); err != nil {
			return nil, err
		}
	}
	results := append([]Expr{}, thens...)
	if els != nil {
		results = append(results, els)
	}
	// PostgreSQL weighs the ELSE result first (transformCaseExpr), which
	// decides among types that convert to each other (char and text).
	ts := exprTypes(results)
	if els != nil {
		ts = append(ts[len(ts)-1:], ts[:len(ts)-1]...)
	}
	t, err := commonTypeFor("CASE", ts)
	if err != nil {
		return nil, err
	}
	if results, err = coerceAll(results, t); err != nil {
		return nil, err
	}
	n := &caseNode{conds: conds, results: results[:len(thens)], typ: t}
	if els != nil {
		n.els = results[len(thens)]
	}
	return n, nil
}

func (c *caseNode) Type() types.Type { return c.typ }

func (c *caseNode) Children() []Expr {
	ch := make([]Expr, 0, 2*len(c.conds)+1)
	for i := range c.conds {
		ch = append(ch, c.conds[i], c.results[i])
	}
	if c.els != nil {
		ch = append(ch, c.els)
	}
	return ch
}

func (c *caseNode) WithChildren(ch []Expr) Expr {
	n := &caseNode{typ: c.typ, conds: make([]Expr, len(c.conds)), results: make([]Expr, len(c.results))}
	for i := range c.conds {
		n.conds[i], n.results[i] = ch[2*i], ch[2*i+1]
	}
	if c.els != nil {
		n.els = ch[len(ch)-1]
	}
	return n
}

func (c *caseNode) Eval(row []types.Datum) (types.Datum, error) {
	for i, cond := range c.conds {
		v, err := cond.Eval(row)
		if err != nil {
			return nil, err
		}
		if v == true {
			return c.results[i].Eval(row)
		}
	}
	if c.els == nil {
		return nil, nil
	}
	return c.els.Eval(row)
}

func (c *caseNode) String() string {
	var b strings.Builder
	b.WriteString("CASE")
	for i := range c.conds {
		b.WriteString(" WHEN " + c.conds[i].String() + " THEN " + c.results[i].String())
	}
	if c.els != nil {
		b.WriteString(" ELSE " + c.els.String())
	}
	b.WriteString(" END")
	return b.String()
}
