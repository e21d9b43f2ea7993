package planner

import (
	"slices"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// Constant rows in a view: VALUES, and a SELECT without FROM (a VALUES of
// one empty row). They are a backfill whose snapshot never changes and
// has no log (stream.Values): the creating job emits them once, on its
// own barriers, and records that it did with the view's state; the job
// then joins the running graph like any other and never emits them
// again, after a restart, a recovery or a rescale included.
//
// Their fragment has one actor: the rows have no vnodes to split, and
// one actor owns the one progress row, whatever the view's parallelism
// (a rescale rebuilds it as one actor again, so the row never changes
// hands). The fragments downstream take the rows through exchanges as
// from any other fragment.

// valuesWithKey is withStreamKey of a VALUES: each row gets its ordinal
// in a hidden column, its stream key (two rows may be equal).
func valuesWithKey(n *Values) (Node, []int, error) {
	for _, r := range n.Rows {
		for _, e := range r {
			if len(expr.Columns(e)) > 0 || expr.HasOuterRefs(e) {
				return nil, nil, pgerr.New(pgerr.FeatureNotSupported, "VALUES that reads another relation's columns is not supported in a materialized view")
			}
		}
	}
	w := len(n.Cols)
	out := &Values{Cols: append(slices.Clone(n.Cols), Column{Name: "_row", Type: types.TInt64, Hidden: true})}
	for i, r := range n.Rows {
		out.Rows = append(out.Rows, append(slices.Clone(r), expr.NewConst(int64(i), types.TInt64)))
	}
	return out, []int{w}, nil
}

// checkConstantRows refuses, in a view's plan, the functions that read
// the clock or the random source (now(), random()) in a part of the plan
// that reads no relation: constant rows are computed once, when the view
// is created, so such a value would be frozen at that instant, while
// the same function over a table's rows is evaluated as each row
// arrives. PostgreSQL's materialized view freezes it until the next
// REFRESH; a streaming view has no refresh.
func checkConstantRows(n Node) error {
	if NumScans(n) > 0 {
		for _, in := range n.Inputs() {
			if err := checkConstantRows(in); err != nil {
				return err
			}
		}
		return nil
	}
	var err error
	walkPlan(n, func(m Node) {
		for _, e := range nodeExprs(m) {
			if name := expr.ReadsClock(e); name != "" && err == nil {
				e := pgerr.New(pgerr.FeatureNotSupported,
					"%s() over constant rows (VALUES, or a SELECT without FROM) is not supported in a materialized view", name)
				e.Hint = "Constant rows are computed once, when the view is created; compute the value in the query that reads the view."
				err = e
			}
		}
	})
	return err
}

// walkPlan calls fn on n and every node under it.
func walkPlan(n Node, fn func(Node)) {
	fn(n)
	for _, in := range n.Inputs() {
		walkPlan(in, fn)
	}
}

// buildValues runs constant rows in a fragment of one actor (see above).
// In a job that backfills, the actor runs on the job's barriers and a
// writer in the running graph takes the barriers of a source of its own
// and passes them on from the join; in a job that follows, the actor
// owns that source itself. The fragment's rows are partitioned by
// nothing: they all hash to vnode 0.
func (b *jobBuilder) buildValues(n *Values) (*fragment, error) {
	typ := batchColumnTypes(n.Cols)
	// Allocated in every mode, so a rebuild finds the same id.
	state := stream.ValuesTable(b.stateTableIDs(1)[0])
	f := b.newFragment("values", 1)
	a := f.actors[0]
	sink := errorSink(a)
	rows := make([][]expr.Expr, len(n.Rows))
	for i, r := range n.Rows {
		rows[i] = expr.GuardAll(r, sink)
	}
	if b.job.Sources == nil {
		b.job.Sources = map[stream.ActorID]*stream.Source{}
	}
	src := stream.NewSource(channelCapacity)
	opts := stream.ValuesOptions{State: state, Paused: b.paused, Job: b.jobID}
	if b.mode == Follow {
		b.job.Sources[a.ID] = src
		v := stream.NewValues(&stream.Receiver{C: src.C, Typ: typ}, rows, typ, a.State, opts)
		a.Closers = append(a.Closers, v.Close)
		f.execs[0] = v
	} else {
		w := &stream.Actor{ID: b.env.NewActorID(), State: stream.NewWriteOnlyStateContext(b.env.Store())}
		w.Exec = &stream.Receiver{C: src.C, Typ: typ}
		b.job.Sources[w.ID] = src
		barriers := make(chan stream.Message, 1)
		fwd := make(chan stream.Message, channelCapacity)
		opts.Backfill, opts.Barriers = true, &stream.Receiver{C: barriers, Typ: typ}
		opts.Progress = stream.NewBackfillProgress()
		b.job.Progress = append(b.job.Progress, opts.Progress)
		v := stream.NewValues(&stream.Receiver{C: fwd, Typ: typ}, rows, typ, a.State, opts)
		a.Closers = append(a.Closers, v.Close)
		f.execs[0] = v
		cj := b.creating()
		cj.Writers = append(cj.Writers, w)
		cj.Barriers = append(cj.Barriers, barriers)
		cj.Forward[w.ID] = &stream.Output{Actor: a.ID, C: fwd}
		cj.Progress = append(cj.Progress, opts.Progress)
	}
	f.ops = append(f.ops, describe(n))
	f.key = []int{len(n.Cols) - 1}
	f.dist, f.distOK = nil, true
	return f, nil
}

// checkRandomUUID refuses gen_random_uuid() anywhere in a view's plan: a
// view keeps its rows up to date by re-evaluating its query on each
// change, and a value that differs on every evaluation could not be
// retracted when its row goes away. A column DEFAULT of gen_random_uuid()
// is the way: the table stores the value, and views read it.
func checkRandomUUID(n Node) error {
	var err error
	walkPlan(n, func(m Node) {
		for _, e := range nodeExprs(m) {
			if expr.CallsFunc(e, "gen_random_uuid") && err == nil {
				e := pgerr.New(pgerr.FeatureNotSupported, "gen_random_uuid() is not supported in a materialized view")
				e.Hint = "Give the table a column DEFAULT gen_random_uuid() and read that column in the view."
				err = e
			}
		}
	})
	return err
}
