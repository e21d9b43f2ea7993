package planner

import (
	"fmt"
	"slices"
	"time"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// BuildViewJob builds the actors of a view with the given shape, materialized
// into rel; mode says whether its scans backfill. The job runs with
// rel.Parallelism actors per fragment (see fragment.go); a new job
// (Backfill) also decides rel.DistKey, which a rebuild then follows.
func BuildViewJob(rel *catalog.Relation, shape *ViewShape, env StreamEnv, mode ScanMode) (*StreamJob, error) {
	par := rel.Parallelism
	if par <= 0 {
		par = 1 // a view recorded before views ran in parallel
	}
	if par > MaxParallelism {
		return nil, fmt.Errorf("planner: parallelism %d above the maximum %d", par, MaxParallelism)
	}
	b := &jobBuilder{env: env, mode: mode, rate: rel.BackfillRateLimit, paused: rel.BackfillHeld(),
		closeWindows: rel.CloseWindows,
		jobID:        rel.ID, par: par, scans: NumScans(shape.Plan) * par, job: &StreamJob{}}
	if rel.BackfillAdaptive {
		b.rate, b.target = stream.AdaptiveStartRate, rel.AdaptiveTarget() // the job's controller moves it
	}
	if n := int64(b.scans); n > 1 && b.rate > 0 {
		// The limit is for the whole job: share it between its scan actors.
		b.rate = max(1, b.rate/n)
	}
	if rel.EmitOnWindowClose {
		if b.emitAgg = emitAggregate(shape.Plan); b.emitAgg == nil {
			col, wm, ok := emitColumn(shape.Plan)
			if !ok {
				return nil, CheckEmitOnWindowClose(shape.Plan)
			}
			b.emitCol, b.emitWM = col, wm
		}
	}
	b.reads = scanReads(shape.Plan) // the Materialize reads every column
	f, err := b.build(shape.Plan)
	if err != nil {
		return nil, err
	}
	if f, err = b.materialize(rel, f, mode); err != nil {
		return nil, err
	}
	b.job.Tops, b.job.TopVnodes = f.actors, slices.Clone(f.vnodes)
	if cj := b.job.Creating; cj != nil {
		// The job's actors run on its own barriers until it joins; only
		// its writers run in the running graph from the start.
		cj.Actors, b.job.Actors = b.job.Actors, slices.Clone(cj.Writers)
	}
	for _, fr := range b.frags {
		b.job.Fragments = append(b.job.Fragments, fr.describe())
	}
	return b.job, nil
}

// materialize ends the job with the view's Materialize: in the actors of
// the last fragment f when f is partitioned by the view's DistKey (or has
// one actor), else in a fragment of its own after an exchange on the
// DistKey. A new view takes f's distribution as its DistKey when it is a
// subset of the view's key, else the key itself; an index keeps its own.
func (b *jobBuilder) materialize(rel *catalog.Relation, f *fragment, mode ScanMode) (*fragment, error) {
	if mode == Backfill && rel.Kind != catalog.KindIndex { // an index's DistKey is its first key column
		rel.DistKey = slices.Clone(rel.PK)
		if f.distOK && subset(f.dist, rel.PK) && (len(f.dist) > 0 || len(rel.PK) == 0) {
			rel.DistKey = slices.Clone(f.dist)
		}
	}
	partitioned := f.distOK && slices.Equal(f.dist, rel.DistKey)
	if !partitioned && len(f.actors) > 1 {
		to := b.newFragment("materialize", b.parallelism(len(rel.DistKey)))
		recvs, err := exchange(f, to, rel.DistKey)
		if err != nil {
			return nil, err
		}
		typ := f.types()
		for i := range to.actors {
			to.execs[i] = stream.NewMerge(typ, recvs[i]...)
		}
		f = to
	}
	if b.emitWM != nil {
		state := stream.EmitOnCloseTable(b.stateTableIDs(1)[0], f.types(), b.emitCol, rel.PK, rel.DistKey)
		f.ops = append(f.ops, fmt.Sprintf("EmitOnWindowClose ($%d < %s)", b.emitCol, leastOf(b.emitWM.Bounds)))
		f.mapExecs(func(i int, in stream.Executor) stream.Executor {
			return stream.NewEmitOnClose(in, f.actors[i].State, state, b.emitCol, b.emitWM, f.vnodes[i])
		})
	}
	f.ops = append(f.ops, "Materialize "+rel.Name)
	layout := TableLayout(rel)
	f.mapExecs(func(i int, in stream.Executor) stream.Executor {
		m := stream.NewMaterialize(in, f.actors[i].State, layout)
		m.Owned, m.ViewInput = &f.vnodes[i], true
		return m
	})
	f.finish()
	return f, nil
}

// errorSink is where the guarded expressions of a's executors report
// their data errors (expr.Guard); nil for none.
func errorSink(a *stream.Actor) expr.ErrorSink {
	if a.Errors == nil {
		return nil
	}
	return a.Errors
}

// NumScans counts the relation scans of a plan (one backfill each).
func NumScans(n Node) int {
	if _, ok := n.(*Scan); ok {
		return 1
	}
	if j, ok := n.(*Join); ok && j.Temporal {
		return NumScans(j.Left) // the table is looked up, not scanned
	}
	total := 0
	for _, in := range n.Inputs() {
		total += NumScans(in)
	}
	return total
}

type jobBuilder struct {
	env    StreamEnv
	mode   ScanMode
	rate   int64         // backfill rows per second per scan actor (0: no limit)
	target time.Duration // an adaptive backfill's latency target (0: none)
	paused bool
	jobID  uint32
	par    int // actors per partitioned fragment
	scans  int // scan actors of the job
	// closeWindows: aggregates and joins close the groups and keys a
	// watermark passes (catalog.Relation.CloseWindows); emitAgg, under
	// EMIT ON WINDOW CLOSE, is the aggregate that emits a group only
	// then.
	closeWindows bool
	emitAgg      *Aggregate
	// emitWM, under EMIT ON WINDOW CLOSE without emitAgg, is the
	// watermark of output column emitCol the view's rows wait for.
	emitWM  *stream.KeyWatermark
	emitCol int
	job     *StreamJob
	frags   []*fragment
	// reads are the columns each scan's plan reads (prune.go).
	reads map[*Scan][]bool
}

// creating returns the job's CreatingJob, made on first use.
func (b *jobBuilder) creating() *stream.CreatingJob {
	if b.job.Creating == nil {
		b.job.Creating = &stream.CreatingJob{ID: b.jobID, Forward: map[stream.ActorID]*stream.Output{},
			LatencyTarget: b.target, Paused: b.paused}
	}
	return b.job.Creating
}

func (b *jobBuilder) newActor() *stream.Actor {
	a := &stream.Actor{ID: b.env.NewActorID(), State: stream.NewStateContext(b.env.Store())}
	if log := b.env.ErrorLog(); log != nil {
		a.Errors = stream.NewEvalErrors(b.jobID, log)
	}
	b.job.Actors = append(b.job.Actors, a)
	return a
}

func (b *jobBuilder) stateTableIDs(n int) []uint32 {
	ids := make([]uint32, n)
	for i := range ids {
		ids[i] = b.env.NextStateTableID()
	}
	return ids
}

// build returns the fragment whose actors compute n.
func (b *jobBuilder) build(n Node) (*fragment, error) {
	switch n := n.(type) {
	case *Scan:
		return b.buildScan(n)
	case *Values:
		return b.buildValues(n)
	case *Filter:
		if b.closeWindows {
			// An inner join takes the WHERE conjuncts that bound its state.
			if m, ok := intervalFilter(n); ok {
				return b.build(m)
			}
		}
		f, err := b.build(n.Input)
		if err != nil {
			return nil, err
		}
		f.mapExecs(func(i int, in stream.Executor) stream.Executor {
			return stream.NewFilter(in, expr.Guard(n.Cond, errorSink(f.actors[i])))
		})
		f.ops = append(f.ops, describe(n))
		return f, nil
	case *Project:
		f, err := b.build(n.Input)
		if err != nil {
			return nil, err
		}
		f.mapExecs(func(i int, in stream.Executor) stream.Executor {
			return stream.NewProject(in, expr.GuardAll(n.Exprs, errorSink(f.actors[i])))
		})
		f.ops = append(f.ops, describe(n))
		f.key = projectedKey(n, f.key)
		if f.distOK {
			d := projectedKey(n, f.dist)
			f.dist, f.distOK = d, len(d) == len(f.dist)
		}
		return f, nil
	case *Aggregate:
		return b.buildAgg(n)
	case *Join:
		if n.Temporal {
			return b.buildTemporalJoin(n)
		}
		return b.buildJoin(n)
	case *UnionAll:
		return b.buildUnion(n)
	case *Window:
		return b.buildWindow(n)
	case *TopN:
		return b.buildTopN(n)
	case *DynamicFilter:
		return b.buildDynamicFilter(n)
	case *ProjectSet:
		// Stateless: it runs in its input's actors, rows keeping their
		// distribution; the key gains the ordinal.
		f, err := b.build(n.Input)
		if err != nil {
			return nil, err
		}
		typ := batchColumnTypes(n.Cols)
		f.mapExecs(func(i int, in stream.Executor) stream.Executor {
			return stream.NewProjectSet(in, n.StreamExpander(errorSink(f.actors[i])), typ)
		})
		f.ops = append(f.ops, describe(n))
		f.key = append(slices.Clone(f.key), len(n.Cols)-1)
		return f, nil
	case *Replicate:
		// Copies keep their row's distribution; the key gains the copy
		// number.
		f, err := b.build(n.Input)
		if err != nil {
			return nil, err
		}
		f.mapExecs(func(_ int, in stream.Executor) stream.Executor { return stream.NewReplicate(in, n.Count) })
		f.ops = append(f.ops, describe(n))
		f.key = append(slices.Clone(f.key), len(n.Cols)-1)
		return f, nil
	case *Expand:
		// Expand passes its input's columns through at their positions, so
		// the distribution is unchanged; the key gains the branch column.
		f, err := b.build(n.Input)
		if err != nil {
			return nil, err
		}
		typ := batchColumnTypes(n.Cols)
		f.mapExecs(func(i int, in stream.Executor) stream.Executor {
			sink := errorSink(f.actors[i])
			projs := make([][]expr.Expr, len(n.Projections))
			for k, p := range n.Projections {
				projs[k] = expr.GuardAll(p, sink)
			}
			return stream.NewExpand(in, projs, typ)
		})
		f.ops = append(f.ops, describe(n))
		if n.Prefix > 0 {
			// Grouping sets: the input's columns moved right by Prefix.
			shift := func(cols []int) []int {
				out := make([]int, len(cols))
				for i, c := range cols {
					out[i] = c + n.Prefix
				}
				return out
			}
			f.key = append(shift(f.key), n.Branch)
			if f.distOK {
				f.dist = shift(f.dist)
			}
			return f, nil
		}
		f.key = append(slices.Clone(f.key), n.Branch)
		return f, nil
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "%s is not supported in a materialized view yet", nodeName(n))
}

func projectedKey(p *Project, inKey []int) []int {
	key := make([]int, 0, len(inKey))
	for _, k := range inKey {
		for i, e := range p.Exprs {
			if c, ok := e.(*expr.Column); ok && c.Index == k {
				key = append(key, i)
				break
			}
		}
	}
	return key
}

func (b *jobBuilder) buildScan(n *Scan) (*fragment, error) {
	up, ok := b.env.Relation(n.Rel.ID)
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", n.Rel.Name)
	}
	layout := TableLayout(up)
	typ := up.ColumnTypes()
	// Every scan owns backfill state tables, allocated in every mode so a
	// job's state table ids come out the same when it is rebuilt. Its
	// actors share them, each using the rows of its vnodes.
	state := stream.NewBackfillTables(b.stateTableIDs(stream.NumBackfillTables), layout)
	f := b.newFragment("scan", b.par)
	in := &Inlet{Upstream: up.ID, actors: f.actors, vnodes: f.vnodes, key: slices.Clone(up.DistKey), typ: typ,
		read: inletReads(b.reads[n], up)}
	for _, c := range up.DistKey {
		in.keyTypes = append(in.keyTypes, typ[c])
	}
	if b.mode != Follow {
		// A backfill: the upstream's changes go to a LogWriter per scan
		// actor, in the running graph; the scans run on the job's own
		// barriers (stream.CreatingJob).
		in.actors = make([]*stream.Actor, len(f.actors))
	}
	var err error
	for i, a := range f.actors {
		merge := stream.NewMerge(typ)
		in.merges = append(in.merges, merge)
		opts := stream.ScanOptions{Backfill: b.mode != Follow, State: state,
			RateLimit: b.rate, Paused: b.paused, Job: b.jobID, Scans: b.scans, Vnodes: &f.vnodes[i], Read: b.reads[n]}
		if !opts.Backfill {
			scan := stream.NewStreamScan(merge, layout, a.State, opts)
			a.Closers = append(a.Closers, scan.Close)
			f.execs[i] = scan
			continue
		}
		if opts.Splits, err = sourceBackfill(up); err != nil {
			return nil, err
		}
		opts.Progress = stream.NewBackfillProgress()
		b.job.Progress = append(b.job.Progress, opts.Progress)
		// The writer never reads its epoch's writes: a write-only batch
		// spares Pebble indexing them.
		w := &stream.Actor{ID: b.env.NewActorID(), State: stream.NewWriteOnlyStateContext(b.env.Store())}
		w.Exec = stream.NewLogWriter(merge, layout, w.State, state, f.vnodes[i], b.jobID, opts.Progress)
		in.actors[i] = w
		barriers := make(chan stream.Message, 1)
		fwd := make(chan stream.Message, channelCapacity)
		opts.Barriers = &stream.Receiver{C: barriers, Typ: typ}
		scan := stream.NewStreamScan(&stream.Receiver{C: fwd, Typ: typ}, layout, a.State, opts)
		a.Closers = append(a.Closers, scan.Close)
		f.execs[i] = scan
		cj := b.creating()
		cj.Writers = append(cj.Writers, w)
		cj.Scans = append(cj.Scans, scan)
		cj.Barriers = append(cj.Barriers, barriers)
		cj.Forward[w.ID] = &stream.Output{Actor: a.ID, C: fwd}
		cj.Progress = append(cj.Progress, opts.Progress)
	}
	b.job.Inlets = append(b.job.Inlets, in)
	f.inputs = []FragmentInput{{Upstream: up.Name, Key: slices.Clone(up.DistKey)}}
	f.ops = append(f.ops, "StreamScan "+up.Name)
	f.key = slices.Clone(up.PK)
	f.dist, f.distOK = slices.Clone(up.DistKey), true
	return f, nil
}

