package binder

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
)

// DuplicateAlias is the SQLSTATE of two FROM items with one name.
const DuplicateAlias = "42712"

// bindJoin binds a join: the ON conjuncts that compare a left column with
// a right column of a compatible type become hash keys, the rest the
// join's residual condition.
func (b *binder) bindJoin(n *ast.Join) (*rel, error) {
	outer := b.lateralScope
	b.lateralScope = nil
	l, err := b.bindTableRef(n.Left)
	if err != nil {
		b.lateralScope = outer
		return nil, err
	}
	// A table function after a comma or an inner JOIN may read the
	// columns of the items before it (implicitly LATERAL, as in Postgres).
	if (n.Tp == ast.CrossJoin || n.Tp == ast.LeftJoin && (n.On == nil || !hasFullJoinMarker(n.On.Expr))) &&
		!n.NaturalJoin && len(n.Using) == 0 {
		b.lateralScope = l.scope
	}
	r, err := b.bindTableRef(n.Right)
	b.lateralScope = outer
	if err != nil {
		return nil, err
	}
	if r.lateral {
		return b.bindLateral(l, r, n)
	}
	if r.lateralRow != nil {
		return b.bindLateralJoin(l, r, n)
	}
	if err := b.checkAliases(l.scope, r.scope, n); err != nil {
		return nil, err
	}
	j := &planner.Join{Left: l.node, Right: r.node, Kind: joinKind(n)}
	switch {
	case n.NaturalJoin:
		return b.bindUsing(j, l, r, naturalColumns(l.scope, r.scope), n)
	case len(n.Using) > 0:
		names := make([]string, len(n.Using))
		for i, c := range n.Using {
			names[i] = c.Name.O
		}
		return b.bindUsing(j, l, r, names, n)
	}
	s := concatScopes(l.scope, r.scope)
	if n.On != nil {
		if err := b.bindOn(j, s, len(l.scope.cols), n.On.Expr); err != nil {
			return nil, err
		}
		if hasMarker(n.On.Expr, markerTemporal) {
			if err := checkTemporalJoin(j); err != nil {
				return nil, err
			}
		}
	}
	return &rel{node: j, scope: s}, nil
}

// joinKind reads the join type, undoing the FULL JOIN marker.
func joinKind(n *ast.Join) planner.JoinKind {
	switch n.Tp {
	case ast.LeftJoin:
		if n.On != nil && hasFullJoinMarker(n.On.Expr) {
			return planner.FullJoin
		}
		return planner.LeftJoin
	case ast.RightJoin:
		return planner.RightJoin
	}
	return planner.InnerJoin
}

func hasFullJoinMarker(e ast.ExprNode) bool { return hasMarker(e, markerFullJoin) }

// hasMarker reports whether a conjunct of e is a call of the marker name.
func hasMarker(e ast.ExprNode, name string) bool {
	for _, c := range splitAnd(e, nil) {
		if isMarker(c, name) {
			return true
		}
	}
	return false
}

func isFullJoinMarker(e ast.ExprNode) bool { return isMarker(e, markerFullJoin) }

func isMarker(e ast.ExprNode, name string) bool {
	f, ok := e.(*ast.FuncCallExpr)
	return ok && f.FnName.L == name
}

// splitAnd flattens a tree of ANDs (and parentheses) into conjuncts.
func splitAnd(e ast.ExprNode, out []ast.ExprNode) []ast.ExprNode {
	switch x := e.(type) {
	case *ast.ParenthesesExpr:
		return splitAnd(x.Expr, out)
	case *ast.BinaryOperationExpr:
		if x.Op == opcode.LogicAnd {
			return splitAnd(x.R, splitAnd(x.L, out))
		}
	}
	return append(out, e)
}

// checkAliases rejects two FROM items with the same name.
func (b *binder) checkAliases(l, r *scope, n ast.Node) error {
	seen := map[string]bool{}
	for _, c := range l.cols {
		if c.table != "" {
			seen[c.table] = true
		}
	}
	for _, c := range r.cols {
		if c.table != "" && seen[c.table] {
			err := pgerr.New(DuplicateAlias, "table name %q specified more than once", c.table)
			return b.at(err, n.(ast.Node), c.table)
		}
	}
	return nil
}

// bindOn splits ON into hash keys and a residual condition.
func (b *binder) bindOn(j *planner.Join, s *scope, nLeft int, on ast.ExprNode) error {
	c := &exprCtx{scope: s, clause: "JOIN conditions"}
	var conds []expr.Expr
	var full fullJoinCheck
	for _, conj := range splitAnd(on, nil) {
		if isFullJoinMarker(conj) || isMarker(conj, markerTemporal) {
			continue
		}
		if li, ri, ok := equiKey(s, nLeft, conj); ok {
			j.LeftKeys = append(j.LeftKeys, li)
			j.RightKeys = append(j.RightKeys, ri-nLeft)
			full.hashable = true
			continue
		}
		e, err := b.bindCond(c, conj, "JOIN/ON")
		if err != nil {
			return err
		}
		if j.Kind == planner.FullJoin {
			b.checkFullJoinConj(c, nLeft, conj, e, &full)
		}
		conds = append(conds, e)
	}
	if j.Kind == planner.FullJoin && !full.hashable && full.unmergeable {
		return pgerr.New(pgerr.FeatureNotSupported, "FULL JOIN is only supported with merge-joinable or hash-joinable join conditions")
	}
	cond, err := andAll(conds)
	j.Cond = cond
	return err
}

