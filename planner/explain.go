package planner

import (
	"fmt"
	"strings"

	"github.com/streamdb/streamdb/internal/expr"
)

// Explain renders a plan as indented lines, root first.
func Explain(n Node) []string {
	var out []string
	explain(n, 0, &out, nil, false)
	return out
}

// ExplainBatch renders a batch query's plan as BuildBatch runs it: the
// correlated subqueries it decorrelates as joins (batchDecorrelate).
func ExplainBatch(n Node) []string {
	var out []string
	explain(n, 0, &out, nil, true)
	return out
}

// explain renders n at depth; needed are the columns of n its parent
// reads (nil: all), which decide whether an index read covers them.
func explain(n Node, depth int, out *[]string, needed []int, batch bool) {
	if a, ok := n.(*Apply); ok && batch {
		if d, ok := batchDecorrelate(a); ok {
			n = d
		}
	}
	pad := strings.Repeat("  ", depth)
	if depth > 0 {
		pad += "->  "
	}
	*out = append(*out, pad+describe(n))
	if f, ok := n.(*Filter); ok {
		if s, ok := f.Input.(*Scan); ok {
			line := ""
			switch prefix, a := scanAccess(f, s, needed); {
			case prefix != nil:
				line = describeKeyLookup(s.Rel, prefix)
			case a != nil:
				line = a.describe(s)
			}
			if line != "" {
				*out = append(*out, strings.Repeat("  ", depth+1)+"->  "+line)
				return
			}
		}
	}
	inNeeds := inputNeeds(n)
	for _, in := range n.Inputs() {
		explain(in, depth+1, out, inNeeds, batch)
	}
}

func describe(n Node) string {
	switch n := n.(type) {
	case *Scan:
		return fmt.Sprintf("Scan %s", n.Rel.Name)
	case *Values:
		return fmt.Sprintf("Values (%d rows)", len(n.Rows))
	case *GenerateSeries:
		return fmt.Sprintf("GenerateSeries(%s, %s)", n.Start, n.Stop)
	case *Filter:
		return fmt.Sprintf("Filter: %s", n.Cond)
	case *Project:
		parts := make([]string, len(n.Exprs))
		for i, e := range n.Exprs {
			parts[i] = e.String()
		}
		return "Project: " + strings.Join(parts, ", ")
	case *Aggregate:
		aggs := make([]string, len(n.Aggs))
		for i, a := range n.Aggs {
			if a.Arg < 0 {
				aggs[i] = a.Kind.String() // count(*)
				continue
			}
			aggs[i] = fmt.Sprintf("%s($%d)", a.Kind, a.Arg)
			if len(a.Order) > 0 {
				keys := make([]string, len(a.Order))
				for j, k := range a.Order {
					keys[j] = fmt.Sprintf("$%d", k.Col)
					if k.Desc {
						keys[j] += " DESC"
					}
				}
				aggs[i] = strings.TrimSuffix(aggs[i], ")") + " ORDER BY " + strings.Join(keys, ", ") + ")"
			}
			if a.Filtered {
				aggs[i] += fmt.Sprintf(" FILTER ($%d)", a.FilterCol)
			}
		}
		return fmt.Sprintf("Aggregate group by %v: %s", n.GroupBy, strings.Join(aggs, ", "))
	case *Join:
		s := fmt.Sprintf("Hash %s join on %v = %v", n.Kind, n.LeftKeys, n.RightKeys)
		if r, ok := n.Right.(*Scan); ok && n.Temporal {
			s = fmt.Sprintf("Temporal %s join on %v = %v (lookup of %s)", n.Kind, n.LeftKeys, n.RightKeys, r.Rel.Name)
		}
		if n.Cond != nil {
			s += " filter " + n.Cond.String()
		}
		return s
	case *Sort:
		return fmt.Sprintf("Sort %v", n.Keys)
	case *Limit:
		return fmt.Sprintf("Limit %d offset %d", n.Count, n.Offset)
	case *UnionAll:
		return "Union All"
	case *RecursiveUnion:
		if n.Distinct {
			return fmt.Sprintf("Recursive Union %s (distinct)", n.Work.Name)
		}
		return fmt.Sprintf("Recursive Union %s", n.Work.Name)
	case *WorkTableScan:
		return fmt.Sprintf("WorkTable Scan on %s", n.Work.Name)
	case *Expand:
		return fmt.Sprintf("Expand (%d rows per input row)", len(n.Projections))
	case *Replicate:
		return fmt.Sprintf("Replicate (copies: $%d)", n.Count)
	case *Window:
		return describeWindow(n)
	case *TopN:
		return describeTopN(n)
	case *ProjectSet:
		return describeProjectSet(n)
	case *DynamicFilter:
		if n.Temporal() {
			return fmt.Sprintf("TemporalFilter: %s %s %s", n.Left, n.Op, n.RightExpr)
		}
		thr := "the subquery's value"
		if _, ok := n.RightExpr.(*expr.Column); !ok {
			thr += " as " + n.RightExpr.Type().String()
		}
		return fmt.Sprintf("DynamicFilter: %s %s %s", n.Left, n.Op, thr)
	case *LateralJoin:
		return n.describe()
	case *Apply:
		corr := 0
		for _, sq := range n.Subs {
			if sq.Outer != nil {
				corr++
			}
		}
		if corr > 0 {
			return fmt.Sprintf("Apply (%d subqueries, %d correlated: run once per row)", len(n.Subs), corr)
		}
		return fmt.Sprintf("Apply (%d uncorrelated subqueries, each run once)", len(n.Subs))
	}
	return fmt.Sprintf("%T", n)
}

// ExplainFragments renders a stream job's fragment graph, the fragment
// that materializes the job's relation first: each fragment with its
// kind and parallelism, its operators (top first), and where its rows
// come from (another fragment or an upstream relation, hashed on which
// of that input's columns).
func ExplainFragments(frags []Fragment) []string {
	var out []string
	for i := len(frags) - 1; i >= 0; i-- {
		f := frags[i]
		out = append(out, fmt.Sprintf("Fragment %d (%s, parallelism %d)", i, f.Kind, len(f.Actors)))
		for j := len(f.Ops) - 1; j >= 0; j-- {
			out = append(out, "    "+f.Ops[j])
		}
		for _, in := range f.Inputs {
			from := fmt.Sprintf("Fragment %d", in.Fragment)
			if in.Upstream != "" {
				from = in.Upstream
			}
			dist := "hash " + KeyCols(in.Key)
			if len(in.Key) == 0 {
				dist = "single"
			}
			out = append(out, fmt.Sprintf("    <- Exchange from %s (%s)", from, dist))
		}
	}
	return out
}

// KeyCols renders exchange key columns as ($i, ...); () for none.
func KeyCols(key []int) string {
	parts := make([]string, len(key))
	for i, k := range key {
		parts[i] = fmt.Sprintf("$%d", k)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
