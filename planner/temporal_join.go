package planner

import (
	"fmt"
	"slices"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// Temporal joins (JOIN t FOR SYSTEM_TIME AS OF PROCTIME(), Join.Temporal)
// run in a view as a stream.TemporalJoin in the actors of their left
// side: the table is not a stream input, each left row looks its match
// up in the table's committed state as the row arrives, and later
// changes of the table change nothing emitted. The view's key is the
// left's (joinWithKey). Over a left side that may retract, the join
// keeps the row it emitted per left row, in a state table keyed by the
// left's key and spread over vnodes as the left's rows are: when the
// left fragment is not partitioned by a subset of its key, an exchange
// on the key comes first. Its one state table is allocated whether it is
// used or not, so rebuilds allocate the same ids.

// buildTemporalJoin returns the fragment computing the temporal join n.
func (b *jobBuilder) buildTemporalJoin(n *Join) (*fragment, error) {
	scan, ok := n.Right.(*Scan)
	if !ok {
		return nil, fmt.Errorf("planner: the right side of a temporal join is %T, not a scan", n.Right)
	}
	up, ok := b.env.Relation(scan.Rel.ID)
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", scan.Rel.Name)
	}
	stateID := b.stateTableIDs(1)[0]
	f, err := b.build(n.Left)
	if err != nil {
		return nil, err
	}
	if len(f.actors) > 1 && !(f.distOK && len(f.dist) > 0 && subset(f.dist, f.key)) {
		if f, err = b.exchangeOnKey(f); err != nil {
			return nil, err
		}
	}
	spec := stream.TemporalJoinSpec{Outer: n.Kind == LeftJoin, LeftTypes: f.types(),
		RightTypes: batchColumnTypes(scan.Cols), Right: TableLayout(up)}
	if spec.Cond, err = temporalCond(n, spec.LeftTypes, spec.RightTypes); err != nil {
		return nil, err
	}
	if spec.Lookup, err = TemporalLookup(n, up); err != nil {
		return nil, err
	}
	if !appendOnly(n.Left) {
		dist := []int{}
		if f.distOK && len(f.actors) > 1 {
			dist = slices.Clone(f.dist)
		}
		spec.State = &storage.Table{ID: stateID, Types: slices.Concat(spec.LeftTypes, spec.RightTypes),
			PK: slices.Clone(f.key), DistKey: dist}
	}
	op := describe(n)
	if spec.State == nil {
		op += " [append-only]"
	}
	f.ops = append(f.ops, op)
	for i, a := range f.actors {
		spec := spec
		spec.Cond = expr.Guard(spec.Cond, errorSink(a))
		if f.execs[i], err = stream.NewTemporalJoin(f.execs[i], a.State, spec); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// temporalCond is what a row found must satisfy: every key pair equal
// (the lookup reads the primary key's pairs only; a pair on another
// column must hold too) and the join's condition.
func temporalCond(n *Join, left, right []types.Type) (expr.Expr, error) {
	var conds []expr.Expr
	for i, lk := range n.LeftKeys {
		rk := n.RightKeys[i]
		eq, err := expr.Binary("=", expr.NewColumn(lk, left[lk], ""), expr.NewColumn(len(left)+rk, right[rk], ""))
		if err != nil {
			return nil, err
		}
		conds = append(conds, eq)
	}
	if n.Cond != nil {
		conds = append(conds, n.Cond)
	}
	cond, ok := andExprs(conds)
	if !ok {
		return nil, fmt.Errorf("planner: temporal join condition")
	}
	return cond, nil
}

// exchangeOnKey moves f's rows to a fragment partitioned by f's key.
func (b *jobBuilder) exchangeOnKey(f *fragment) (*fragment, error) {
	to := b.newFragment("temporal join", b.parallelism(len(f.key)))
	recvs, err := exchange(f, to, f.key)
	if err != nil {
		return nil, err
	}
	typ := f.types()
	for i := range to.actors {
		to.execs[i] = stream.NewMerge(typ, recvs[i]...)
	}
	to.key = slices.Clone(f.key)
	to.dist, to.distOK = slices.Clone(f.key), true
	return to, nil
}

// TemporalLookup returns, per primary key column of rel (the table of
// the temporal join j), the expression of j's left row that gives its
// value: the left column of a key pair (of the column's type, or another
// integer type, or text for varchar: 0A000 otherwise), or the left side of
// an ON conjunct left_expr = table.column (cast to the column's type; the
// conjunct stays in j.Cond and checks the row found), as in RisingWave's
// Nexmark q13, ON mod(b.auction, 10000) = s.key. A column with neither is
// 0A000.
func TemporalLookup(j *Join, rel *catalog.Relation) ([]expr.Expr, error) {
	left := j.Left.Columns()
	var conds []expr.Expr
	if j.Cond != nil {
		conds = expr.Conjuncts(j.Cond)
	}
	out := make([]expr.Expr, len(rel.PK))
	for i, p := range rel.PK {
		col := rel.Columns[p]
		if k := slices.Index(j.RightKeys, p); k >= 0 {
			lc, lt := j.LeftKeys[k], left[j.LeftKeys[k]].Type
			if !temporalKeyTypes(lt, col.Type) {
				return nil, pgerr.New(pgerr.FeatureNotSupported,
					"a temporal join key must have the type of the primary key column %q (%s), not %s", col.Name, col.Type, lt)
			}
			out[i] = expr.NewColumn(lc, lt, left[lc].Name)
		} else if out[i] = condKey(conds, len(left), p); out[i] == nil {
			err := pgerr.New(pgerr.FeatureNotSupported,
				"a temporal join must equate every primary key column of %q with the left side: %q is missing", rel.Name, col.Name)
			err.Hint = "Join ON left_expression = right_pk_column for each primary key column of the table."
			return nil, err
		}
		if out[i].Type().ID != col.Type.ID {
			var err error
			if out[i], err = expr.Cast(out[i], col.Type); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// condKey returns the left side of a conjunct left_expr = column nl+p
// (the column possibly cast) whose left_expr reads only the left row's
// columns (nl of them) and is not volatile; nil when there is none.
func condKey(conds []expr.Expr, nl, p int) expr.Expr {
	for _, c := range conds {
		op, l, r, ok := expr.Comparison(c)
		if !ok || op != "=" {
			continue
		}
		for _, pair := range [][2]expr.Expr{{l, r}, {r, l}} {
			if isColumn(pair[1], nl+p) && readsOnlyBelow(pair[0], nl) {
				return pair[0]
			}
		}
	}
	return nil
}

// isColumn reports whether e is column idx, possibly cast.
func isColumn(e expr.Expr, idx int) bool {
	for {
		arg, _, ok := expr.CastParts(e)
		if !ok {
			break
		}
		e = arg
	}
	c, ok := e.(*expr.Column)
	return ok && c.Index == idx
}

func readsOnlyBelow(e expr.Expr, n int) bool {
	for _, c := range expr.Columns(e) {
		if c >= n {
			return false
		}
	}
	return !expr.IsVolatile(e) && !expr.HasOuterRefs(e) && !expr.ReadsNow(e)
}

// temporalKeyTypes reports whether a left key of type l looks up a
// primary key column of type r exactly: the same type, or two integer
// types (a value out of the column's range matches no row), or text and
// varchar (one key encoding).
func temporalKeyTypes(l, r types.Type) bool {
	if l.ID == r.ID {
		return true
	}
	isText := func(t types.Type) bool { return t.ID == types.IDText || t.ID == types.IDVarchar }
	return l.IsInteger() && r.IsInteger() || isText(l) && isText(r)
}