// fullJoinCheck sums up the ON conjuncts of a FULL JOIN as PostgreSQL's
// planner sees them: it can hash join when one conjunct is a hash-joinable
// equality between the two sides (the others are checked on each match),
// and merge join when every conjunct is a merge-joinable one (or a
// constant). Otherwise it has no plan for the join, and PostgreSQL fails
// it with 0A000.
type fullJoinCheck struct {
	hashable    bool // some conjunct is a hash-joinable equality
	unmergeable bool // some conjunct is not a merge-joinable equality
}

// checkFullJoinConj notes the bound ON conjunct e (conj as written) of a
// FULL JOIN whose left side has nLeft columns in fc. An equality (or
// x IN (y)) between an expression of the left side's columns and one of
// the right side's is hash-joinable, and merge-joinable too, except
// between two different date/time types (timestamp = timestamptz,
// date = timestamp), which PostgreSQL compares without a cast and cannot
// hash; a conjunct without columns is a constant unless it is volatile;
// any other conjunct (a.x < b.x, a.id > 0, an OR, IS NOT DISTINCT FROM)
// is neither.
func (b *binder) checkFullJoinConj(c *exprCtx, nLeft int, conj ast.ExprNode, e expr.Expr, fc *fullJoinCheck) {
	if len(expr.Columns(e)) == 0 {
		if expr.IsVolatile(e) {
			fc.unmergeable = true
		}
		return
	}
	l, r := eqOperands(conj, false)
	if l == nil || hasSubquery(l) || hasSubquery(r) || expr.IsVolatile(e) {
		fc.unmergeable = true
		return
	}
	le, err1 := b.bindExpr(c, l)
	re, err2 := b.bindExpr(c, r)
	if err1 != nil || err2 != nil {
		return // bound as a whole: leave it alone
	}
	ls, rs := joinSide(le, nLeft), joinSide(re, nLeft)
	if ls == 0 || rs == 0 || ls == rs || ls == 3 || rs == 3 {
		fc.unmergeable = true
		return
	}
	lt, rt := le.Type(), re.Type()
	if lt.ID != rt.ID && isDateTime(lt) && isDateTime(rt) {
		return // merge-joinable only
	}
	fc.hashable = true
}

// eqOperands returns the operands of conj when it is an equality, as
// PostgreSQL reads it: a = b, a IN (b), NOT (a <> b), NOT NOT (a = b)
// (negated: of its negation); nil otherwise.
func eqOperands(conj ast.ExprNode, negated bool) (ast.ExprNode, ast.ExprNode) {
	for {
		p, ok := conj.(*ast.ParenthesesExpr)
		if !ok {
			break
		}
		conj = p.Expr
	}
	switch x := conj.(type) {
	case *ast.UnaryOperationExpr:
		if x.Op == opcode.Not || x.Op == opcode.Not2 {
			return eqOperands(x.V, !negated)
		}
	case *ast.BinaryOperationExpr:
		if x.Op == opcode.EQ && !negated || x.Op == opcode.NE && negated {
			return x.L, x.R
		}
	case *ast.PatternInExpr:
		if x.Not == negated && x.Sel == nil && len(x.List) == 1 {
			return x.Expr, x.List[0]
		}
	}
	return nil, nil
}

// joinSide tells which side of a join e reads: 0 neither (a constant),
// 1 the left (columns below nLeft), 2 the right, 3 both.
func joinSide(e expr.Expr, nLeft int) int {
	side := 0
	for _, i := range expr.Columns(e) {
		if i < nLeft {
			side |= 1
		} else {
			side |= 2
		}
	}
	return side
}

// hasSubquery reports whether e holds a subquery.
func hasSubquery(e ast.ExprNode) bool {
	v := &subqueryFinder{}
	e.Accept(v)
	return v.found
}

type subqueryFinder struct{ found bool }

func (v *subqueryFinder) Enter(n ast.Node) (ast.Node, bool) {
	switch n.(type) {
	case *ast.SubqueryExpr, *ast.ExistsSubqueryExpr, *ast.CompareSubqueryExpr:
		v.found = true
		return n, true
	}
	return n, v.found
}

