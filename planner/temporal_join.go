package planner

import (
	"fmt"
	"slices"

	"github.com/streamdb/streamdb/exec/stream"
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
		RightTypes: batchColumnTypes(scan.Cols), Right: TableLayout(up), Cond: n.Cond}
	if spec.Lookup, err = temporalLookup(n, up.PK, spec.LeftTypes, up.ColumnTypes()); err != nil {
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

// temporalLookup returns, per primary key column of the table, the
// expression of the left row that gives its value (cast to the column's
// type where the key's integer type differs).
func temporalLookup(n *Join, pk []int, left, right []types.Type) ([]expr.Expr, error) {
	out := make([]expr.Expr, len(pk))
	for i, p := range pk {
		k := slices.Index(n.RightKeys, p)
		if k < 0 {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "a temporal join must equate every primary key column of its table")
		}
		lc := n.LeftKeys[k]
		var e expr.Expr = expr.NewColumn(lc, left[lc], "")
		if left[lc].ID != right[p].ID {
			var err error
			if e, err = expr.Cast(e, right[p]); err != nil {
				return nil, err
			}
		}
		out[i] = e
	}
	return out, nil
}