func (b *jobBuilder) buildAgg(n *Aggregate) (*fragment, error) {
	in, err := b.build(n.Input)
	if err != nil {
		return nil, err
	}
	spec := stream.AggSpec{InTypes: in.types(), GroupBy: n.GroupBy, InputPK: in.key, FixedGroups: n.FixedGroups,
		AppendOnly: appendOnly(n.Input)}
	var closing string
	if b.closeWindows {
		spec.Watermark, closing = aggWatermark(n, n == b.emitAgg)
	}
	for _, c := range n.Aggs {
		call := stream.AggCall{Kind: c.Kind, Arg: c.Arg, Distinct: c.Distinct, Type: c.Type, Sep: c.Sep,
			Filtered: c.Filtered, FilterCol: c.FilterCol}
		for _, k := range c.Order {
			call.Order = append(call.Order, stream.AggOrder{Col: k.Col, Desc: k.Desc, NullsFirst: k.NullsFirst})
		}
		spec.Aggs = append(spec.Aggs, call)
	}
	ids := b.stateTableIDs(spec.NumStateTables())
	f := in
	par := b.parallelism(len(n.GroupBy))
	// The aggregate runs in its input's actors when they are already
	// partitioned by the group key, or when both are a single actor.
	local := len(in.actors) == par && (par == 1 || in.distOK && slices.Equal(in.dist, n.GroupBy))
	if !local {
		// Rows must reach the actor owning their group's vnode. When
		// the aggregates split, each input actor first sums its rows
		// per group (LocalAgg) and sends only those partial sums;
		// unless the group key holds the input's stream key, which
		// makes every live row a group of its own: summing would only
		// cost.
		key := n.GroupBy
		if spec.Splittable() && !coversKey(n.GroupBy, in.key) {
			for i, e := range in.execs {
				if in.execs[i], err = stream.NewLocalAgg(e, spec); err != nil {
					return nil, err
				}
			}
			in.ops = append(in.ops, "LocalHash"+describe(n))
			spec.Partial = true
			key = make([]int, len(n.GroupBy))
			for i := range key {
				key[i] = i
			}
		}
		f = b.newFragment("agg", par)
		recvs, err := exchange(in, f, key)
		if err != nil {
			return nil, err
		}
		for i := range f.actors {
			f.execs[i] = stream.NewMerge(in.types(), recvs[i]...)
		}
	}
	f.kind = "agg"
	op := "Hash" + describe(n)
	if spec.AppendOnly && slices.ContainsFunc(n.Aggs, func(c AggCall) bool { return c.Kind == expr.AggMin || c.Kind == expr.AggMax }) {
		op += " [append-only]" // its min and max keep no inputs
	}
	if closing != "" {
		op += " (" + closing + ")"
	}
	f.ops = append(f.ops, op)
	for i, a := range f.actors {
		agg, err := stream.NewHashAgg(f.execs[i], a.State, spec, ids)
		if err != nil {
			return nil, err
		}
		if len(spec.FixedGroups) > 0 || spec.Watermark != nil {
			agg.SetOwned(f.vnodes[i])
		}
		f.execs[i] = agg
	}
	f.key = make([]int, len(n.GroupBy))
	for i := range f.key {
		f.key[i] = i
	}
	f.dist, f.distOK = slices.Clone(f.key), true
	return f, nil
}

