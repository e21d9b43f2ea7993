package stream

// Tests of the Coordinator over small hand-built graphs: a "table" actor
// (a Source feeding a Materialize) and downstream actors attached to its
// dispatcher, on an in-memory store.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// waitLimit bounds every wait of these tests.
const waitLimit = 10 * time.Second

var kvTypes = []types.Type{types.TInt64, types.TInt64}

func kvLayout(id uint32) *storage.Table {
	return &storage.Table{ID: id, Types: kvTypes, PK: []int{0}, DistKey: []int{0}}
}

// harness owns a coordinator over an in-memory store. Its cleanups close
// the coordinator, then the store, then check that no goroutine is left.
type harness struct {
	t     *testing.T
	st    *storage.Store
	c     *Coordinator
	ids   atomic.Uint32
	fails chan error
	// rebuild, when set, is called by OnFailure (from the barrier loop)
	// after the failure has been recorded.
	rebuild func(cause error)
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	leaks := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, leaks) })
	h := &harness{t: t, st: newTestStore(t), fails: make(chan error, 16)}
	h.c = NewCoordinator(h.st, CoordinatorOptions{
		BarrierInterval: time.Hour, // barriers only when a test asks
		Logger:          slog.New(slog.DiscardHandler),
		OnFailure: func(err error) {
			select {
			case h.fails <- err:
			default:
			}
			if h.rebuild != nil {
				h.rebuild(err)
			}
		},
	})
	t.Cleanup(h.c.Close)
	return h
}

func (h *harness) newID() ActorID { return ActorID(h.ids.Add(1)) }

// tableNode is a table actor: DML chunks and barriers enter through src
// and are materialized into layout.
type tableNode struct {
	actor  *Actor
	src    *Source
	layout *storage.Table
	mat    *Materialize
}

func (h *harness) newTable(id uint32) *tableNode {
	src := NewSource(16)
	sc := NewStateContext(h.st)
	layout := kvLayout(id)
	mat := NewMaterialize(&Receiver{C: src.C, Typ: kvTypes}, sc, layout)
	return &tableNode{actor: &Actor{ID: h.newID(), Exec: mat, State: sc}, src: src, layout: layout, mat: mat}
}

func (tn *tableNode) sources() map[ActorID]*Source { return map[ActorID]*Source{tn.actor.ID: tn.src} }

// send sends one chunk of changes into the table's source, as a DML
// statement does.
func (h *harness) send(tn *tableNode, cs ...change) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := tn.src.Acquire(ctx); err != nil {
		h.t.Fatalf("acquire source: %v", err)
	}
	defer tn.src.Release()
	select {
	case tn.src.C <- chunkMsg(kvTypes, cs...):
	case <-ctx.Done():
		dumpGoroutines(h.t)
		h.t.Fatalf("send into source: %v", ctx.Err())
	}
}

// checkpoint runs fn (a coordinator call) with a time limit and returns
// its error; it fails the test (dumping goroutines) when fn hangs.
func (h *harness) bounded(what string, fn func() error) error {
	h.t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(waitLimit):
		dumpGoroutines(h.t)
		h.t.Fatalf("%s hung", what)
		return nil
	}
}

func (h *harness) checkpoint() error {
	h.t.Helper()
	return h.bounded("Checkpoint", func() error { return h.c.Checkpoint(context.Background()) })
}

func (h *harness) mustCheckpoint() {
	h.t.Helper()
	if err := h.checkpoint(); err != nil {
		h.t.Fatalf("Checkpoint: %v", err)
	}
}

func (h *harness) mutate(m Mutation, actors []*Actor, sources map[ActorID]*Source) error {
	h.t.Helper()
	return h.bounded("Mutate", func() error { return h.c.Mutate(context.Background(), m, actors, sources) })
}

func dumpGoroutines(t testing.TB) {
	var sb strings.Builder
	_ = pprof.Lookup("goroutine").WriteTo(&sb, 1)
	t.Log(sb.String())
}

// gateExec passes its input through and reports each barrier's Prev on
// seen; while hold is set, each barrier waits for a token on release
// before it goes on (so the test can keep a barrier in flight).
type gateExec struct {
	in      Executor
	seen    chan uint64
	hold    atomic.Bool
	release chan struct{}
}

func newGate(in Executor) *gateExec {
	return &gateExec{in: in, seen: make(chan uint64, 1024), release: make(chan struct{})}
}

func (g *gateExec) Types() []types.Type { return g.in.Types() }

func (g *gateExec) Next(ctx context.Context) (Message, error) {
	m, err := g.in.Next(ctx)
	if err != nil || m.Barrier == nil {
		return m, err
	}
	g.seen <- m.Barrier.Prev
	if g.hold.Load() {
		select {
		case <-g.release:
		case <-ctx.Done():
			return Message{}, ctx.Err()
		}
	}
	return m, nil
}

// waitSeen waits until the gate has seen barrier prev.
func (g *gateExec) waitSeen(t *testing.T, prev uint64) {
	t.Helper()
	timeout := time.After(waitLimit)
	for {
		select {
		case p := <-g.seen:
			if p == prev {
				return
			}
		case <-timeout:
			dumpGoroutines(t)
			t.Fatalf("barrier %d never reached the gate", prev)
		}
	}
}

