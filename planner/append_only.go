package planner

import "github.com/streamdb/streamdb/internal/catalog"

// appendOnly reports whether the stream of n's rows in a view's job holds
// inserts only, whatever the inputs do within their rules: then an
// aggregate over it keeps just the extreme of a min or max, never the
// inputs it would need to find the next one after a delete
// (stream.AggSpec.AppendOnly).
//
// It is a function of the logical plan and the catalog's flags alone, so a
// job rebuilt after a restart derives what the job that created the view
// derived. Anything not known to keep inserts inserts is not append-only:
// aggregates, windows and Top-N update their rows; outer joins retract
// their NULL-padded rows and anti joins the rows a match turns away;
// dynamic (temporal) filters delete rows as time passes.
func appendOnly(n Node) bool { return appendOnlyThrough(n, nil) }

// appendOnlyThrough is appendOnly, with view, when not nil, giving the plan
// of a materialized view a scan reads, whose stream is then append-only
// when that plan's is (a sink's PLAIN check looks through views; an
// aggregate's state layout must not depend on a view's plan, so it does
// not).
func appendOnlyThrough(n Node, view func(*catalog.Relation) (Node, bool)) bool {
	rec := func(in Node) bool { return appendOnlyThrough(in, view) }
	switch n := n.(type) {
	case *Scan:
		if view != nil && n.Rel.Kind == catalog.KindMaterializedView {
			plan, ok := view(n.Rel)
			return ok && rec(plan)
		}
		return appendOnlyRelation(n.Rel)
	case *Values:
		return true
	case *Filter:
		return rec(n.Input)
	case *Project:
		return rec(n.Input)
	case *ProjectSet:
		return rec(n.Input)
	case *Replicate:
		return rec(n.Input)
	case *Expand:
		return rec(n.Input)
	case *Join:
		if n.Temporal {
			// Changes of the table emit nothing: an insert emits inserts.
			return rec(n.Left)
		}
		// An inner join of two insert streams emits a row when its second
		// side arrives, and never takes one back.
		return n.Kind == InnerJoin && rec(n.Left) && rec(n.Right)
	case *UnionAll:
		for _, in := range n.Inputs() {
			if !rec(in) {
				return false
			}
		}
		return true
	}
	return false
}

// appendOnlyRelation reports whether every change of rel is an insert: a
// source, or a table declared APPEND ONLY (UPDATE and DELETE are refused;
// an INSERT of a key already there fails), except a connector-fed table
// with a primary key of its own, where a later message with a key replaces
// its row.
func appendOnlyRelation(rel *catalog.Relation) bool {
	switch {
	case rel.Kind == catalog.KindSource:
		return true
	case rel.Kind != catalog.KindTable || !rel.AppendOnly:
		return false
	}
	return rel.Connector == nil || rel.RowID
}