func (v *subqueryFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// equiKey recognizes left.col = right.col (either way round).
func equiKey(s *scope, nLeft int, e ast.ExprNode) (int, int, bool) {
	for {
		p, ok := e.(*ast.ParenthesesExpr)
		if !ok {
			break
		}
		e = p.Expr
	}
	eq, ok := e.(*ast.BinaryOperationExpr)
	if !ok || eq.Op != opcode.EQ {
		return 0, 0, false
	}
	a, okA := columnIndex(s, eq.L)
	c, okC := columnIndex(s, eq.R)
	if !okA || !okC {
		return 0, 0, false
	}
	if a > c {
		a, c = c, a
	}
	if a >= nLeft || c < nLeft || !keyCompatible(s.cols[a].typ, s.cols[c].typ) {
		return 0, 0, false
	}
	return a, c, true
}

// pushJoinKey makes a WHERE conjunct col = col a hash key of the inner
// join, in the FROM tree n, whose two sides the columns come from (FROM a,
// b WHERE a.x = b.y joins on the key rather than filtering a cross join).
func pushJoinKey(n planner.Node, s *scope, conj ast.ExprNode) bool {
	a, c, ok := columnEquality(s, conj)
	return ok && pushKey(n, a, c)
}

// columnEquality recognizes conj as col = col between two distinct
// columns of s of types that join, and returns them in order (a < c).
func columnEquality(s *scope, conj ast.ExprNode) (a, c int, ok bool) {
	for {
		p, ok := conj.(*ast.ParenthesesExpr)
		if !ok {
			break
		}
		conj = p.Expr
	}
	eq, ok := conj.(*ast.BinaryOperationExpr)
	if !ok || eq.Op != opcode.EQ {
		return 0, 0, false
	}
	a, okA := columnIndex(s, eq.L)
	c, okC := columnIndex(s, eq.R)
	if !okA || !okC || a == c || !keyCompatible(s.cols[a].typ, s.cols[c].typ) {
		return 0, 0, false
	}
	return min(a, c), max(a, c), true
}

// pushOrJoinKeys finds, in a WHERE conjunct that is an OR, the
// equalities left.col = right.col that every branch ANDs in (TPC-H q19:
// (p_partkey = l_partkey AND ...) OR (p_partkey = l_partkey AND ...)),
// and adds them as keys of the inner joins they separate: the OR implies
// them, so the join can match on them instead of crossing its inputs.
// The conjunct itself stays in the filter.
func pushOrJoinKeys(n planner.Node, s *scope, conj ast.ExprNode) {
	branches := splitOr(conj, nil)
	if len(branches) < 2 {
		return
	}
	type pair struct{ a, c int }
	var common map[pair]bool
	for i, br := range branches {
		here := map[pair]bool{}
		for _, c := range splitAnd(br, nil) {
			if a, b, ok := columnEquality(s, c); ok {
				if k := (pair{a, b}); i == 0 || common[k] {
					here[k] = true
				}
			}
		}
		common = here
	}
	for k := range common {
		pushKey(n, k.a, k.c)
	}
}

// splitOr flattens a tree of ORs (and parentheses) into branches.
func splitOr(e ast.ExprNode, out []ast.ExprNode) []ast.ExprNode {
	switch x := e.(type) {
	case *ast.ParenthesesExpr:
		return splitOr(x.Expr, out)
	case *ast.BinaryOperationExpr:
		if x.Op == opcode.LogicOr {
			return splitOr(x.R, splitOr(x.L, out))
		}
	}
	return append(out, e)
}

// pushKey adds columns a < c of n's output as a key pair of the inner join
// that separates them, descending through inner joins only.
func pushKey(n planner.Node, a, c int) bool {
	j, ok := n.(*planner.Join)
	if !ok || j.Kind != planner.InnerJoin {
		return false
	}
	nl := len(j.Left.Columns())
	switch {
	case a < nl && c >= nl:
		j.LeftKeys = append(j.LeftKeys, a)
		j.RightKeys = append(j.RightKeys, c-nl)
		return true
	case c < nl:
		return pushKey(j.Left, a, c)
	}
	return pushKey(j.Right, a-nl, c-nl)
}

func columnIndex(s *scope, e ast.ExprNode) (int, bool) {
	if p, ok := e.(*ast.ParenthesesExpr); ok {
		return columnIndex(s, p.Expr)
	}
	cn, ok := e.(*ast.ColumnNameExpr)
	if !ok || cn.Name.Schema.O != "" {
		return 0, false
	}
	i, err := s.resolve(cn.Name.Table.O, cn.Name.Name.O)
	return i, err == nil
}

// keyCompatible reports whether values of a and b are equal exactly when
// their Datums hash alike.
func keyCompatible(a, b types.Type) bool { return planner.KeyCompatible(a, b) }

// andAll ANDs conditions together (nil for none).
func andAll(conds []expr.Expr) (expr.Expr, error) {
	if len(conds) == 0 {
		return nil, nil
	}
	acc := conds[0]
	for _, c := range conds[1:] {
		var err error
		if acc, err = expr.Binary("AND", acc, c); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// naturalColumns returns the column names both sides have, in left order.
func naturalColumns(l, r *scope) []string {
	var names []string
	li, _ := l.starColumns("")
	ri, _ := r.starColumns("")
	for _, i := range li {
		for _, k := range ri {
			if l.cols[i].name == r.cols[k].name {
				names = append(names, l.cols[i].name)
				break
			}
		}
	}
	return names
}
