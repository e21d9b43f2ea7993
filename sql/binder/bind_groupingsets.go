package binder

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
)

// Grouping sets (GROUP BY ROLLUP, CUBE, GROUPING SETS) are planned as
// PostgreSQL and RisingWave do, with one pass over the input: an Expand
// makes one copy of each row per grouping set, the group keys outside the
// set NULL and a set number added, and one Aggregate groups the copies by
// the keys and the set number. A set whose keys are all NULL still keeps
// its rows apart from another set's by that number, and a set listed twice
// makes its groups twice, as in PostgreSQL. The empty set () is a fixed
// group of the Aggregate: like a global aggregate's, its row exists over
// no input.

// groupingSetsCall returns the marker call of sql.rewriteGroupingSets when
// gb is a GROUP BY of grouping sets.
func groupingSetsCall(gb *ast.GroupByClause) (*ast.FuncCallExpr, bool) {
	if gb == nil || len(gb.Items) != 1 {
		return nil, false
	}
	f, ok := gb.Items[0].Expr.(*ast.FuncCallExpr)
	return f, ok && f.FnName.L == sql.GroupingSetsFunc
}

// bindGroupingSets binds the grouping sets of the marker call: the keys
// of all sets (each once) and each set as indexes into them.
func (b *binder) bindGroupingSets(c *exprCtx, call *ast.FuncCallExpr, items []selItem) ([]expr.Expr, [][]int, error) {
	var keys []expr.Expr
	sets := make([][]int, 0, len(call.Args))
	for _, a := range call.Args {
		set, ok := a.(*ast.FuncCallExpr)
		if !ok || set.FnName.L != sql.GroupingSetFunc {
			return nil, nil, pgerr.New(pgerr.Internal, "binder: malformed grouping sets marker")
		}
		var idx []int
		for _, n := range set.Args {
			k, err := b.bindGroupItem(c, n, items)
			if err != nil {
				return nil, nil, err
			}
			at := -1
			for i, x := range keys {
				if exprEqual(x, k) {
					at = i
				}
			}
			if at < 0 {
				at = len(keys)
				keys = append(keys, k)
			}
			if !containsInt(idx, at) {
				idx = append(idx, at)
			}
		}
		sets = append(sets, idx)
	}
	return keys, sets, nil
}

func containsInt(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// planGroupingSets builds Expand -> Aggregate over the pre-projection p
// (keys, then the aggregates' columns) for g's grouping sets.
func (g *grouping) planGroupingSets(p *planner.Project, agg *planner.Aggregate) planner.Node {
	nk := len(g.keys)
	prefix := nk + 1
	cols := make([]planner.Column, 0, prefix+len(p.Cols))
	cols = append(cols, p.Cols[:nk]...)
	cols = append(cols, planner.Column{Name: "?grouping set?", Type: types.TInt64})
	cols = append(cols, p.Cols...)
	projs := make([][]expr.Expr, len(g.sets))
	for j, set := range g.sets {
		row := make([]expr.Expr, 0, len(cols))
		for i := range nk {
			if containsInt(set, i) {
				row = append(row, expr.NewColumn(i, p.Cols[i].Type, p.Cols[i].Name))
			} else {
				row = append(row, expr.NewConst(nil, p.Cols[i].Type))
			}
		}
		row = append(row, expr.NewConst(int64(j), types.TInt64))
		for i, c := range p.Cols {
			row = append(row, expr.NewColumn(i, c.Type, c.Name))
		}
		projs[j] = row
	}
	ex := &planner.Expand{Input: p, Projections: projs, Cols: cols, Branch: nk, Prefix: prefix}
	agg.Input = ex
	agg.GroupBy = agg.GroupBy[:0]
	for i := range prefix {
		agg.GroupBy = append(agg.GroupBy, i)
	}
	for i := range agg.Aggs {
		a := &agg.Aggs[i]
		if a.Arg >= 0 {
			a.Arg += prefix
		}
		if a.Filtered {
			a.FilterCol += prefix
		}
		for k := range a.Order {
			a.Order[k].Col += prefix
		}
	}
	for j, set := range g.sets {
		if len(set) == 0 {
			key := make([]types.Datum, prefix)
			key[nk] = int64(j)
			agg.FixedGroups = append(agg.FixedGroups, key)
		}
	}
	return agg
}

// isGroupingCall reports whether n is a call of grouping().
func isGroupingCall(n ast.Node) bool {
	f, ok := n.(*ast.FuncCallExpr)
	return ok && f.FnName.L == "grouping"
}

// bindGroupingCall binds grouping(e, ...) above the Aggregate: an integer
// whose bits, the last argument's lowest, are set for the arguments not
// grouped in the row's grouping set. Each argument must be a group key.
func (b *binder) bindGroupingCall(g *grouping, n *ast.FuncCallExpr) (expr.Expr, error) {
	if len(n.Args) == 0 {
		return nil, b.atNode(pgerr.New(pgerr.SyntaxError, "syntax error at or near \")\""), n)
	}
	if len(n.Args) > 31 {
		return nil, b.atNode(pgerr.New(pgerr.TooManyArguments, "GROUPING must have fewer than 32 arguments"), n)
	}
	idx := make([]int, len(n.Args))
	for a, arg := range n.Args {
		e, err := b.bindExpr(g.in.noAggs("GROUPING"), arg)
		if err != nil {
			return nil, err
		}
		idx[a] = -1
		for i, k := range g.keys {
			if exprEqual(e, k) {
				idx[a] = i
				break
			}
		}
		if idx[a] < 0 {
			return nil, b.atNode(pgerr.New(pgerr.GroupingError, "arguments to GROUPING must be grouping expressions of the associated query level"), arg)
		}
	}
	mask := func(set []int) int64 {
		var m int64
		for _, i := range idx {
			m <<= 1
			if !containsInt(set, i) {
				m |= 1
			}
		}
		return m
	}
	if g.sets == nil {
		return expr.NewConst(int64(0), types.TInt32), nil
	}
	gid := expr.NewColumn(len(g.keys), types.TInt64, "?grouping set?")
	var whens, thens []expr.Expr
	for j, set := range g.sets {
		whens = append(whens, expr.NewConst(int64(j), types.TInt64))
		thens = append(thens, expr.NewConst(mask(set), types.TInt32))
	}
	return expr.Case(gid, whens, thens, nil)
}