// newSink returns an actor that reads from a new output of up's dispatcher
// through a gate.
func (h *harness) newSink(up *Actor) (*Actor, *gateExec) {
	ch := make(chan Message, 16)
	id := h.newID()
	up.Out.AddOutput(&Output{Actor: id, C: ch})
	g := newGate(&Receiver{C: ch, Typ: kvTypes})
	return &Actor{ID: id, Exec: g, State: NewStateContext(h.st)}, g
}

// TestCoordinatorEpochsInOrder: every barrier reaches every actor, epochs
// commit one after the other, and an epoch's writes are invisible until
// it commits.
func TestCoordinatorEpochsInOrder(t *testing.T) {
	h := newHarness(t)
	tn := h.newTable(1)
	s1, g1 := h.newSink(tn.actor)
	s2, g2 := h.newSink(s1) // a chain: table -> s1 -> s2
	s3, g3 := h.newSink(tn.actor)
	base := h.c.CommittedEpoch()
	if base != h.st.CommittedEpoch() {
		t.Fatalf("coordinator starts at %d, store at %d", base, h.st.CommittedEpoch())
	}
	h.c.Start([]*Actor{tn.actor, s1, s2, s3}, tn.sources(), nil)

	for i := uint64(1); i <= 5; i++ {
		h.send(tn, ins(int64(i), int64(i*10)))
		h.mustCheckpoint()
		if got := h.c.CommittedEpoch(); got != base+i {
			t.Fatalf("after checkpoint %d: committed epoch %d, want %d", i, got, base+i)
		}
		if got := h.st.CommittedEpoch(); got != base+i {
			t.Fatalf("after checkpoint %d: store committed epoch %d, want %d", i, got, base+i)
		}
		// Checkpoint returned: the row sent before it is committed.
		if n := len(tableRows(t, h.st, tn.layout)); n != int(i) {
			t.Fatalf("after checkpoint %d: table holds %d rows", i, n)
		}
	}
	for name, g := range map[string]*gateExec{"s1": g1, "s2": g2, "s3": g3} {
		for i := uint64(1); i <= 5; i++ {
			select {
			case p := <-g.seen:
				if p != base+i {
					t.Fatalf("%s: barrier %d arrived, want %d (in order)", name, p, base+i)
				}
			default:
				t.Fatalf("%s: barrier %d never arrived", name, base+i)
			}
		}
	}

	// Hold the next barrier at s2: its epoch's writes must stay invisible.
	g2.hold.Store(true)
	h.send(tn, ins(int64(100), int64(1)))
	done := make(chan error, 1)
	go func() { done <- h.c.Checkpoint(context.Background()) }()
	g2.waitSeen(t, base+6) // the table actor has written the row and passed the barrier
	time.Sleep(20 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("Checkpoint returned (%v) while an actor had not collected the barrier", err)
	default:
	}
	if got := h.c.CommittedEpoch(); got != base+5 {
		t.Fatalf("committed epoch %d while the barrier is in flight, want %d", got, base+5)
	}
	if n := len(tableRows(t, h.st, tn.layout)); n != 5 {
		t.Fatalf("uncommitted write visible: table holds %d rows, want 5", n)
	}
	g2.hold.Store(false)
	g2.release <- struct{}{}
	if err := h.bounded("Checkpoint", func() error { return <-done }); err != nil {
		t.Fatal(err)
	}
	if got := h.c.CommittedEpoch(); got != base+6 {
		t.Fatalf("committed epoch %d, want %d", got, base+6)
	}
	if n := len(tableRows(t, h.st, tn.layout)); n != 6 {
		t.Fatalf("after commit: table holds %d rows, want 6", n)
	}
}

// TestCoordinatorGroupCommit: Checkpoint calls arriving while a barrier is
// in flight are served together by the next one, and all return.
func TestCoordinatorGroupCommit(t *testing.T) {
	h := newHarness(t)
	tn := h.newTable(1)
	sink, g := h.newSink(tn.actor)
	h.c.Start([]*Actor{tn.actor, sink}, tn.sources(), nil)
	base := h.c.CommittedEpoch()

	g.hold.Store(true)
	first := make(chan error, 1)
	go func() { first <- h.c.Checkpoint(context.Background()) }()
	g.waitSeen(t, base+1)

	const n = 20
	errs := make(chan error, n)
	// A row sent now belongs to the next epoch (the source's channel holds
	// it while the table actor waits for the commit).
	h.send(tn, ins(int64(1), int64(1)))
	for i := 0; i < n; i++ {
		go func() { errs <- h.c.Checkpoint(context.Background()) }()
	}
	time.Sleep(100 * time.Millisecond) // let them all queue up
	g.hold.Store(false)
	g.release <- struct{}{}
	if err := h.bounded("first Checkpoint", func() error { return <-first }); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if err := h.bounded("queued Checkpoint", func() error { return <-errs }); err != nil {
			t.Fatal(err)
		}
	}
	got := h.c.CommittedEpoch() - base
	if got < 2 || got > 3 {
		t.Fatalf("%d checkpoints took %d barriers; want 2 (the one in flight and one for all queued), at most 3", n+1, got)
	}
	if rows := len(tableRows(t, h.st, tn.layout)); rows != 1 {
		t.Fatalf("table holds %d rows, want 1", rows)
	}
}