// buildJoin runs the join in a fragment of its own, each side's rows
// exchanged on the join key.
func (b *jobBuilder) buildJoin(n *Join) (*fragment, error) {
	var closing *stream.KeyWatermark
	var interval *stream.IntervalWatermark
	if b.closeWindows {
		// The key pair a watermark bounds leads the state's keys.
		n, closing = joinWatermark(n)
		interval = intervalWatermark(n)
	}
	sides, err := b.buildTwo(n.Left, n.Right)
	if err != nil {
		return nil, err
	}
	spec := stream.JoinSpec{Kind: joinKind(n.Kind),
		LeftTypes: sides[0].types(), RightTypes: sides[1].types(),
		LeftKeys: n.LeftKeys, RightKeys: n.RightKeys,
		LeftPK: sides[0].key, RightPK: sides[1].key, Cond: n.Cond, Watermark: closing, Interval: interval}
	ids := b.stateTableIDs(spec.NumStateTables())
	f := b.newFragment("join", b.parallelism(len(n.LeftKeys)))
	left, err := exchange(sides[0], f, n.LeftKeys)
	if err != nil {
		return nil, err
	}
	right, err := exchange(sides[1], f, n.RightKeys)
	if err != nil {
		return nil, err
	}
	op := describe(n)
	if closing != nil {
		op += fmt.Sprintf(" (closes keys: $%d < %s)", n.LeftKeys[0], leastOf(closing.Bounds))
	}
	if interval != nil {
		op += " (cleans " + describeInterval(interval, n.Left.Columns(), n.Right.Columns()) + ")"
	}
	f.ops = append(f.ops, op)
	for i, a := range f.actors {
		spec := spec
		spec.Cond = expr.Guard(spec.Cond, errorSink(a))
		j, err := stream.NewHashJoinInputs(left[i], right[i], a.State, spec, ids)
		if err != nil {
			return nil, err
		}
		j.SetOwned(f.vnodes[i])
		f.execs[i] = j
	}
	nl := len(spec.LeftTypes)
	f.key = withJoinKey(n, nl, spec.OutPK(), func(i int) int { return i })
	switch spec.Kind {
	case stream.JoinInner, stream.JoinLeftOuter, stream.JoinLeftSemi, stream.JoinLeftAnti:
		// Left key columns are never NULL-padded: they carry the vnode.
		f.dist, f.distOK = slices.Clone(n.LeftKeys), true
	case stream.JoinRightOuter:
		f.dist, f.distOK = nil, true
		for _, k := range n.RightKeys {
			f.dist = append(f.dist, nl+k)
		}
	}
	return f, nil
}

