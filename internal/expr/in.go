package expr

import (
	"strings"

	"github.com/streamdb/streamdb/internal/types"
)

// inList is e [NOT] IN (list): true if e equals an element; otherwise NULL
// if e or any element is NULL (or a comparison was NULL), else false. NOT
// IN negates that, keeping NULL.
type inList struct {
	eqs []*call // e = list[i], each with its own coerced operands
	not bool
}

func in(e Expr, list []Expr, not bool) (Expr, error) {
	e, list = inCommonType(e, list)
	n := &inList{not: not}
	for _, item := range list {
		eq, err := binary("=", e, item)
		if err != nil {
			return nil, err
		}
		n.eqs = append(n.eqs, eq.(*call))
	}
	return n, nil
}

// inCommonType converts e and the items of list that read no column to
// their common type when there are two or more such items, as
// PostgreSQL's transformAExprIn makes them one e = ANY (ARRAY[...]) of
// that type: 'a'::char(3) IN ('x', 'a '::text) compares characters,
// where 'a'::char(3) IN ('a '::text) is character = text, which
// compares texts. Without a common type, or with fewer such items, each
// item keeps the = it resolves to with e.
func inCommonType(e Expr, list []Expr) (Expr, []Expr) {
	ts := []types.Type{e.Type()}
	for _, item := range list {
		if !readsColumn(item) {
			ts = append(ts, item.Type())
		}
	}
	if len(ts) < 3 {
		return e, list
	}
	t, err := commonType(ts)
	if err != nil {
		return e, list
	}
	ce, err := coerce(e, t)
	if err != nil {
		return e, list
	}
	out := make([]Expr, len(list))
	for i, item := range list {
		out[i] = item
		if !readsColumn(item) {
			if out[i], err = coerce(item, t); err != nil {
				return e, list
			}
		}
	}
	return ce, out
}

// readsColumn reports whether e reads a column of its row.
func readsColumn(e Expr) bool {
	if _, ok := e.(*Column); ok {
		return true
	}
	for _, c := range e.Children() {
		if readsColumn(c) {
			return true
		}
	}
	return false
}

// InList takes apart e [NOT] IN (list): the comparisons e = list[i], each
// with its operands coerced as = coerces them (Comparison takes them
// apart); ok is false for any other expression.
func InList(e Expr) (eqs []Expr, not, ok bool) {
	n, isIn := e.(*inList)
	if !isIn {
		return nil, false, false
	}
	eqs = make([]Expr, len(n.eqs))
	for i, eq := range n.eqs {
		eqs[i] = eq
	}
	return eqs, n.not, true
}

func (n *inList) Type() types.Type { return types.TBool }

func (n *inList) Children() []Expr {
	ch := make([]Expr, 0, 2*len(n.eqs))
	for _, eq := range n.eqs {
		ch = append(ch, eq.args...)
	}
	return ch
}

func (n *inList) WithChildren(ch []Expr) Expr {
	c := &inList{not: n.not, eqs: make([]*call, len(n.eqs))}
	for i, eq := range n.eqs {
		c.eqs[i] = eq.WithChildren(ch[2*i : 2*i+2]).(*call)
	}
	return c
}

func (n *inList) Eval(row []types.Datum) (types.Datum, error) {
	sawNull := false
	for _, eq := range n.eqs {
		v, err := eq.Eval(row)
		if err != nil {
			return nil, err
		}
		if v == true {
			return !n.not, nil
		}
		sawNull = sawNull || v == nil
	}
	if sawNull {
		return nil, nil
	}
	return n.not, nil
}

func (n *inList) String() string {
	items := make([]string, len(n.eqs))
	for i, eq := range n.eqs {
		items[i] = eq.args[1].String()
	}
	op := " IN ("
	if n.not {
		op = " NOT IN ("
	}
	lhs := "?"
	if len(n.eqs) > 0 {
		lhs = n.eqs[0].args[0].String()
	}
	return "(" + lhs + op + strings.Join(items, ", ") + "))"
}