// TestCoordinatorQueuedMutations: several mutations submitted at once get
// one barrier each, in turn, while checkpoints keep arriving; every caller
// returns. (A slice aliasing bug in the barrier loop used to overwrite a
// queued mutation with a checkpoint request, so its Mutate never returned.)
func TestCoordinatorQueuedMutations(t *testing.T) {
	h := newHarness(t)
	tn := h.newTable(1)
	sink, g := h.newSink(tn.actor)
	h.c.Start([]*Actor{tn.actor, sink}, tn.sources(), nil)
	base := h.c.CommittedEpoch()

	g.hold.Store(true)
	var wg sync.WaitGroup
	results := make(chan error, 16)
	call := func(f func() error) {
		wg.Add(1)
		go func() { defer wg.Done(); results <- f() }()
	}
	call(func() error { return h.c.Checkpoint(context.Background()) })
	g.waitSeen(t, base+1)
	const muts = 3
	for i := 0; i < muts; i++ {
		m := &StopMutation{Actors: map[ActorID]bool{}} // changes nothing
		call(func() error { return h.c.Mutate(context.Background(), m, nil, nil) })
	}
	time.Sleep(50 * time.Millisecond)
	g.release <- struct{}{} // barrier 1 commits; one mutation goes next, two wait
	g.waitSeen(t, base+2)
	call(func() error { return h.c.Checkpoint(context.Background()) })
	time.Sleep(50 * time.Millisecond)
	g.hold.Store(false)
	g.release <- struct{}{}

	all := make(chan struct{})
	go func() { wg.Wait(); close(all) }()
	select {
	case <-all:
	case <-time.After(waitLimit):
		dumpGoroutines(t)
		t.Fatalf("a queued Mutate or Checkpoint never returned")
	}
	close(results)
	for err := range results {
		if err != nil {
			t.Fatal(err)
		}
	}
	// One barrier per mutation at least, plus the first.
	if got := h.c.CommittedEpoch() - base; got < 1+muts {
		t.Fatalf("%d barriers for %d mutations", got, muts)
	}
}

// viewNode is a view over a table, created as a CreatingJob: a LogWriter
// on the table's dispatcher and a StreamScan with backfill feeding a
// Materialize, on the job's own barriers until it joins.
type viewNode struct {
	actor  *Actor
	writer *Actor
	scan   *StreamScan
	mat    *Materialize
	layout *storage.Table
	count  *countExec
	gate   *gateExec
	prog   *BackfillProgress
	closed chan struct{}
	add    *AddMutation
	job    *CreatingJob
}

// caughtUp reports whether the view's backfill has finished (joined and
// replayed the log store).
func (v *viewNode) caughtUp() bool {
	select {
	case <-v.prog.Done():
		return true
	default:
		return false
	}
}

// actors returns the ids of the view's actors, its writer's included.
func (v *viewNode) actors() map[ActorID]bool {
	return map[ActorID]bool{v.actor.ID: true, v.writer.ID: true}
}

// countExec counts the rows its input emits by op.
type countExec struct {
	in      Executor
	inserts atomic.Int64
	deletes atomic.Int64
}

func (c *countExec) Types() []types.Type { return c.in.Types() }
func (c *countExec) Next(ctx context.Context) (Message, error) {
	m, err := c.in.Next(ctx)
	if err == nil && m.Chunk != nil {
		for i := 0; i < m.Chunk.NumRows(); i++ {
			if m.Chunk.Op(i).IsInsert() {
				c.inserts.Add(1)
			} else {
				c.deletes.Add(1)
			}
		}
	}
	return m, err
}

// hookExec calls before once, at its first Next.
type hookExec struct {
	in     Executor
	before func()
	called bool
}

func (e *hookExec) Types() []types.Type { return e.in.Types() }
func (e *hookExec) Next(ctx context.Context) (Message, error) {
	if !e.called {
		e.called = true
		e.before()
	}
	return e.in.Next(ctx)
}

// newView builds view id over up; hook, when set, runs at the view
// actor's first Next.
func (h *harness) newView(up *tableNode, id uint32, hook func()) *viewNode {
	v := &viewNode{layout: kvLayout(id), closed: make(chan struct{}), prog: NewBackfillProgress()}
	ch := make(chan Message, 16)
	fwd := make(chan Message, 4)
	barriers := make(chan Message, 1)
	state := NewBackfillTables([]uint32{id + 1000, id + 2000}, up.layout)
	wsc := NewStateContext(h.st)
	v.writer = &Actor{ID: h.newID(), State: wsc,
		Exec: NewLogWriter(&Receiver{C: ch, Typ: kvTypes}, up.layout, wsc, state, storage.AllVnodes(), id, v.prog)}
	sc := NewStateContext(h.st)
	aid := h.newID()
	v.scan = NewStreamScan(&Receiver{C: fwd, Typ: kvTypes}, up.layout, sc,
		ScanOptions{Backfill: true, State: state, Progress: v.prog, Job: id, Scans: 1,
			Barriers: &Receiver{C: barriers, Typ: kvTypes}})
	var in Executor = v.scan
	if hook != nil {
		in = &hookExec{in: in, before: hook}
	}
	v.gate = newGate(in)
	v.count = &countExec{in: v.gate}
	v.mat = NewMaterialize(v.count, sc, v.layout)
	v.actor = &Actor{ID: aid, Exec: v.mat, State: sc,
		Closers: []func(){v.scan.Close, func() { close(v.closed) }}}
	v.add = &AddMutation{Outputs: map[ActorID][]*Output{up.actor.ID: {{Actor: v.writer.ID, C: ch}}}}
	v.job = &CreatingJob{ID: id, Actors: []*Actor{v.actor}, Writers: []*Actor{v.writer},
		Scans: []*StreamScan{v.scan}, Barriers: []chan Message{barriers},
		Forward:  map[ActorID]*Output{v.writer.ID: {Actor: aid, C: fwd}},
		Progress: []*BackfillProgress{v.prog}}
	return v
}