// buildTwo builds the fragments of a two-input operator's inputs.
func (b *jobBuilder) buildTwo(l, r Node) ([2]*fragment, error) {
	var sides [2]*fragment
	for i, side := range []Node{l, r} {
		f, err := b.build(side)
		if err != nil {
			return sides, err
		}
		sides[i] = f
	}
	return sides, nil
}

// buildUnion merges its branches' rows in a fragment of its own, each
// branch exchanged on the union's stream key (unionWithKey).
func (b *jobBuilder) buildUnion(n *UnionAll) (*fragment, error) {
	if len(n.Key) == 0 {
		return nil, fmt.Errorf("planner: a UNION ALL without its stream key")
	}
	sides := make([]*fragment, len(n.Ins))
	for i, in := range n.Ins {
		f, err := b.build(in)
		if err != nil {
			return nil, err
		}
		sides[i] = f
	}
	f := b.newFragment("union", b.parallelism(len(n.Key)))
	recvs := make([][]*stream.Receiver, len(f.actors))
	for _, side := range sides {
		r, err := exchange(side, f, n.Key)
		if err != nil {
			return nil, err
		}
		for i := range r {
			recvs[i] = append(recvs[i], r[i]...)
		}
	}
	typ := batchColumnTypes(n.Cols)
	for i := range f.actors {
		f.execs[i] = stream.NewMerge(typ, recvs[i]...)
	}
	f.ops = append(f.ops, describe(n))
	f.key = slices.Clone(n.Key)
	f.dist, f.distOK = slices.Clone(n.Key), true
	return f, nil
}

