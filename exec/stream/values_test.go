package stream

// Unit tests of Values (constant rows in a view): driven directly, as its
// actor would drive it, over scripted channels and an in-memory store.
// Each job barrier's batch commits (CommitJob) when Values returns the
// barrier, and only then do the rows emitted before it count: a Values
// rebuilt after that ("a restart") must continue after them.

import (
	"context"
	"testing"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

const valuesTestJob = 9

type valuesRig struct {
	t     *testing.T
	rows  [][]expr.Expr
	typ   []types.Type
	state ValuesOptions
	jobCh chan Message
	fwd   chan Message
	sc    *StateContext
	v     *Values
	prog  *BackfillProgress
	// committed are the rows emitted before the last committed job
	// barrier, in order; pending those since.
	committed, pending []int64
	epoch              uint64
}

func newValuesRig(t *testing.T, n int) *valuesRig {
	r := &valuesRig{t: t, typ: []types.Type{types.TInt64, types.TText}}
	for i := range n {
		r.rows = append(r.rows, []expr.Expr{expr.NewConst(int64(i), types.TInt64), expr.NewConst("r", types.TText)})
	}
	r.state = ValuesOptions{State: ValuesTable(77), Job: valuesTestJob}
	st := newTestStore(t)
	r.sc = NewStateContext(st)
	return r
}

// start builds a Values over the committed state, as a rebuilt job does;
// backfill false builds the one of a job that joined (Follow).
func (r *valuesRig) start(backfill bool) {
	r.jobCh, r.fwd = make(chan Message, 4), make(chan Message, 4)
	r.sc = NewStateContext(r.sc.Store)
	r.prog = NewBackfillProgress()
	opts := r.state
	opts.Backfill, opts.Barriers, opts.Progress = backfill, &Receiver{C: r.jobCh, Typ: r.typ}, r.prog
	r.v = NewValues(&Receiver{C: r.fwd, Typ: r.typ}, r.rows, r.typ, r.sc, opts)
	r.pending = nil
}

// next returns the next message, collecting the rows of a chunk.
func (r *valuesRig) next() Message {
	r.t.Helper()
	m, err := r.v.Next(context.Background())
	if err != nil {
		r.t.Fatal(err)
	}
	if m.Chunk != nil {
		for _, c := range chunkChanges(r.t, m.Chunk) {
			r.pending = append(r.pending, c.row[0].(int64))
		}
		m.Chunk.Release()
	}
	return m
}

// jobBarrier sends a job barrier with m, expects it back, and commits its
// epoch.
func (r *valuesRig) jobBarrier(m Mutation) {
	r.t.Helper()
	r.epoch++
	b := &Barrier{Prev: r.epoch, Curr: r.epoch + 1, Mutation: m}
	r.jobCh <- Message{Barrier: b}
	for {
		got := r.next()
		if got.Barrier == b {
			break
		}
		if got.Barrier != nil {
			r.t.Fatalf("unexpected barrier %d", got.Barrier.Prev)
		}
	}
	if err := r.sc.Store.CommitJob([]*storage.WriteBatch{r.sc.TakeBatch()}, false); err != nil {
		r.t.Fatal(err)
	}
	r.committed = append(r.committed, r.pending...)
	r.pending = nil
}

// checkOnce checks that the committed rows are every row, once, in order.
func (r *valuesRig) checkOnce() {
	r.t.Helper()
	if len(r.committed) != len(r.rows) {
		r.t.Fatalf("%d rows committed, want %d", len(r.committed), len(r.rows))
	}
	for i, v := range r.committed {
		if v != int64(i) {
			r.t.Fatalf("row %d is %d", i, v)
		}
	}
}

// TestValuesEmitsOnce: rows emitted before a committed job barrier are
// never emitted again, whether the job is rebuilt mid-way (the rest is
// emitted), after every row (nothing), or after it joined (it follows).
func TestValuesEmitsOnce(t *testing.T) {
	r := newValuesRig(t, 2500) // three chunks
	r.start(true)
	if m := r.next(); m.Chunk == nil || len(r.pending) != scanChunkRows {
		t.Fatalf("first message: %d rows", len(r.pending))
	}
	r.jobBarrier(nil)
	if ph, read, total, _ := r.prog.Snapshot(); ph != PhaseSnapshot || read != scanChunkRows || total != 2500 {
		t.Fatalf("progress %s %d/%d", ph, read, total)
	}

	// Rebuilt mid-way, with rows emitted since the last barrier lost (a
	// failed actor's output is not committed).
	r.next()
	r.start(true)
	r.next()
	r.next()
	r.jobBarrier(nil)
	r.checkOnce()
	if !r.prog.Drained() {
		t.Fatal("not drained once every row was emitted")
	}

	// Rebuilt after every row: nothing more, drained at its first barrier.
	r.start(true)
	r.jobBarrier(nil)
	r.checkOnce()
	if !r.prog.Drained() {
		t.Fatal("not drained after a rebuild")
	}

	// The job parks, then joins: the Values follows its writer.
	r.jobBarrier(&prepareJoin{})
	r.fwd <- Message{Barrier: &Barrier{Prev: 100, Curr: 101, Mutation: &JoinMutation{Job: valuesTestJob}}}
	r.fwd <- barrierMsg(101)
	if m := r.next(); m.Barrier == nil || m.Barrier.Prev != 101 {
		t.Fatalf("after the join: %+v", m)
	}
	if ph, _, _, _ := r.prog.Snapshot(); ph != PhaseDone {
		t.Fatalf("phase %s after the join", ph)
	}
	select {
	case <-r.prog.Done():
	default:
		t.Fatal("progress not done after the join")
	}

	// Joined: rebuilt in Follow mode, it passes barriers only.
	r.start(false)
	r.fwd <- barrierMsg(102)
	if m := r.next(); m.Barrier == nil || len(r.pending) != 0 {
		t.Fatal("a joined Values emitted rows")
	}
	r.fwd <- chunkMsg(r.typ, ins(int64(1), "x"))
	if _, err := r.v.Next(context.Background()); err == nil {
		t.Fatal("a joined Values passed a chunk from its source")
	}
	r.checkOnce()
}

// TestValuesPaused: a paused Values emits nothing (I2) until a barrier
// resumes its job; a throttle of another job changes nothing.
func TestValuesPaused(t *testing.T) {
	r := newValuesRig(t, 3)
	r.state.Paused = true
	r.start(true)
	r.jobBarrier(nil)
	r.jobBarrier(&ThrottleMutation{Kind: ThrottleBackfill, Job: valuesTestJob + 1})
	if len(r.committed) != 0 {
		t.Fatalf("a paused Values emitted %d rows", len(r.committed))
	}
	if ph, _, _, _ := r.prog.Snapshot(); ph != PhaseSnapshot || r.prog.Drained() {
		t.Fatalf("paused: phase %s, drained %v", ph, r.prog.Drained())
	}
	r.jobBarrier(&ThrottleMutation{Kind: ThrottleBackfill, Job: valuesTestJob})
	r.next()
	r.jobBarrier(nil)
	r.checkOnce()
}