// create starts v's job (its writer attached by an Add barrier).
func (h *harness) create(v *viewNode) error {
	h.t.Helper()
	return h.bounded("Create", func() error { return h.c.Create(context.Background(), 0, v.add, v.job, nil) })
}

// catchUp checkpoints until the view's backfill has caught up.
func (h *harness) catchUp(v *viewNode) {
	h.t.Helper()
	for deadline := time.Now().Add(waitLimit); !v.caughtUp(); {
		if time.Now().After(deadline) {
			h.t.Fatalf("view %d: backfill never caught up", v.layout.ID)
		}
		h.mustCheckpoint()
		time.Sleep(2 * time.Millisecond) // the job runs on its own barriers
	}
	h.mustCheckpoint()
}

// checkView checks the view holds exactly the table's rows and that its
// input was exactly-once (no repaired conflict).
func checkView(t *testing.T, h *harness, tn *tableNode, v *viewNode) {
	t.Helper()
	want := multisetOf(tableRows(t, h.st, tn.layout))
	got := multisetOf(tableRows(t, h.st, v.layout))
	if d := got.diff(want); d != "" {
		t.Fatalf("view differs from its upstream:\n%s", d)
	}
	if v.mat.Conflicts != 0 {
		t.Fatalf("view's input contradicted it %d times: some upstream row or change arrived twice or not at all (I3)", v.mat.Conflicts)
	}
	if net := v.count.inserts.Load() - v.count.deletes.Load(); net != int64(len(want)) {
		t.Fatalf("view received %d inserts and %d deletes, net %d, want %d rows",
			v.count.inserts.Load(), v.count.deletes.Load(), net, len(want))
	}
}

// TestCoordinatorAddBackfillExactlyOnce: a view added by an Add mutation
// backfills exactly the upstream rows as of the Add barrier, and changes
// after it arrive once, even when the next barrier (and its changes) is
// already waiting when the scan starts its snapshot.
func TestCoordinatorAddBackfillExactlyOnce(t *testing.T) {
	h := newHarness(t)
	tn := h.newTable(1)
	h.c.Start([]*Actor{tn.actor}, tn.sources(), nil)
	const initial = 2500 // more than two snapshot chunks
	var cs []change
	for i := 1; i <= initial; i++ {
		cs = append(cs, ins(int64(i), int64(i)))
	}
	h.send(tn, cs...)
	h.mustCheckpoint()

	// The view actor is slow to start its snapshot: by then the next
	// epoch's changes have committed (and are in the log store).
	started := make(chan struct{})
	v := h.newView(tn, 2, func() { <-started })
	if err := h.create(v); err != nil {
		t.Fatal(err)
	}
	// Epoch after the Add barrier: new rows, deletes, an update.
	h.send(tn, ins(int64(5000), int64(1)), ins(int64(5001), int64(2)), del(int64(1), int64(1)), del(int64(2), int64(2)))
	h.send(tn, upd(trow{int64(3), int64(3)}, trow{int64(3), int64(33)})...)
	h.mustCheckpoint() // without the view's actor, which has not started (I8)
	close(started)
	for i, deadline := 0, time.Now().Add(waitLimit); !v.caughtUp(); i++ {
		if time.Now().After(deadline) {
			ph, read, total, lag := v.prog.Snapshot()
			j := h.c.CreatingJob(2)
			var je uint64
			if j != nil {
				je = j.Epoch()
			}
			dumpGoroutines(t)
			t.Fatalf("snapshot never finished: %s %d/%d lag %d drained %v, job %v epoch %d", ph, read, total, lag, v.prog.Drained(), j != nil, je)
		}
		h.send(tn, ins(int64(6000+i), int64(i)))
		h.mustCheckpoint()
		time.Sleep(2 * time.Millisecond)
	}
	h.send(tn, del(int64(5000), int64(1)))
	h.mustCheckpoint()
	checkView(t, h, tn, v)
}

