package binder

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/sql"
)

// bindOrderedSetAgg binds a call of an ordered-set aggregate
// (percentile_cont, percentile_disc, mode) with its WITHIN GROUP key
// (within, sql.AggWithinFunc markers) and its direct arguments (args: the
// fraction, and a FILTER marker). The aggregate is a list aggregate of
// the key, ordered by it; the fraction must be a constant, passed as Sep
// (expr.OrderedSetDirect).
func (b *binder) bindOrderedSetAgg(c *exprCtx, node ast.ExprNode, name, written string, kind expr.AggKind,
	args []ast.ExprNode, within []*ast.FuncCallExpr) (aggEntry, error) {
	e := aggEntry{kind: kind, name: name}
	if !kind.IsOrderedSet() {
		return e, b.at(pgerr.New(pgerr.WrongObjectType, "%s is not an ordered-set aggregate, so it cannot have WITHIN GROUP", name), node, written)
	}
	if len(within) == 0 {
		return e, b.at(pgerr.New(pgerr.WrongObjectType, "WITHIN GROUP is required for ordered-set aggregate %s", name), node, written)
	}
	var filter ast.ExprNode
	if n := len(args); n > 0 {
		if f, ok := args[n-1].(*ast.FuncCallExpr); ok && f.FnName.L == sql.AggFilterFunc && len(f.Args) == 1 {
			filter, args = f.Args[0], args[:n-1]
		}
	}
	want := 1
	if kind == expr.AggMode {
		want = 0
	}
	order, err := b.bindAggOrder(c, within, nil, false, true)
	if err != nil {
		return e, b.at(err, node, written)
	}
	var direct expr.Expr
	if len(args) > 0 {
		if direct, err = b.bindExpr(c.noAggs("nested"), args[0]); err != nil {
			return e, err
		}
	}
	if len(args) != want || len(order) != 1 {
		sig := make([]string, 0, len(args)+len(order))
		if direct != nil {
			sig = append(sig, direct.Type().String())
		}
		for _, o := range order {
			sig = append(sig, o.e.Type().String())
		}
		return e, b.at(pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, strings.Join(sig, ", ")), node, written)
	}
	key := order[0].e
	if key.Type().ID == types.IDUnknown {
		// percentile_cont's key is a double precision; mode's and
		// percentile_disc's is anyelement, which PostgreSQL cannot
		// resolve (OrderedSetResultType's error).
		if t, ok := expr.AggUnknownArg(kind); ok {
			if key, err = expr.Cast(key, t); err != nil {
				return e, b.atNode(err, within[0].Args[0])
			}
			order[0].e = key
		}
	}
	if kind == expr.AggPercentileCont && key.Type().ID != types.IDInterval {
		if !key.Type().IsNumeric() {
			return e, b.at(pgerr.New(pgerr.UndefinedFunction, "function %s(%s, %s) does not exist", name,
				direct.Type(), key.Type()), node, written)
		}
		if key, err = expr.Cast(key, types.TFloat64); err != nil {
			return e, err
		}
		order[0].e = key
	}
	array := false
	if direct != nil {
		var fracs []*float64
		if fracs, array, err = orderedSetFractions(direct); err != nil {
			return e, b.at(err, node, written)
		}
		e.sep = expr.OrderedSetDirect(fracs, array)
	}
	if filter != nil {
		if e.filter, err = b.bindCond(c.noAggs("FILTER"), filter, "FILTER"); err != nil {
			return e, err
		}
	}
	e.arg, e.order = key, order
	if e.typ, err = expr.OrderedSetResultType(kind, key.Type(), array); err != nil {
		return e, b.at(err, node, written)
	}
	return e, nil
}

// orderedSetFractions evaluates the fraction argument of a percentile:
// a constant double precision or an array of them, each NULL or within
// 0 and 1.
func orderedSetFractions(direct expr.Expr) ([]*float64, bool, error) {
	if len(expr.Columns(direct)) > 0 {
		return nil, false, notSupported("a percentile fraction that is not a constant")
	}
	array := direct.Type().ID == types.IDArray
	want := types.TFloat64
	if array {
		want = types.ArrayOf(types.IDFloat64)
	}
	cast, err := expr.Cast(direct, want)
	if err != nil {
		return nil, false, err
	}
	v, err := cast.Eval(nil)
	if err != nil {
		return nil, false, err
	}
	if v == nil {
		return nil, array, nil
	}
	vals := []types.Datum{v}
	if array {
		if vals, err = expr.ArrayValues(v, want); err != nil {
			return nil, false, err
		}
	}
	fracs := make([]*float64, len(vals))
	for i, x := range vals {
		if x == nil {
			continue
		}
		f := x.(float64)
		if f < 0 || f > 1 || f != f {
			return nil, false, pgerr.New(pgerr.NumericOutOfRange, "percentile value %s is not between 0 and 1", types.Format(f, types.TFloat64))
		}
		fracs[i] = &f
	}
	return fracs, array, nil
}
