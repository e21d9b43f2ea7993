package planner

import (
	"fmt"

	"github.com/streamdb/streamdb/exec/batch"
	"github.com/streamdb/streamdb/internal/types"
)

// BuildBatch turns a logical plan into a tree of batch executors reading
// from src. Nodes shared by several parents (a CTE used twice) get one
// executor per use. On error, executors built so far are closed.
func BuildBatch(n Node, src batch.Source) (batch.Executor, error) {
	src = withReads(n, src)
	switch n := n.(type) {
	case *Scan:
		ssrc, read := scanSource(src, n)
		return batch.NewScan(ssrc, n.Rel).Reading(read), nil
	case *Values:
		return batch.NewValues(n.Rows, batchColumnTypes(n.Cols)), nil
	case *GenerateSeries:
		return batch.NewGenerateSeries(n.Start, n.Stop, n.Step, n.Cols[0].Type).InZone(n.Zone), nil
	case *Unnest:
		return buildUnnest(n), nil
	case *ProjectSet:
		return buildProjectSet(n, src)
	case *Filter:
		return buildFiltered(n, src, nil)
	case *Project:
		return build1Needing(n, src, func(in batch.Executor) batch.Executor {
			return batch.NewProject(in, n.Exprs, batchColumnTypes(n.Cols))
		})
	case *Aggregate:
		return build1Needing(n, src, func(in batch.Executor) batch.Executor {
			h := batch.NewHashAgg(in, n.GroupBy, aggSpecs(n.Aggs))
			h.SetFixedGroups(n.FixedGroups)
			return h
		})
	case *Sort:
		return build1(n.Input, src, func(in batch.Executor) batch.Executor { return batch.NewSort(in, sortKeys(n.Keys)) })
	case *Limit:
		return build1(n.Input, src, func(in batch.Executor) batch.Executor { return batch.NewLimit(in, n.Count, n.Offset) })
	case *Join:
		return buildJoin(n, src)
	case *UnionAll:
		return buildUnion(n, src)
	case *Apply:
		return buildApply(n, src)
	case *LateralJoin:
		return buildBatchLateral(n, src)
	case *Expand:
		return buildBatchExpand(n, src)
	case *Replicate:
		return buildBatchReplicate(n, src)
	case *Window:
		return buildBatchWindow(n, src)
	case *RecursiveUnion:
		return buildRecursiveUnion(n, src)
	case *WorkTableScan:
		return buildWorkTableScan(n, src)
	}
	return nil, fmt.Errorf("planner: no batch executor for %T", n)
}

// build1 builds a single-input executor.
func build1(input Node, src batch.Source, mk func(batch.Executor) batch.Executor) (batch.Executor, error) {
	in, err := BuildBatch(input, src)
	if err != nil {
		return nil, err
	}
	return mk(in), nil
}

// build1Needing builds a single-input executor whose input, a Filter over
// a Scan, may read only the columns n uses (inputNeeds).
func build1Needing(n Node, src batch.Source, mk func(batch.Executor) batch.Executor) (batch.Executor, error) {
	f, ok := n.Inputs()[0].(*Filter)
	if !ok {
		return build1(n.Inputs()[0], src, mk)
	}
	in, err := buildFiltered(f, src, inputNeeds(n))
	if err != nil {
		return nil, err
	}
	return mk(in), nil
}

// buildFiltered builds a Filter; over a Scan it reads a key prefix
// (keylookup.go) or through an index (index_access.go) when it can.
// needed are the Filter's output columns its parent reads (nil: all).
func buildFiltered(f *Filter, src batch.Source, needed []int) (batch.Executor, error) {
	s, ok := f.Input.(*Scan)
	if !ok {
		return build1(f.Input, src, func(in batch.Executor) batch.Executor { return batch.NewFilter(in, f.Cond) })
	}
	var scan *batch.Scan
	ssrc, read := scanSource(src, s)
	switch prefix, a := scanAccess(f, s, needed); {
	case prefix != nil:
		scan = batch.NewKeyScan(ssrc, s.Rel, prefix)
	case a != nil:
		scan = batch.NewIndexScan(ssrc, s.Rel, a.idx, a.ranges, a.covering)
	default:
		scan = batch.NewScan(ssrc, s.Rel)
	}
	return batch.NewFilter(scan.Reading(read), f.Cond), nil
}

func buildJoin(n *Join, src batch.Source) (batch.Executor, error) {
	l, err := BuildBatch(n.Left, src)
	if err != nil {
		return nil, err
	}
	r, err := BuildBatch(n.Right, src)
	if err != nil {
		l.Close()
		return nil, err
	}
	return batch.NewHashJoin(l, r, batchJoinKinds[n.Kind], n.LeftKeys, n.RightKeys, n.Cond), nil
}

var batchJoinKinds = [...]batch.JoinKind{
	InnerJoin: batch.InnerJoin, LeftJoin: batch.LeftJoin, RightJoin: batch.RightJoin, FullJoin: batch.FullJoin,
	SemiJoin: batch.SemiJoin, AntiJoin: batch.AntiJoin,
}

func buildUnion(n *UnionAll, src batch.Source) (batch.Executor, error) {
	ins := make([]batch.Executor, 0, len(n.Ins))
	for _, c := range n.Ins {
		e, err := BuildBatch(c, src)
		if err != nil {
			for _, in := range ins {
				in.Close()
			}
			return nil, err
		}
		ins = append(ins, e)
	}
	return batch.NewUnionAll(ins, batchColumnTypes(n.Cols)), nil
}

func aggSpecs(calls []AggCall) []batch.AggSpec {
	out := make([]batch.AggSpec, len(calls))
	for i, c := range calls {
		out[i] = batch.AggSpec{Kind: c.Kind, Arg: c.Arg, Distinct: c.Distinct, Type: c.Type, Sep: c.Sep,
			Filtered: c.Filtered, FilterCol: c.FilterCol, Order: sortKeys(c.Order)}
	}
	return out
}

func sortKeys(keys []SortKey) []batch.SortKey {
	out := make([]batch.SortKey, len(keys))
	for i, k := range keys {
		out[i] = batch.SortKey{Col: k.Col, Desc: k.Desc, NullsFirst: k.NullsFirst}
	}
	return out
}

func batchColumnTypes(cols []Column) []types.Type {
	ts := make([]types.Type, len(cols))
	for i, c := range cols {
		ts[i] = c.Type
	}
	return ts
}