// TestCoordinatorAddWhileWriting: a writer keeps changing the table (and
// checkpointing) while a view is added; the view ends equal to the table
// with every change applied once.
func TestCoordinatorAddWhileWriting(t *testing.T) {
	h := newHarness(t)
	tn := h.newTable(1)
	h.c.Start([]*Actor{tn.actor}, tn.sources(), nil)
	rng := rand.New(rand.NewPCG(1, 2))
	rel := newRandRel(rng, func(rng *rand.Rand, pk int64) trow { return trow{pk, rng.Int64N(100)} })
	rel.pInsert = 0.7
	writeEpoch := func() {
		for _, cs := range rel.epoch(40) {
			h.send(tn, cs...)
		}
		h.mustCheckpoint()
	}
	for i := 0; i < 30; i++ {
		writeEpoch()
	}

	stop := make(chan struct{})
	writerDone := make(chan struct{})
	go func() { // h.send / mustCheckpoint call t.Fatalf only on hangs
		defer close(writerDone)
		for {
			select {
			case <-stop:
				return
			default:
			}
			for _, cs := range rel.epoch(40) {
				if _, err := sendCtx(tn, cs...); err != nil {
					return
				}
			}
			if h.c.Checkpoint(context.Background()) != nil {
				return
			}
		}
	}()
	time.Sleep(10 * time.Millisecond)
	var views []*viewNode
	for i := 0; i < 3; i++ {
		v := h.newView(tn, uint32(10+i), nil)
		if err := h.create(v); err != nil {
			t.Fatal(err)
		}
		views = append(views, v)
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	close(stop)
	select {
	case <-writerDone:
	case <-time.After(waitLimit):
		dumpGoroutines(t)
		t.Fatal("writer hung")
	}
	h.mustCheckpoint()
	if d := multisetOf(tableRows(t, h.st, tn.layout)).diff(multisetOf(rel.snapshot())); d != "" {
		t.Fatalf("table differs from what was written:\n%s", d)
	}
	for _, v := range views {
		h.catchUp(v)
		checkView(t, h, tn, v)
	}
}

// sendCtx is send without the testing.T (for writer goroutines).
// sendCtx sends cs into tn's source and returns the source's mark of it.
func sendCtx(tn *tableNode, cs ...change) (uint64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := tn.src.Acquire(ctx); err != nil {
		return 0, err
	}
	defer tn.src.Release()
	select {
	case tn.src.C <- chunkMsg(kvTypes, cs...):
		return tn.src.Mark(), nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// TestCoordinatorStop: a Stop mutation stops the listed actors (they exit
// and run their closers), the coordinator forgets them, and the upstream
// no longer sends to them (it would block on their full channel).
func TestCoordinatorStop(t *testing.T) {
	h := newHarness(t)
	tn := h.newTable(1)
	h.c.Start([]*Actor{tn.actor}, tn.sources(), nil)
	h.send(tn, ins(int64(1), int64(1)))
	h.mustCheckpoint()
	v := h.newView(tn, 2, nil)
	if err := h.create(v); err != nil {
		t.Fatal(err)
	}
	h.send(tn, ins(int64(2), int64(2)))
	h.mustCheckpoint()
	h.catchUp(v)
	checkView(t, h, tn, v)

	if err := h.mutate(&StopMutation{Actors: v.actors()}, nil, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-v.closed:
	case <-time.After(waitLimit):
		t.Fatal("stopped actor did not exit")
	}
	h.c.mu.Lock()
	_, still := h.c.actors[v.actor.ID]
	h.c.mu.Unlock()
	if still {
		t.Fatal("stopped actor still registered")
	}
	if outs := len(tn.actor.Out.Outputs()); outs != 0 {
		t.Fatalf("upstream still has %d outputs", outs)
	}
	// Far more chunks than the stopped view's channel holds.
	for i := 0; i < 50; i++ {
		h.send(tn, ins(int64(100+i), int64(i)))
	}
	h.mustCheckpoint()
	if n := len(tableRows(t, h.st, tn.layout)); n != 52 {
		t.Fatalf("table holds %d rows, want 52", n)
	}
	if n := len(tableRows(t, h.st, v.layout)); n != 2 {
		t.Fatalf("stopped view changed: %d rows", n)
	}
}

// failExec fails (or panics) on a row whose value column is bad.
type failExec struct {
	in    Executor
	bad   int64
	panic bool
}

func (f *failExec) Types() []types.Type { return f.in.Types() }
func (f *failExec) Next(ctx context.Context) (Message, error) {
	m, err := f.in.Next(ctx)
	if err != nil || m.Chunk == nil {
		return m, err
	}
	for i := 0; i < m.Chunk.NumRows(); i++ {
		if v, _ := m.Chunk.Row(i, nil)[1].(int64); v == f.bad {
			m.Chunk.Release()
			if f.panic {
				panic(fmt.Sprintf("poison row %d", i))
			}
			return Message{}, fmt.Errorf("poison row %d", i)
		}
	}
	return m, nil
}

// failGraph is a table with a downstream actor that fails on poison rows;
// after a failure the harness rebuilds it over the same state tables.
type failGraph struct {
	h     *harness
	panic bool
	mu    sync.Mutex
	table *tableNode
	gen   int
}

func (fg *failGraph) build() ([]*Actor, map[ActorID]*Source, []*CreatingJob) {
	tn := fg.h.newTable(1)
	ch := make(chan Message, 16)
	id := fg.h.newID()
	tn.actor.Out.AddOutput(&Output{Actor: id, C: ch})
	f := &Actor{ID: id, State: NewStateContext(fg.h.st),
		Exec: &failExec{in: &Receiver{C: ch, Typ: kvTypes}, bad: -1, panic: fg.panic}}
	fg.mu.Lock()
	fg.table = tn
	fg.gen++
	fg.mu.Unlock()
	return []*Actor{tn.actor, f}, tn.sources(), nil
}

func (fg *failGraph) cur() (*tableNode, int) {
	fg.mu.Lock()
	defer fg.mu.Unlock()
	return fg.table, fg.gen
}

func testActorFailure(t *testing.T, panics bool) {
	h := newHarness(t)
	fg := &failGraph{h: h, panic: panics}
	h.rebuild = func(error) { h.c.Restart(fg.build()) }
	h.c.Start(fg.build())

	tn, _ := fg.cur()
	h.send(tn, ins(int64(1), int64(1)))
	h.mustCheckpoint()
	committed := h.c.CommittedEpoch()

	h.send(tn, ins(int64(2), int64(2)), ins(int64(3), int64(-1)))
	// Several waiters: the ones the failed barrier serves get
	// ErrGraphFailed, later ones a barrier of the rebuilt graph; none hangs.
	errs := make(chan error, 4)
	for i := 0; i < 4; i++ {
		go func() { errs <- h.c.Checkpoint(context.Background()) }()
	}
	failed := 0
	for i := 0; i < 4; i++ {
		err := h.bounded("Checkpoint", func() error { return <-errs })
		switch {
		case errors.Is(err, ErrGraphFailed):
			failed++
		case err != nil:
			t.Fatalf("Checkpoint: %v, want nil or ErrGraphFailed", err)
		}
	}
	if failed == 0 {
		t.Fatal("no waiter learned that its epoch failed")
	}
	select {
	case cause := <-h.fails:
		want := "poison row"
		if panics {
			want = "panicked: poison row"
		}
		if !strings.Contains(cause.Error(), want) {
			t.Fatalf("OnFailure cause %q, want it to mention %q", cause, want)
		}
	default:
		t.Fatal("OnFailure was not called")
	}
	if got := h.c.CommittedEpoch(); got < committed {
		t.Fatalf("committed epoch went back from %d to %d", committed, got)
	}
	// Nothing of the failed epoch is committed; what was committed stays.
	if d := multisetOf(tableRows(t, h.st, tn.layout)).diff(multisetOf([]trow{{int64(1), int64(1)}})); d != "" {
		t.Fatalf("after the failure the table differs from its committed state:\n%s", d)
	}
	// The rebuilt graph works.
	tn2, gen := fg.cur()
	if gen != 2 {
		t.Fatalf("graph rebuilt %d times, want once", gen-1)
	}
	h.send(tn2, ins(int64(4), int64(4)))
	h.mustCheckpoint()
	if n := len(tableRows(t, h.st, tn2.layout)); n != 2 {
		t.Fatalf("after recovery the table holds %d rows, want 2", n)
	}
}

// TestCoordinatorActorError: an actor returning an error fails the
// graph: waiters get ErrGraphFailed, OnFailure rebuilds, nothing hangs.
func TestCoordinatorActorError(t *testing.T) { testActorFailure(t, false) }

// TestCoordinatorActorPanic: the same with a panicking actor.
func TestCoordinatorActorPanic(t *testing.T) { testActorFailure(t, true) }

// TestCoordinatorUpstreamEnded (I5): an input closed without a barrier
// fails the actor and the graph; it never hangs.
func TestCoordinatorUpstreamEnded(t *testing.T) {
	h := newHarness(t)
	tn := h.newTable(1)
	// A relay between the table and the sink, which ends its output (closes
	// the channel) when it sees a row with value -1.
	up := make(chan Message, 16)
	down := make(chan Message, 16)
	sinkID := h.newID()
	tn.actor.Out.AddOutput(&Output{Actor: sinkID, C: up})
	quit := make(chan struct{})
	relayDone := make(chan struct{})
	go func() {
		defer close(relayDone)
		for {
			select {
			case m := <-up:
				if m.Chunk != nil {
					if v, _ := m.Chunk.Row(0, nil)[1].(int64); v == -1 {
						m.Chunk.Release()
						close(down)
						<-quit
						return
					}
				}
				select {
				case down <- m:
				case <-quit:
					return
				}
			case <-quit:
				return
			}
		}
	}()
	t.Cleanup(func() { close(quit); <-relayDone })
	sink := &Actor{ID: sinkID, State: NewStateContext(h.st), Exec: &Receiver{C: down, Typ: kvTypes}}
	h.c.Start([]*Actor{tn.actor, sink}, tn.sources(), nil)
	h.send(tn, ins(int64(1), int64(1)))
	h.mustCheckpoint()

	h.send(tn, ins(int64(2), int64(-1)))
	if err := h.checkpoint(); !errors.Is(err, ErrGraphFailed) {
		t.Fatalf("Checkpoint after the upstream ended: %v, want ErrGraphFailed", err)
	}
	select {
	case cause := <-h.fails:
		if !errors.Is(cause, ErrUpstreamEnded) {
			t.Fatalf("OnFailure cause %v, want ErrUpstreamEnded", cause)
		}
	default:
		t.Fatal("OnFailure was not called")
	}
	// No rebuild here: the coordinator runs an empty graph and still works.
	h.mustCheckpoint()
}

func mergeSources(ms ...map[ActorID]*Source) map[ActorID]*Source {
	out := map[ActorID]*Source{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// TestCoordinatorClose: Close while a barrier is held and callers wait:
// they get ErrClosed, every actor is joined (goleak in the cleanup), and
// later calls fail fast.
func TestCoordinatorClose(t *testing.T) {
	h := newHarness(t)
	tn := h.newTable(1)
	sink, g := h.newSink(tn.actor)
	h.c.Start([]*Actor{tn.actor, sink}, tn.sources(), nil)
	h.mustCheckpoint()
	g.hold.Store(true)
	errs := make(chan error, 3)
	go func() { errs <- h.c.Checkpoint(context.Background()) }()
	g.waitSeen(t, h.c.CommittedEpoch()+1)
	go func() { errs <- h.c.Checkpoint(context.Background()) }()
	go func() {
		errs <- h.c.Mutate(context.Background(), &StopMutation{Actors: map[ActorID]bool{sink.ID: true}}, nil, nil)
	}()
	time.Sleep(20 * time.Millisecond)
	if err := h.bounded("Close", func() error { h.c.Close(); return nil }); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if err := h.bounded("waiter", func() error { return <-errs }); !errors.Is(err, ErrClosed) && !errors.Is(err, ErrGraphFailed) {
			t.Fatalf("waiter after Close: %v, want ErrClosed", err)
		}
	}
	if err := h.checkpoint(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Checkpoint after Close: %v, want ErrClosed", err)
	}
	h.c.Close() // idempotent
}

// TestCoordinatorSubmitCanceled: a caller whose context ends before its
// request is taken gets the context's error.
func TestCoordinatorSubmitCanceled(t *testing.T) {
	h := newHarness(t)
	tn := h.newTable(1)
	sink, g := h.newSink(tn.actor)
	h.c.Start([]*Actor{tn.actor, sink}, tn.sources(), nil)
	g.hold.Store(true)
	first := make(chan error, 1)
	go func() { first <- h.c.Checkpoint(context.Background()) }()
	g.waitSeen(t, h.c.CommittedEpoch()+1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if err := h.bounded("Checkpoint", func() error { return h.c.Checkpoint(ctx) }); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Checkpoint with an expired context: %v", err)
	}
	g.hold.Store(false)
	g.release <- struct{}{}
	if err := h.bounded("Checkpoint", func() error { return <-first }); err != nil {
		t.Fatal(err)
	}
}

var _ = chunk.Insert

// TestCoordinatorLostSourceData: changes sent into a source whose graph
// then fails are lost with that graph; a caller that waits for them with
// CommitSource must learn it, even when the barrier that serves it runs
// on the rebuilt graph (with Checkpoint it would wrongly see success).
func TestCoordinatorLostSourceData(t *testing.T) {
	h := newHarness(t)
	fg := &failGraph{h: h}
	h.rebuild = func(error) { h.c.Restart(fg.build()) }
	acts, srcs, _ := fg.build()
	// A second table, innocent, in the same graph; rebuilt with it.
	other := h.newTable(9)
	h.c.Start(append(acts, other.actor), mergeSources(srcs, other.sources()), nil)
	tn, _ := fg.cur()
	graphDone := h.c.Done()
	h.send(tn, ins(int64(1), int64(-1))) // poison: the graph fails
	errs := make(chan error, 1)
	go func() { errs <- h.c.Checkpoint(context.Background()) }()
	select {
	case <-graphDone:
	case <-time.After(waitLimit):
		t.Fatal("graph never failed")
	}
	// The innocent write goes into the failed graph's source (maybe
	// already torn down and rebuilt without it).
	mark, lost := sendCtx(other, ins(int64(7), int64(7)))
	commit := h.bounded("CommitSource", func() error { return h.c.CommitSource(context.Background(), other.src, mark) })
	// The checkpoint is served by the failed barrier or, when the actor
	// failed before it was taken, by one of the rebuilt graph.
	if err := h.bounded("Checkpoint", func() error { return <-errs }); err != nil && !errors.Is(err, ErrGraphFailed) {
		t.Fatalf("poisoned checkpoint: %v, want nil or ErrGraphFailed", err)
	}
	if lost == nil && commit == nil {
		if n := len(tableRows(t, h.st, other.layout)); n == 0 {
			t.Fatal("CommitSource reported success for a change that was lost with its graph")
		}
	}
	if commit != nil && !errors.Is(commit, ErrGraphFailed) {
		t.Fatalf("CommitSource: %v, want nil or ErrGraphFailed", commit)
	}
	select {
	case <-other.src.Dead():
	default:
		t.Fatal("source of the failed graph is not marked dead")
	}
}

// TestCoordinatorCommittedBeforeFailure: changes that a barrier
// committed are reported committed to a CommitSource that the next
// barrier serves, even when that barrier fails. (A statement's request
// can reach the barrier loop after the barrier that carries its changes
// was injected; that barrier commits them and the next one, failing,
// answered the request: the client got 40001 for a committed row.)
func TestCoordinatorCommittedBeforeFailure(t *testing.T) {
	h := newHarness(t)
	fg := &failGraph{h: h}
	h.rebuild = func(error) { h.c.Restart(fg.build()) }
	acts, srcs, _ := fg.build()
	other := h.newTable(9)
	h.c.Start(append(acts, other.actor), mergeSources(srcs, other.sources()), nil)
	tn, _ := fg.cur()
	mark, err := sendCtx(other, ins(int64(7), int64(7)))
	if err != nil {
		t.Fatal(err)
	}
	if other.src.Committed(mark) {
		t.Fatal("a change is marked committed before any barrier")
	}
	h.mustCheckpoint()
	if !other.src.Committed(mark) {
		t.Fatal("a committed change is not marked committed")
	}
	graphDone := h.c.Done()
	h.send(tn, ins(int64(1), int64(-1))) // poison: the next barrier fails
	if err := h.checkpoint(); !errors.Is(err, ErrGraphFailed) {
		t.Fatalf("poisoned checkpoint: %v, want ErrGraphFailed", err)
	}
	select {
	case <-graphDone:
	case <-time.After(waitLimit):
		t.Fatal("graph never failed")
	}
	if err := h.bounded("CommitSource", func() error { return h.c.CommitSource(context.Background(), other.src, mark) }); err != nil {
		t.Fatalf("CommitSource of a committed change after a failure: %v", err)
	}
	// What was sent after the commit into the dead source is lost, and
	// reported so.
	select {
	case other.src.C <- chunkMsg(kvTypes, ins(int64(8), int64(8))):
	default:
	}
	if err := h.bounded("CommitSource", func() error { return h.c.CommitSource(context.Background(), other.src, mark+1) }); !errors.Is(err, ErrGraphFailed) {
		t.Fatalf("CommitSource of a change lost with its graph: %v, want ErrGraphFailed", err)
	}
	if n := len(tableRows(t, h.st, other.layout)); n != 1 {
		t.Fatalf("other holds %d rows, want 1", n)
	}
}

func TestRecoveryBackoff(t *testing.T) {
	want := []time.Duration{0, 0, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond}
	for n, w := range want {
		if got := recoveryBackoff(n); got != w {
			t.Errorf("recoveryBackoff(%d) = %v, want %v", n, got, w)
		}
	}
	if got := recoveryBackoff(40); got != 5*time.Second {
		t.Errorf("recoveryBackoff(40) = %v, want the 5s cap", got)
	}
}

// TestCoordinatorMutateInStaleGraph: a mutation made for a graph that a
// recovery has since replaced fails with ErrGraphFailed and starts none of
// its actors (they would be wired to actors that no longer run).
func TestCoordinatorMutateInStaleGraph(t *testing.T) {
	h := newHarness(t)
	tn := h.newTable(1)
	h.c.Start([]*Actor{tn.actor}, tn.sources(), nil)
	h.mustCheckpoint()
	gen := h.c.Generation()
	h.c.Abort(errors.New("test failure"))
	if err := h.checkpoint(); !errors.Is(err, ErrGraphFailed) {
		t.Fatalf("Checkpoint after Abort: %v", err)
	}
	if h.c.Generation() == gen {
		t.Fatal("a recovery did not change the generation")
	}
	late := h.newTable(2)
	err := h.bounded("MutateIn", func() error {
		return h.c.MutateIn(context.Background(), gen, nil, []*Actor{late.actor}, late.sources())
	})
	if !errors.Is(err, ErrGraphFailed) {
		t.Fatalf("MutateIn for a replaced graph: %v, want ErrGraphFailed", err)
	}
	if h.c.Running(late.actor.ID) {
		t.Fatal("the stale mutation's actor was started")
	}
	err = h.bounded("MutateIn", func() error {
		return h.c.MutateIn(context.Background(), h.c.Generation(), nil, []*Actor{late.actor}, late.sources())
	})
	if err != nil || !h.c.Running(late.actor.ID) {
		t.Fatalf("MutateIn for the current graph: %v, running %v", err, h.c.Running(late.actor.ID))
	}
}

// TestCoordinatorComponentsCommitApart: a write to one table commits while
// the barrier of an unrelated part of the graph (another table and its
// view) is held in flight; that part's write commits once it is let go,
// and a global barrier (a checkpoint) waits for both.
func TestCoordinatorComponentsCommitApart(t *testing.T) {
	h := newHarness(t)
	slow := h.newTable(1)
	sink, g := h.newSink(slow.actor)
	fast := h.newTable(2)
	fsink, _ := h.newSink(fast.actor)
	h.c.Start([]*Actor{slow.actor, sink, fast.actor, fsink}, mergeSources(slow.sources(), fast.sources()), nil)
	if n := h.c.Components(); n != 2 {
		t.Fatalf("%d components, want 2", n)
	}
	h.mustCheckpoint()

	g.hold.Store(true)
	mark, err := sendCtx(slow, ins(int64(1), int64(1)))
	if err != nil {
		t.Fatal(err)
	}
	slowDone := make(chan error, 1)
	go func() { slowDone <- h.c.CommitSource(context.Background(), slow.src, mark) }()
	g.waitSeen(t, h.c.CommittedEpoch()+1)

	// The slow component's barrier is held: the other commits anyway,
	// several times.
	for i := int64(1); i <= 3; i++ {
		mark, err := sendCtx(fast, ins(i, i))
		if err != nil {
			t.Fatal(err)
		}
		if err := h.bounded("CommitSource of the fast table", func() error {
			return h.c.CommitSource(context.Background(), fast.src, mark)
		}); err != nil {
			t.Fatal(err)
		}
		if n := len(tableRows(t, h.st, fast.layout)); n != int(i) {
			t.Fatalf("fast table holds %d rows after %d commits", n, i)
		}
	}
	select {
	case err := <-slowDone:
		t.Fatalf("the held component's write returned (%v) before its barrier was let go", err)
	default:
	}
	if n := len(tableRows(t, h.st, slow.layout)); n != 0 {
		t.Fatalf("slow table holds %d rows before its epoch committed", n)
	}

	ckpt := make(chan error, 1)
	go func() { ckpt <- h.c.Checkpoint(context.Background()) }()
	g.hold.Store(false)
	g.release <- struct{}{}
	if err := h.bounded("CommitSource of the held table", func() error { return <-slowDone }); err != nil {
		t.Fatal(err)
	}
	if err := h.bounded("Checkpoint", func() error { return <-ckpt }); err != nil {
		t.Fatal(err)
	}
	if n := len(tableRows(t, h.st, slow.layout)); n != 1 {
		t.Fatalf("slow table holds %d rows, want 1", n)
	}
	if got, st := h.c.CommittedEpoch(), h.st.CommittedEpoch(); got != st {
		t.Fatalf("coordinator's committed epoch %d, store's %d", got, st)
	}
}