func joinKind(k JoinKind) stream.JoinKind {
	switch k {
	case LeftJoin:
		return stream.JoinLeftOuter
	case RightJoin:
		return stream.JoinRightOuter
	case FullJoin:
		return stream.JoinFullOuter
	case SemiJoin:
		return stream.JoinLeftSemi
	case AntiJoin:
		return stream.JoinLeftAnti
	}
	return stream.JoinInner
}

// coversKey reports whether cols include every column of key (a non-empty
// key).
func coversKey(cols, key []int) bool {
	if len(key) == 0 {
		return false
	}
	for _, c := range key {
		if !slices.Contains(cols, c) {
			return false
		}
	}
	return true
}

// buildDynamicFilter runs the filter in a fragment of one actor, which
// both inputs reach (its threshold is one value; its rows are kept in
// the threshold's order).
func (b *jobBuilder) buildDynamicFilter(n *DynamicFilter) (*fragment, error) {
	var sides [2]*fragment
	var err error
	if n.Temporal() {
		sides[0], err = b.build(n.Input)
	} else {
		sides, err = b.buildTwo(n.Input, n.Right)
	}
	if err != nil {
		return nil, err
	}
	spec := stream.DynamicFilterSpec{InTypes: sides[0].types(), InputPK: sides[0].key,
		Left: n.Left, Right: n.RightExpr, Type: n.Left.Type(), Op: n.Op, Temporal: n.Temporal()}
	ids := b.stateTableIDs(2)
	kind := "dynamic filter"
	if n.Temporal() {
		kind = "temporal filter"
	}
	f := b.newFragment(kind, 1)
	left, err := exchange(sides[0], f, nil)
	if err != nil {
		return nil, err
	}
	right := make([][]*stream.Receiver, len(f.actors))
	if !n.Temporal() {
		if right, err = exchange(sides[1], f, nil); err != nil {
			return nil, err
		}
	}
	f.ops = append(f.ops, describe(n))
	for i, a := range f.actors {
		spec := spec
		spec.Left, spec.Right = expr.Guard(spec.Left, errorSink(a)), expr.Guard(spec.Right, errorSink(a))
		d, err := stream.NewDynamicFilter(left[i], right[i], a.State, spec, ids)
		if err != nil {
			return nil, err
		}
		f.execs[i] = d
	}
	f.key = slices.Clone(sides[0].key)
	f.dist, f.distOK = nil, true
	return f, nil
}
