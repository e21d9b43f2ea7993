package binder

import (
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// decideCallParams records the types a function call chose for its
// arguments that are parameters of unknown type: e is the call built from
// args, and its children are the coerced arguments, one per argument, for
// every call whose argument list maps one to one (overloaded functions,
// COALESCE, NULLIF, GREATEST, LEAST). Without it abs($1) or coalesce($1,
// int_col) would describe $1 as text while executing it as a number.
func (b *binder) decideCallParams(args []expr.Expr, e expr.Expr) {
	ch := e.Children()
	if len(ch) != len(args) {
		return
	}
	for i, a := range args {
		c, ok := a.(*expr.Const)
		if !ok {
			continue
		}
		order, ok := b.unknownParams[c]
		if t := ch[i].Type(); ok && ch[i] != a && t.ID != types.IDUnknown {
			b.params[order] = types.Type{ID: t.ID}
		}
	}
}

// decideCaseParams gives the parameters of unknown type in a CASE their
// types before it is built: a WHEN of a searched CASE is boolean, a WHEN of
// a simple CASE takes the operand's type (or the operand the WHEN's), and a
// result takes the type of the CASE, decided by the other results.
func (b *binder) decideCaseParams(operand expr.Expr, whens, thens []expr.Expr, els expr.Expr) (expr.Expr, expr.Expr, error) {
	var err error
	for i := range whens {
		if operand == nil {
			whens[i], err = b.decideParam(whens[i], types.TBool)
		} else {
			operand, whens[i], err = b.decidePair(operand, whens[i])
		}
		if err != nil {
			return nil, nil, err
		}
	}
	probe, err := expr.Case(operand, whens, thens, els)
	if err != nil {
		return nil, nil, err
	}
	t := probe.Type()
	allUnknown := true
	for _, r := range append(append([]expr.Expr{}, thens...), els) {
		if r != nil && !b.isUnknownParam(r) && r.Type().ID != types.IDUnknown {
			allUnknown = false
		}
	}
	if allUnknown {
		return operand, els, nil // text, as Postgres resolves all-unknown results
	}
	for i := range thens {
		if thens[i], err = b.decideParam(thens[i], t); err != nil {
			return nil, nil, err
		}
	}
	if els != nil {
		els, err = b.decideParam(els, t)
	}
	return operand, els, err
}

func (b *binder) isUnknownParam(e expr.Expr) bool {
	c, ok := e.(*expr.Const)
	return ok && b.isParam(c)
}
