package binder

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/planner"
)

// usingPair is one JOIN USING column: its index on each side.
type usingPair struct {
	name   string
	li, ri int
}

// bindUsing binds JOIN ... USING (names) (and NATURAL JOIN). Each named
// column appears once, unqualified, and first in *: the left column for
// inner and left joins, the right for right joins, and coalesce of both
// for full joins; the other side stays reachable when qualified.
func (b *binder) bindUsing(j *planner.Join, l, r *rel, names []string, n *ast.Join) (*rel, error) {
	pairs, err := b.usingPairs(l.scope, r.scope, names, n)
	if err != nil {
		return nil, err
	}
	nl := len(l.scope.cols)
	s := concatScopes(l.scope, r.scope)
	base, _ := s.starColumns("")
	var conds []expr.Expr
	for _, p := range pairs {
		lt, rt := l.scope.cols[p.li].typ, r.scope.cols[p.ri].typ
		if keyCompatible(lt, rt) {
			j.LeftKeys = append(j.LeftKeys, p.li)
			j.RightKeys = append(j.RightKeys, p.ri)
			continue
		}
		eq, err := b.binary("=", expr.NewColumn(p.li, lt, p.name), expr.NewColumn(nl+p.ri, rt, p.name))
		if err != nil {
			return nil, err
		}
		conds = append(conds, eq)
	}
	if j.Cond, err = andAll(conds); err != nil {
		return nil, err
	}
	if j.Kind == planner.FullJoin {
		return fullUsing(j, s, base, pairs, nl)
	}
	return &rel{node: j, scope: usingScope(s, base, pairs, nl, j.Kind == planner.RightJoin)}, nil
}

func (b *binder) usingPairs(l, r *scope, names []string, n *ast.Join) ([]usingPair, error) {
	pairs := make([]usingPair, 0, len(names))
	for i, name := range names {
		for _, p := range pairs[:i] {
			if p.name == name {
				err := pgerr.New(pgerr.DuplicateColumn, "column %q appears more than once in USING clause", name)
				return nil, b.at(err, n, name)
			}
		}
		li, err := l.resolve("", name)
		if err != nil {
			e := pgerr.New(err.Code, "column %q specified in USING clause does not exist in left table", name)
			return nil, b.at(e, n, name)
		}
		ri, err := r.resolve("", name)
		if err != nil {
			e := pgerr.New(err.Code, "column %q specified in USING clause does not exist in right table", name)
			return nil, b.at(e, n, name)
		}
		pairs = append(pairs, usingPair{name: name, li: li, ri: ri})
	}
	return pairs, nil
}

// usingScope marks the dropped side of each pair as merged and puts the
// kept side first in *.
func usingScope(s *scope, base []int, pairs []usingPair, nl int, keepRight bool) *scope {
	var star []int
	skip := map[int]bool{}
	for _, p := range pairs {
		keep, drop := p.li, nl+p.ri
		if keepRight {
			keep, drop = drop, keep
		}
		s.cols[drop].merged = true
		star = append(star, keep)
		skip[keep] = true
	}
	for _, i := range base {
		if !skip[i] && !s.cols[i].merged {
			star = append(star, i)
		}
	}
	s.star = star
	return s
}

// fullUsing appends coalesce(left, right) for each pair after the join's
// columns; both sides become qualified-only.
func fullUsing(j *planner.Join, s *scope, base []int, pairs []usingPair, nl int) (*rel, error) {
	cols := j.Columns()
	p := &planner.Project{Input: j, Cols: cols}
	for i, c := range cols {
		p.Exprs = append(p.Exprs, expr.NewColumn(i, c.Type, c.Name))
	}
	var star []int
	for _, u := range pairs {
		s.cols[u.li].merged = true
		s.cols[nl+u.ri].merged = true
		lc, rc := s.cols[u.li], s.cols[nl+u.ri]
		co, err := expr.Func("coalesce", []expr.Expr{
			expr.NewColumn(u.li, lc.typ, u.name), expr.NewColumn(nl+u.ri, rc.typ, u.name)})
		if err != nil {
			return nil, err
		}
		star = append(star, len(p.Exprs))
		p.Exprs = append(p.Exprs, co)
		p.Cols = append(p.Cols, planner.Column{Name: u.name, Type: co.Type()})
		s.cols = append(s.cols, scopeCol{name: u.name, typ: co.Type()})
	}
	for _, i := range base {
		if !s.cols[i].merged {
			star = append(star, i)
		}
	}
	s.star = star
	return &rel{node: p, scope: s}, nil
}
