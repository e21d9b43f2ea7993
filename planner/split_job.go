package planner

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/connector/kafka"
	"github.com/streamdb/streamdb/storage"
)

// splitActors is the number of actors that read r's connector: its
// parallelism for one that reads splits (Kafka), else 1. With a
// WATERMARK each reader runs a watermark filter of its own, merged
// downstream (stream.WatermarkFilter.SetSlot).
func splitActors(r *catalog.Relation) int {
	if !kafka.IsKafka(r.Connector) {
		return 1
	}
	return min(max(r.Parallelism, 1), MaxParallelism)
}

// buildSplitJob builds the job of a table or source whose connector
// reads splits with n > 1 actors: a source fragment of n SplitSources,
// actor i reading the splits connector.SplitOwner{i, n} owns, each with
// its own reader and its own barrier source (actor 0's also takes the
// table's DML). A source's views attach to all n actors, which split
// nothing by vnode (TopVnodes nil: every view hashes their rows itself);
// a table hashes the rows on its DistKey to n actors that materialize
// them, as any table of parallelism n does.
func buildSplitJob(r *catalog.Relation, env StreamEnv, n int) (*StreamJob, error) {
	job := &StreamJob{Source: stream.NewSource(channelCapacity), Sources: map[stream.ActorID]*stream.Source{}}
	b := &jobBuilder{env: env, par: n, job: job}
	in, err := b.splitSourceFragment(r, n)
	if err != nil {
		return nil, err
	}
	if r.Kind != catalog.KindTable {
		in.finish()
		job.Tops = slices.Clone(in.actors)
		job.Fragments = []Fragment{in.describe()}
		return job, nil
	}
	f := b.newFragment("table", n)
	f.ops = []string{"Merge", "Materialize " + r.Name}
	recvs, err := exchange(in, f, r.DistKey)
	if err != nil {
		return nil, err
	}
	typ := r.ColumnTypes()
	for i, ta := range f.actors {
		f.execs[i] = newTableMaterialize(r, stream.NewMerge(typ, recvs[i]...), ta.State, &f.vnodes[i])
	}
	f.finish()
	job.Tops, job.TopVnodes = f.actors, slices.Clone(f.vnodes)
	for _, fr := range b.frags {
		job.Fragments = append(job.Fragments, fr.describe())
	}
	return job, nil
}

// splitSourceFragment adds the fragment of r's n SplitSources to b's
// job. Their counters sum into one stream.SplitTotals, and the state the
// source shows (streamdb_catalog.sources) is that of the readers
// together (splitState).
func (b *jobBuilder) splitSourceFragment(r *catalog.Relation, n int) (*fragment, error) {
	ops := tableOps(r, false)
	ops[len(ops)-1] += fmt.Sprintf(" (partition mod %d)", n)
	in := &fragment{kind: "source", ops: ops, execs: make([]stream.Executor, n)}
	b.frags = append(b.frags, in)
	progress := new(atomic.Int64)
	mon := sourceMonitor(r, b.env)
	totals := stream.NewSplitTotals(n, progress, mon.Skipped)
	states := make([]func() string, n)
	typ := r.ColumnTypes()
	var wmStats *stream.WatermarkStats
	if r.Watermark != nil {
		wmStats = &stream.WatermarkStats{}
		b.job.Watermark = wmStats
	}
	for i := range n {
		src := b.job.Source
		if i > 0 {
			src = stream.NewSource(channelCapacity) // barriers only
		}
		a := b.newActor()
		ss, state, err := splitSource(r, &stream.Receiver{C: src.C, Typ: typ}, a.State, connector.SplitOwner{Actor: i, Actors: n}, totals, mon)
		if err != nil {
			for _, e := range in.execs[:i] {
				closeSplitExec(e)
			}
			return nil, err
		}
		a.Closers = append(a.Closers, ss.Close)
		if i == 0 {
			b.job.SourceOwner = a
		} else {
			b.job.Sources[a.ID] = src
		}
		in.actors = append(in.actors, a)
		in.vnodes = append(in.vnodes, storage.AllVnodes())
		in.execs[i], states[i] = ss, state
		if r.Watermark != nil {
			wf, err := slotWatermarkFilter(r, ss, a.State, b.env, i, n, wmStats)
			if err != nil {
				for _, e := range in.execs[:i+1] {
					closeSplitExec(e)
				}
				return nil, err
			}
			in.execs[i] = wf
		}
	}
	if mon.SetState != nil {
		mon.SetState(func() string { return splitState(states) })
	}
	b.job.Connector = progress
	return in, nil
}

// splitState is the state of a source's readers together: the first one
// retrying a broker, else "starting" while one starts, else "running".
func splitState(states []func() string) string {
	out := "running"
	for _, f := range states {
		s := f()
		if strings.HasPrefix(s, "retrying") {
			return s
		}
		if s != "running" {
			out = s
		}
	}
	return out
}

// slotWatermarkFilter builds the watermark filter of reader slot of n
// of r, over in: its own watermark, in row slot of r's watermark state,
// merged downstream (stream.WatermarkFilter.SetSlot); stats show them
// together.
func slotWatermarkFilter(r *catalog.Relation, in stream.Executor, sc *stream.StateContext, env StreamEnv, slot, n int,
	stats *stream.WatermarkStats) (*stream.WatermarkFilter, error) {
	wb, ok := env.(WatermarkBinder)
	if !ok {
		return nil, fmt.Errorf("planner: %s has a watermark its environment cannot bind", r.Name)
	}
	e, err := wb.WatermarkExpr(r)
	if err != nil {
		return nil, fmt.Errorf("planner: the watermark of %s: %w", r.Name, err)
	}
	w := r.Watermark
	wf := stream.NewWatermarkFilter(in, r.ID, w.Column, e, sc, stream.WatermarkTable(w.State, r.Columns[w.Column].Type), stats)
	wf.SetSlot(slot, n)
	return wf, nil
}

// closeSplitExec closes the reader of a source fragment's executor not
// started yet: a SplitSource, or the watermark filter over one.
func closeSplitExec(e stream.Executor) {
	if wf, ok := e.(*stream.WatermarkFilter); ok {
		e = wf.Input()
	}
	if ss, ok := e.(*stream.SplitSource); ok {
		ss.Close()
	}
}

// readsSplits reports whether r's connector reads splits (Kafka).
func readsSplits(r *catalog.Relation) bool { return kafka.IsKafka(r.Connector) }
