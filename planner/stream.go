package planner

import (
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// channelCapacity bounds the messages in flight between two actors.
const channelCapacity = 4

// MaxParallelism is the highest number of actors a fragment may have.
const MaxParallelism = 64

// StreamEnv is what building a stream job needs from its owner.
type StreamEnv interface {
	Store() *storage.Store
	// NewActorID returns a fresh actor id.
	NewActorID() stream.ActorID
	// NextStateTableID returns the id of the next internal state table of
	// the job: a fresh one when creating, the recorded one when rebuilding.
	NextStateTableID() uint32
	// Relation returns the relation with id (an upstream of the job).
	Relation(id uint32) (*catalog.Relation, bool)
	// ErrorLog records the data errors of the job's expressions, which
	// its executors turn into NULLs (expr.Guard); nil: they fail the job.
	ErrorLog() stream.ErrorLog
}

// StreamJob is the actors of one materialized view (or table) and how they
// attach to the graph.
type StreamJob struct {
	// Actors run in the running graph: for a job still creating, its
	// log writers only (the others are Creating's).
	Actors []*stream.Actor
	// Creating, for a view that backfills (Backfill, Resume), is the
	// job on its own barriers (stream.CreatingJob).
	Creating *stream.CreatingJob
	// Tops are the actors that materialize the job's relation (one for a
	// table), each owning a vnode set of it; views over the relation
	// attach to their dispatchers.
	Tops []*stream.Actor
	// TopVnodes are the vnodes of the relation each of Tops owns.
	TopVnodes []storage.VnodeBitmap
	// Inlets are the job's scans, each to be connected to the top actors
	// of its upstream relation (through an Add mutation when creating).
	Inlets []*Inlet
	// Fragments describe the job's fragments and their actors' vnodes.
	Fragments []Fragment
	// Source is where DML statements send the table's changes (tables
	// only), and SourceOwner the actor that reads it (the coordinator
	// injects barriers into the source on its behalf).
	Source      *stream.Source
	SourceOwner *stream.Actor
	// Sources, of a view, are the sources of its constant rows (see
	// stream.Values) by the actor that reads each: only barriers go in.
	Sources map[stream.ActorID]*stream.Source
	// Progress has one entry per scan actor of a backfilling job.
	Progress []*stream.BackfillProgress
	// Connector, for a relation with a connector, holds the index of the
	// next row it generates.
	Connector *atomic.Int64
	// Watermark, for a relation with a WATERMARK, shows its filter's
	// watermark and late rows.
	Watermark *stream.WatermarkStats
}

// AllActors returns the ids of every actor of the job, Creating's too.
func (j *StreamJob) AllActors() []stream.ActorID {
	var ids []stream.ActorID
	for _, a := range j.Actors {
		ids = append(ids, a.ID)
	}
	if j.Creating != nil {
		for _, a := range j.Creating.Actors {
			ids = append(ids, a.ID)
		}
	}
	return ids
}

// ScanMode says how a job's scans start.
type ScanMode uint8

// Scan modes.
const (
	// Follow: the job's state is complete; pass upstream changes through.
	Follow ScanMode = iota
	// Backfill: a new job; emit the upstreams' rows first.
	Backfill
	// Resume: continue a backfill from its persisted progress.
	Resume
)

// TableLayout returns the storage layout of a relation's rows.
func TableLayout(r *catalog.Relation) *storage.Table {
	return &storage.Table{ID: r.DataID(), Types: r.ColumnTypes(), PK: r.PK, DistKey: r.DistKey, Missing: r.MissingValues(),
		Prefix: r.Narrowed}
}

// BuildTableJob returns the actor of a table or source. DML chunks and
// barriers arrive on Source. A table's changes are materialized into its
// state; a table or source with a connector also generates rows
// (stream.ConnectorSource), and a source stores none: its rows only flow
// to the views over it.
func BuildTableJob(r *catalog.Relation, env StreamEnv) (*StreamJob, error) {
	if n := splitActors(r); n > 1 {
		return buildSplitJob(r, env, n) // a Kafka table or source read by n actors
	}
	src := stream.NewSource(channelCapacity)
	sc := stream.NewStateContext(env.Store())
	if r.Kind == catalog.KindTable && r.Connector == nil && r.Watermark == nil {
		// A plain table's actor only writes (see Trusted below).
		sc = stream.NewWriteOnlyStateContext(env.Store())
	}
	var exec stream.Executor = &stream.Receiver{C: src.C, Typ: r.ColumnTypes()}
	job := &StreamJob{Source: src}
	var closers []func()
	var conn stream.Executor // the connector's executor, if any
	if r.Connector != nil {
		cs, progress, closer, err := sourceExec(r, exec.(*stream.Receiver), sc, env)
		if err != nil {
			return nil, err
		}
		exec, job.Connector = cs, progress
		conn = cs
		if closer != nil {
			closers = append(closers, closer)
		}
	}
	if r.Watermark != nil {
		wf, stats, err := watermarkFilter(r, exec, sc, env)
		if err != nil {
			return nil, err
		}
		if f, ok := wf.(*stream.WatermarkFilter); ok && readsSplits(r) {
			f.SetSlot(0, 1) // a Kafka relation's one reader, maybe after several (split_job.go)
		}
		exec, job.Watermark = wf, stats
	}
	a := &stream.Actor{ID: env.NewActorID(), State: sc, Closers: closers}
	job.Actors, job.SourceOwner = []*stream.Actor{a}, a
	pruneSource(r, conn, a)
	par := min(max(r.Parallelism, 1), MaxParallelism)
	if r.Kind != catalog.KindTable || par == 1 {
		if r.Kind == catalog.KindTable {
			exec = newTableMaterialize(r, exec, sc, nil)
			// The source feeds the Materialize directly: DML may
			// hand it rows already written (stream.Message.Ingest).
			src.Ingests = r.Connector == nil && r.Watermark == nil
		}
		a.Exec = exec
		job.Tops, job.TopVnodes = []*stream.Actor{a}, []storage.VnodeBitmap{storage.AllVnodes()}
		job.Fragments = []Fragment{{Kind: "table", Actors: []stream.ActorID{a.ID}, live: []*stream.Actor{a}, Vnodes: []storage.VnodeBitmap{storage.AllVnodes()},
			Ops: tableOps(r, true)}}
		return job, nil
	}
	// A table of parallelism n: the source actor takes the DML (and runs
	// the connector) and hashes the rows on the table's DistKey to n
	// actors that materialize them, each the rows of its vnodes; views
	// over the table attach to those.
	b := &jobBuilder{env: env, par: par, job: job}
	in := &fragment{kind: "source", actors: []*stream.Actor{a}, vnodes: []storage.VnodeBitmap{storage.AllVnodes()},
		execs: []stream.Executor{exec}, ops: tableOps(r, false)}
	b.frags = append(b.frags, in)
	f := b.newFragment("table", par)
	f.ops = []string{"Merge", "Materialize " + r.Name}
	recvs, err := exchange(in, f, r.DistKey)
	if err != nil {
		return nil, err
	}
	typ := r.ColumnTypes()
	for i, ta := range f.actors {
		if r.Connector == nil {
			ta.State = stream.NewWriteOnlyStateContext(env.Store())
		}
		f.execs[i] = newTableMaterialize(r, stream.NewMerge(typ, recvs[i]...), ta.State, &f.vnodes[i])
	}
	f.finish()
	job.Tops, job.TopVnodes = f.actors, slices.Clone(f.vnodes)
	for _, fr := range b.frags {
		job.Fragments = append(job.Fragments, fr.describe())
	}
	return job, nil
}

// tableOps describes the operators of a table's or source's first
// fragment; materialize says whether it stores the rows too.
func tableOps(r *catalog.Relation, materialize bool) []string {
	ops := []string{"Source (DML)"}
	if r.Connector != nil {
		ops = append(ops, "Connector "+r.Connector["connector"])
	}
	if w := r.Watermark; w != nil {
		ops = append(ops, fmt.Sprintf("WatermarkFilter %s AS %s", r.Columns[w.Column].Name, w.Expr))
	}
	if materialize && r.Kind == catalog.KindTable {
		ops = append(ops, "Materialize "+r.Name)
	}
	return ops
}

// newTableMaterialize writes a table's changes into its state; owned, when
// not nil, are the vnodes the actor owns.
func newTableMaterialize(r *catalog.Relation, in stream.Executor, sc *stream.StateContext, owned *storage.VnodeBitmap) stream.Executor {
	m := stream.NewMaterialize(in, sc, TableLayout(r))
	// DML statements validate their changes against the table under
	// its DML lock, so a plain table's materialization needs no checks.
	// Rows from a connector are upserts: a later row with the key of
	// an earlier one replaces it.
	m.Trusted = r.Connector == nil
	m.ViewInput = keyedBySplitOffset(r)
	m.KeyedDeletes = deletesByKey(r)
	m.Owned = owned
	return m
}

// WatermarkBinder is what BuildTableJob needs of its StreamEnv for a
// relation with a WATERMARK: its expression, bound.
type WatermarkBinder interface {
	WatermarkExpr(r *catalog.Relation) (expr.Expr, error)
}

// watermarkFilter builds r's watermark filter over in.
func watermarkFilter(r *catalog.Relation, in stream.Executor, sc *stream.StateContext, env StreamEnv) (stream.Executor, *stream.WatermarkStats, error) {
	wb, ok := env.(WatermarkBinder)
	if !ok {
		return nil, nil, fmt.Errorf("planner: %s has a watermark its environment cannot bind", r.Name)
	}
	e, err := wb.WatermarkExpr(r)
	if err != nil {
		return nil, nil, fmt.Errorf("planner: the watermark of %s: %w", r.Name, err)
	}
	w := r.Watermark
	stats := &stream.WatermarkStats{}
	state := stream.WatermarkTable(w.State, r.Columns[w.Column].Type)
	return stream.NewWatermarkFilter(in, r.ID, w.Column, e, sc, state, stats), stats, nil
}

// connectorSource builds the generator of r's connector and the executor
// that paces it and persists its position (in r.Internal[0]).
func connectorSource(r *catalog.Relation, in *stream.Receiver, sc *stream.StateContext) (*stream.ConnectorSource, *atomic.Int64, error) {
	if len(r.Internal) == 0 {
		return nil, nil, fmt.Errorf("planner: %s %q has a connector but no state table", r.Kind, r.Name)
	}
	var cols []connector.Column
	rowID := -1
	for i, c := range r.Columns {
		if r.RowID && i == r.PK[0] {
			rowID = i
			continue
		}
		cols = append(cols, connector.Column{Name: c.Name, Type: c.Type})
	}
	gen, err := connector.New(cols, r.Connector, r.ConnectorBase)
	if err != nil {
		return nil, nil, err
	}
	progress := new(atomic.Int64)
	cs := stream.NewConnectorSource(in, gen, sc, r.ColumnTypes(), stream.ConnectorOptions{
		Job: r.ID, State: r.Internal[0], RowID: rowID,
		RateLimit: r.SourceRateLimit, Paused: r.SourceHeld(), Progress: progress,
	})
	return cs, progress, nil
}

// ViewShape is the stored shape of a materialized view: its columns (the
// query's, then hidden stream-key columns) and its primary key.
type ViewShape struct {
	Plan    Node
	Columns []catalog.Column
	PK      []int
}

// PlanView derives the stream plan of a view query: the plan rewritten so
// every node carries its stream key, and the view's columns and key.
func PlanView(q *Query, names []string) (*ViewShape, error) {
	plan, key, err := withStreamKey(q.Plan)
	if err != nil {
		return nil, err
	}
	if err := checkConstantRows(plan); err != nil {
		return nil, err
	}
	if err := checkRandomUUID(plan); err != nil {
		return nil, err
	}
	if err := checkTimeFuncs(plan); err != nil {
		return nil, err
	}
	cols := plan.Columns()
	if len(names) > 0 && len(names) > visibleCount(cols) {
		return nil, pgerr.New(pgerr.SyntaxError, "CREATE MATERIALIZED VIEW specifies too many column names")
	}
	out := make([]catalog.Column, len(cols))
	seen := map[string]bool{}
	vis := 0
	for i, c := range cols {
		name := c.Name
		if !c.Hidden && vis < len(names) {
			name = names[vis]
		}
		if c.Hidden {
			name = fmt.Sprintf("_key%d", i)
		} else {
			vis++
			if seen[name] {
				return nil, pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", name)
			}
		}
		seen[name] = true
		out[i] = catalog.Column{Name: name, Type: c.Type, Hidden: c.Hidden}
	}
	return &ViewShape{Plan: plan, Columns: out, PK: key}, nil
}

func visibleCount(cols []Column) int {
	n := 0
	for _, c := range cols {
		if !c.Hidden {
			n++
		}
	}
	return n
}

// withStreamKey rewrites n so that its output includes a unique key (the
// stream key) and returns the key's column indexes.
func withStreamKey(n Node) (Node, []int, error) {
	switch n := n.(type) {
	case *Scan:
		return n, append([]int(nil), n.Rel.PK...), nil
	case *Filter:
		if t, ok := topNFilter(n); ok {
			return withStreamKey(t)
		}
		if t, ok := temporalFilter(n); ok {
			return withStreamKey(t)
		}
		in, key, err := withStreamKey(n.Input)
		return &Filter{Input: in, Cond: n.Cond}, key, err
	case *Project:
		if d, ok := dynamicFilter(n); ok {
			return withStreamKey(d)
		}
		return projectWithKey(n)
	case *ProjectSet:
		return projectSetWithKey(n)
	case *DynamicFilter:
		in, key, err := withStreamKey(n.Input)
		if err != nil {
			return nil, nil, err
		}
		if n.Temporal() {
			return &DynamicFilter{Input: in, Left: n.Left, RightExpr: n.RightExpr, Op: n.Op}, key, nil
		}
		right, _, err := withStreamKey(n.Right)
		if err != nil {
			return nil, nil, err
		}
		return &DynamicFilter{Input: in, Right: right, Left: n.Left, RightExpr: n.RightExpr, Op: n.Op}, key, nil
	case *Aggregate:
		in, inKey, err := withStreamKey(n.Input)
		if err != nil {
			return nil, nil, err
		}
		_ = inKey
		key := make([]int, len(n.GroupBy))
		for i := range key {
			key[i] = i
		}
		return &Aggregate{Input: in, GroupBy: n.GroupBy, Aggs: n.Aggs, Cols: n.Cols, FixedGroups: n.FixedGroups}, key, nil
	case *Join:
		return joinWithKey(n)
	case *LateralJoin:
		d, err := decorrelateLateral(n)
		if err != nil {
			return nil, nil, err
		}
		return withStreamKey(d)
	case *Apply:
		d, err := decorrelate(n)
		if err != nil {
			return nil, nil, err
		}
		return withStreamKey(d)
	case *Sort:
		// ORDER BY has no meaning for a stored view.
		return withStreamKey(n.Input)
	case *UnionAll:
		return unionWithKey(n)
	case *Window:
		return windowWithKey(n)
	case *Limit:
		return limitWithKey(n)
	case *TopN:
		return topNWithKey(n)
	case *Replicate:
		in, inKey, err := withStreamKey(n.Input)
		if err != nil {
			return nil, nil, err
		}
		r := NewReplicate(in, n.Count)
		return r, append(slices.Clone(inKey), len(r.Cols)-1), nil
	case *Values:
		return valuesWithKey(n)
	case *GenerateSeries:
		// generate_series(...) in FROM: the set function over one
		// constant row, as in the select list of a SELECT without FROM.
		ps := NewProjectSet(&Values{Rows: [][]expr.Expr{{}}}, n)
		p := &Project{Input: ps, Cols: slices.Clone(n.Cols)}
		for i, c := range n.Cols {
			p.Exprs = append(p.Exprs, expr.NewColumn(i, c.Type, c.Name))
		}
		return withStreamKey(p)
	case *Expand:
		in, inKey, err := withStreamKey(n.Input)
		if err != nil {
			return nil, nil, err
		}
		if n.Prefix > 0 {
			return expandWithKey(n, in, inKey)
		}
		if len(in.Columns()) != len(n.Input.Columns()) {
			return nil, nil, pgerr.New(pgerr.FeatureNotSupported, "HOP over this input is not supported in a materialized view yet")
		}
		return n, append(inKey, n.Branch), nil
	}
	return nil, nil, pgerr.New(pgerr.FeatureNotSupported, "%s is not supported in a materialized view yet", nodeName(n))
}

// expandWithKey is withStreamKey of an Expand whose computed columns come
// first (grouping sets): the columns in, the input with its stream key,
// adds after n.Input's are passed through too, and the key is the input's
// (shifted past the computed columns) and the branch.
func expandWithKey(n *Expand, in Node, inKey []int) (Node, []int, error) {
	w, added := len(n.Input.Columns()), in.Columns()[len(n.Input.Columns()):]
	out := &Expand{Input: in, Cols: append(slices.Clone(n.Cols), added...), Branch: n.Branch, Prefix: n.Prefix}
	for _, p := range n.Projections {
		p = slices.Clone(p)
		for i, c := range added {
			p = append(p, expr.NewColumn(w+i, c.Type, c.Name))
		}
		out.Projections = append(out.Projections, p)
	}
	key := make([]int, 0, len(inKey)+1)
	for _, k := range inKey {
		key = append(key, n.Prefix+k)
	}
	return out, append(key, n.Branch), nil
}

// unionWithKey rewrites each branch of a UNION ALL to carry its stream
// key and makes the union's key out of them: after the union's columns
// come, hidden, every branch's key columns (a row of branch i fills
// branch i's and leaves the others NULL) and the branch's number. Two
// branches may hold equal rows with equal keys (a table unioned with
// itself): the branch number keeps them apart.
func unionWithKey(n *UnionAll) (Node, []int, error) {
	w := len(n.Cols)
	ins := make([]Node, len(n.Ins))
	keys := make([][]int, len(n.Ins))
	var keyCols []Column
	for i, in := range n.Ins {
		var err error
		if ins[i], keys[i], err = withStreamKey(in); err != nil {
			return nil, nil, err
		}
		cols := ins[i].Columns()
		for _, k := range keys[i] {
			keyCols = append(keyCols, Column{Name: fmt.Sprintf("_u%d_%s", i, cols[k].Name), Type: cols[k].Type, Hidden: true})
		}
	}
	out := append(slices.Clone(n.Cols), keyCols...)
	out = append(out, Column{Name: "_branch", Type: types.TInt64, Hidden: true})
	branches := make([]Node, len(ins))
	for i, in := range ins {
		cols := in.Columns()
		p := &Project{Input: in, Cols: slices.Clone(out)}
		for c := range w {
			p.Exprs = append(p.Exprs, expr.NewColumn(c, cols[c].Type, cols[c].Name))
		}
		off := 0
		for j := range ins {
			for x, k := range keys[j] {
				if j == i {
					p.Exprs = append(p.Exprs, expr.NewColumn(k, cols[k].Type, cols[k].Name))
				} else {
					p.Exprs = append(p.Exprs, expr.NewConst(nil, keyCols[off+x].Type))
				}
			}
			off += len(keys[j])
		}
		p.Exprs = append(p.Exprs, expr.NewConst(int64(i), types.TInt64))
		branches[i] = p
	}
	key := make([]int, 0, len(keyCols)+1)
	for c := w; c < len(out); c++ {
		key = append(key, c)
	}
	return &UnionAll{Ins: branches, Cols: out, Key: key}, slices.Clone(key), nil
}

// joinWithKey rewrites both sides of a join to carry their keys and
// restores the join's original column order (left, right) with the sides'
// added key columns appended, so the parent's column references still hold.
//
// The join's stream key is the left key, the right key, and the join key
// columns that carry the row's join key (the left ones, the right ones
// for a right join, both for a full join): a parallel join runs in the
// actor that owns the join key's vnode, so the key must say which actor
// produces a row. Without it, an update that moves rows from one join key
// to another would have two actors emit changes of one output key, in
// no particular order.
//
// A temporal join's key is the left key alone: it emits at most one row
// per left row, in the left row's actor.
func joinWithKey(n *Join) (Node, []int, error) {
	l, lk, err := withStreamKey(n.Left)
	if err != nil {
		return nil, nil, err
	}
	r, rk, err := withStreamKey(n.Right)
	if err != nil {
		return nil, nil, err
	}
	oldL, oldR := len(n.Left.Columns()), len(n.Right.Columns())
	newL := len(l.Columns())
	nn := &Join{Left: l, Right: r, Kind: n.Kind, LeftKeys: n.LeftKeys, RightKeys: n.RightKeys, Cond: n.Cond,
		Temporal: n.Temporal}
	if n.Cond != nil && newL != oldL {
		nn.Cond = expr.Remap(n.Cond, func(i int) int {
			if i >= oldL {
				return i - oldL + newL
			}
			return i
		})
	}
	if n.Kind.FiltersLeft() {
		// Its rows are left rows: the left key, with the left join key
		// (it says which actor emits the row, see above).
		return nn, withJoinKey(n, newL, slices.Clone(lk), func(i int) int { return i }), nil
	}
	// Position of each joined column in the restored order.
	joined := nn.Columns()
	order := make([]int, 0, len(joined))
	for i := 0; i < oldL; i++ {
		order = append(order, i)
	}
	for i := 0; i < oldR; i++ {
		order = append(order, newL+i)
	}
	for i := oldL; i < newL; i++ {
		order = append(order, i)
	}
	for i := newL + oldR; i < len(joined); i++ {
		order = append(order, i)
	}
	if len(joined) == oldL+oldR {
		// Nothing was added on either side: no projection needed.
		key := append([]int(nil), lk...)
		if n.Temporal {
			return nn, key, nil // a left row matches at most one row
		}
		for _, k := range rk {
			key = append(key, k+newL)
		}
		return nn, withJoinKey(n, newL, key, func(i int) int { return i }), nil
	}
	pos := make([]int, len(joined))
	exprs := make([]expr.Expr, len(order))
	cols := make([]Column, len(order))
	for out, in := range order {
		pos[in] = out
		exprs[out] = expr.NewColumn(in, joined[in].Type, joined[in].Name)
		cols[out] = joined[in]
		if out >= oldL+oldR {
			cols[out].Hidden = true
		}
	}
	key := make([]int, 0, len(lk)+len(rk))
	for _, k := range lk {
		key = append(key, pos[k])
	}
	if n.Temporal {
		return &Project{Input: nn, Exprs: exprs, Cols: cols}, key, nil
	}
	for _, k := range rk {
		key = append(key, pos[k+newL])
	}
	return &Project{Input: nn, Exprs: exprs, Cols: cols}, withJoinKey(n, newL, key, func(i int) int { return pos[i] }), nil
}

// withJoinKey adds to key the join key columns of n that carry a row's
// join key (see joinWithKey); pos maps a column of the rewritten join's
// output (newL left columns, then the right ones) to its position in the
// rewritten output.
func withJoinKey(n *Join, newL int, key []int, pos func(int) int) []int {
	var cols []int
	if n.Kind != RightJoin {
		cols = append(cols, n.LeftKeys...)
	}
	if n.Kind == RightJoin || n.Kind == FullJoin {
		for _, k := range n.RightKeys {
			cols = append(cols, newL+k)
		}
	}
	for _, c := range cols {
		if p := pos(c); !slices.Contains(key, p) {
			key = append(key, p)
		}
	}
	return key
}

// projectWithKey keeps the input's stream key in the projection, adding
// hidden columns for key columns the query does not project.
func projectWithKey(p *Project) (Node, []int, error) {
	in, inKey, err := withStreamKey(p.Input)
	if err != nil {
		return nil, nil, err
	}
	exprs := append([]expr.Expr(nil), p.Exprs...)
	cols := append([]Column(nil), p.Cols...)
	inCols := in.Columns()
	key := make([]int, 0, len(inKey))
	for _, k := range inKey {
		pos := -1
		for i, e := range exprs {
			if c, ok := e.(*expr.Column); ok && c.Index == k {
				pos = i
				break
			}
		}
		if pos < 0 {
			pos = len(exprs)
			exprs = append(exprs, expr.NewColumn(k, inCols[k].Type, inCols[k].Name))
			cols = append(cols, Column{Name: inCols[k].Name, Type: inCols[k].Type, Hidden: true})
		}
		key = append(key, pos)
	}
	return &Project{Input: in, Exprs: exprs, Cols: cols}, key, nil
}

func nodeName(n Node) string {
	switch n.(type) {
	case *Limit:
		return "LIMIT"
	case *UnionAll:
		return "UNION"
	case *Values:
		return "VALUES"
	case *GenerateSeries:
		return "a table function"
	case *RecursiveUnion, *WorkTableScan:
		return "WITH RECURSIVE"
	}
	return fmt.Sprintf("%T", n)
}
